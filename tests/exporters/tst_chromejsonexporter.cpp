// SPDX-License-Identifier: MIT
// The Chrome JSON export is parsed back with nlohmann: structure through the DOM, and the ts/dur numbers
// through the SAX interface, which hands over their exact text (the DOM would round them through a double).
#include "chromejsonreader.h"
#include "exporters/chromejsonexporter.h"
#include "exporters/traceexport.h"
#include "tests/report/reportfixture.h"

#include <QTemporaryDir>
#include <QTest>

#include <charconv>
#include <cmath>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

using namespace timesink;
using namespace timesink::testing;
using nlohmann::json;

namespace {

struct Exported
{
    std::string text;
    json doc;
    std::vector<std::pair<std::string, std::string>> times;
};

Exported exportTrace(const model::Trace& t, std::span<const analysis::Finding> findings,
                     exporters::TraceExportOptions options = {})
{
    Exported e;
    std::ostringstream out;
    std::string error;
    exporters::ChromeJsonExporter exporter(t, findings, options);
    if (!exporter.write(out, error))
        return e;
    e.text = out.str();
    e.doc = json::parse(e.text, nullptr, false);
    TimeTextCollector sax;
    json::sax_parse(e.text, &sax);
    e.times = sax.times;
    return e;
}

std::vector<json> eventsOf(const json& doc, const std::string& phase)
{
    std::vector<json> out;
    for (const json& ev : doc.at("traceEvents")) {
        if (ev.at("ph") == phase)
            out.push_back(ev);
    }
    return out;
}

} // namespace

class TestChromeJsonExporter : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void formatMicros_data()
    {
        QTest::addColumn<qint64>("ns");
        QTest::addColumn<QString>("text");
        QTest::newRow("zero") << qint64(0) << "0.000";
        QTest::newRow("sub-µs") << qint64(7) << "0.007";
        QTest::newRow("µs") << qint64(1500) << "1.500";
        QTest::newRow("negative") << qint64(-1) << "-0.001";
        QTest::newRow("negative µs") << qint64(-2500) << "-2.500";
        QTest::newRow("epoch") << qint64(1736408883700059821) << "1736408883700059.821";
        QTest::newRow("int64 max") << qint64(std::numeric_limits<qint64>::max()) << "9223372036854775.807";
        QTest::newRow("int64 min") << qint64(std::numeric_limits<qint64>::min()) << "-9223372036854775.808";
    }
    void formatMicros()
    {
        QFETCH(qint64, ns);
        QFETCH(QString, text);
        QCOMPARE(QString::fromStdString(exporters::ChromeJsonExporter::formatMicros(ns)), text);
    }

    void slicesRoundTripWithExactTimes()
    {
        const std::int64_t base = 1736408883700059821;
        const auto a = makeAnalysedTrace(base);
        const Exported e = exportTrace(*a.trace, {});
        QVERIFY(!e.doc.is_discarded());
        QVERIFY(!e.doc.contains("displayTimeUnit")); // written only when the source said it
        const auto slices = eventsOf(e.doc, "X");
        QCOMPARE(slices.size(), a.trace->sliceCount());
        // As the profiler writes it: "ts" is µs after baseTimeNanoseconds, the whole second at or before the first
        // event, so a reader holding "ts" in a double (HTA, TraceLens) keeps every nanosecond. Absolute epoch µs
        // with three decimals have 19 digits, which a double rounds to 0.25 µs: 1736408883700060.121 reads back
        // as …060.0, a different time.
        QCOMPARE(e.doc.at("baseTimeNanoseconds").get<std::int64_t>(), std::int64_t(1736408883000000000));

        // Events with a "ts", in file order, matched to the literal numbers the SAX pass collected.
        std::vector<std::pair<std::int64_t, std::int64_t>> exported; // (ts, dur) of X events
        std::size_t t = 0;
        for (const json& ev : e.doc.at("traceEvents")) {
            if (!ev.contains("ts"))
                continue;
            QVERIFY(t < e.times.size());
            QCOMPARE(e.times[t].first, std::string("ts"));
            std::int64_t ts = 0;
            QVERIFY2(microsTextToNs(e.times[t].second, ts), e.times[t].second.c_str());
            ts += 1736408883000000000;
            ++t;
            if (ev.at("ph") != "X")
                continue;
            QCOMPARE(e.times[t].first, std::string("dur"));
            std::int64_t dur = 0;
            QVERIFY(microsTextToNs(e.times[t].second, dur));
            ++t;
            exported.emplace_back(ts, dur);
        }
        std::vector<std::pair<std::int64_t, std::int64_t>> expected;
        for (const model::Track& track : a.trace->tracks()) {
            for (std::uint32_t i = 0; i < track.size(); ++i)
                expected.emplace_back(track.ts(i), track.dur(i));
        }
        std::sort(exported.begin(), exported.end());
        std::sort(expected.begin(), expected.end());
        QCOMPARE(exported, expected);
        QVERIFY(e.text.find("\"ts\":700060.121") != std::string::npos); // conv_kernel at base + 300
        // What a double reader gets from each: the relative time keeps the nanosecond, the absolute one does not.
        QCOMPARE(std::llround(std::stod("700060.121") * 1000), 700060121LL);
        QVERIFY(std::llround(std::stod("1736408883700060.121") * 1000) != 1736408883700060121LL);
    }

    void namesThreadsArgsAndFlows()
    {
        const auto a = makeAnalysedTrace();
        const Exported e = exportTrace(*a.trace, {});
        QVERIFY(!e.doc.is_discarded());
        std::map<std::string, json> byName;
        for (const json& ev : eventsOf(e.doc, "X"))
            byName.emplace(ev.at("name").get<std::string>(), ev); // the first of each name
        const json& conv = byName.at("conv_kernel");
        QVERIFY(conv.at("cat") == json("kernel"));
        QVERIFY(conv.at("args").at("grid") == json(128));
        QVERIFY(conv.at("args").at("occupancy") == json(0.5));
        QVERIFY(conv.at("args").at("stream") == json("7"));
        QVERIFY(conv.at("args").at("sync") == json(true));
        const json& launch = byName.at("cudaLaunchKernel");
        QVERIFY(launch.at("pid") == json(4242)); // the host keeps its real pid and tid
        QVERIFY(launch.at("tid") == json(4242));

        std::map<std::pair<int, int>, std::string> threadNames;
        std::map<int, std::string> processNames;
        for (const json& m : eventsOf(e.doc, "M")) {
            if (m.at("name") == "thread_name")
                threadNames[{m.at("pid").get<int>(), m.at("tid").get<int>()}] = m.at("args").at("name");
            if (m.at("name") == "process_name")
                processNames[m.at("pid").get<int>()] = m.at("args").at("name");
        }
        // A process without a name of its own gets none, so that a re-import names it "process 4242" again.
        QCOMPARE(processNames.size(), std::size_t(1));
        QVERIFY(!processNames.contains(4242));
        QCOMPARE(threadNames.at({conv.at("pid").get<int>(), conv.at("tid").get<int>()}), std::string("stream 7"));
        QCOMPARE(processNames.at(conv.at("pid").get<int>()), std::string("GPU 0"));

        const auto starts = eventsOf(e.doc, "s");
        const auto finishes = eventsOf(e.doc, "f");
        QCOMPARE(starts.size(), std::size_t(1));
        QCOMPARE(finishes.size(), std::size_t(1));
        QVERIFY(starts[0].at("id") == finishes[0].at("id"));
        QVERIFY(starts[0].at("tid") == launch.at("tid"));
        QVERIFY(starts[0].at("ts") == launch.at("ts"));
        QVERIFY(finishes[0].at("bp") == json("e"));
        QVERIFY(finishes[0].at("tid") == conv.at("tid"));
    }

    void findingsAndHostileNames()
    {
        const std::string hostile = "</script>\"\\\n\x01\xff";
        auto a = makeAnalysedTrace(0, hostile);
        const Exported e = exportTrace(*a.trace, a.result.findings);
        QVERIFY(!e.doc.is_discarded());
        std::size_t evidence = 0;
        bool sawHostile = false;
        for (const json& ev : eventsOf(e.doc, "X")) {
            if (ev.at("cat") == "timesink.finding") {
                ++evidence;
                QVERIFY(ev.at("args").contains("lost_ns"));
            }
            // Valid JSON string; the invalid byte became U+FFFD, the rest is kept.
            if (ev.at("name") == std::string("</script>\"\\\n\x01\xEF\xBF\xBD"))
                sawHostile = true;
        }
        QCOMPARE(evidence, std::size_t(4));
        QVERIFY(sawHostile);
        std::set<int> findingThreads;
        int findingsPid = -1;
        for (const json& m : eventsOf(e.doc, "M")) {
            if (m.at("name") == "process_name" && m.at("args").at("name") == "Timesink findings")
                findingsPid = m.at("pid");
        }
        QVERIFY(findingsPid > 0);
        for (const json& m : eventsOf(e.doc, "M")) {
            if (m.at("name") == "thread_name" && m.at("pid") == findingsPid)
                findingThreads.insert(m.at("tid").get<int>());
        }
        QCOMPARE(findingThreads.size(), std::size_t(3)); // #1, #2 and #2's overlap lane
    }

    void negativeTimestampsAreKept()
    {
        model::TraceBuilder b;
        const model::TrackId host = b.hostThread();
        b.slice(host, model::SliceCategory::HostOp, "before zero", -1500, 1000);
        const model::TracePtr t = b.finalize();
        const Exported e = exportTrace(*t, {});
        QVERIFY(e.text.find("\"ts\":-1.500,\"dur\":1.000") != std::string::npos);
    }

    void exportTraceWritesTheFile()
    {
        const auto a = makeAnalysedTrace();
        QTemporaryDir dir;
        const std::filesystem::path out = dir.filePath(QStringLiteral("run.json")).toStdString();
        std::string error;
        QVERIFY2(
            exporters::exportTrace(*a.trace, a.result.findings, exporters::TraceFormat::ChromeJson, out, {}, error),
            error.c_str());
        std::ifstream in(out);
        const json doc = json::parse(in, nullptr, false);
        QVERIFY(!doc.is_discarded());
        QCOMPARE(eventsOf(doc, "X").size(), a.trace->sliceCount() + 4);
    }
};

QTEST_APPLESS_MAIN(TestChromeJsonExporter)
#include "tst_chromejsonexporter.moc"
