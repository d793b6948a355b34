// SPDX-License-Identifier: MIT
// The Perfetto export is decoded again with the generated protobuf classes and compared with the model:
// every slice comes back on its track with its name and exact ns times.
#include "exporters/perfettoexporter.h"
#include "exporters/proto/perfetto_trace.pb.h"
#include "exporters/traceexport.h"
#include "perfettodecoder.h"
#include "tests/report/reportfixture.h"

#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <tuple>

using namespace timesink;
using namespace timesink::testing;
namespace pb = timesink::perfetto;

namespace {

std::string exportToString(const model::Trace& t, std::span<const analysis::Finding> findings,
                           exporters::TraceExportOptions options = {}, std::uint64_t* packets = nullptr)
{
    std::ostringstream out;
    exporters::PerfettoExporter exporter(t, findings, options);
    std::string error;
    if (!exporter.write(out, error))
        return "ERROR: " + error;
    if (packets)
        *packets = exporter.packetsWritten();
    return out.str();
}

const DecodedSlice* findSlice(const Decoded& d, const std::string& name)
{
    for (const DecodedSlice& s : d.slices) {
        if (s.name == name)
            return &s;
    }
    return nullptr;
}

} // namespace

class TestPerfettoExporter : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void slicesRoundTripExactly_data()
    {
        QTest::addColumn<qint64>("base");
        QTest::newRow("zero-based") << qint64(0);
        // An epoch-ns value whose µs form has 16+3 digits: a double would lose the last digits.
        QTest::newRow("epoch ns") << qint64(1736408883700059821);
    }
    void slicesRoundTripExactly()
    {
        QFETCH(qint64, base);
        const auto a = makeAnalysedTrace(base);
        std::uint64_t packets = 0;
        const std::string bytes = exportToString(*a.trace, {}, {}, &packets);
        QVERIFY2(bytes.rfind("ERROR", 0) != 0, bytes.c_str());
        Decoded d = decode(bytes);
        QVERIFY2(d.error.empty(), d.error.c_str());
        QCOMPARE(d.packets, packets);

        auto expected = modelSlices(*a.trace);
        QCOMPARE(d.slices.size(), a.trace->sliceCount());
        sortSlices(expected);
        sortSlices(d.slices);
        for (std::size_t i = 0; i < expected.size(); ++i) {
            QCOMPARE(d.slices[i].track, expected[i].track);
            QCOMPARE(d.slices[i].name, expected[i].name);
            QCOMPARE(d.slices[i].ts, expected[i].ts);
            QCOMPARE(d.slices[i].dur, expected[i].dur);
        }
        const DecodedSlice* conv = findSlice(d, "conv_kernel");
        QVERIFY(conv);
        QCOMPARE(conv->category, std::string("kernel"));
        QCOMPARE(conv->ts, base + 300);
        // Interning: the kernel ran twice, its name was written once.
        QCOMPARE(d.internedNameCount["conv_kernel"], 1);
    }

    void processesTracksArgsAndFlows()
    {
        const auto a = makeAnalysedTrace();
        const Decoded d = decode(exportToString(*a.trace, {}));
        QVERIFY2(d.error.empty(), d.error.c_str());
        // Two processes (host pid 4242 keeps its pid; GPU 0 gets a synthetic one), three tracks under them.
        int processes = 0;
        for (const auto& [uuid, t] : d.tracks) {
            if (t.process) {
                ++processes;
                if (t.name == "process 4242")
                    QCOMPARE(t.pid, 4242);
                else
                    QCOMPARE(t.name, std::string("GPU 0"));
            } else {
                QVERIFY(d.tracks.count(t.parent));
                QVERIFY(d.tracks.at(t.parent).process);
            }
        }
        QCOMPARE(processes, 2);
        QCOMPARE(d.tracks.size(), std::size_t(5));

        const DecodedSlice* conv = findSlice(d, "conv_kernel");
        QVERIFY(conv);
        QCOMPARE(conv->args.at("grid"), std::string("int:128"));
        QCOMPARE(conv->args.at("occupancy"), std::string("double:0.500000"));
        QCOMPARE(conv->args.at("stream"), std::string("string:7"));
        QCOMPARE(conv->args.at("sync"), std::string("bool:true"));
        const DecodedSlice* launch = findSlice(d, "cudaLaunchKernel");
        QVERIFY(launch);
        QCOMPARE(launch->flowsOut.size(), std::size_t(1));
        // The first conv_kernel (ts 300) is the launch's target.
        std::vector<std::uint64_t> flowIn;
        for (const DecodedSlice& s : d.slices) {
            if (!s.flowsIn.empty()) {
                QCOMPARE(s.name, std::string("conv_kernel"));
                QCOMPARE(s.ts, std::int64_t(300));
                flowIn = s.flowsIn;
            }
        }
        QCOMPARE(flowIn, launch->flowsOut);

        exporters::TraceExportOptions bare;
        bare.includeArgs = false;
        bare.includeFlows = false;
        const Decoded plain = decode(exportToString(*a.trace, {}, bare));
        QVERIFY(findSlice(plain, "conv_kernel")->args.empty());
        QVERIFY(findSlice(plain, "cudaLaunchKernel")->flowsOut.empty());
    }

    void findingsBecomeAnAnnotationTrack()
    {
        const auto a = makeAnalysedTrace(1'000'000);
        const Decoded d = decode(exportToString(*a.trace, a.result.findings));
        QVERIFY2(d.error.empty(), d.error.c_str());
        std::uint64_t root = 0;
        for (const auto& [uuid, t] : d.tracks) {
            if (t.name == "Timesink findings")
                root = uuid;
        }
        QVERIFY(root != 0);
        std::vector<DecodedSlice> evidence;
        for (const DecodedSlice& s : d.slices) {
            if (s.category == "timesink.finding") {
                QCOMPARE(d.tracks.at(s.trackUuid).parent, root);
                evidence.push_back(s);
            }
        }
        // 1 range for the dataloader finding, 3 (two overlapping) for the copies.
        QCOMPARE(evidence.size(), std::size_t(4));
        sortSlices(evidence);
        QCOMPARE(evidence[0].track, std::string("#1 dataloader_starvation"));
        QCOMPARE(evidence[0].name, std::string("Dataloader starves the device in step 1"));
        QCOMPARE(evidence[0].ts, std::int64_t(1'000'000));
        QCOMPARE(evidence[0].dur, std::int64_t(200));
        QCOMPARE(evidence[0].args.at("lost_ns"), std::string("int:200"));
        QCOMPARE(evidence[0].args.at("rank"), std::string("int:1"));
        QCOMPARE(evidence[0].args.at("evidence_track"), std::string("string:GPU 0 / stream 7"));
        QCOMPARE(evidence[1].track, std::string("#2 copy_hotspot"));
        QCOMPARE(evidence[2].ts, std::int64_t(1'001'350));
        QCOMPARE(evidence[2].dur, std::int64_t(100));
        QCOMPARE(evidence[3].ts, std::int64_t(1'001'400));
        QCOMPARE(evidence[3].dur, std::int64_t(100));
        // The overlapping range went to a lane of its own instead of being clipped.
        QVERIFY(d.tracks.at(evidence[3].trackUuid).name.find("(overlap 1)") != std::string::npos);

        exporters::TraceExportOptions noFindings;
        noFindings.includeFindings = false;
        const Decoded without = decode(exportToString(*a.trace, a.result.findings, noFindings));
        QCOMPARE(without.slices.size(), a.trace->sliceCount());
    }

    void partialOverlapKeepsEverySlice()
    {
        model::TraceBuilder b;
        const model::TrackId host = b.hostThread("worker", 7, 8);
        b.slice(host, model::SliceCategory::HostOp, "outer", 0, 100);
        b.slice(host, model::SliceCategory::HostOp, "inner", 10, 20);
        b.slice(host, model::SliceCategory::HostOp, "straddles", 50, 100); // ends after "outer": broken nesting
        b.slice(host, model::SliceCategory::HostOp, "zero", 150, 0);
        b.slice(host, model::SliceCategory::HostOp, "after", 150, 10);
        const model::TracePtr t = b.finalize();
        const Decoded d = decode(exportToString(*t, {}));
        QVERIFY2(d.error.empty(), d.error.c_str());
        QCOMPARE(d.slices.size(), std::size_t(5));
        const DecodedSlice* straddles = findSlice(d, "straddles");
        QCOMPARE(straddles->ts, std::int64_t(50));
        QCOMPARE(straddles->dur, std::int64_t(100));
        QCOMPARE(d.tracks.at(straddles->trackUuid).name, std::string("worker (overlap 1)"));
        QCOMPARE(findSlice(d, "zero")->dur, std::int64_t(0));
        QCOMPARE(d.tracks.at(findSlice(d, "outer")->trackUuid).name, std::string("worker"));
        QCOMPARE(d.tracks.at(findSlice(d, "after")->trackUuid).name, std::string("worker"));
    }

    void countersAreCounterTracks()
    {
        model::TraceBuilder b;
        const model::TrackId mem = b.addTrack(
            {"HBM used", "NPU 0", "", "0", "", model::DeviceKind::Npu, model::TrackRole::Counter, 0, -1, 0});
        b.addCounterSample(mem, 100, 1.5);
        b.addCounterSample(mem, 200, 2.25);
        const model::TracePtr t = b.finalize();
        const Decoded d = decode(exportToString(*t, {}));
        QVERIFY2(d.error.empty(), d.error.c_str());
        QCOMPARE(d.counters.size(), std::size_t(2));
        const auto& [uuid, ts, value] = d.counters[1];
        QVERIFY(d.tracks.at(uuid).counter);
        QCOMPARE(d.tracks.at(uuid).name, std::string("HBM used"));
        QCOMPARE(ts, std::int64_t(200));
        QCOMPARE(value, 2.25);
    }

    void negativeTimestampsAreRefused()
    {
        model::TraceBuilder b;
        const model::TrackId host = b.hostThread();
        b.slice(host, model::SliceCategory::HostOp, "before zero", -50, 100);
        const model::TracePtr t = b.finalize();
        std::ostringstream out;
        std::string error;
        QVERIFY(!exporters::PerfettoExporter(*t, {}).write(out, error));
        QVERIFY(error.find("negative timestamps") != std::string::npos);
        QVERIFY(error.find("Chrome JSON") != std::string::npos);
    }

    void exportTraceWritesTheFile()
    {
        const auto a = makeAnalysedTrace();
        QTemporaryDir dir;
        const std::filesystem::path out = dir.filePath(QStringLiteral("run.pftrace")).toStdString();
        std::string error;
        QVERIFY2(exporters::exportTrace(*a.trace, a.result.findings, exporters::TraceFormat::Perfetto, out, {}, error),
                 error.c_str());
        std::ifstream in(out, std::ios::binary);
        const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        const Decoded d = decode(bytes);
        QVERIFY2(d.error.empty(), d.error.c_str());
        QCOMPARE(d.slices.size(), a.trace->sliceCount() + 4);
    }
};

QTEST_APPLESS_MAIN(TestPerfettoExporter)
#include "tst_perfettoexporter.moc"
