// SPDX-License-Identifier: MIT
// `timesink-cli compare` end to end: exit codes, messages, the JSON document and --op-map.
#include "tests/common/clirunner.h"

#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

namespace {

const QString kRknn16
    = QStringLiteral(TIMESINK_FIXTURES_DIR "/rknn/rknpu2_1.6.0_rk3588_perf_detail_yolov8n_1920_singlecore.txt");
const QString kRknn232
    = QStringLiteral(TIMESINK_FIXTURES_DIR "/rknn/toolkit2_2.3.2_rk3588_eval_perf_layers_yolov8n_640.txt");

const QString kRknnMulti
    = QStringLiteral(TIMESINK_FIXTURES_DIR "/rknn/rknpu2_2.0.0b0_rk3588_perf_detail_yolov8n_1920x1088_multicore.txt");

using Run = timesink::testing::CliRun;

Run cli(const QStringList& args)
{
    return timesink::testing::runCli(QStringList {QStringLiteral("compare")} + args);
}

const nlohmann::json* operatorNamed(const nlohmann::json& doc, std::string_view name)
{
    for (const auto& op : doc.at("operators")) {
        if (op.at("name") == name)
            return &op;
    }
    return nullptr;
}

} // namespace

class TestCompareCli : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QFile bad(m_dir.filePath(QStringLiteral("bad.tsv")));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write("# fine\nlonely-name\n");
        QFile good(m_dir.filePath(QStringLiteral("mine.tsv")));
        QVERIFY(good.open(QIODevice::WriteOnly));
        good.write("yolo::conv_swish\tConvExSwish\n");
    }

    void exitCodes_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("message"); // expected in stderr
        QTest::newRow("no inputs") << QStringList {} << 1 << QStringLiteral("usage: timesink-cli compare");
        QTest::newRow("one input") << QStringList {kRknn16} << 1 << QStringLiteral("usage: timesink-cli compare");
        QTest::newRow("unknown option") << QStringList {kRknn16, kRknn232, QStringLiteral("--bogus")} << 1
                                        << QStringLiteral("unknown option --bogus");
        QTest::newRow("bad steps") << QStringList {kRknn16, kRknn232, QStringLiteral("--steps"), QStringLiteral("x")}
                                   << 1 << QStringLiteral("bad step selection 'x'");
        QTest::newRow("missing step") << QStringList {kRknn16, kRknn232, QStringLiteral("--steps"),
                                                      QStringLiteral(":3")}
                                      << 1 << QStringLiteral("candidate: step index 3 does not exist");
        QTest::newRow("missing input") << QStringList {kRknn16, m_dir.filePath(QStringLiteral("nope.json"))} << 2
                                       << QStringLiteral("nope.json");
        QTest::newRow("missing op map") << QStringList {kRknn16, kRknn232, QStringLiteral("--op-map"),
                                                        m_dir.filePath(QStringLiteral("none.tsv"))}
                                        << 2 << QStringLiteral("cannot open operator map");
        QTest::newRow("malformed op map")
            << QStringList {kRknn16, kRknn232, QStringLiteral("--op-map"), m_dir.filePath(QStringLiteral("bad.tsv"))}
            << 2 << QStringLiteral("bad.tsv:2: expected a canonical name and at least one other name");
    }
    void exitCodes()
    {
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        QFETCH(QString, message);
        const Run r = cli(args);
        QCOMPARE(r.exitCode, exitCode);
        QVERIFY2(QString::fromUtf8(r.err).contains(message), r.err.constData());
    }

    void jsonDocument()
    {
        const Run r = cli({kRknn16, kRknn232, QStringLiteral("--format"), QStringLiteral("json")});
        QCOMPARE(r.exitCode, 0);
        const auto doc = nlohmann::json::parse(r.out.toStdString());
        QCOMPARE(doc.at("schema").get<std::string>(), std::string("timesink.compare/1"));
        QCOMPARE(doc.at("baseline").at("format").get<std::string>(), std::string("rknn"));
        QCOMPARE(doc.at("steps").size(), std::size_t(1));
        // Layer times from the tables (see tst_comparefixtures): conv layers 105166000 ns → 13223000 ns.
        const auto* conv = operatorNamed(doc, "aten::conv2d");
        QVERIFY(conv);
        QCOMPARE(conv->at("baseline_ns").get<std::int64_t>(), std::int64_t(105'166'000));
        QCOMPARE(conv->at("candidate_ns").get<std::int64_t>(), std::int64_t(13'223'000));
        QCOMPARE(conv->at("delta_ns").get<std::int64_t>(), std::int64_t(13'223'000 - 105'166'000));
        QCOMPARE(doc.at("operators")[0].at("name").get<std::string>(), std::string("aten::conv2d"));
        QVERIFY(doc.at("candidate").at("findings").is_array());
    }

    void userOpMapWins()
    {
        // ConvExSwish layers alone: 100965000 ns (1920) and 12442000 ns (640), by Python over the tables.
        const Run r = cli({kRknn16, kRknn232, QStringLiteral("--format"), QStringLiteral("json"),
                           QStringLiteral("--op-map"), m_dir.filePath(QStringLiteral("mine.tsv"))});
        QCOMPARE(r.exitCode, 0);
        const auto doc = nlohmann::json::parse(r.out.toStdString());
        const auto* swish = operatorNamed(doc, "yolo::conv_swish");
        QVERIFY(swish);
        QCOMPARE(swish->at("baseline_ns").get<std::int64_t>(), std::int64_t(100'965'000));
        QCOMPARE(swish->at("candidate_ns").get<std::int64_t>(), std::int64_t(12'442'000));
        QCOMPARE(operatorNamed(doc, "aten::conv2d")->at("baseline_ns").get<std::int64_t>(),
                 std::int64_t(105'166'000 - 100'965'000));
    }

    void textOutput()
    {
        const Run r = cli({kRknn16, kRknn232, QStringLiteral("--top"), QStringLiteral("3")});
        QCOMPARE(r.exitCode, 0);
        const QString text = QString::fromUtf8(r.out);
        QVERIFY(text.contains(QStringLiteral("Steps")));
        QVERIFY(text.contains(QStringLiteral("aten::conv2d")));
        QVERIFY(text.contains(QStringLiteral("more (--top N")));
    }

    // Single-core against multi-core (figures by Python over the tables: tst_comparefixtures edgeRuns*): the text
    // names the layer that got slower first and the op type that got 5.55x slower; the JSON has every layer.
    void edgeRuns()
    {
        const Run text = cli({kRknn16, kRknnMulti, QStringLiteral("--top"), QStringLiteral("2")});
        QCOMPARE(text.exitCode, 0);
        const QString out = QString::fromUtf8(text.out);
        QVERIFY2(out.contains(QStringLiteral("Layers (edge runs)")), qPrintable(out));
        QVERIFY(out.contains(QStringLiteral("108 layers matched (108 by FullName")));
        QVERIFY(out.contains(QStringLiteral("25 layers changed placement")));
        QVERIFY(out.contains(QStringLiteral("5.55×")));
        QVERIFY(out.contains(QStringLiteral("Layers whose placement changed")));
        QVERIFY(out.contains(QStringLiteral("core 0 → cores 0+1+2")));
        const qsizetype slower = out.indexOf(QStringLiteral("Layers by delta (slower first)"));
        QVERIFY(slower > 0);
        QVERIFY(out.indexOf(QStringLiteral("Conv:/model.2/cv1/conv/Conv"), slower) > slower);
        QVERIFY(out.contains(QStringLiteral("… 106 more")));

        const Run json = cli({kRknn16, kRknnMulti, QStringLiteral("--format"), QStringLiteral("json")});
        QCOMPARE(json.exitCode, 0);
        const auto doc = nlohmann::json::parse(json.out.toStdString());
        QCOMPARE(doc.at("layers").at("layers").size(), std::size_t(108));
        QCOMPARE(doc.at("layers").at("candidate_cores_used").get<int>(), 3);
        const Run md = cli({kRknn16, kRknnMulti, QStringLiteral("--format"), QStringLiteral("md")});
        QCOMPARE(md.exitCode, 0);
        QVERIFY(md.out.contains("## Layers (edge runs)"));
    }

private:
    QTemporaryDir m_dir;
};

QTEST_GUILESS_MAIN(TestCompareCli)
#include "tst_comparecli.moc"
