// SPDX-License-Identifier: MIT
// Builder-made traces for every analysis kind, with lost time worked out by hand in the comments.
#include "analysis/core/deviceactivity.h"
#include "analysis/core/intervals.h"
#include "analysis/core/opclassifier.h"
#include "analysis/core/pass.h"
#include "model/tracebuilder.h"
#include "tests/analysis/findinglookup.h"

#include <QTest>

#include <algorithm>
#include <random>

using namespace timesink;
using namespace timesink::analysis;
using model::HostMemoryKind;
using model::MemcpyDirection;
using model::SliceCategory;
using model::TimeNs;
using model::TraceBuilder;
using model::TracePtr;

using testing::ofKind;

namespace {

const Detail* detail(const Finding& f, std::string_view key)
{
    for (const Detail& d : f.details) {
        if (d.key == key)
            return &d;
    }
    return nullptr;
}

std::string detailString(const Finding& f, std::string_view key)
{
    const Detail* d = detail(f, key);
    return d == nullptr ? std::string("<missing>") : detailText(*d);
}

const Finding* withDetail(const AnalysisResult& r, std::string_view kind, std::string_view key, std::string_view value)
{
    for (const Finding* f : ofKind(r, kind)) {
        if (detailString(*f, key) == value)
            return f;
    }
    return nullptr;
}

bool notAssessed(const AnalysisResult& r, std::string_view kind)
{
    return std::any_of(r.notAssessed.begin(), r.notAssessed.end(),
                       [&](const NotAssessed& n) { return n.kind == kind; });
}

AnalysisResult run(const TracePtr& t, AnalysisOptions options = {})
{
    CancelToken cancel;
    return analyze(*t, options, cancel);
}

TimeNs lostOf(const AnalysisResult& r, std::string_view kind)
{
    TimeNs total = 0;
    for (const Finding* f : ofKind(r, kind))
        total += f->lostNs;
    return total;
}

model::SliceRef launch(TraceBuilder& b, model::TrackId host, model::SliceRef deviceSlice, TimeNs ts, TimeNs dur,
                       std::string_view name = "cudaLaunchKernel")
{
    const model::SliceRef call = b.slice(host, SliceCategory::RuntimeApi, name, ts, dur);
    b.addFlow(call, deviceSlice);
    return call;
}

} // namespace

class TestAnalysisPasses : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void intervalAlgebra()
    {
        QCOMPARE(unite({{0, 10}, {5, 20}, {30, 40}, {40, 41}, {50, 50}}), (IntervalList {{0, 20}, {30, 41}}));
        QCOMPARE(subtract({{0, 20}}, {{5, 8}, {10, 12}}), (IntervalList {{0, 5}, {8, 10}, {12, 20}}));
        QCOMPARE(subtract({{0, 10}, {20, 30}}, {{-5, 25}}), (IntervalList {{25, 30}}));
        QCOMPARE(intersect({{0, 10}, {20, 30}}, {{5, 25}}), (IntervalList {{5, 10}, {20, 25}}));
        QCOMPARE(uniteSorted({{0, 5}, {10, 15}}, {{4, 11}, {20, 21}}), (IntervalList {{0, 15}, {20, 21}}));
        QCOMPARE(clip({{0, 10}, {20, 30}, {40, 50}}, 5, 45), (IntervalList {{5, 10}, {20, 30}, {40, 45}}));
        QCOMPARE(overlapLength({{0, 10}, {20, 30}, {40, 50}}, 5, 45), TimeNs(5 + 10 + 5));
        QCOMPARE(totalLength({{0, 10}, {20, 30}}), TimeNs(20));
        QCOMPARE(closeGaps({{0, 10}, {12, 20}, {40, 50}}, 5), (IntervalList {{0, 20}, {40, 50}}));
        QCOMPARE(closeGaps({{0, 10}, {15, 20}}, 5), (IntervalList {{0, 10}, {15, 20}})); // a gap of exactly 5 stays
        QCOMPARE(closeGaps({{0, 10}, {11, 20}}, 1), (IntervalList {{0, 10}, {11, 20}}));
    }

    // overlapLength with a hint (the re-timing's sweeps and critical-path walks) gives the plain one's lengths for
    // queries in any order, from any hint, and leaves the hint at the first interval ending after the query's start.
    void overlapLengthWithHint()
    {
        std::size_t hint = 7;
        QCOMPARE(overlapLength(IntervalList {}, 0, 10, hint), TimeNs(0));
        QCOMPARE(hint, std::size_t(0));
        const IntervalList three {{0, 10}, {20, 30}, {40, 50}};
        hint = 1000; // past the end: searched from the end backwards
        QCOMPARE(overlapLength(three, 5, 45, hint), TimeNs(20));
        QCOMPARE(hint, std::size_t(0));
        QCOMPARE(overlapLength(three, 30, 40, hint), TimeNs(0)); // touching ends count nothing
        QCOMPARE(hint, std::size_t(2));
        QCOMPARE(overlapLength(three, 60, 70, hint), TimeNs(0));
        QCOMPARE(hint, std::size_t(3));

        std::mt19937 rng(35);
        IntervalList list;
        TimeNs at = 0;
        for (int i = 0; i < 5000; ++i) {
            at += 1 + static_cast<TimeNs>(rng() % 50);
            const TimeNs len = 1 + static_cast<TimeNs>(rng() % 40);
            list.push_back({at, at + len});
            at += len;
        }
        const auto query = [&](TimeNs t0, TimeNs t1, std::size_t& h) {
            const TimeNs got = overlapLength(list, t0, t1, h);
            QCOMPARE(got, overlapLength(list, t0, t1));
            const auto first
                = std::partition_point(list.begin(), list.end(), [t0](const Interval& i) { return i.end <= t0; });
            QCOMPARE(h, static_cast<std::size_t>(first - list.begin()));
        };
        std::size_t forward = 0;
        for (TimeNs t = -100; t < at + 100; t += 1 + static_cast<TimeNs>(rng() % 300))
            query(t, t + static_cast<TimeNs>(rng() % 200), forward);
        std::size_t backward = 0;
        for (TimeNs t = at + 100; t > -100; t -= 1 + static_cast<TimeNs>(rng() % 300))
            query(t, t + static_cast<TimeNs>(rng() % 200), backward);
        std::size_t anywhere = 0;
        for (int i = 0; i < 2000; ++i) {
            const TimeNs t = static_cast<TimeNs>(rng() % static_cast<std::uint32_t>(at + 200)) - 100;
            query(t, t + static_cast<TimeNs>(rng() % 5000), anywhere);
        }
    }

    // The step activity the job's rank lanes draw (stepActivityOf): exact while small, then at 1/2048 of the step.
    void stepActivity()
    {
        DeviceActivity a;
        a.compute = {{100, 140}};
        a.copy = {{130, 160}};
        a.busy = {{100, 160}};
        // The header's example: window [100, 2148).
        StepActivity s = stepActivityOf(a, {100, 2148});
        QCOMPARE(s.resolutionNs, TimeNs(1));
        QCOMPARE(s.compute, (IntervalList {{0, 40}}));
        QCOMPARE(s.copy, (IntervalList {{40, 60}}));
        QCOMPARE(s.idle, (IntervalList {{60, 2048}}));
        QCOMPARE(stepActivityOf(a, {50, 50}).resolutionNs, TimeNs(0)); // an empty window
        // 3,000 kernels of 10 ns every 100 ns over a 300,000 ns step: too many to keep, so drawn at 146 ns
        // (300,000 / 2048): the 90 ns gaps close into one compute piece, and idle is the one 90 ns tail.
        DeviceActivity many;
        for (TimeNs k = 0; k < 3000; ++k)
            many.compute.push_back({k * 100, k * 100 + 10});
        many.busy = many.compute;
        s = stepActivityOf(many, {0, 300'000});
        QCOMPARE(s.resolutionNs, TimeNs(146));
        QCOMPARE(s.compute, (IntervalList {{0, 299'910}}));
        QVERIFY(s.copy.empty());
        QCOMPARE(s.idle, (IntervalList {{299'910, 300'000}}));
        // Gaps as long as the resolution stay: kernels every 400 ns keep their 390 ns gaps (still under 2,049 each).
        DeviceActivity sparse;
        for (TimeNs k = 0; k < 3000; ++k)
            sparse.compute.push_back({k * 400, k * 400 + 10});
        sparse.busy = sparse.compute;
        s = stepActivityOf(sparse, {0, 1'200'000});
        QCOMPARE(s.resolutionNs, TimeNs(585));
        QCOMPARE(s.compute.size(), std::size_t(1)); // 390 < 585: closed
        s = stepActivityOf(sparse, {0, 600'000});   // 1,500 kernels inside: exact
        QCOMPARE(s.resolutionNs, TimeNs(1));
        QCOMPARE(s.compute.size(), std::size_t(1500));
        QCOMPARE(s.idle.size(), std::size_t(1500));
    }

    // unite() merges ascending runs (tracks concatenated one after another) and sorts anything else: both must give
    // the union a plain sort gives, for any number of runs, odd and even, empty and touching intervals included.
    void uniteOfRuns()
    {
        const auto reference = [](IntervalList v) {
            std::erase_if(v, [](const Interval& i) { return i.end <= i.start; });
            std::sort(v.begin(), v.end(), [](const Interval& a, const Interval& b) { return a.start < b.start; });
            IntervalList out;
            for (const Interval& i : v) {
                if (!out.empty() && i.start <= out.back().end)
                    out.back().end = std::max(out.back().end, i.end);
                else
                    out.push_back(i);
            }
            return out;
        };
        std::uint64_t state = 12345;
        const auto next = [&state](std::uint64_t bound) {
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            return static_cast<TimeNs>((state >> 33) % bound);
        };
        for (std::size_t runs : {1U, 2U, 3U, 7U, 8U, 255U, 256U, 257U, 1000U}) {
            IntervalList v;
            for (std::size_t r = 0; r < runs; ++r) {
                TimeNs t = next(1000);
                const std::size_t length = static_cast<std::size_t>(next(12));
                for (std::size_t i = 0; i < length; ++i) {
                    t += next(50);
                    v.push_back({t, t + next(40)}); // some empty, some touching the next
                }
            }
            QCOMPARE(unite(v), reference(v));
        }
        QCOMPARE(unite({{30, 40}, {0, 10}, {5, 20}, {40, 41}}), (IntervalList {{0, 20}, {30, 41}}));
        QCOMPARE(unite({}), IntervalList {});
    }

    void opTypes_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("role");
        QTest::newRow("aten conv") << "aten::conv2d" << int(ChainRole::Conv);
        QTest::newRow("aten relu_") << "aten::relu_" << int(ChainRole::Activation);
        QTest::newRow("aten bn") << "aten::batch_norm" << int(ChainRole::BatchNorm);
        QTest::newRow("ascend conv") << "Conv2D1" << int(ChainRole::Conv);
        QTest::newRow("ascend bn reduce") << "BNTrainingReduce" << int(ChainRole::BatchNorm);
        QTest::newRow("ascend bn update v2") << "BNTrainingUpdateV2" << int(ChainRole::BatchNorm);
        QTest::newRow("rknn bn") << "BatchNormalization" << int(ChainRole::BatchNorm);
        QTest::newRow("rknn fused") << "ConvRelu" << int(ChainRole::None);
        QTest::newRow("rknn fused swish") << "ConvExSwish" << int(ChainRole::None);
        QTest::newRow("linear") << "aten::linear" << int(ChainRole::MatMul);
        QTest::newRow("add") << "aten::add_" << int(ChainRole::Add);
        QTest::newRow("backward") << "ConvolutionBackward0" << int(ChainRole::None);
    }
    void opTypes()
    {
        QFETCH(QString, name);
        QFETCH(int, role);
        QCOMPARE(int(chainRole(normalizeOpType(name.toStdString()))), role);
    }

    // Step [0,1000); kernels [0,100) and [600,1000); dataloader [50,400) on the host.
    // Idle = [100,600) = 500; the dataloader claims [100,400) = 300; the rest [400,600) = 200 is a bubble.
    void dataloaderClaimsIdleFirst()
    {
        TraceBuilder b;
        const auto host = b.hostThread();
        const auto gpu = b.deviceStream(0, 7);
        b.step(host, 1, 0, 1000);
        b.slice(host, SliceCategory::Dataloader, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 50,
                350);
        b.slice(gpu, SliceCategory::Kernel, "k0", 0, 100);
        b.slice(gpu, SliceCategory::Kernel, "k1", 600, 400);
        AnalysisOptions o;
        o.bubbleThresholdNs = 100;
        const AnalysisResult r = run(b.finalize(), o);
        const auto dl = ofKind(r, "dataloader_starvation");
        QCOMPARE(dl.size(), std::size_t(1));
        QCOMPARE(dl[0]->lostNs, TimeNs(300));
        QCOMPARE(dl[0]->perStep.size(), std::size_t(1));
        QCOMPARE(dl[0]->perStep[0].stepNumber, std::int64_t(1));
        QCOMPARE(dl[0]->perStep[0].lostNs, TimeNs(300));
        QCOMPARE(dl[0]->perStep[0].stepNs, TimeNs(1000));
        QCOMPARE(dl[0]->lostFraction, 0.3);
        QCOMPARE(detailString(*dl[0], "worst_step_share"), std::string("0.3"));
        QCOMPARE(lostOf(r, "pipeline_bubble"), TimeNs(200));
        QCOMPARE(r.analysedNs, TimeNs(1000));
        QVERIFY(!dl[0]->events.empty());
    }

    // No device at all: the dataloader time inside steps is lost. Two overlapping spans [100,300) and
    // [250,400) count once (300); a span outside every step [1200,1300) does not count.
    void dataloaderOnCpuOnlyTrace()
    {
        TraceBuilder b;
        const auto host = b.hostThread();
        b.step(host, 5, 0, 1000);
        b.slice(host, SliceCategory::Dataloader, "enumerate(DataLoader)#a", 100, 200);
        b.slice(host, SliceCategory::Dataloader, "enumerate(DataLoader)#b", 250, 150);
        b.slice(host, SliceCategory::Dataloader, "enumerate(DataLoader)#c", 1200, 100);
        b.slice(host, SliceCategory::HostOp, "aten::mm", 500, 300);
        const AnalysisResult r = run(b.finalize());
        QCOMPARE(lostOf(r, "dataloader_starvation"), TimeNs(300));
        QCOMPARE(ofKind(r, "dataloader_starvation").front()->occurrences, std::uint64_t(2));
        // Idle-based and device kinds say why they could not assess the trace instead of reporting zero.
        QVERIFY(notAssessed(r, "pipeline_bubble"));
        QVERIFY(notAssessed(r, "copy_hotspot"));
        QVERIFY(notAssessed(r, "cpu_fallback"));
        QVERIFY(!notAssessed(r, "dataloader_starvation"));
        QVERIFY(!notAssessed(r, "unfused_chain"));
    }

    void noDataloaderIsNotAssessed()
    {
        TraceBuilder b;
        const auto host = b.hostThread();
        const auto gpu = b.deviceStream(0, 7);
        b.step(host, 1, 0, 100);
        b.slice(gpu, SliceCategory::Kernel, "k", 0, 100);
        const AnalysisResult r = run(b.finalize());
        QVERIFY(notAssessed(r, "dataloader_starvation"));
        QVERIFY(r.findings.empty());
    }

    // Step [0,1000); kernel [200,300) only; the host records nothing (Python). Gaps at both step edges:
    // [0,200) and [300,1000). With the default 50 µs threshold... here in ns: threshold 150 keeps both (900),
    // threshold 250 drops the 200 ns gap (700).
    void bubblesAtStepEdges_data()
    {
        QTest::addColumn<qint64>("threshold");
        QTest::addColumn<qint64>("lost");
        QTest::addColumn<qint64>("gaps");
        QTest::newRow("both") << qint64(150) << qint64(900) << qint64(2);
        QTest::newRow("long only") << qint64(250) << qint64(700) << qint64(1);
        QTest::newRow("none") << qint64(800) << qint64(0) << qint64(0);
    }
    void bubblesAtStepEdges()
    {
        QFETCH(qint64, threshold);
        QFETCH(qint64, lost);
        QFETCH(qint64, gaps);
        TraceBuilder b;
        const auto host = b.hostThread();
        const auto gpu = b.deviceStream(0, 7);
        b.step(host, 1, 0, 1000);
        b.slice(gpu, SliceCategory::Kernel, "k", 200, 100);
        AnalysisOptions o;
        o.bubbleThresholdNs = threshold;
        const AnalysisResult r = run(b.finalize(), o);
        QCOMPARE(lostOf(r, "pipeline_bubble"), TimeNs(lost));
        const Finding* python = withDetail(r, "pipeline_bubble", "cause", "python");
        QCOMPARE(python != nullptr, lost > 0);
        if (python != nullptr)
            QCOMPARE(python->occurrences, std::uint64_t(gaps));
    }

    // Two streams: busy is their union. Stream 7 [0,400), stream 8 [300,700) and [800,850) in step [0,1000):
    // idle = [700,800) + [850,1000) = 250.
    void multipleStreamsUnion()
    {
        TraceBuilder b;
        const auto host = b.hostThread();
        const auto s7 = b.deviceStream(0, 7);
        const auto s8 = b.deviceStream(0, 8);
        b.step(host, 1, 0, 1000);
        b.slice(s7, SliceCategory::Kernel, "a", 0, 400);
        b.slice(s8, SliceCategory::Kernel, "b", 300, 400);
        b.slice(s8, SliceCategory::Kernel, "c", 800, 50);
        AnalysisOptions o;
        o.bubbleThresholdNs = 10;
        const AnalysisResult r = run(b.finalize(), o);
        QCOMPARE(lostOf(r, "pipeline_bubble"), TimeNs(250));
    }

    // Overlapping causes in one step [0,1000): kernels [0,100) and [900,1000); dataloader [100,300);
    // a framework op with no device work [300,700); cudaStreamSynchronize [700,800); nothing [800,900).
    // dataloader 200, host_op 400, sync_wait 100, python 100: together exactly the 800 idle ns.
    void causesSplitWithoutDoubleCounting()
    {
        TraceBuilder b;
        const auto host = b.hostThread();
        const auto gpu = b.deviceStream(0, 7);
        b.step(host, 1, 0, 1000);
        b.slice(host, SliceCategory::Dataloader, "enumerate(DataLoader)#x", 100, 200);
        b.slice(host, SliceCategory::HostOp, "aten::nonzero", 300, 400);
        b.slice(host, SliceCategory::RuntimeApi, "cudaStreamSynchronize", 700, 100);
        const auto k0 = b.slice(gpu, SliceCategory::Kernel, "k0", 0, 100);
        const auto k1 = b.slice(gpu, SliceCategory::Kernel, "k1", 900, 100);
        launch(b, host, k0, 0, 5);
        launch(b, host, k1, 50, 5); // queued early, while k0 runs
        AnalysisOptions o;
        o.bubbleThresholdNs = 50;
        o.tinyKernelNs = 10; // the 100 ns kernels around the gaps are not "tiny" here
        const AnalysisResult r = run(b.finalize(), o);
        QCOMPARE(lostOf(r, "dataloader_starvation"), TimeNs(200));
        const Finding* hostOp = withDetail(r, "pipeline_bubble", "cause", "host_op");
        const Finding* sync = withDetail(r, "pipeline_bubble", "cause", "sync_wait");
        const Finding* python = withDetail(r, "pipeline_bubble", "cause", "python");
        QVERIFY(hostOp && sync && python);
        QCOMPARE(hostOp->lostNs, TimeNs(400));
        QCOMPARE(sync->lostNs, TimeNs(100));
        QCOMPARE(python->lostNs, TimeNs(100));
        QCOMPARE(lostOf(r, "pipeline_bubble") + lostOf(r, "dataloader_starvation"), TimeNs(800));
        QVERIFY(!sync->events.empty());
    }

    // Tiny kernels [0,5), [105,110), [210,215) with the host inside framework ops between them: both
    // 100 ns gaps are launch-bound (200). With a long kernel after the second gap, that gap is host_op.
    void launchBound_data()
    {
        QTest::addColumn<qint64>("lastKernelNs");
        QTest::addColumn<qint64>("launchBound");
        QTest::addColumn<qint64>("hostOp");
        QTest::newRow("all tiny") << qint64(5) << qint64(200) << qint64(0);
        QTest::newRow("long last kernel") << qint64(500) << qint64(100) << qint64(100);
    }
    void launchBound()
    {
        QFETCH(qint64, lastKernelNs);
        QFETCH(qint64, launchBound);
        QFETCH(qint64, hostOp);
        TraceBuilder b;
        const auto host = b.hostThread();
        const auto gpu = b.deviceStream(0, 7);
        b.step(host, 1, 0, 210 + lastKernelNs);
        const auto k0 = b.slice(gpu, SliceCategory::Kernel, "k0", 0, 5);
        const auto k1 = b.slice(gpu, SliceCategory::Kernel, "k1", 105, 5);
        const auto k2 = b.slice(gpu, SliceCategory::Kernel, "k2", 210, lastKernelNs);
        b.slice(host, SliceCategory::HostOp, "aten::add", 0, 105);
        b.slice(host, SliceCategory::HostOp, "aten::mul", 105, 105);
        launch(b, host, k0, 0, 1);
        launch(b, host, k1, 100, 4);
        launch(b, host, k2, 205, 4);
        AnalysisOptions o;
        o.bubbleThresholdNs = 50;
        o.tinyKernelNs = 10;
        const AnalysisResult r = run(b.finalize(), o);
        const Finding* lb = withDetail(r, "pipeline_bubble", "cause", "launch_bound");
        const Finding* ho = withDetail(r, "pipeline_bubble", "cause", "host_op");
        QCOMPARE(lb ? lb->lostNs : 0, TimeNs(launchBound));
        QCOMPARE(ho ? ho->lostNs : 0, TimeNs(hostOp));
    }

    // A host-to-device copy [0,100) on a copy stream with a kernel [0,60) on a compute stream of the same
    // GPU: 40 ns are not overlapped. A second copy from another call site is fully hidden by a kernel and
    // gives no finding. A pageable, synchronous, small device-to-host copy from aten::item [500,600) with
    // no compute: 100 ns.
    void copyHotspots()
    {
        TraceBuilder b;
        const auto host = b.hostThread();
        const auto compute = b.deviceStream(0, 7);
        const auto copies = b.deviceStream(0, 9, model::DeviceKind::Gpu, model::TrackRole::DeviceCopy);
        b.step(host, 1, 0, 1000);
        b.slice(host, SliceCategory::HostOp, "aten::to", 0, 40);
        b.slice(host, SliceCategory::HostOp, "aten::_to_copy", 1, 38);
        b.slice(host, SliceCategory::HostOp, "aten::copy_", 2, 36);
        const auto c1 = b.memcpy(copies, MemcpyDirection::HostToDevice, HostMemoryKind::Pinned, 0, 100,
                                 "Memcpy HtoD (Pinned -> Device)");
        launch(b, host, c1, 3, 10, "cudaMemcpyAsync");
        b.slice(compute, SliceCategory::Kernel, "k", 0, 60);
        b.slice(host, SliceCategory::HostOp, "aten::index_put_", 200, 40);
        const auto c2 = b.memcpy(copies, MemcpyDirection::HostToDevice, HostMemoryKind::Pinned, 250, 50);
        launch(b, host, c2, 201, 10, "cudaMemcpyAsync");
        b.slice(compute, SliceCategory::Kernel, "hides", 240, 100);
        b.slice(host, SliceCategory::HostOp, "aten::item", 490, 120);
        model::SliceInput in;
        in.ts = 500;
        in.dur = 100;
        in.name = b.intern("Memcpy DtoH (Device -> Pageable)");
        in.category = SliceCategory::Memcpy;
        in.setMemcpy(MemcpyDirection::DeviceToHost, HostMemoryKind::Pageable);
        const model::Arg bytes {b.intern("bytes"), model::ArgValue::fromInt(4)};
        in.args = b.addArgs(std::span(&bytes, 1));
        const auto c3 = b.addSlice(copies, in);
        launch(b, host, c3, 495, 110, "cudaMemcpyAsync");
        const AnalysisResult r = run(b.finalize());
        const auto found = ofKind(r, "copy_hotspot");
        QCOMPARE(found.size(), std::size_t(2));
        const Finding* htod = withDetail(r, "copy_hotspot", "call_site", "aten::to");
        const Finding* dtoh = withDetail(r, "copy_hotspot", "call_site", "aten::item");
        QVERIFY(htod && dtoh);
        QCOMPARE(htod->lostNs, TimeNs(40));
        QCOMPARE(detailString(*htod, "direction"), std::string("htod"));
        QCOMPARE(detailString(*htod, "overlapped_ns"), std::string("60"));
        QCOMPARE(dtoh->lostNs, TimeNs(100));
        QCOMPARE(detailString(*dtoh, "pageable"), std::string("1"));
        QCOMPARE(detailString(*dtoh, "small"), std::string("1"));
        QVERIFY(dtoh->recommendation.find(".item()") != std::string::npos);
        QVERIFY(withDetail(r, "copy_hotspot", "call_site", "aten::index_put_") == nullptr);
        // Ranked by lost time.
        QCOMPARE(found[0]->lostNs, TimeNs(100));
    }

    // Ascend AI_CPU tasks (FallbackOp on an NPU stream): lost = their time, grouped by op.
    void ascendAiCpuFallback()
    {
        TraceBuilder b;
        b.metadata().format = "torch_npu";
        const auto host = b.hostThread();
        const auto npu = b.deviceStream(0, 2, model::DeviceKind::Npu);
        b.step(host, 1, 0, 1000);
        b.slice(npu, SliceCategory::Kernel, "MatMul", 0, 100);
        b.slice(npu, SliceCategory::FallbackOp, "aclnnReduceSum_CastAiCpu_Cast", 100, 50);
        b.slice(npu, SliceCategory::FallbackOp, "aclnnReduceSum_CastAiCpu_Cast", 300, 70);
        b.slice(npu, SliceCategory::FallbackOp, "Unique", 400, 10);
        const AnalysisResult r = run(b.finalize());
        const Finding* cast = withDetail(r, "cpu_fallback", "op", "aclnnReduceSum_CastAiCpu_Cast");
        QVERIFY(cast);
        QCOMPARE(cast->lostNs, TimeNs(120));
        QCOMPARE(cast->occurrences, std::uint64_t(2));
        // 120 ns is 0.00012 ms, printed with three decimals; the unit is counted in tasks, singular for one.
        QCOMPARE(cast->title, std::string("AI_CPU fallback of aclnnReduceSum_CastAiCpu_Cast: 120 ns (2 tasks)"));
        const Finding* unique = withDetail(r, "cpu_fallback", "op", "Unique");
        QVERIFY(unique);
        QCOMPARE(unique->title, std::string("AI_CPU fallback of Unique: 10 ns (1 task)"));
        QCOMPARE(cast->platform, Platform::TorchNpuCann);
        QVERIFY(cast->recommendation.find("AI_CPU") != std::string::npos);
        QCOMPARE(lostOf(r, "cpu_fallback"), TimeNs(130));
    }

    // A framework op that round-trips through the host on a GPU run: aten::nonzero [0,1000) launches a DtoH
    // copy [30,80) and, after host-only work, an HtoD copy [920,960), with no kernel in between. Lost = the
    // op's host time outside the copies (30 + 840 + 40) plus the copies (50 + 40) = 1000. The same op
    // launching a kernel between the copies is not a fallback.
    void hostRoundTripFallback_data()
    {
        QTest::addColumn<bool>("kernelBetween");
        QTest::addColumn<qint64>("lost");
        QTest::newRow("round trip") << false << qint64(1000);
        QTest::newRow("kernel in between") << true << qint64(0);
    }
    void hostRoundTripFallback()
    {
        QFETCH(bool, kernelBetween);
        QFETCH(qint64, lost);
        TraceBuilder b;
        b.metadata().format = "kineto";
        const auto host = b.hostThread();
        const auto gpu = b.deviceStream(0, 7);
        b.step(host, 1, 0, 2000);
        b.slice(host, SliceCategory::HostOp, "aten::nonzero", 0, 1000);
        const auto d2h = b.memcpy(gpu, MemcpyDirection::DeviceToHost, HostMemoryKind::Pageable, 30, 50);
        launch(b, host, d2h, 10, 10, "cudaMemcpyAsync");
        if (kernelBetween) {
            const auto k = b.slice(gpu, SliceCategory::Kernel, "nonzero_kernel", 500, 10);
            launch(b, host, k, 400, 5);
        }
        const auto h2d = b.memcpy(gpu, MemcpyDirection::HostToDevice, HostMemoryKind::Pageable, 920, 40);
        launch(b, host, h2d, 900, 10, "cudaMemcpyAsync");
        const AnalysisResult r = run(b.finalize());
        const Finding* f = withDetail(r, "cpu_fallback", "source", "host_round_trip");
        QCOMPARE(f ? f->lostNs : 0, TimeNs(lost));
        if (f != nullptr) {
            QCOMPARE(detailString(*f, "op"), std::string("aten::nonzero"));
            QCOMPARE(detailString(*f, "copy_ns"), std::string("90"));
            QCOMPARE(detailString(*f, "copies"), std::string("2"));
            QCOMPARE(f->occurrences, std::uint64_t(1));
            QCOMPARE(f->title, std::string("Host round trip in aten::nonzero: 1.00 µs (1 call)"));
            QCOMPARE(f->platform, Platform::PyTorchCuda);
        }
    }

    // RKNN table: InputOperator (CPU) 4, ConvRelu (NPU) 96, Conv 50, BatchNormalization 20, Relu 10 (NPU),
    // Transpose (CPU) 590, OutputOperator (CPU) 10. Only the Transpose is a fallback (590); the unfused
    // Conv → BN → Relu costs the BN and Relu layers (30); the fused ConvRelu is no chain.
    void rknnLayers()
    {
        TraceBuilder b;
        b.metadata().format = "rknn";
        b.metadata().syntheticTimestamps = true;
        const auto npu = b.deviceStream(0, 0, model::DeviceKind::EdgeNpu);
        const auto cpu = b.hostThread("CPU layers");
        b.slice(cpu, SliceCategory::FallbackOp, "InputOperator", 0, 4);
        b.slice(npu, SliceCategory::Kernel, "ConvRelu", 4, 96);
        b.slice(npu, SliceCategory::Kernel, "Conv", 100, 50);
        b.slice(npu, SliceCategory::Kernel, "BatchNormalization", 150, 20);
        b.slice(npu, SliceCategory::Kernel, "Relu", 170, 10);
        b.slice(cpu, SliceCategory::FallbackOp, "Transpose", 180, 590);
        b.slice(cpu, SliceCategory::FallbackOp, "OutputOperator", 770, 10);
        const AnalysisResult r = run(b.finalize());
        QCOMPARE(r.analysedNs, TimeNs(780));
        const auto fb = ofKind(r, "cpu_fallback");
        QCOMPARE(fb.size(), std::size_t(1));
        QCOMPARE(fb[0]->lostNs, TimeNs(590));
        QCOMPARE(detailString(*fb[0], "op"), std::string("Transpose"));
        QCOMPARE(fb[0]->title, std::string("CPU fallback of Transpose layer: 590 ns (1 layer)"));
        QCOMPARE(fb[0]->platform, Platform::Rknn);
        QVERIFY(fb[0]->recommendation.find("RKNN") != std::string::npos);
        const auto chains = ofKind(r, "unfused_chain");
        QCOMPARE(chains.size(), std::size_t(1));
        QCOMPARE(chains[0]->lostNs, TimeNs(30));
        QCOMPARE(chains[0]->occurrences, std::uint64_t(1));
        QCOMPARE(detailString(*chains[0], "pattern"), std::string("conv_bn_act"));
        // Laid-out timestamps: idle time is not measured, so the idle-based kinds are not assessed.
        QVERIFY(notAssessed(r, "pipeline_bubble"));
        QVERIFY(notAssessed(r, "dataloader_starvation"));
        QVERIFY(notAssessed(r, "copy_hotspot"));
    }

    // A fused ConvRelu followed by a BatchNormalization and a Relu is no chain: ConvRelu is not a Conv.
    void fusedLayerIsNoChain()
    {
        TraceBuilder b;
        b.metadata().format = "rknn";
        b.metadata().syntheticTimestamps = true;
        const auto npu = b.deviceStream(0, 0, model::DeviceKind::EdgeNpu);
        b.slice(npu, SliceCategory::Kernel, "ConvRelu", 0, 50);
        b.slice(npu, SliceCategory::Kernel, "BatchNormalization", 50, 20);
        b.slice(npu, SliceCategory::Kernel, "Relu", 70, 10);
        const AnalysisResult r = run(b.finalize());
        QVERIFY(ofKind(r, "unfused_chain").empty());
    }

    // CPU-only eager ops under a step: conv2d [0,100) → add_ [100,102) → batch_norm [102,150) → relu_ [150,170)
    // is one Conv-BN-ReLU chain (lost 48 + 20; the training-mode counter add_ is skipped, not counted);
    // conv2d [200,300) → relu [300,310) a Conv-ReLU chain (lost 10).
    // The nested children of conv2d are not siblings of batch_norm and do not break or start chains.
    void unfusedOnCpuOnlyTrace()
    {
        TraceBuilder b;
        const auto host = b.hostThread();
        b.step(host, 1, 0, 400);
        b.slice(host, SliceCategory::HostOp, "aten::conv2d", 0, 100);
        b.slice(host, SliceCategory::HostOp, "aten::convolution", 1, 98);
        b.slice(host, SliceCategory::HostOp, "aten::add_", 100, 2); // BatchNorm's num_batches_tracked += 1
        b.slice(host, SliceCategory::HostOp, "aten::batch_norm", 102, 48);
        b.slice(host, SliceCategory::HostOp, "aten::native_batch_norm", 103, 46);
        b.slice(host, SliceCategory::HostOp, "aten::relu_", 150, 20);
        b.slice(host, SliceCategory::HostOp, "aten::conv2d", 200, 100);
        b.slice(host, SliceCategory::HostOp, "aten::relu", 300, 10);
        b.slice(host, SliceCategory::HostOp, "aten::add", 310, 10);
        const AnalysisResult r = run(b.finalize());
        const Finding* cba = withDetail(r, "unfused_chain", "pattern", "conv_bn_act");
        const Finding* ca = withDetail(r, "unfused_chain", "pattern", "conv_act");
        QVERIFY(cba && ca);
        QCOMPARE(cba->lostNs, TimeNs(68));
        QCOMPARE(cba->occurrences, std::uint64_t(1));
        QCOMPARE(detailString(*cba, "example"), std::string("aten::conv2d → aten::batch_norm → aten::relu_"));
        QCOMPARE(ca->lostNs, TimeNs(10));
        QCOMPARE(cba->platform, Platform::Generic);
        QVERIFY(cba->recommendation.find("fuse_modules") != std::string::npos);
    }

    // with_stack=True: aten::conv2d [10,90) and aten::relu_ [105,125) sit under different Python frames; the
    // frames are transparent, so they still form a Conv-ReLU chain (lost 20). An op nested in another framework
    // op (aten::convolution under aten::conv2d) is not a sibling of aten::relu_.
    void pythonFramesAreTransparent()
    {
        TraceBuilder b;
        const auto host = b.hostThread();
        b.step(host, 1, 0, 200);
        b.slice(host, SliceCategory::PythonFrame, "torch/nn/modules/conv.py(459): forward", 0, 100);
        b.slice(host, SliceCategory::HostOp, "aten::conv2d", 10, 80);
        b.slice(host, SliceCategory::HostOp, "aten::convolution", 11, 78);
        b.slice(host, SliceCategory::PythonFrame, "torch/nn/functional.py(1460): relu", 100, 30);
        b.slice(host, SliceCategory::HostOp, "aten::relu_", 105, 20);
        const AnalysisResult r = run(b.finalize());
        const Finding* ca = withDetail(r, "unfused_chain", "pattern", "conv_act");
        QVERIFY(ca);
        QCOMPARE(ca->lostNs, TimeNs(20));
        QCOMPARE(ca->occurrences, std::uint64_t(1));
    }

    // On a device run the lost time of a framework chain is the device time of the kernels the BN and ReLU
    // ops launched (30 + 10), and the same kernels are not counted again as a device-task chain.
    void unfusedFrameworkChainOnDevice()
    {
        TraceBuilder b;
        b.metadata().format = "torch_npu";
        const auto host = b.hostThread();
        const auto npu = b.deviceStream(0, 2, model::DeviceKind::Npu);
        b.step(host, 1, 0, 1000);
        b.slice(host, SliceCategory::HostOp, "aten::conv2d", 0, 50);
        b.slice(host, SliceCategory::HostOp, "aten::batch_norm", 50, 50);
        b.slice(host, SliceCategory::HostOp, "aten::relu_", 100, 50);
        const auto kc = b.slice(npu, SliceCategory::Kernel, "Conv2D", 200, 100);
        const auto kb = b.slice(npu, SliceCategory::Kernel, "BNTrainingUpdate", 300, 30);
        const auto kr = b.slice(npu, SliceCategory::Kernel, "Relu", 330, 10);
        launch(b, host, kc, 10, 5, "AscendCL@aclnnConvolution");
        launch(b, host, kb, 60, 5, "AscendCL@aclnnBatchNorm");
        launch(b, host, kr, 110, 5, "AscendCL@aclnnRelu");
        const AnalysisResult r = run(b.finalize());
        const auto chains = ofKind(r, "unfused_chain");
        QCOMPARE(chains.size(), std::size_t(1));
        QCOMPARE(chains[0]->lostNs, TimeNs(40));
        QCOMPARE(chains[0]->occurrences, std::uint64_t(1));
        QCOMPARE(detailString(*chains[0], "from_framework_ops"), std::string("1"));
        QVERIFY(chains[0]->recommendation.find("torchair") != std::string::npos);
    }

    // Ascend device tasks without framework ops: Conv2D → BNTrainingReduce → BNTrainingUpdate → Relu
    // on one stream: one chain, lost = 20 + 30 + 10. A MatMul → Add → Gelu chain costs 15 + 5.
    void ascendDeviceChains()
    {
        TraceBuilder b;
        b.metadata().format = "torch_npu";
        const auto npu = b.deviceStream(0, 2, model::DeviceKind::Npu);
        b.slice(npu, SliceCategory::Kernel, "Conv2D1", 0, 100);
        b.slice(npu, SliceCategory::Kernel, "BNTrainingReduce2", 100, 20);
        b.slice(npu, SliceCategory::Kernel, "BNTrainingUpdate3", 120, 30);
        b.slice(npu, SliceCategory::Kernel, "Relu4", 150, 10);
        b.slice(npu, SliceCategory::Kernel, "MatMulV2", 200, 50);
        b.slice(npu, SliceCategory::Kernel, "Add", 250, 15);
        b.slice(npu, SliceCategory::Kernel, "Gelu", 265, 5);
        const AnalysisResult r = run(b.finalize());
        const Finding* cba = withDetail(r, "unfused_chain", "pattern", "conv_bn_act");
        const Finding* mm = withDetail(r, "unfused_chain", "pattern", "matmul_add_act");
        QVERIFY(cba && mm);
        QCOMPARE(cba->lostNs, TimeNs(60));
        QCOMPARE(mm->lostNs, TimeNs(20));
    }

    // The synthetic step of a trace without markers: the whole span is analysed as one step.
    void traceWithoutSteps()
    {
        TraceBuilder b;
        const auto gpu = b.deviceStream(0, 7);
        b.slice(gpu, SliceCategory::Kernel, "a", 1000, 100);
        b.slice(gpu, SliceCategory::Kernel, "b", 1300, 100);
        AnalysisOptions o;
        o.bubbleThresholdNs = 100;
        const AnalysisResult r = run(b.finalize(), o);
        QCOMPARE(r.analysedNs, TimeNs(400));
        QCOMPARE(lostOf(r, "pipeline_bubble"), TimeNs(200));
        QCOMPARE(ofKind(r, "pipeline_bubble").front()->perStep.front().stepNumber, std::int64_t(0));
    }

    // Ranking: lost time descending, then kind, then first timestamp, independent of input order.
    void rankingIsDeterministic()
    {
        auto make = [](std::string kind, TimeNs lost, TimeNs first) {
            Finding f;
            f.kind = std::move(kind);
            f.lostNs = lost;
            f.firstTs = first;
            return f;
        };
        std::vector<Finding> v = {make("pipeline_bubble", 10, 5), make("copy_hotspot", 10, 9),
                                  make("copy_hotspot", 10, 1), make("unfused_chain", 50, 0)};
        std::vector<Finding> w(v.rbegin(), v.rend());
        std::sort(v.begin(), v.end(), rankBefore);
        std::sort(w.begin(), w.end(), rankBefore);
        const std::vector<std::pair<std::string, TimeNs>> expected
            = {{"unfused_chain", 0}, {"copy_hotspot", 1}, {"copy_hotspot", 9}, {"pipeline_bubble", 5}};
        for (std::size_t i = 0; i < expected.size(); ++i) {
            QCOMPARE(v[i].kind, expected[i].first);
            QCOMPARE(v[i].firstTs, expected[i].second);
            QCOMPARE(w[i].kind, v[i].kind);
            QCOMPARE(w[i].firstTs, v[i].firstTs);
        }
        // And the whole pipeline gives the same order twice.
        TraceBuilder b;
        const auto host = b.hostThread();
        const auto gpu = b.deviceStream(0, 7);
        b.step(host, 1, 0, 1000);
        b.slice(gpu, SliceCategory::Kernel, "a", 100, 100);
        b.slice(gpu, SliceCategory::Kernel, "b", 400, 100);
        b.slice(gpu, SliceCategory::Kernel, "c", 700, 100);
        const TracePtr t = b.finalize();
        AnalysisOptions o;
        o.bubbleThresholdNs = 10;
        const AnalysisResult r1 = run(t, o);
        const AnalysisResult r2 = run(t, o);
        QCOMPARE(r1.findings.size(), r2.findings.size());
        for (std::size_t i = 0; i < r1.findings.size(); ++i) {
            QCOMPARE(r1.findings[i].title, r2.findings[i].title);
            QCOMPARE(r1.findings[i].lostNs, r2.findings[i].lostNs);
        }
    }

    void minLostFiltersAndCancelStops()
    {
        TraceBuilder b;
        const auto host = b.hostThread();
        const auto gpu = b.deviceStream(0, 7);
        b.step(host, 1, 0, 1000);
        b.slice(gpu, SliceCategory::Kernel, "a", 0, 900);
        const TracePtr t = b.finalize();
        AnalysisOptions o;
        o.bubbleThresholdNs = 10;
        QCOMPARE(lostOf(run(t, o), "pipeline_bubble"), TimeNs(100));
        o.minLostNs = 101;
        QVERIFY(run(t, o).findings.empty());
        CancelToken cancel;
        cancel.cancel();
        const AnalysisResult r = analyze(*t, {}, cancel);
        QVERIFY(r.cancelled);
        QVERIFY(r.findings.empty());
    }

    // Evidence lists are capped; the lost time still counts every occurrence.
    void evidenceIsCapped()
    {
        TraceBuilder b;
        const auto host = b.hostThread();
        const auto gpu = b.deviceStream(0, 7);
        b.step(host, 1, 0, 3000 * 100);
        for (int i = 0; i < 3000; ++i)
            b.slice(gpu, SliceCategory::Kernel, "k", TimeNs(i) * 100, 40);
        AnalysisOptions o;
        o.bubbleThresholdNs = 10;
        const AnalysisResult r = run(b.finalize(), o);
        const auto bubbles = ofKind(r, "pipeline_bubble");
        QCOMPARE(bubbles.size(), std::size_t(1));
        QCOMPARE(bubbles[0]->lostNs, TimeNs(3000 * 60));
        QCOMPARE(bubbles[0]->occurrences, std::uint64_t(3000));
        QCOMPARE(bubbles[0]->evidence.size(), std::size_t(1000));
        QCOMPARE(bubbles[0]->evidenceOmitted, std::uint64_t(2000));
    }

    // Degenerate inputs: an empty trace, zero-length slices and steps, a step with no device work inside,
    // overlapping step markers. Nothing may crash, no lost time may exceed the analysed time.
    void degenerateTraces()
    {
        {
            TraceBuilder b;
            const AnalysisResult r = run(b.finalize());
            QCOMPARE(r.analysedNs, TimeNs(0));
            QVERIFY(r.findings.empty());
            QVERIFY(notAssessed(r, "pipeline_bubble"));
        }
        {
            TraceBuilder b;
            const auto host = b.hostThread();
            const auto gpu = b.deviceStream(0, 7);
            b.step(host, 1, 0, 0);     // zero-length step
            b.step(host, 2, 0, 500);   // overlaps step 1 entirely
            b.step(host, 3, 400, 600); // overlaps step 2's end: windows become [0,400) and [400,1000)
            b.slice(gpu, SliceCategory::Kernel, "zero", 100, 0);
            b.slice(gpu, SliceCategory::Kernel, "k", 200, 100);
            b.slice(host, SliceCategory::Dataloader, "enumerate(DataLoader)#x", 300, 0);
            AnalysisOptions o;
            o.bubbleThresholdNs = 1;
            const AnalysisResult r = run(b.finalize(), o);
            QCOMPARE(r.analysedNs, TimeNs(1000));
            // Idle: [0,200) + [300,1000) = 900, all Python bubbles; the zero-length kernel keeps nothing busy.
            QCOMPARE(lostOf(r, "pipeline_bubble"), TimeNs(900));
            for (const Finding& f : r.findings)
                QVERIFY(f.lostFraction <= 1.0);
        }
    }

    void registryIsStable()
    {
        std::vector<std::string> kinds;
        for (const auto& p : passRegistry())
            kinds.emplace_back(p->kind());
        QCOMPARE(kinds,
                 (std::vector<std::string> {"dataloader_starvation", "pipeline_bubble", "copy_hotspot", "cpu_fallback",
                                            "unfused_chain", "op_compile", "conversion", "precision", "memory_pressure",
                                            "communication", "slow_link", "low_efficiency", "core_imbalance",
                                            "memory_bound", "low_mac_usage", "data_movement"}));
    }
};

QTEST_APPLESS_MAIN(TestAnalysisPasses)
#include "tst_analysispasses.moc"
