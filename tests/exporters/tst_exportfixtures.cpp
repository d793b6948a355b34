// SPDX-License-Identifier: MIT
// Export of real profiler output: import a fixture, analyse it, export it in both formats, read the files back
// and compare every slice with the model, to the nanosecond.
#include "analysis/core/pass.h"
#include "chromejsonreader.h"
#include "exporters/traceexport.h"
#include "parsers/registry/traceloader.h"
#include "perfettodecoder.h"

#include <QTemporaryDir>
#include <QTest>

#include <fstream>
#include <iterator>

using namespace timesink;
using namespace timesink::testing;

namespace {

std::string readAll(const std::filesystem::path& p)
{
    std::ifstream in(p, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

model::TracePtr load(const QString& relative)
{
    parsers::ProgressSink progress;
    const auto result
        = parsers::loadTrace(std::string(TIMESINK_FIXTURES_DIR "/") + relative.toStdString(), {}, progress);
    if (!result.ok())
        qWarning("%s", result.status().message().c_str());
    return result.ok() ? result.value() : nullptr;
}

} // namespace

class TestExportFixtures : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void roundTrip_data()
    {
        QTest::addColumn<QString>("fixture");
        QTest::addColumn<QString>("stepName");
        QTest::addColumn<qint64>("stepTs");
        QTest::addColumn<qint64>("stepDur");
        // Expected step times from Python over the fixtures, reading numbers as Decimal (exact):
        //   json.loads(gzip.open(f).read(), parse_float=decimal.Decimal) → the ProfilerStep event's ts / dur (µs).
        QTest::newRow("A100 event sync (integer µs)")
            << "torch/hta_a100_cuda_event_sync_trace.json.gz"
            << "ProfilerStep#100" << qint64(1707417525509335000) << qint64(3154000);
        // ts "1712195495502094.565", dur "35115.869": 16+3 digits, the case a double would round.
        QTest::newRow("V100 ns resolution")
            << "torch/hta_v100_ns_resolution_rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"
            << "ProfilerStep#101" << qint64(1712195495502094565) << qint64(35115869);
        // torch_npu bundle: trace_view.json has "ts": "1736408883686740.710" (a string) and "dur": 155985.8.
        QTest::newRow("Ascend torch_npu bundle")
            << "torch_npu/msinsight_text_level1_rank0_ascend_pt"
            << "ProfilerStep#50" << qint64(1736408883686740710) << qint64(155985800);
    }
    void roundTrip()
    {
        QFETCH(QString, fixture);
        QFETCH(QString, stepName);
        QFETCH(qint64, stepTs);
        QFETCH(qint64, stepDur);
        const model::TracePtr trace = load(fixture);
        QVERIFY(trace);
        QVERIFY(trace->sliceCount() > 0);
        analysis::CancelToken cancel;
        const analysis::AnalysisResult result = analysis::analyze(*trace, {}, cancel);
        std::size_t evidenceRanges = 0;
        for (const analysis::Finding& f : result.findings)
            evidenceRanges += f.evidence.size();

        QTemporaryDir dir;
        const std::filesystem::path root = dir.path().toStdString();
        const std::filesystem::path inputs[] = {std::string(TIMESINK_FIXTURES_DIR "/") + fixture.toStdString()};
        std::string error;

        // Perfetto protobuf
        QVERIFY2(exporters::exportTrace(*trace, result.findings, exporters::TraceFormat::Perfetto, root / "t.pftrace",
                                        inputs, error),
                 error.c_str());
        Decoded d = decode(readAll(root / "t.pftrace"));
        QVERIFY2(d.error.empty(), d.error.c_str());
        std::vector<DecodedSlice> fromTrace;
        std::size_t findingSlices = 0;
        for (const DecodedSlice& s : d.slices) {
            if (s.category == "timesink.finding")
                ++findingSlices;
            else
                fromTrace.push_back(s);
        }
        QCOMPARE(findingSlices, evidenceRanges);
        auto expected = modelSlices(*trace);
        QCOMPARE(fromTrace.size(), expected.size());
        sortSlices(expected);
        sortSlices(fromTrace);
        for (std::size_t i = 0; i < expected.size(); ++i) {
            if (fromTrace[i].key() != expected[i].key()) {
                QFAIL(qPrintable(QStringLiteral("slice %1: exported '%2' %3+%4, model '%5' %6+%7")
                                     .arg(i)
                                     .arg(QString::fromStdString(fromTrace[i].name))
                                     .arg(fromTrace[i].ts)
                                     .arg(fromTrace[i].dur)
                                     .arg(QString::fromStdString(expected[i].name))
                                     .arg(expected[i].ts)
                                     .arg(expected[i].dur)));
            }
        }
        bool foundStep = false;
        for (const DecodedSlice& s : fromTrace) {
            if (s.name == stepName.toStdString() && s.ts == stepTs && s.dur == stepDur)
                foundStep = true;
        }
        QVERIFY2(foundStep, "the step marker did not come back with the times Python read from the fixture");

        // Chrome JSON
        QVERIFY2(exporters::exportTrace(*trace, result.findings, exporters::TraceFormat::ChromeJson, root / "t.json",
                                        inputs, error),
                 error.c_str());
        const std::string text = readAll(root / "t.json");
        const json doc = json::parse(text, nullptr, false);
        QVERIFY(!doc.is_discarded());
        TimeTextCollector sax;
        QVERIFY(json::sax_parse(text, &sax));
        // Kineto's convention: "ts" is µs after baseTimeNanoseconds (a whole second), so a double keeps every ns.
        const std::int64_t base = doc.value("baseTimeNanoseconds", std::int64_t(0));
        QCOMPARE(base % 1'000'000'000, std::int64_t(0));
        QVERIFY(base == 0 || stepTs - base < std::int64_t(1) << 53);
        std::size_t xEvents = 0;
        std::size_t t = 0;
        bool foundStepJson = false;
        for (const json& ev : doc.at("traceEvents")) {
            if (!ev.contains("ts"))
                continue;
            std::int64_t ts = 0;
            QVERIFY(microsTextToNs(sax.times[t++].second, ts));
            ts += base;
            if (ev.at("ph") != "X")
                continue;
            std::int64_t dur = 0;
            QVERIFY(microsTextToNs(sax.times[t++].second, dur));
            ++xEvents;
            if (ev.at("name") == stepName.toStdString() && ts == stepTs && dur == stepDur)
                foundStepJson = true;
        }
        QCOMPARE(xEvents, trace->sliceCount() + evidenceRanges);
        QVERIFY(foundStepJson);
    }
};

QTEST_GUILESS_MAIN(TestExportFixtures)
#include "tst_exportfixtures.moc"
