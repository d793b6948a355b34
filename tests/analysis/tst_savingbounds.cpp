// SPDX-License-Identifier: MIT
// Issue 46: the physical bounds of the critical path and the projected savings, on every real fixture with a golden
// (tests/golden/fixtures.txt). Per analysed step: the path begins with the step's analysis window and is as long as
// it (± 1 %), its composition adds up to its length, no finding saves more than the step, and no re-timing broke
// the bound the kept work sets (inconsistentSteps, checked in analysis/core/stepgraph.cpp). Expected figures of
// single traces come from scripts over the raw files (scripts/checks/).
#include "analysis/core/pass.h"
#include "analysis/core/unrecorded.h"
#include "model/tracebuilder.h"
#include "tests/common/fixtures.h"

#include <QTest>

#include <fstream>
#include <string>

using namespace timesink;
using namespace timesink::analysis;
using model::TimeNs;

namespace {

AnalysisResult analyse(const model::TracePtr& t)
{
    CancelToken cancel;
    return analyze(*t, {}, cancel);
}

} // namespace

class TestSavingBounds : public QObject
{
    Q_OBJECT

private slots:
    void everyFixture_data()
    {
        QTest::addColumn<QString>("fixture");
        std::ifstream list(testing::kFixturesDir / ".." / "golden" / "fixtures.txt");
        QVERIFY(list.good());
        std::string line;
        int count = 0;
        while (std::getline(list, line)) {
            if (line.empty() || line.front() == '#')
                continue;
            QTest::newRow(line.c_str()) << QString::fromStdString(line);
            ++count;
        }
        QVERIFY(count >= 30);
    }
    void everyFixture()
    {
        QFETCH(QString, fixture);
        LOAD_FIXTURE(trace, fixture.toStdString());
        const AnalysisResult r = analyse(trace);
        QCOMPARE(r.inconsistentSteps, std::size_t(0));
        QVERIFY(r.savingNs >= 0 && r.savingNs <= r.analysedNs);
        QCOMPARE(r.criticalPaths.size(), r.stepBreakdown.size());
        for (std::size_t s = 0; s < r.criticalPaths.size(); ++s) {
            const StepCriticalPath& p = r.criticalPaths[s];
            const StepBreakdown& step = r.stepBreakdown[s];
            if (!p.assessed || step.durationNs <= 0)
                continue;
            TimeNs composed = 0;
            for (const TimeNs ns : p.byClass)
                composed += ns;
            QCOMPARE(composed, p.lengthNs());
            QCOMPARE(p.startNs, step.startNs);
            QVERIFY2(
                std::abs(p.lengthNs() - step.durationNs) <= step.durationNs / 100,
                qPrintable(
                    QStringLiteral("step %1: path %2 ns, step %3 ns").arg(s).arg(p.lengthNs()).arg(step.durationNs)));
            for (const PathSegment& seg : p.segments)
                QVERIFY(seg.start >= p.startNs && seg.end <= p.endNs && seg.start < seg.end);
        }
        for (const Finding& f : r.findings) {
            QVERIFY2(f.savingNs >= 0 && f.savingNs <= r.analysedNs, f.title.c_str());
            for (const StepLoss& ps : f.perStep) {
                if (ps.stepIndex < r.stepBreakdown.size())
                    QVERIFY2(ps.savingNs <= r.stepBreakdown[ps.stepIndex].durationNs, f.title.c_str());
            }
        }
    }

    // The Qwen H100 prefill: its host step begins with a 14.1 ms cudaDeviceSynchronize waiting for work queued
    // before the step. The step is the analysis window (35.18 ms); with every dtype conversion gone, 29.57 ms of the
    // step's own device work still runs after the window's start, so fixing everything saves at most 5.62 ms.
    // scripts/checks/qwen_window_bound.py over the raw JSON: window_ns 35183362, window starts 14195541 ns after the
    // host step, 101 conversion kernels of 2335666 ns, remaining_device_ns 29566287, bound_ns 5617075.
    void qwenWindowBound()
    {
        LOAD_FIXTURE(trace, std::string("torch/tracelens_h100_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"));
        const AnalysisResult r = analyse(trace);
        QCOMPARE(r.criticalPaths.size(), std::size_t(1));
        const StepCriticalPath& p = r.criticalPaths[0];
        QVERIFY(p.assessed);
        QVERIFY(std::abs(p.lengthNs() - TimeNs {35'183'362}) <= 1);
        QCOMPARE(p.startNs - trace->steps()[0].start, TimeNs {14'195'541});
        // The sync before the window is not on the path: what is left of it is the 11.7 µs the bubble finding counts.
        QVERIFY(p.byClass[static_cast<std::size_t>(PathClass::Sync)] < TimeNs {100'000});
        QVERIFY2(r.savingNs > 0 && r.savingNs <= TimeNs {5'617'075}, std::to_string(r.savingNs).c_str());
        TimeNs conversion = 0;
        for (const Finding& f : r.findings) {
            if (f.kind == "conversion")
                conversion += f.lostNs;
        }
        QCOMPARE(conversion, TimeNs {2'335'666});
    }

    // Issue 46 item 1, torch_npu: the Python thread enqueues, a task-queue thread submits (async_task_queue,
    // HostToDevice), the optimizer's stream waits for the HCCL all-reduce on another stream, and the main thread
    // blocks in a synchronise (Level1: on its CANN lane; Level0: aten::_local_scalar_dense, no CANN lane).
    // scripts/checks/ascend_sync_wait.py over the raw trace_view.json gives the step and that wait. The path covers
    // the wait with the device's work or the sync itself, holds device work for at least half the step, and
    // removing the communication saves more than 0 and no more than its exposed time.
    void ascendTaskQueue_data()
    {
        QTest::addColumn<QString>("fixture");
        QTest::addColumn<qint64>("stepNs");
        QTest::addColumn<qint64>("waitStartNs");
        QTest::addColumn<qint64>("waitNs");
        QTest::newRow("level1 rank1") << "torch_npu/msinsight_text_level1_rank1_ascend_pt" << qint64(153'888'390)
                                      << qint64(66'664'030) << qint64(85'820'460);
        QTest::newRow("level0 rank0") << "torch_npu/msinsight_text_level0_rank0_ascend_pt" << qint64(136'897'820)
                                      << qint64(65'488'070) << qint64(70'279'110);
    }
    void ascendTaskQueue()
    {
        QFETCH(QString, fixture);
        QFETCH(qint64, stepNs);
        QFETCH(qint64, waitStartNs);
        QFETCH(qint64, waitNs);
        LOAD_FIXTURE(trace, fixture.toStdString());
        const AnalysisResult r = analyse(trace);
        QCOMPARE(r.criticalPaths.size(), std::size_t(1));
        const StepCriticalPath& p = r.criticalPaths[0];
        QVERIFY2(p.assessed, p.reason.c_str());
        QCOMPARE(p.lengthNs(), TimeNs {stepNs});
        QCOMPARE(p.segmentsOmitted, std::uint64_t(0));
        const auto cls = [&](PathClass c) { return p.byClass[static_cast<std::size_t>(c)]; };
        const TimeNs device = cls(PathClass::DeviceCompute) + cls(PathClass::Communication) + cls(PathClass::Copy);
        QVERIFY2(2 * device >= p.lengthNs(), std::to_string(device).c_str());
        QVERIFY(cls(PathClass::Sync) > 0);
        // The wait, on the path: device work or the sync, never host time.
        const TimeNs w0 = p.startNs + waitStartNs;
        const TimeNs w1 = w0 + waitNs;
        TimeNs covered = 0;
        for (const PathSegment& seg : p.segments) {
            const bool waiting = seg.cls == PathClass::Sync || seg.cls == PathClass::Communication
                || seg.cls == PathClass::DeviceCompute || seg.cls == PathClass::Copy;
            if (waiting)
                covered += std::max<TimeNs>(0, std::min(seg.end, w1) - std::max(seg.start, w0));
        }
        QVERIFY2(covered * 10 >= TimeNs {waitNs} * 9, std::to_string(covered).c_str());
        bool communication = false;
        for (const Finding& f : r.findings) {
            if (f.kind != "communication")
                continue;
            communication = true;
            QVERIFY2(f.savingNs > 0 && f.savingNs <= f.lostNs,
                     (std::to_string(f.savingNs) + " of " + std::to_string(f.lostNs)).c_str());
        }
        QVERIFY(communication);
    }

    // Issue 46 item 2, recorded waits: HTA's AlexNet benchmark trace records six Stream Wait Events that find both
    // their operations (scripts/checks/recorded_stream_waits.py over the raw JSON: cudaEventRecord correlation, the
    // last kernel launched on the awaited stream before it, the first launched on the waiting stream after the
    // wait); one held its kernel (an elementwise kernel on stream 7 starts 1 µs after fft2d_c2r on stream 20 ended,
    // 441 µs after its launch). It is an edge the trace records, no longer inferred.
    void recordedStreamWaits()
    {
        LOAD_FIXTURE(trace, std::string("torch/hta_a100_alexnet_benchmark_result_2869224_1695835535_trace.json.gz"));
        const AnalysisResult r = analyse(trace);
        std::uint64_t recorded = 0;
        std::uint64_t inferred = 0;
        for (const StepCriticalPath& p : r.criticalPaths) {
            QVERIFY2(p.assessed, p.reason.c_str());
            recorded += p.crossStreamWaitsRecorded;
            inferred += p.crossStreamWaits;
        }
        QCOMPARE(recorded, std::uint64_t(1));
        QCOMPARE(inferred, std::uint64_t(0));
    }

    // Issue 46, the seed story on the 2021 Kineto layout (categories Operator/Runtime/Kernel, no fwdbwd flows): the
    // kineto TensorBoard plugin's ResNet-50 run with num_workers=0 spends 280 ms of its six steps in DataLoader
    // fetches, and the same run with num_workers=4 is 159 ms shorter with 10.2 ms of fetches left
    // (scripts/checks/kineto_seed_dataloader.py over both raw files). The DataLoader finding projects that saving:
    // at least the measured 159 ms and at most it plus the fetches the second run kept (± 15 %), and the path holds
    // the fetches. Before the autograd thread waited for the main thread, it projected 4.2 ms.
    void seedDataloader()
    {
        LOAD_FIXTURE(trace, std::string("torch/kineto_tb_resnet50_num_workers_0.pt.trace.json.gz"));
        const AnalysisResult r = analyse(trace);
        const TimeNs saved = 158'986'000;
        const TimeNs keptFetches = 10'217'000;
        TimeNs projected = 0;
        for (const Finding& f : r.findings) {
            if (f.kind == "dataloader_starvation")
                projected += f.savingNs;
        }
        QVERIFY2(projected * 100 >= saved * 85 && projected * 100 <= (saved + keptFetches) * 115,
                 std::to_string(projected).c_str());
        TimeNs onPath = 0;
        for (const StepCriticalPath& p : r.criticalPaths)
            onPath += p.byClass[static_cast<std::size_t>(PathClass::Dataloader)];
        QVERIFY2(onPath * 2 >= saved, std::to_string(onPath).c_str());
    }

    // The sglang decode on MI300: four kernels launched at the start of the trace (after a hipStreamWaitEvent) start
    // 463 ms later while nothing recorded runs: the stream waited on work the trace does not hold (a graph replay
    // launched before the profiler began). scripts/checks/unrecorded_work.py over the raw JSON: 463,251,758 ns, held
    // by launches 92158–92161. That is unrecorded device work, not idle: no bubble, and nothing saves it.
    void sglangUnrecordedWork()
    {
        LOAD_FIXTURE(trace, std::string("torch/tracelens_rocm_sglang_Qwen3-8B_decode.json.gz"));
        const AnalysisResult r = analyse(trace);
        QCOMPARE(r.stepBreakdown.size(), std::size_t(1));
        const TimeNs unrecorded = 463'251'758;
        QCOMPARE(r.stepBreakdown[0].unrecordedNs, unrecorded);
        const StepCriticalPath& p = r.criticalPaths[0];
        QVERIFY2(p.assessed, p.reason.c_str());
        QCOMPARE(p.byClass[static_cast<std::size_t>(PathClass::Unrecorded)], unrecorded);
        for (const Finding& f : r.findings) {
            QVERIFY2(f.lostNs < TimeNs {1'000'000}, f.title.c_str());
            QVERIFY2(f.savingNs < TimeNs {1'000'000}, f.title.c_str());
        }
        QVERIFY(r.savingNs <= r.analysedNs - unrecorded);
        QVERIFY(r.savingNs < TimeNs {1'000'000});
    }

    // A CUDA-graph replay whose kernels the profiler did not record (cudaGraphLaunch with no launch flow): the
    // device runs it until the cudaStreamSynchronize after it returns. Each of two steps: a 100 µs kernel,
    // the graph launch at 200 µs, a 20 ms sync. That is unrecorded device work, from the launch to the sync's
    // end: no sync-wait bubble, no saving, and the path books it as an external wait.
    void graphLaunchWithoutRecordedWork()
    {
        using model::SliceCategory;
        constexpr TimeNs kUs = 1000;
        model::TraceBuilder b;
        const model::TrackId host = b.hostThread();
        const model::TrackId stream = b.deviceStream(0, 7);
        TimeNs t = 1'000'000'000;
        for (std::int64_t n = 1; n <= 2; ++n) {
            const TimeNs start = t;
            const auto call = b.slice(host, SliceCategory::RuntimeApi, "cudaLaunchKernel", t, 5 * kUs);
            const auto kernel = b.slice(stream, SliceCategory::Kernel, "gemm", t + 10 * kUs, 100 * kUs);
            b.addFlow(call, kernel);
            b.slice(host, SliceCategory::RuntimeApi, "cudaGraphLaunch", t + 200 * kUs, 30 * kUs);
            b.slice(host, SliceCategory::RuntimeApi, "cudaStreamSynchronize", t + 240 * kUs, 20'000 * kUs);
            t += 20'300 * kUs;
            b.step(host, n, start, t - start);
        }
        const model::TracePtr trace = b.finalize();
        QVERIFY(isGraphLaunchCall("cudaGraphLaunch") && isGraphLaunchCall("AscendCL@aclmdlExecuteAsync"));
        QVERIFY(!isGraphLaunchCall("cudaGraphLaunchX") && !isGraphLaunchCall("cudaLaunchKernel"));
        const AnalysisResult r = analyse(trace);
        QCOMPARE(r.stepBreakdown.size(), std::size_t(2));
        for (const StepBreakdown& s : r.stepBreakdown)
            QCOMPARE(s.unrecordedNs, TimeNs {20'040 * kUs}); // [200 µs, 20,240 µs) of each step
        for (const Finding& f : r.findings) {
            QVERIFY2(f.lostNs < TimeNs {1'000 * kUs},
                     f.title.c_str()); // the host gaps around it (300 µs), not the 20 ms
            QVERIFY2(f.savingNs < TimeNs {1'000 * kUs}, f.title.c_str());
        }
        for (const StepCriticalPath& p : r.criticalPaths) {
            QVERIFY2(p.assessed, p.reason.c_str());
            QVERIFY(p.byClass[static_cast<std::size_t>(PathClass::ExternalWait)] >= TimeNs {20'000 * kUs});
        }
    }
};

QTEST_GUILESS_MAIN(TestSavingBounds)
#include "tst_savingbounds.moc"
