// SPDX-License-Identifier: MIT
// The explorer's computations (analysis/rangestats, analysis/calltree): on a hand-built trace with every number
// worked out in the comments, and on a real A100 Kineto fixture checked against Python over the raw file.
#include "analysis/core/findingextent.h"
#include "analysis/core/textformat.h"
#include "analysis/explore/calltree.h"
#include "analysis/explore/rangestats.h"
#include "tests/common/fixtures.h"
#include "tests/widgets/testtraces.h"

#include <QTest>

#include <algorithm>
#include <limits>

using namespace timesink;
using namespace timesink::analysis;
using analysis::formatDuration;
using model::TimeNs;

namespace {

const RangeStatsRow* rowOf(const RangeStats& s, std::string_view key)
{
    for (const RangeStatsRow& r : s.rows)
        if (r.key == key)
            return &r;
    return nullptr;
}

const CallTreeNode* childOf(const model::Trace& trace, const CallTree& tree, int node, std::string_view name)
{
    for (int c : tree.nodes[static_cast<std::size_t>(node)].children)
        if (trace.str(tree.nodes[static_cast<std::size_t>(c)].name) == name)
            return &tree.nodes[static_cast<std::size_t>(c)];
    return nullptr;
}

int indexOf(const CallTree& tree, const CallTreeNode* node)
{
    return static_cast<int>(node - tree.nodes.data());
}

const OperatorRow* opOf(const model::Trace& trace, const std::vector<OperatorRow>& rows, std::string_view name)
{
    for (const OperatorRow& r : rows)
        if (trace.str(r.name) == name)
            return &r;
    return nullptr;
}

} // namespace

class TestExplore : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // smallTrainingTrace: steps [0,1000) [1000,2000) on the host (depth 0); conv2d [100,300) > launch [120,140);
    // relu [1100,1200) > launch [1110,1120); DataLoader [1500,1900); kernels conv_fwd [200,400), relu_fwd
    // [1300,1350); memcpys [500,700), [1600,1650).
    void rangeStatsClipAndSelf()
    {
        const auto trace = testing::smallTrainingTrace();
        // [150, 1150): conv2d counts 150 (150..300), its launch 0 (120..140 is outside) → self 150;
        // ProfilerStep#1 850 (150..1000) − conv2d 150 = 700 self; ProfilerStep#2 150 − relu 50 = 100 self;
        // relu 50 (1100..1150) − launch 10 = 40; conv_fwd 250 → 200 (200..400); HtoD 200.
        const RangeStats s = computeRangeStats(*trace, {150, 1150, {}});
        const RangeStatsRow* conv = rowOf(s, "aten::conv2d");
        QVERIFY(conv);
        QCOMPARE(conv->count, std::uint64_t(1));
        QCOMPARE(conv->totalNs, TimeNs(150));
        QCOMPARE(conv->selfNs, TimeNs(150));
        const RangeStatsRow* relu = rowOf(s, "aten::relu");
        QVERIFY(relu);
        QCOMPARE(relu->totalNs, TimeNs(50));
        QCOMPARE(relu->selfNs, TimeNs(40));
        const RangeStatsRow* launch = rowOf(s, "cudaLaunchKernel");
        QVERIFY(launch);
        QCOMPARE(launch->count, std::uint64_t(1)); // the conv2d launch ends at 140, before the range
        QCOMPARE(launch->totalNs, TimeNs(10));
        const RangeStatsRow* kernel = rowOf(s, "conv_fwd");
        QVERIFY(kernel);
        QCOMPARE(kernel->totalNs, TimeNs(200));
        QCOMPARE(kernel->maxNs, TimeNs(200));
        QCOMPARE(kernel->maxSlice, testing::findSlice(*trace, "conv_fwd"));
        QVERIFY(!rowOf(s, "relu_fwd")); // [1300, 1350) is after the range
        // Rows by total, descending: the two steps (850 and 150) around the rest.
        QCOMPARE(s.rows.front().totalNs, TimeNs(850));
        QCOMPARE(s.rows.front().selfNs, TimeNs(700));
        QCOMPARE(s.sliceCount, std::uint64_t(7)); // 2 steps, conv2d, relu, relu's launch, conv_fwd, HtoD
        QCOMPARE(s.totalNs, TimeNs(850 + 150 + 150 + 50 + 10 + 200 + 200));

        // Only the GPU stream, grouped by category.
        const model::TrackId gpu = testing::findSlice(*trace, "conv_fwd").track;
        const RangeStats byCat = computeRangeStats(*trace, {0, 2000, {gpu}}, RangeGroupBy::Category);
        QCOMPARE(byCat.rows.size(), std::size_t(1));
        QCOMPARE(byCat.rows[0].key, std::string("Kernel"));
        QCOMPARE(byCat.rows[0].count, std::uint64_t(2));
        QCOMPARE(byCat.rows[0].totalNs, TimeNs(250));
        QCOMPARE(byCat.rows[0].meanNs(), TimeNs(125));

        // By track: the host thread holds steps 2000 + ops 300 + launches 30 + dataloader 400.
        const RangeStats byTrack = computeRangeStats(*trace, {0, 2000, {}}, RangeGroupBy::Track);
        const model::TrackId host = testing::findSlice(*trace, "aten::relu").track;
        const RangeStatsRow* hostRow = rowOf(byTrack, std::to_string(host.value));
        QVERIFY(hostRow);
        QCOMPARE(hostRow->totalNs, TimeNs(2730));
        QCOMPARE(hostRow->selfNs, TimeNs(2000)); // the steps enclose everything: self sums to the covered time
    }

    void numbersWithUnits()
    {
        QCOMPARE(formatBytes(512), std::string("512 B"));
        QCOMPARE(formatBytes(140'649'195'952), std::string("131 GiB")); // 140649195952 / 2^30 = 130.99
        QCOMPARE(formatBytes(64 * 1024), std::string("64.0 KiB"));
        QCOMPARE(formatWithUnit("copy_ns", 11'725'163'944.0), std::string("11.7 s"));
        QCOMPARE(formatWithUnit("bytes", 140'649'195'952.0), std::string("131 GiB"));
        QCOMPARE(formatWithUnit("small_threshold_bytes", 65536.0), std::string("64.0 KiB"));
        QCOMPARE(formatWithUnit("worst_step_share", 0.5), std::string("50.0%"));
        QCOMPARE(formatWithUnit("copies", 412.0), std::string());
        QCOMPARE(formatDuration(2'000), std::string("2.00 µs"));
        QCOMPARE(formatDuration(-1'500'000), std::string("-1.50 ms"));
        // Three significant digits after rounding: 999.7 µs is not "1000 µs", 99.97 µs not "100.0 µs".
        QCOMPARE(formatDuration(999'700), std::string("1.00 ms"));
        QCOMPARE(formatDuration(99'970), std::string("100 µs"));
        QCOMPARE(formatDuration(9'996), std::string("10.0 µs"));
        QCOMPARE(formatDuration(999), std::string("999 ns"));
        QCOMPARE(formatDuration(std::numeric_limits<model::TimeNs>::min()), std::string("-9223372037 s"));
        QCOMPARE(formatPercent(0.4123), std::string("41.2%"));
        QCOMPARE(formatPercent(std::numeric_limits<double>::quiet_NaN()), std::string("–"));
        QCOMPARE(formatMilliseconds(412'000'123), std::string("412.000123"));
        QCOMPARE(formatMilliseconds(-412'000'000), std::string("-412.000"));
        QCOMPARE(formatGeneral(1e-7), std::string("1e-07"));
        QCOMPARE(kindLabel("pipeline_bubble"), std::string("Pipeline bubble"));
        QCOMPARE(kindLabel("bad\x01_kind\xff"), std::string("Bad kind\xEF\xBF\xBD")); // cleaned like any trace text
        QCOMPARE(formatMillisecondsRounded(412'000'623), std::string("412.001"));
        QCOMPARE(formatMillisecondsRounded(1'500), std::string("0.002"));
        QCOMPARE(cleanText("a\x01\x7f"
                           "b\tc\nd"),
                 std::string("ab c d"));
        QCOMPARE(cleanText("line\nnext", true), std::string("line\nnext"));
        QCOMPARE(cleanText("a\xC2\x85"
                           "b"),
                 std::string("ab")); // C1 control
        QCOMPARE(cleanText("\xe5\x8d"
                           "x"),
                 std::string("\xEF\xBF\xBDx")); // a cut sequence: one U+FFFD
    }

    // What the GUI shows when a finding is selected (analysis::findingExtent): the evidence ranges when there are
    // any, else the events' slices; the track of the earliest piece is the one to reveal.
    void findingExtentOfEvidenceOrEvents()
    {
        const auto trace = testing::smallTrainingTrace();
        const model::SliceRef conv = testing::findSlice(*trace, "conv_fwd");       // [200,400)
        const model::SliceRef relu = testing::findSlice(*trace, "relu_fwd");       // [1300,1350)
        const model::SliceRef launch = testing::findSlice(*trace, "aten::conv2d"); // [100,300), host
        QVERIFY(conv.isValid() && relu.isValid() && launch.isValid());
        Finding f;
        f.events = {relu, conv, launch};
        FindingExtent x = findingExtent(f, trace.get());
        QVERIFY(x.valid);
        QCOMPARE(x.start, TimeNs(100));
        QCOMPARE(x.end, TimeNs(1350));
        QCOMPARE(x.firstTrack, launch.track);

        f.evidence = {{relu.track, 5000, 9000}, {conv.track, 1000, 3000}}; // evidence wins over events
        x = findingExtent(f, trace.get());
        QCOMPARE(x.start, TimeNs(1000));
        QCOMPARE(x.end, TimeNs(9000));
        QCOMPARE(x.firstTrack, conv.track);

        Finding nowhere;
        nowhere.events = {model::SliceRef {model::TrackId(9999), model::SliceIndex(0)}};
        QVERIFY(!findingExtent(nowhere, trace.get()).valid);
        QVERIFY(!findingExtent(Finding {}, trace.get()).valid);
        nowhere.events = {conv};
        QVERIFY(!findingExtent(nowhere, nullptr).valid); // events need the trace
    }

    void instancesInTimeOrder()
    {
        const auto trace = testing::smallTrainingTrace();
        const auto all = rangeStatsInstances(*trace, {0, 2000, {}}, RangeGroupBy::Name, "cudaLaunchKernel");
        QCOMPARE(all.size(), std::size_t(2));
        QVERIFY(trace->track(all[0].track).ts(all[0].index.value) == 120);
        QVERIFY(trace->track(all[1].track).ts(all[1].index.value) == 1110);
        const auto kernels = rangeStatsInstances(*trace, {0, 2000, {}}, RangeGroupBy::Category, "Kernel");
        QCOMPARE(kernels.size(), std::size_t(2));
        QCOMPARE(kernels[0], testing::findSlice(*trace, "conv_fwd"));
    }

    void callTreeTopDownAndBottomUp()
    {
        const auto trace = testing::smallTrainingTrace();
        CallTreeOptions options;
        options.selection = {trace->startNs(), trace->endNs(), {}};
        const CallTree tree = buildCallTree(*trace, options);
        const CallTreeNode* step1 = childOf(*trace, tree, 0, "ProfilerStep#1");
        QVERIFY(step1);
        const CallTreeNode* conv = childOf(*trace, tree, indexOf(tree, step1), "aten::conv2d");
        QVERIFY(conv);
        QCOMPARE(conv->totalNs, TimeNs(200));
        QCOMPARE(conv->selfNs, TimeNs(180));
        QCOMPARE(conv->deviceNs, TimeNs(200)); // conv_fwd, launched by its cudaLaunchKernel
        QCOMPARE(conv->deviceSelfNs, TimeNs(0));
        const CallTreeNode* launch = childOf(*trace, tree, indexOf(tree, conv), "cudaLaunchKernel");
        QVERIFY(launch);
        QCOMPARE(launch->deviceSelfNs, TimeNs(200));
        QCOMPARE(step1->deviceNs, TimeNs(200));
        QCOMPARE(tree.root().deviceNs, TimeNs(250));
        QCOMPARE(tree.root().totalNs, TimeNs(2000));    // the two steps are the top level
        QVERIFY(!childOf(*trace, tree, 0, "conv_fwd")); // device tracks are never nodes

        // Bottom-up: cudaLaunchKernel self 20 + 10 under two callers.
        const CallTree inv = invertCallTree(tree);
        const CallTreeNode* leaf = childOf(*trace, inv, 0, "cudaLaunchKernel");
        QVERIFY(leaf);
        QCOMPARE(leaf->calls, std::uint64_t(2));
        QCOMPARE(leaf->totalNs, TimeNs(30));
        QCOMPARE(leaf->deviceNs, TimeNs(250));
        QCOMPARE(leaf->children.size(), std::size_t(2));
        const CallTreeNode* viaRelu = childOf(*trace, inv, indexOf(inv, leaf), "aten::relu");
        QVERIFY(viaRelu);
        QCOMPARE(viaRelu->totalNs, TimeNs(10));
        QCOMPARE(viaRelu->deviceNs, TimeNs(50));

        // Framework ops only: launches are transparent, their device time is the op's own.
        options.frameworkOpsOnly = true;
        const CallTree ops = buildCallTree(*trace, options);
        const auto rows = flattenOperators(ops);
        QCOMPARE(rows.size(), std::size_t(2));
        QCOMPARE(trace->str(rows[0].name), std::string_view("aten::conv2d"));
        QCOMPARE(rows[0].hostNs, TimeNs(200));
        QCOMPARE(rows[0].selfNs, TimeNs(200));
        QCOMPARE(rows[0].deviceNs, TimeNs(200));
        QCOMPARE(rows[1].deviceNs, TimeNs(50));
        QCOMPARE(rows[1].maxSlice, testing::findSlice(*trace, "aten::relu"));
    }

    void launchedWork()
    {
        const auto trace = testing::smallTrainingTrace();
        const auto work = launchedDeviceWork(*trace, testing::findSlice(*trace, "aten::conv2d"));
        QCOMPARE(work.size(), std::size_t(1));
        QCOMPARE(work[0], testing::findSlice(*trace, "conv_fwd"));
        // A step launches everything inside it.
        const model::SliceRef step2 = testing::findSlice(*trace, "ProfilerStep#2");
        QCOMPARE(launchedDeviceWork(*trace, step2),
                 std::vector<model::SliceRef> {testing::findSlice(*trace, "relu_fwd")});
        QVERIFY(launchedDeviceWork(*trace, {}).empty());
    }

    // python3 tests/analysis/explore_figures.py ops FIXTURE: per cpu_op name, calls, host time (a call nested in a call
    // of the same name not counted again), and the duration of every kernel/gpu_memcpy/gpu_memset whose correlation
    // id's cuda_runtime call lies inside a call of that name:
    //   aten::to 20 calls, host 30 012 242 µs·1000, device 55 503 µs; aten::conv2d 10, 11 919 366, 6 333, max 10 841
    //   225; aten::copy_ 18 calls, host 57 807, device 55 503; no device time outside ops; total device 66 203 µs.
    void operatorsOnA100Fixture()
    {
        LOAD_FIXTURE(trace, std::string("torch/hta_a100_alexnet_benchmark_result_2869224_1695835535_trace.json.gz"));
        CallTreeOptions options;
        options.selection = {trace->startNs(), trace->endNs(), {}};
        options.frameworkOpsOnly = true;
        const CallTree tree = buildCallTree(*trace, options);
        const auto rows = flattenOperators(tree);
        const OperatorRow* to = opOf(*trace, rows, "aten::to");
        QVERIFY(to);
        QCOMPARE(to->calls, std::uint64_t(20));
        QCOMPARE(to->hostNs, TimeNs(30'012'242'000));
        QCOMPARE(to->deviceNs, TimeNs(55'503'000));
        QCOMPARE(trace->str(rows[0].name), std::string_view("aten::to")); // the most host time
        const OperatorRow* conv = opOf(*trace, rows, "aten::conv2d");
        QVERIFY(conv);
        QCOMPARE(conv->calls, std::uint64_t(10));
        QCOMPARE(conv->hostNs, TimeNs(11'919'366'000));
        QCOMPARE(conv->deviceNs, TimeNs(6'333'000));
        QCOMPARE(conv->maxNs, TimeNs(10'841'225'000));
        const OperatorRow* copy = opOf(*trace, rows, "aten::copy_");
        QVERIFY(copy);
        QCOMPARE(copy->calls, std::uint64_t(18));
        QCOMPARE(copy->hostNs, TimeNs(57'807'000));
        QCOMPARE(copy->deviceNs, TimeNs(55'503'000));
        QCOMPARE(tree.unattributedDeviceNs, TimeNs(0));
        // The double-click target is the slowest call.
        const model::Track& t = trace->track(conv->maxSlice.track);
        QCOMPARE(t.dur(conv->maxSlice.index.value), TimeNs(10'841'225'000));
    }

    // python3 tests/analysis/explore_figures.py range FIXTURE 1695835585800000 1695835585900000 (µs): every X event
    // (the profiler's "Trace" span too), counted by its part inside the window; self = clipped − Σ clipped direct
    // children on the same thread:
    //   cudaMalloc 5 slices, total 32 814 µs, self 32 814; aten::conv2d 5, total 24 112, self 10, max 14 972;
    //   aten::_convolution 5, total 24 054, self 57 (identical spans nest in file order); 273 slices, 587 069 µs in
    //   all.
    void rangeStatsOnA100Fixture()
    {
        LOAD_FIXTURE(trace, std::string("torch/hta_a100_alexnet_benchmark_result_2869224_1695835535_trace.json.gz"));
        const RangeStats s = computeRangeStats(*trace, {1'695'835'585'800'000'000, 1'695'835'585'900'000'000, {}});
        const RangeStatsRow* malloc = rowOf(s, "cudaMalloc");
        QVERIFY(malloc);
        QCOMPARE(malloc->count, std::uint64_t(5));
        QCOMPARE(malloc->totalNs, TimeNs(32'814'000));
        QCOMPARE(malloc->selfNs, TimeNs(32'814'000));
        const RangeStatsRow* conv = rowOf(s, "aten::conv2d");
        QVERIFY(conv);
        QCOMPARE(conv->count, std::uint64_t(5));
        QCOMPARE(conv->totalNs, TimeNs(24'112'000));
        QCOMPARE(conv->selfNs, TimeNs(10'000));
        QCOMPARE(conv->maxNs, TimeNs(14'972'000));
        const RangeStatsRow* inner = rowOf(s, "aten::_convolution");
        QVERIFY(inner);
        QCOMPARE(inner->selfNs, TimeNs(57'000)); // a view nested in a reshape of the same span is not subtracted twice
        QCOMPARE(s.sliceCount, std::uint64_t(273));
        QCOMPARE(s.totalNs, TimeNs(587'069'000));
    }
};

QTEST_MAIN(TestExplore)
#include "tst_explore.moc"
