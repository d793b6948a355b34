// SPDX-License-Identifier: MIT
// `timesink-cli analyze` end to end: exit codes, the JSON report and the text table, on a real fixture.
// Expected numbers: see tst_analysisfixtures.cpp (legacyCpuResnet18), computed with Python over the file.
#include "analysis/core/pass.h"
#include "tests/common/clirunner.h"

#include <QRegularExpression>
#include <QTest>

#include <nlohmann/json.hpp>

using timesink::testing::runCli;
using Run = timesink::testing::CliRun;

namespace {

const QString kLegacy = QStringLiteral(TIMESINK_FIXTURES_DIR "/torch/torch_cpu_legacy_resnet18_train_2steps.json");

} // namespace

class TestAnalyzeCli : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void exitCodes_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exitCode");
        // The legacy trace loses 21.7% in total (330.566 + 328.322 + 267.625 ms of 4267.541 ms).
        QTest::newRow("ok") << QStringList {QStringLiteral("analyze"), kLegacy} << 0;
        QTest::newRow("above threshold") << QStringList {QStringLiteral("analyze"), kLegacy,
                                                         QStringLiteral("--fail-above"), QStringLiteral("20")}
                                         << 3;
        QTest::newRow("below threshold") << QStringList {QStringLiteral("analyze"), kLegacy,
                                                         QStringLiteral("--fail-above"), QStringLiteral("22")}
                                         << 0;
        QTest::newRow("bad number") << QStringList {QStringLiteral("analyze"), kLegacy,
                                                    QStringLiteral("--bubble-threshold-us"), QStringLiteral("abc")}
                                    << 1;
        QTest::newRow("unknown flag") << QStringList {QStringLiteral("analyze"), kLegacy, QStringLiteral("--nope")}
                                      << 1;
        QTest::newRow("missing file") << QStringList {QStringLiteral("analyze"),
                                                      QStringLiteral("/nonexistent/trace.json")}
                                      << 2;
    }
    void exitCodes()
    {
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        const Run r = runCli(args);
        QCOMPARE(r.exitCode, exitCode);
    }

    void jsonReport()
    {
        const Run r = runCli({QStringLiteral("analyze"), kLegacy, QStringLiteral("--format"), QStringLiteral("json"),
                              QStringLiteral("--min-lost-ms"), QStringLiteral("300")});
        QCOMPARE(r.exitCode, 0);
        const auto j = nlohmann::json::parse(r.out.constData());
        QCOMPARE(j["schema"].get<std::string>(), std::string("timesink.report/1"));
        QCOMPARE(j["analysed_ns"].get<std::int64_t>(), std::int64_t(4'267'541'000));
        QCOMPARE(j["trace"]["format"].get<std::string>(), std::string("kineto-legacy"));
        const auto& findings = j["findings"];
        QCOMPARE(findings.size(), std::size_t(2)); // 267.6 ms of Conv-BN is below --min-lost-ms 300
        QCOMPARE(findings[0]["rank"].get<int>(), 1);
        QCOMPARE(findings[0]["kind"].get<std::string>(), std::string("dataloader_starvation"));
        QCOMPARE(findings[0]["lost_ns"].get<std::int64_t>(), std::int64_t(330'566'000));
        QCOMPARE(findings[0]["per_step"].size(), std::size_t(2));
        QCOMPARE(findings[0]["per_step"][1]["step"].get<int>(), 2);
        QCOMPARE(findings[1]["kind"].get<std::string>(), std::string("unfused_chain"));
        QCOMPARE(findings[1]["occurrences"].get<int>(), 18);
        QCOMPARE(findings[1]["details"]["pattern"].get<std::string>(), std::string("conv_bn_act"));
        QVERIFY(!findings[1]["events"].empty());
        QVERIFY(!findings[1]["recommendation"].get<std::string>().empty());
        bool bubbleNotAssessed = false;
        for (const auto& n : j["not_assessed"])
            bubbleNotAssessed = bubbleNotAssessed || n["kind"] == "pipeline_bubble";
        QVERIFY(bubbleNotAssessed);
    }

    void textTable()
    {
        const Run r = runCli({QStringLiteral("analyze"), kLegacy});
        QCOMPARE(r.exitCode, 0);
        const QString text = QString::fromUtf8(r.out);
        QVERIFY(text.contains(QStringLiteral("rank  kind")));
        QVERIFY(text.contains(QStringLiteral("   1  dataloader_starvation")));
        QVERIFY(text.contains(QStringLiteral("330.566")));
        QVERIFY(text.contains(QStringLiteral("Not assessed:")));
        QVERIFY(text.contains(QStringLiteral("num_workers")));
    }

    // The help's "Kinds:" paragraph names exactly the kinds of the registered passes (the man page holds the help
    // verbatim, tests/packaging/check-cli-docs.sh), so a new pass cannot be left out of either.
    void helpNamesEveryRegisteredKind()
    {
        const Run r = runCli({QStringLiteral("analyze"), QStringLiteral("--help")});
        QCOMPARE(r.exitCode, 0);
        const QString help = QString::fromUtf8(r.out);
        const qsizetype at = help.indexOf(QStringLiteral("\nKinds:"));
        QVERIFY2(at >= 0, "no 'Kinds:' paragraph in analyze --help");
        const qsizetype end = help.indexOf(QStringLiteral("\n\n"), at + 1);
        const QString paragraph = help.mid(at + 7, end < 0 ? -1 : end - at - 7);
        static const QRegularExpression kindWord(QStringLiteral("^[a-z][a-z0-9_]*$"));
        QStringList named;
        for (const QString& word : paragraph.split(QRegularExpression(QStringLiteral("[\\s,]+")), Qt::SkipEmptyParts)) {
            if (kindWord.match(word).hasMatch())
                named << word;
        }
        QStringList registered;
        for (const auto& pass : timesink::analysis::passRegistry())
            registered << QString::fromUtf8(pass->kind().data(), static_cast<qsizetype>(pass->kind().size()));
        QVERIFY(registered.size() >= 14); // the ten GPU/NPU kinds and the four RKNN ones
        for (const QString& kind : registered)
            QVERIFY2(named.contains(kind), qPrintable(QStringLiteral("analyze --help does not name ") + kind));
        QCOMPARE(named, registered); // nothing else, and in the registry's order
    }
};

QTEST_GUILESS_MAIN(TestAnalyzeCli)
#include "tst_analyzecli.moc"
