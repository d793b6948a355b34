// SPDX-License-Identifier: MIT
// Device time where it belongs, on real fixtures: launch-bound only when the host launches. Figures worked out
// by hand from the raw events (quoted per test).
#include "analysis/core/breakdown.h"
#include "analysis/core/pass.h"
#include "analysis/core/stepclock.h"
#include "model/tracebuilder.h"
#include "tests/analysis/findinglookup.h"
#include "tests/common/fixtures.h"

#include <QTest>

using namespace timesink;
using namespace timesink::analysis;
using model::TimeNs;

namespace {

const Finding* bubbleCause(const AnalysisResult& r, std::string_view cause)
{
    for (const Finding* f : testing::ofKind(r, "pipeline_bubble")) {
        for (const Detail& d : f->details) {
            if (d.key == "cause" && detailText(d) == cause)
                return f;
        }
    }
    return nullptr;
}

} // namespace

class TestDeviceTime : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // hta_a100_cuda_event_sync_trace, ProfilerStep#100 starts at 1707417525509335 µs; the first kernel starts at
    // …512145: a 2810 µs gap. The host thread is in aten::ones […509905, …512150), which holds aten::empty
    // […509909, …512096) (launches nothing, 2187 µs) and aten::fill_ → cudaLaunchKernel […512110, …512146)
    // (launches the first kernel). Host busy in the gap = 2240 µs (the "2.24 ms" that was all called launch-bound);
    // of it only 2240 − 2187 = 53 µs is in ops that launch. The other bubbles follow a copy or a 36 µs kernel, so
    // they are not between tiny kernels.
    void launchBoundOnlyWhileLaunching()
    {
        LOAD_FIXTURE(trace, std::string("torch/hta_a100_cuda_event_sync_trace.json.gz"));
        CancelToken cancel;
        const AnalysisResult r = analyze(*trace, AnalysisOptions {}, cancel);
        const Finding* lb = bubbleCause(r, "launch_bound");
        QVERIFY(lb);
        QCOMPARE(lb->lostNs, TimeNs(53'000));
        const Finding* host = bubbleCause(r, "host_op");
        QVERIFY(host);
        QVERIFY2(host->lostNs >= TimeNs(2'187'000), std::to_string(host->lostNs).c_str());
        // The top finding names the allocation, not launches.
        QCOMPARE(r.findings.front().title.rfind("Device idle while the host runs framework ops", 0), std::size_t(0));
        bool namesEmpty = false;
        for (const model::SliceRef& e : host->events)
            namesEmpty = namesEmpty || trace->str(trace->track(e.track).sliceName(e.index.value)) == "aten::empty";
        QVERIFY(namesEmpty);
    }

    // python3 over the raw JSON: trace events span [1695835542481129, 1695835585939652) µs (43.46 s); the first
    // kernel/memcpy/memset starts at 1695835572943613 and the last ends at 1695835585863857. So 30.462484 s are
    // start-up and the analysed time is 12.920244 s; no loss may be counted before the first device activity.
    void alexnetStartupIsNotABubble()
    {
        LOAD_FIXTURE(trace, std::string("torch/hta_a100_alexnet_benchmark_result_2869224_1695835535_trace.json.gz"));
        CancelToken cancel;
        const AnalysisResult r = analyze(*trace, AnalysisOptions {}, cancel);
        QCOMPARE(r.startupNs, TimeNs(30'462'484'000));
        QCOMPARE(r.analysedNs, TimeNs(12'920'244'000));
        QVERIFY(!r.findings.empty());
        for (const Finding& f : r.findings) {
            QVERIFY2(f.lostNs <= r.analysedNs, f.title.c_str());
            for (const EvidenceRange& e : f.evidence)
                QVERIFY2(e.start >= 1'695'835'572'943'613'000, f.title.c_str());
        }
        const auto steps = computeStepBreakdown(*trace);
        QCOMPARE(steps.size(), std::size_t(1));
        QCOMPARE(steps[0].startNs, TimeNs(1'695'835'572'943'613'000));
        QCOMPARE(steps[0].durationNs, TimeNs(12'920'244'000));
    }

    // Steps 1000, 300, 300, 300 ns: the first is longer than twice the median of the others (300), so it is the
    // warm-up step; it is left out of the analysed time unless asked for, and the breakdown still shows it.
    void warmupStepLeftOutByDefault()
    {
        model::TraceBuilder b;
        const auto host = b.hostThread();
        const auto gpu = b.deviceStream(0, 7);
        b.step(host, 1, 0, 1000);
        b.step(host, 2, 1000, 300);
        b.step(host, 3, 1300, 300);
        b.step(host, 4, 1600, 300);
        b.slice(gpu, model::SliceCategory::Kernel, "k", 0, 900);
        for (TimeNs t : {1000, 1300, 1600})
            b.slice(gpu, model::SliceCategory::Kernel, "k", t, 200);
        const auto trace = b.finalize();
        CancelToken cancel;
        const AnalysisResult r = analyze(*trace, AnalysisOptions {}, cancel);
        QCOMPARE(r.analysedNs, TimeNs(900));
        QCOMPARE(r.warmupStep, std::int64_t(1));
        QVERIFY(r.warmupExcluded);
        QCOMPARE(r.warmupNs, TimeNs(1000));
        const auto steps = computeStepBreakdown(*trace);
        QVERIFY(steps[0].warmup && steps[0].excluded);
        QCOMPARE(steps[0].durationNs, TimeNs(1000));
        QCOMPARE(steps[0].computeNs, TimeNs(900));
        QVERIFY(!steps[1].warmup);
        // Busy 3 × 200 of 900 analysed ns.
        QCOMPARE(computeDeviceSummary(*trace, steps).busyNs, TimeNs(600));

        AnalysisOptions all;
        all.includeWarmup = true;
        const AnalysisResult withWarmup = analyze(*trace, all, cancel);
        QCOMPARE(withWarmup.analysedNs, TimeNs(1900));
        QCOMPARE(withWarmup.warmupStep, std::int64_t(1));
        QVERIFY(!withWarmup.warmupExcluded);
        QVERIFY(!computeStepBreakdown(*trace, true)[0].excluded);
    }

    // Real traces with steady steps have no warm-up step (v100: 35, 72, 96, 96, 96 ms; median of the others 95.7).
    void noWarmupOnSteadyTraces_data()
    {
        QTest::addColumn<QString>("path");
        QTest::newRow("v100") << QStringLiteral(
            "torch/hta_v100_ns_resolution_rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz");
        QTest::newRow("diff_control") << QStringLiteral("torch/hta_a100_trace_diff_control.json.gz");
        QTest::newRow("nccl") << QStringLiteral("torch/hta_a100_nccl_data.json.gz");
    }
    void noWarmupOnSteadyTraces()
    {
        QFETCH(QString, path);
        LOAD_FIXTURE(trace, path.toStdString());
        const StepClock clock(*trace);
        QCOMPARE(clock.warmupStep(), clock.size());
        QCOMPARE(clock.startupNs(), TimeNs(0));
    }
};

QTEST_GUILESS_MAIN(TestDeviceTime)
#include "tst_devicetime.moc"
