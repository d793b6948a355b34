// SPDX-License-Identifier: MIT
// timesink-cli's output plumbing, end to end: the export command and report destinations (-o, --format,
// format from the extension, atomic writes, refusing to overwrite an input) with their exit codes.
#include "tests/common/clirunner.h"
#include "tests/exporters/perfettodecoder.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

using namespace timesink::testing;

using Run = CliRun;

namespace {

const QString kFixture = QStringLiteral(TIMESINK_FIXTURES_DIR "/torch/hta_a100_cuda_event_sync_trace.json.gz");
const QString kOtherFixture
    = QStringLiteral(TIMESINK_FIXTURES_DIR "/torch/hta_cpu_only_rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz");

QByteArray readFile(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// The error-path tests: writes `input` to <dir>/in.json (a file the command may be told to overwrite) and
// replaces OUT in `args` with the folder. False when in.json cannot be created.
bool placeInput(const QTemporaryDir& dir, const QByteArray& input, QStringList& args)
{
    QFile in(dir.filePath(QStringLiteral("in.json")));
    if (!in.open(QIODevice::WriteOnly))
        return false;
    in.write(input);
    for (QString& a : args)
        a.replace(QStringLiteral("OUT"), dir.path());
    return true;
}

} // namespace

class TestReportCli : public QObject
{
    Q_OBJECT
private:
    // The body of analyzeWritesEachFormat / compareWritesEachFormat: `command` with `-o <fileName>` in a fresh
    // folder exits 0, prints nothing, and leaves exactly that one file, starting with `start`.
    static void writesEachFormat(const QStringList& command)
    {
        QFETCH(QString, fileName);
        QFETCH(QByteArray, start);
        QTemporaryDir dir;
        const QString out = dir.filePath(fileName);
        const Run r = runCli(command + QStringList {QStringLiteral("-o"), out});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(r.out.isEmpty()); // the report went to the file, not to stdout
        QVERIFY(readFile(out).startsWith(start));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 1);
    }

private Q_SLOTS:
    void analyzeWritesEachFormat_data()
    {
        QTest::addColumn<QString>("fileName");
        QTest::addColumn<QByteArray>("start");
        QTest::newRow("json") << "r.json" << QByteArray("{\n  \"schema\": \"timesink.report/1\"");
        QTest::newRow("md") << "r.md" << QByteArray("# Timesink bottleneck report\n");
        QTest::newRow("html") << "r.HTML" << QByteArray("<!DOCTYPE html>");
        QTest::newRow("csv") << "r.csv" << QByteArray("rank,kind,title,lost_ns,");
    }
    void analyzeWritesEachFormat() { writesEachFormat({QStringLiteral("analyze"), kFixture}); }

    void analyzeToStdoutAndGate()
    {
        const Run md = runCli({QStringLiteral("analyze"), kFixture, QStringLiteral("--format"), QStringLiteral("md")});
        QCOMPARE(md.exitCode, 0);
        QVERIFY(md.out.startsWith("# Timesink bottleneck report\n"));
        QVERIFY(md.out.contains("| rank | kind | finding | saving | % | lost | occurrences | steps |"));

        // The CI gate still exits 3 after writing the report; the JSON says why.
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("gate.json"));
        const Run gate = runCli({QStringLiteral("analyze"), kFixture, QStringLiteral("-o"), out,
                                 QStringLiteral("--fail-above"), QStringLiteral("0")});
        const auto j = nlohmann::json::parse(readFile(out).toStdString(), nullptr, false);
        QVERIFY(!j.is_discarded());
        const double lost = j.at("total_lost_fraction").get<double>();
        QCOMPARE(gate.exitCode, lost > 0 ? 3 : 0);
        QVERIFY(j.contains("steps") && j.contains("top_operators") && j.contains("findings"));
    }

    void analyzeDestinationErrors_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("unknown extension")
            << QStringList {QStringLiteral("-o"), QStringLiteral("OUT/r.txt")} << "cannot tell the report format";
        QTest::newRow("unknown format") << QStringList {QStringLiteral("--format"), QStringLiteral("pdf")}
                                        << "unknown format 'pdf'";
        QTest::newRow("text to a file") << QStringList {QStringLiteral("--format"), QStringLiteral("text"),
                                                        QStringLiteral("-o"), QStringLiteral("OUT/r.md")}
                                        << "text goes to the terminal";
        QTest::newRow("over the input") << QStringList {QStringLiteral("--format"), QStringLiteral("json"),
                                                        QStringLiteral("-o"), QStringLiteral("OUT/in.json")}
                                        << "refusing to overwrite the input";
    }
    void analyzeDestinationErrors()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        QTemporaryDir dir;
        const QByteArray input = readFile(kFixture);
        QVERIFY(placeInput(dir, input, args));
        const Run r = runCli(QStringList {QStringLiteral("analyze"), dir.filePath(QStringLiteral("in.json"))} + args);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(message.toUtf8()), r.err.constData());
        QCOMPARE(readFile(dir.filePath(QStringLiteral("in.json"))), input);
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 1);
    }

    void compareWritesEachFormat_data()
    {
        QTest::addColumn<QString>("fileName");
        QTest::addColumn<QByteArray>("start");
        QTest::newRow("json") << "c.json" << QByteArray("{\n  \"schema\": \"timesink.compare/1\"");
        QTest::newRow("md") << "c.md" << QByteArray("# Timesink comparison report\n");
        QTest::newRow("html") << "c.html" << QByteArray("<!DOCTYPE html>");
        QTest::newRow("csv") << "c.csv" << QByteArray("name,baseline_ns,candidate_ns,delta_ns,ratio,");
    }
    void compareWritesEachFormat() { writesEachFormat({QStringLiteral("compare"), kFixture, kOtherFixture}); }

    void compareRefusesToOverwriteEitherInput()
    {
        QTemporaryDir dir;
        const QString a = dir.filePath(QStringLiteral("a.json"));
        const QString b = dir.filePath(QStringLiteral("b.json"));
        QVERIFY(QFile::copy(kFixture, a));
        QVERIFY(QFile::copy(kOtherFixture, b));
        const QByteArray before = readFile(b);
        const Run r = runCli({QStringLiteral("compare"), a, b, QStringLiteral("--format"), QStringLiteral("md"),
                              QStringLiteral("-o"), b});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("refusing to overwrite the input"), r.err.constData());
        QCOMPARE(readFile(b), before);
    }

    void exportFormatsByExtension_data()
    {
        QTest::addColumn<QString>("fileName");
        QTest::addColumn<QStringList>("extra");
        QTest::addColumn<bool>("perfetto");
        QTest::newRow("pftrace") << "t.pftrace" << QStringList() << true;
        QTest::newRow("json") << "t.json" << QStringList() << false;
        QTest::newRow("--format beats the extension")
            << "t.bin" << QStringList {QStringLiteral("--format"), QStringLiteral("pftrace")} << true;
    }
    void exportFormatsByExtension()
    {
        QFETCH(QString, fileName);
        QFETCH(QStringList, extra);
        QFETCH(bool, perfetto);
        QTemporaryDir dir;
        const QString out = dir.filePath(fileName);
        const Run r = runCli(QStringList {QStringLiteral("export"), kFixture, QStringLiteral("-o"), out} + extra);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QByteArray bytes = readFile(out);
        QVERIFY(!bytes.isEmpty());
        if (perfetto) {
            const Decoded d = decode(bytes.toStdString());
            QVERIFY2(d.error.empty(), d.error.c_str());
            QVERIFY(!d.slices.empty());
        } else {
            const auto j = nlohmann::json::parse(bytes.toStdString(), nullptr, false);
            QVERIFY(!j.is_discarded());
            QVERIFY(j.at("traceEvents").size() > 0);
        }
        // Nothing but the output is left in the folder (the temporary file was renamed).
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 1);
    }

    // A .json export of a non-Kineto trace says that it will not read back as the same trace; a Kineto one does.
    // A JSON export of another source describes it (the "timesink" key), so that it opens again as that source:
    // no note about what would be lost any more.
    void exportJsonOfOtherSourceOpensAsThatSource()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("t.json"));
        const Run rknn = runCli(
            QStringList {QStringLiteral("export"),
                         QStringLiteral(TIMESINK_FIXTURES_DIR "/rknn/toolkit2_2.3.2_rk3588_eval_perf_summary.txt"),
                         QStringLiteral("-o"), out});
        QVERIFY2(rknn.exitCode == 0, rknn.err.constData());
        QVERIFY2(!rknn.err.contains("note:"), rknn.err.constData());
        const Run info = runCli(QStringList {QStringLiteral("info"), out, QStringLiteral("--format"),
                                             QStringLiteral("json"), QStringLiteral("--no-cache")});
        QVERIFY2(info.exitCode == 0, info.err.constData());
        const auto j = nlohmann::json::parse(info.out.toStdString());
        QCOMPARE(j.at("format").get<std::string>(), std::string("rknn"));
        QCOMPARE(j.at("format_version").get<std::string>(), std::string("summary-only"));
        QCOMPARE(j.at("devices").at(0).at("kind").get<std::string>(), std::string("edge_npu"));
        QCOMPARE(j.at("synthetic_timestamps").get<bool>(), true);
        QCOMPARE(j.at("span_ns").get<std::int64_t>(), std::int64_t(17219000)); // "Total Time(us): 17219"
        QCOMPARE(j.at("properties").at("fps").get<std::string>(), std::string("58.08"));
    }

    // `info` text names up to 32 devices and summarises more per kind; the JSON lists every one (issue 35).
    // The trace: one kernel per device, pid = args.device = the index, as Kineto writes them. The expected lines
    // are written out by hand from the indices each row generates.
    void infoSummarisesManyDevices_data()
    {
        QTest::addColumn<QList<int>>("indices");
        QTest::addColumn<QString>("devicesLine");
        QList<int> all;
        for (int i = 0; i < 4096; ++i)
            all << i;
        QTest::newRow("4096 contiguous") << all
                                         << QStringLiteral("4,096 GPU devices (0\u2013"
                                                           "4,095)");
        QList<int> twoRuns;
        for (int i = 0; i < 100; ++i)
            twoRuns << i << 200 + i;
        QTest::newRow("two runs") << twoRuns
                                  << QStringLiteral("200 GPU devices (0\u2013"
                                                    "99, 200\u2013"
                                                    "299)");
        QList<int> sparse; // 0, 2, 4, … 78: 40 runs of one, eight shown
        for (int i = 0; i < 40; ++i)
            sparse << 2 * i;
        QTest::newRow("40 runs, capped")
            << sparse << QStringLiteral("40 GPU devices (0, 2, 4, 6, 8, 10, 12, 14, \u2026 and 32 more ranges)");
        QList<int> listed; // 32: still listed by name, sorted as text
        for (int i = 0; i < 32; ++i)
            listed << i;
        QTest::newRow("32 listed") << listed
                                   << QStringLiteral("1\u00d7 gpu GPU 0, 1\u00d7 gpu GPU 1, 1\u00d7 gpu GPU 10, ");
    }
    void infoSummarisesManyDevices()
    {
        QFETCH(QList<int>, indices);
        QFETCH(QString, devicesLine);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("devices.json"));
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            QByteArray text = "{\"schemaVersion\": 1, \"traceEvents\": [\n";
            for (qsizetype k = 0; k < indices.size(); ++k) {
                const QByteArray i = QByteArray::number(indices[k]);
                text += (k ? ",\n" : "") + QByteArray("{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":") + i
                    + ",\"tid\":7,\"ts\":" + QByteArray::number(1000 + k) + ",\"dur\":1,\"args\":{\"device\":" + i
                    + ",\"stream\":7}}";
            }
            text += "\n]}\n";
            f.write(text);
        }
        const Run textRun = runCli({QStringLiteral("info"), path, QStringLiteral("--no-cache")});
        QVERIFY2(textRun.exitCode == 0, textRun.err.constData());
        const QString out = QString::fromUtf8(textRun.out);
        const QString row = QStringLiteral("  devices        ") + devicesLine;
        QVERIFY2(out.contains(row), qPrintable(out.left(2000)));
        if (indices.size() > 32) // one line for the one kind, whatever the count
            QVERIFY2(out.size() < 1000, qPrintable(out.left(2000)));

        const Run jsonRun = runCli({QStringLiteral("info"), path, QStringLiteral("--format"), QStringLiteral("json"),
                                    QStringLiteral("--no-cache")});
        QVERIFY2(jsonRun.exitCode == 0, jsonRun.err.constData());
        const auto j = nlohmann::json::parse(jsonRun.out.toStdString());
        const auto& devices = j.at("devices");
        QCOMPARE(devices.size(), std::size_t(indices.size()));
        for (qsizetype k = 0; k < indices.size(); ++k) { // in order of first appearance, as the trace has them
            QCOMPARE(devices[std::size_t(k)].at("kind").get<std::string>(), std::string("gpu"));
            QCOMPARE(devices[std::size_t(k)].at("index").get<int>(), indices[k]);
            QCOMPARE(devices[std::size_t(k)].at("name").get<std::string>(), "GPU " + std::to_string(indices[k]));
        }
        QCOMPARE(j.at("tracks").get<qsizetype>(), indices.size());
    }

    void exportErrors_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("message");
        QTest::newRow("no -o") << QStringList {QStringLiteral("export"), kFixture} << 1 << "usage:";
        QTest::newRow("unknown extension")
            << QStringList {QStringLiteral("export"), kFixture, QStringLiteral("-o"), QStringLiteral("OUT/t.txt")} << 1
            << "cannot tell the format";
        QTest::newRow("unknown --format") << QStringList {QStringLiteral("export"),   kFixture,
                                                          QStringLiteral("-o"),       QStringLiteral("OUT/t.json"),
                                                          QStringLiteral("--format"), QStringLiteral("svg")}
                                          << 1 << "unknown format 'svg'";
        QTest::newRow("overwrite the input") << QStringList {QStringLiteral("export"), QStringLiteral("OUT/in.json"),
                                                             QStringLiteral("-o"), QStringLiteral("OUT/in.json")}
                                             << 1 << "refusing to overwrite the input";
        QTest::newRow("missing input") << QStringList {QStringLiteral("export"), QStringLiteral("OUT/none.json"),
                                                       QStringLiteral("-o"), QStringLiteral("OUT/t.json")}
                                       << 2 << "none.json";
        // Exit 4: the output could not be written (docs/limits.md).
        QTest::newRow("missing output folder") << QStringList {QStringLiteral("export"), kFixture, QStringLiteral("-o"),
                                                               QStringLiteral("OUT/no/dir/t.json")}
                                               << 4 << "cannot create a file in";
    }
    void exportErrors()
    {
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        QFETCH(QString, message);
        QTemporaryDir dir;
        const QByteArray input = readFile(kFixture);
        QVERIFY(placeInput(dir, input, args));
        const Run r = runCli(args);
        QCOMPARE(r.exitCode, exitCode);
        QVERIFY2(r.err.contains(message.toUtf8()), r.err.constData());
        // The input is never touched.
        QCOMPARE(readFile(dir.filePath(QStringLiteral("in.json"))), input);
    }
};

QTEST_GUILESS_MAIN(TestReportCli)
#include "tst_reportcli.moc"
