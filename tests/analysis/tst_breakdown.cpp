// SPDX-License-Identifier: MIT
// The one breakdown (analysis/breakdown.h) on hand-built traces and on real fixtures. Fixture figures were
// computed independently in Python over the raw JSON (the script is quoted per test).
#include "analysis/breakdown.h"
#include "analysis/deviceactivity.h"
#include "analysis/pass.h"
#include "analysis/stepclock.h"
#include "model/tracebuilder.h"
#include "tests/common/fixtures.h"

#include <QTest>

#include <algorithm>
#include <cmath>

using namespace timesink;
using namespace timesink::analysis;
using model::SliceCategory;
using model::TimeNs;

namespace {

const StepBreakdown* stepNumber(const std::vector<StepBreakdown>& steps, std::int64_t number)
{
    const auto it = std::find_if(steps.begin(), steps.end(), [&](const StepBreakdown& s) { return s.number == number; });
    return it == steps.end() ? nullptr : &*it;
}

} // namespace

class TestBreakdown : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // A host collective (c10d::allreduce_ on a CPU thread) is the host waiting, not device communication.
    void hostCollectivesAreNotDeviceCommunication()
    {
        model::TraceBuilder b;
        const auto host = b.hostThread();
        const auto gpu = b.deviceStream(0, 7);
        b.step(host, 1, 0, 100);
        b.slice(host, SliceCategory::Communication, "c10d::allreduce_", 0, 50);
        b.slice(gpu, SliceCategory::Kernel, "gemm", 60, 20);
        b.slice(gpu, SliceCategory::Communication, "ncclDevKernel_AllReduce", 85, 5);
        const auto trace = b.finalize();
        const auto steps = computeStepBreakdown(*trace);
        QCOMPARE(steps.size(), std::size_t(1));
        QCOMPARE(steps[0].communicationNs, TimeNs(5));
        QCOMPARE(steps[0].computeNs, TimeNs(20));
        QCOMPARE(steps[0].idleNs, TimeNs(75));
        QCOMPARE(steps[0].deviceBusyNs, TimeNs(25));
        QCOMPARE(steps[0].deviceIdleNs, TimeNs(75));
    }

    // A memset is memory traffic: copies, in every output.
    void memsetIsCopy()
    {
        model::TraceBuilder b;
        const auto host = b.hostThread();
        const auto gpu = b.deviceStream(0, 7);
        b.step(host, 1, 0, 100);
        b.slice(gpu, SliceCategory::Memset, "Memset (Device)", 10, 30);
        b.slice(gpu, SliceCategory::Kernel, "k", 50, 10);
        const auto trace = b.finalize();
        const auto steps = computeStepBreakdown(*trace);
        QCOMPARE(steps[0].copyNs, TimeNs(30));
        QCOMPARE(steps[0].computeNs, TimeNs(10));
        const TopOperators top = computeTopOperators(*trace, 10);
        QCOMPARE(top.scope, std::string("device"));
        QCOMPARE(top.operators.size(), std::size_t(2));
        QCOMPARE(top.operators[0].name, std::string("Memset (Device)"));
        QCOMPARE(top.operators[0].category, SliceCategory::Memset);
    }

    // The dataloader outranks a host CPU fallback, as in attributeIdle(); the fallback's share is compute.
    void hostFallbackRanksBelowDataloader()
    {
        model::TraceBuilder b;
        const auto host = b.hostThread();
        const auto npu = b.deviceStream(0, 2, model::DeviceKind::Npu);
        b.step(host, 1, 0, 100);
        b.slice(npu, SliceCategory::Kernel, "MatMul", 0, 10);
        b.slice(host, SliceCategory::Dataloader, "DataLoader", 20, 30);
        b.slice(host, SliceCategory::FallbackOp, "Transpose", 40, 30);
        const auto trace = b.finalize();
        const auto steps = computeStepBreakdown(*trace);
        QCOMPARE(steps[0].dataloaderNs, TimeNs(30));
        QCOMPARE(steps[0].computeNs, TimeNs(10 + 20));
        QCOMPARE(steps[0].idleNs, TimeNs(40));
        QCOMPARE(steps[0].deviceIdleNs, TimeNs(90));
        const TopOperators top = computeTopOperators(*trace, 10);
        QCOMPARE(top.operators.size(), std::size_t(2));
        QCOMPARE(top.operators[0].name, std::string("Transpose"));
        QCOMPARE(top.operators[0].category, SliceCategory::FallbackOp);
    }

    // python3 over the raw JSON (/tmp script, summarised): steps = cpu ProfilerStep#N spans; device = cat kernel
    // (class comm when 'nccl' in the name, else compute), gpu_memcpy and gpu_memset (copy); dataloader = names
    // starting 'enumerate(DataLoader)'; per step, each class gets what the union grows by in the order compute,
    // comm, copy, dataloader:
    //   1009 dur 75473000 compute 45240000 comm 9704000 copy 3001000 dataloader 71000 idle 17457000
    // Device idle (idle + dataloader) 17528000 = HTA's 17.53 ms; the host `record_param_comms` / `nccl:all_reduce`
    // ops are not counted (they made it 11.27 ms of communication and 15.89 ms idle before).
    void diffControlStep1009()
    {
        LOAD_FIXTURE(trace, std::string("torch/hta_a100_trace_diff_control.json.gz"));
        const auto steps = computeStepBreakdown(*trace);
        QCOMPARE(steps.size(), std::size_t(6));
        const StepBreakdown* s = stepNumber(steps, 1009);
        QVERIFY(s);
        QCOMPARE(s->durationNs, TimeNs(75'473'000));
        QCOMPARE(s->computeNs, TimeNs(45'240'000));
        QCOMPARE(s->communicationNs, TimeNs(9'704'000));
        QCOMPARE(s->copyNs, TimeNs(3'001'000));
        QCOMPARE(s->dataloaderNs, TimeNs(71'000));
        QCOMPARE(s->idleNs, TimeNs(17'457'000));
        QCOMPARE(s->deviceIdleNs, TimeNs(17'528'000));
        const StepBreakdown* last = stepNumber(steps, 1014);
        QVERIFY(last);
        QCOMPARE(last->communicationNs, TimeNs(17'724'000));
        QCOMPARE(last->idleNs, TimeNs(13'747'000));
    }

    // python3 over the raw JSON (Decimal µs → ns, rounded half up; + baseTimeNanoseconds where given): device
    // operations (kernel, gpu_memcpy, gpu_memset) whose runtime call (same args.correlation) starts inside the
    // host ProfilerStep, first start / last end; and the gpu_user_annotation ProfilerStep#N where there is one.
    //   diff_control #1009: host [1661203462598772000, 1661203462674245000), device [..599325000, ..674428000)
    //     (the device ends 183 µs after its host step); no device annotation.
    //   tracelens_h100 #6: flows [1752830083333430849, 1752830083337338674), annotation [..333430848, ..337338675).
    //   mi250 #1: flows [1739836029603454206, 1739836029612366093), annotation [..603454205, ..604485573).
    void deviceWindows_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<qint64>("step");
        QTest::addColumn<qint64>("start");
        QTest::addColumn<qint64>("end");
        QTest::newRow("diff_control") << QStringLiteral("torch/hta_a100_trace_diff_control.json.gz") << qint64(1009)
                                      << qint64(1661203462599325000) << qint64(1661203462674428000);
        QTest::newRow("h100 annotation")
            << QStringLiteral("torch/tracelens_h100_gaunernst_bert-small-uncased__1016001.json.gz") << qint64(6)
            << qint64(1752830083333430848) << qint64(1752830083337338675);
        QTest::newRow("mi250 annotation and flows")
            << QStringLiteral("torch/hta_mi250_minitoy_train_ROCm6_2_kineto.json.gz") << qint64(1)
            << qint64(1739836029603454205) << qint64(1739836029612366093);
    }
    void deviceWindows()
    {
        QFETCH(QString, path);
        QFETCH(qint64, step);
        QFETCH(qint64, start);
        QFETCH(qint64, end);
        LOAD_FIXTURE(trace, path.toStdString());
        const auto steps = computeStepBreakdown(*trace);
        const StepBreakdown* s = stepNumber(steps, step);
        QVERIFY(s);
        QVERIFY(s->hasDeviceWindow);
        QCOMPARE(s->deviceStartNs, start);
        QCOMPARE(s->deviceEndNs, end);
    }

    // The breakdown and the idle-based passes see the same device idle: per step, idle is attributeIdle()'s
    // rest (with what op_compile and memory_pressure claim), dataloader its dataloader pieces, and busy + idle
    // adds up to the step.
    void idleAgreesWithIdleAttribution_data()
    {
        QTest::addColumn<QString>("path");
        for (const char* p : {"torch/hta_a100_trace_diff_control.json.gz", "torch/hta_a100_nccl_data.json.gz",
                              "torch/hta_v100_ns_resolution_rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
                              "torch/hta_a100_alexnet_benchmark_result_2869224_1695835535_trace.json.gz",
                              "torch_npu/msinsight_text_level1_rank0_ascend_pt", "torch_npu/mstt_advisor_ut_2023",
                              "rknn/toolkit2_2.3.2_rk3588_eval_perf_layers_yolov8n_640.txt"})
            QTest::newRow(p) << QString::fromLatin1(p);
    }
    void idleAgreesWithIdleAttribution()
    {
        QFETCH(QString, path);
        LOAD_FIXTURE(trace, path.toStdString());
        const auto steps = computeStepBreakdown(*trace);
        const StepClock clock(*trace);
        CancelToken cancel;
        const DeviceActivity activity = computeDeviceActivity(*trace, AnalysisOptions {}, cancel);
        QVERIFY(activity.hasDeviceWork);
        const IdleAttribution idle = attributeIdle(clock, activity, cancel);
        QCOMPARE(steps.size(), clock.size());
        std::vector<TimeNs> rest(clock.size()), loader(clock.size()), fallback(clock.size());
        // Host compilation and allocator calls (op_compile, memory_pressure) claim idle time after the fallbacks;
        // for the breakdown that time is idle.
        for (const IdlePiece& p : idle.rest)
            rest[p.step] += p.range.length();
        for (const IdlePiece& p : idle.compile)
            rest[p.step] += p.range.length();
        for (const IdlePiece& p : idle.allocator)
            rest[p.step] += p.range.length();
        for (const IdlePiece& p : idle.dataloader)
            loader[p.step] += p.range.length();
        for (const IdlePiece& p : idle.fallback)
            fallback[p.step] += p.range.length();
        for (std::size_t i = 0; i < steps.size(); ++i) {
            const StepBreakdown& s = steps[i];
            QVERIFY(!s.excluded); // none of these traces has a warm-up step
            QCOMPARE(s.idleNs, rest[i]);
            QCOMPARE(s.dataloaderNs, loader[i]);
            QCOMPARE(s.deviceIdleNs, rest[i] + loader[i] + fallback[i]);
            QCOMPARE(s.deviceBusyNs + s.deviceIdleNs, s.durationNs);
            QCOMPARE(s.computeNs + s.communicationNs + s.copyNs + s.dataloaderNs + s.idleNs, s.durationNs);
            QCOMPARE(s.deviceBusyNs, overlapLength(activity.busy, clock.window(i).start, clock.window(i).end));
        }
    }

    // python3 /tmp/i13_devsum.py (ts/dur parsed as Decimal µs → ns; steps = ProfilerStep#N user_annotation; device
    // = cat kernel (communication when the name starts with nccl/rccl or contains ncclKernel/ncclDevKernel),
    // gpu_memcpy, gpu_memset; each class united, then intersected with the step windows; launches = runtime /
    // device event pairs by args.correlation with the runtime call starting in a step window, delay = device ts
    // − runtime end, nearest-rank percentiles; queue +1 at runtime ts, −1 at device end, per device tid):
    //   nccl_data:    window 667105339 busy 157500014 compute 115655847 comm 46876493 exposed 39559468
    //                 copy 2653498 idle 509605325 overlap 0.156092 (HTA get_comm_comp_overlap: 15.61 %)
    //                 launches 3774 p50 1956 mean 27334.5 (rounded half up) p99 476909 over100us 267; stream 7: 3753 ops, max 11
    //   diff_control: window 464945000 busy 388539000 compute 281288000 comm 163535000 exposed 87921000
    //                 copy 54638000 idle 76406000 overlap 0.462372 (HTA: 46.24 %)
    //                 launches 9450 p50 605000 mean 2122275 p99 10951000 over100us 6098; stream 7: 8964 ops, max 288
    void deviceSummaryMatchesHta_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QList<qint64>>("ns"); // window busy compute comm exposed copy idle
        QTest::addColumn<int>("overlapBasisPoints");
        QTest::addColumn<QList<qint64>>("launch"); // count p50 mean p99 over100us
        QTest::addColumn<QList<qint64>>("stream7"); // operations, max length
        QTest::newRow("nccl_data") << QStringLiteral("torch/hta_a100_nccl_data.json.gz")
                                   << QList<qint64> {667105339, 157500014, 115655847, 46876493, 39559468, 2653498,
                                                     509605325}
                                   << 1561 << QList<qint64> {3774, 1956, 27335, 476909, 267} << QList<qint64> {3753, 11};
        QTest::newRow("diff_control") << QStringLiteral("torch/hta_a100_trace_diff_control.json.gz")
                                      << QList<qint64> {464945000, 388539000, 281288000, 163535000, 87921000, 54638000,
                                                        76406000}
                                      << 4624 << QList<qint64> {9450, 605000, 2122275, 10951000, 6098}
                                      << QList<qint64> {8964, 288};
    }
    void deviceSummaryMatchesHta()
    {
        QFETCH(QString, path);
        QFETCH(QList<qint64>, ns);
        QFETCH(int, overlapBasisPoints);
        QFETCH(QList<qint64>, launch);
        QFETCH(QList<qint64>, stream7);
        LOAD_FIXTURE(trace, path.toStdString());
        const auto steps = computeStepBreakdown(*trace);
        const DeviceSummary d = computeDeviceSummary(*trace, steps);
        QVERIFY(d.hasDeviceWork);
        QCOMPARE(d.deviceLabel, std::string("GPU"));
        QCOMPARE(d.windowNs, ns[0]);
        QCOMPARE(d.busyNs, ns[1]);
        QCOMPARE(d.computeNs, ns[2]);
        QCOMPARE(d.communicationNs, ns[3]);
        QCOMPARE(d.exposedCommunicationNs, ns[4]);
        QCOMPARE(d.copyNs, ns[5]);
        QCOMPARE(d.idleNs, ns[6]);
        QCOMPARE(d.communicationWaitNs, TimeNs(0));
        QVERIFY(d.commComputeOverlapFraction);
        QCOMPARE(static_cast<int>(std::lround(*d.commComputeOverlapFraction * 10000)), overlapBasisPoints);
        TimeNs stepBusy = 0;
        for (const StepBreakdown& s : steps)
            stepBusy += s.deviceBusyNs;
        QCOMPARE(stepBusy, d.busyNs);
        QCOMPARE(qint64(d.launches), launch[0]);
        QCOMPARE(d.launchDelayP50Ns, launch[1]);
        QCOMPARE(d.launchDelayMeanNs, launch[2]);
        QCOMPARE(d.launchDelayP99Ns, launch[3]);
        QCOMPARE(qint64(d.launchesDelayedOver100us), launch[4]);
        const auto q = std::find_if(d.queues.begin(), d.queues.end(),
                                    [&](const StreamQueue& s) { return trace->track(s.track).streamId == 7; });
        QVERIFY(q != d.queues.end());
        QCOMPARE(qint64(q->operations), stream7[0]);
        QCOMPARE(q->maxLength, stream7[1]);
    }

    // Ascend: the HCCL plane's Notify_Wait tasks are waiting, the rest of the collective is transfer.
    void ascendCommunicationWaitSplit()
    {
        LOAD_FIXTURE(trace, std::string("torch_npu/msinsight_text_level1_rank0_ascend_pt"));
        const DeviceSummary d = computeDeviceSummary(*trace, computeStepBreakdown(*trace));
        QVERIFY(d.hasDeviceWork);
        QCOMPARE(d.deviceLabel, std::string("NPU"));
        // python3 over trace_view.json (Decimal µs → ns, rounded half up as the importer does): slices of the HCCL process inside ProfilerStep#50,
        // united: 105991878 ns; those named Notify_Wait*: 102044699 ns.
        QCOMPARE(d.communicationNs, TimeNs(105'991'878));
        QCOMPARE(d.communicationWaitNs, TimeNs(102'044'699));
        QCOMPARE(d.communicationTransferNs, d.communicationNs - d.communicationWaitNs);
    }

    // RKNN: the NPU layers and the CPU layer that fell back (Transpose, 590 µs) share one ranking; the graph-edge
    // Input/OutputOperators, which always run on the CPU, are not fallbacks and are left out.
    void rknnTopOperatorsIncludeCpuFallback()
    {
        LOAD_FIXTURE(trace, std::string("rknn/toolkit2_2.3.2_rk3588_eval_perf_layers_yolov8n_640.txt"));
        const TopOperators top = computeTopOperators(*trace, 1000);
        QCOMPARE(top.scope, std::string("device"));
        const auto it = std::find_if(top.operators.begin(), top.operators.end(),
                                     [](const OperatorTime& op) { return op.category == SliceCategory::FallbackOp; });
        QVERIFY(it != top.operators.end());
        QVERIFY2(it->name.find("Transpose") != std::string::npos, it->name.c_str());
        QCOMPARE(it->totalNs, TimeNs(590'000));
        QCOMPARE(std::count_if(top.operators.begin(), top.operators.end(),
                               [](const OperatorTime& op) { return op.category == SliceCategory::FallbackOp; }),
                 std::ptrdiff_t(1));
    }
};

QTEST_GUILESS_MAIN(TestBreakdown)
#include "tst_breakdown.moc"
