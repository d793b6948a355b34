// SPDX-License-Identifier: MIT
// Issue 50: collective bytes, bus bandwidth factors, the link table and the slow_link pass on built traces
// (the real fixtures are checked by scripts/checks/collective_bandwidth.py, see tests/analysis/CMakeLists.txt).
#include "analysis/core/bandwidth.h"
#include "analysis/core/collectivebandwidth.h"
#include "analysis/core/context.h"
#include "analysis/core/pass.h"
#include "analysis/passes/slowlinkpass.h"
#include "model/tracebuilder.h"
#include "tests/analysis/findinglookup.h"

#include <QTest>

#include <cmath>

using namespace timesink;
using namespace timesink::analysis;
using model::SliceCategory;
using model::TimeNs;
using model::TraceBuilder;
using model::TracePtr;
using testing::detail;
using testing::ofKind;

namespace {

constexpr TimeNs kMs = 1'000'000;

model::ArgValue text(TraceBuilder& b, std::string_view s)
{
    return model::ArgValue::fromString(b.intern(s));
}

/// NCCL all-reduces of `nelems` floats over 2 ranks on `device`, one per 20 ms step, lasting `durs`; compute fills
/// the rest of each step.
TracePtr ncclAllReduces(std::string_view device, std::int64_t nelems, const std::vector<TimeNs>& durs)
{
    TraceBuilder b;
    b.metadata().devices.emplace_back(model::DeviceKind::Gpu, 0, std::string(device));
    b.metadata().platform = model::Platform::PyTorchCuda;
    const model::TrackId stream = b.addTrack({"stream 7", "GPU 0", "stream 7", "dev0", "s7", model::DeviceKind::Gpu,
                                              model::TrackRole::DeviceCompute, 0, 7, 0});
    const std::vector<model::Arg> list {{b.intern("In msg nelems"), model::ArgValue::fromInt(nelems)},
                                        {b.intern("Out msg nelems"), model::ArgValue::fromInt(nelems)},
                                        {b.intern("dtype"), text(b, "Float")},
                                        {b.intern("Group size"), model::ArgValue::fromInt(2)}};
    for (std::size_t i = 0; i < durs.size(); ++i) {
        const TimeNs step = TimeNs(i) * 20 * kMs;
        model::SliceInput comm;
        comm.ts = step;
        comm.dur = durs[i];
        comm.name = b.intern("ncclKernel_AllReduce_RING_LL_Sum_float");
        comm.category = SliceCategory::Communication;
        comm.args = b.addArgs(list);
        b.addSlice(stream, comm);
        model::SliceInput compute;
        compute.ts = step + durs[i];
        compute.dur = 20 * kMs - durs[i];
        compute.name = b.intern("gemm");
        compute.category = SliceCategory::Kernel;
        b.addSlice(stream, compute);
        b.addStep(std::int64_t(i) + 1, b.intern("ProfilerStep#" + std::to_string(i + 1)), step, step + 20 * kMs);
    }
    return b.finalize();
}

TracePtr ncclAllReduce(std::string_view device, std::int64_t nelems, TimeNs dur)
{
    return ncclAllReduces(device, nelems, {dur});
}

AnalysisResult run(const model::Trace& t)
{
    return analyze(t, AnalysisOptions {}, CancelToken {});
}

} // namespace

class TestBandwidth : public QObject
{
    Q_OBJECT

private slots:
    void elementBytes_data()
    {
        QTest::addColumn<QString>("dtype");
        QTest::addColumn<int>("bytes");
        QTest::newRow("Float") << QStringLiteral("Float") << 4;
        QTest::newRow("BFloat16") << QStringLiteral("BFloat16") << 2;
        QTest::newRow("c10::Half") << QStringLiteral("c10::Half") << 2;
        QTest::newRow("Long") << QStringLiteral("Long") << 8;
        QTest::newRow("long int") << QStringLiteral("long int") << 8;
        QTest::newRow("unsigned char") << QStringLiteral("unsigned char") << 1;
        QTest::newRow("Float8_e4m3fn") << QStringLiteral("Float8_e4m3fn") << 1;
        QTest::newRow("int") << QStringLiteral("int") << 4;
        QTest::newRow("TensorList") << QStringLiteral("TensorList") << 0;
        QTest::newRow("empty") << QString() << 0;
    }
    void elementBytes()
    {
        QFETCH(QString, dtype);
        QFETCH(int, bytes);
        QCOMPARE(collectiveElementBytes(dtype.toStdString()), bytes);
    }

    void bytesAndFactors()
    {
        // All-gather on 8 ranks (tracelens_b200 trace): in 25136, out 201088 BFloat16 → the output buffer.
        QCOMPARE(collectiveBytes(25136, 201088, 2), std::int64_t(402176));
        QCOMPARE(collectiveBytes(0, 0, 4), std::int64_t(-1));
        QCOMPARE(collectiveBytes(10, 10, 0), std::int64_t(-1));
        QCOMPARE(busBandwidthFactor("allreduce", 8), 1.75);
        QCOMPARE(busBandwidthFactor("allreduce", 2), 1.0);
        QCOMPARE(busBandwidthFactor("allgather", 8), 0.875);
        QCOMPARE(busBandwidthFactor("reducescatter", 4), 0.75);
        QCOMPARE(busBandwidthFactor("alltoall", 2), 0.5);
        QCOMPARE(busBandwidthFactor("broadcast", -1), 1.0);
        QCOMPARE(busBandwidthFactor("allreduce", -1), 0.0);
        QCOMPARE(busBandwidthFactor("barrier", 8), 0.0);
    }

    void linkPeaks_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("link");
        QTest::addColumn<double>("gbps");
        QTest::newRow("A100 PG509") << QStringLiteral("NVIDIA A100-PG509-200") << QStringLiteral("NVLink3") << 300.0;
        QTest::newRow("A100 PCIe") << QStringLiteral("NVIDIA A100-PCIE-40GB") << QStringLiteral("PCIe4 x16") << 31.5;
        QTest::newRow("V100 SXM2") << QStringLiteral("Tesla V100-SXM2-32GB") << QStringLiteral("NVLink2") << 150.0;
        QTest::newRow("H100 SXM") << QStringLiteral("NVIDIA H100 80GB HBM3") << QStringLiteral("NVLink4") << 450.0;
        QTest::newRow("H100 PCIe") << QStringLiteral("NVIDIA H100 PCIe") << QStringLiteral("PCIe5 x16") << 63.0;
        QTest::newRow("H200") << QStringLiteral("NVIDIA H200") << QStringLiteral("NVLink4") << 450.0;
        QTest::newRow("H800") << QStringLiteral("NVIDIA H800") << QStringLiteral("NVLink4") << 200.0;
        QTest::newRow("B200") << QStringLiteral("NVIDIA B200") << QStringLiteral("NVLink5") << 900.0;
        QTest::newRow("MI250") << QStringLiteral("AMD Instinct MI250X") << QString() << 0.0;
        QTest::newRow("none") << QString() << QString() << 0.0;
    }
    void linkPeaks()
    {
        QFETCH(QString, name);
        QFETCH(QString, link);
        QFETCH(double, gbps);
        const auto peak = gpuLinkPeak(name.toStdString());
        QCOMPARE(peak.has_value(), !link.isEmpty());
        if (peak) {
            QCOMPARE(QString::fromStdString(peak->link), link);
            QCOMPARE(peak->gbps, gbps);
        }
    }

    void ascendPeaks()
    {
        QCOMPARE(ascendLinkPeak("HCCS", "Ascend910B2")->gbps, 56.0);
        QCOMPARE(ascendLinkPeak("RDMA", "Ascend910B3")->gbps, 25.0);
        QVERIFY(!ascendLinkPeak("PCIE", "Ascend910B2"));
        // The msinsight fixtures name no chip ("Ascend NPU"): no peak, so no slow_link there.
        QVERIFY(!ascendLinkPeak("HCCS", "Ascend NPU"));
    }

    // 64 MiB all-reduce over 2 ranks in 10 ms on A100 (NVLink3, 300 GB/s), all of it exposed: busbw = 67108864 B /
    // 10^7 ns = 6.7108864 GB/s (factor 2(n−1)/n = 1), 2.237 % of the peak; the link at its peak would take
    // llround(10^7 × 0.0223696) = 223696 ns, so 9776304 ns are lost.
    void slowNcclAllReduce()
    {
        const TracePtr t = ncclAllReduce("NVIDIA A100-SXM4-80GB", 16 * 1024 * 1024, 10 * kMs);
        const AnalysisResult r = run(*t);
        const auto slow = ofKind(r, "slow_link");
        QCOMPARE(slow.size(), std::size_t(1));
        const Finding& f = *slow.front();
        QCOMPARE(f.lostNs, TimeNs(9'776'304));
        QCOMPARE(f.occurrences, std::uint64_t(1));
        QCOMPARE(detail<std::string>(f, "link"), std::string("NVLink3"));
        QCOMPARE(detail<std::int64_t>(f, "bytes"), std::int64_t(67'108'864));
        QCOMPARE(detail<std::int64_t>(f, "at_peak_ns"), std::int64_t(223'696));
        QVERIFY(std::abs(detail<double>(f, "busbw_gbps") - 6.7108864) < 1e-9);
        QVERIFY(f.recommendation.find("NCCL_DEBUG=INFO") != std::string::npos);
        QVERIFY(f.recommendation.find("NVLink3") != std::string::npos);
        // Never more than the communication finding's exposed time.
        QVERIFY(f.lostNs <= ofKind(r, "communication").front()->lostNs);
        // The summary the report writes.
        const auto bw = summarizeBandwidth(r.communication, "NVIDIA A100-SXM4-80GB");
        QCOMPARE(bw.size(), std::size_t(1));
        QCOMPARE(bw[0].opKind, std::string("allreduce"));
        QCOMPARE(bw[0].bytes, std::int64_t(67'108'864));
        QCOMPARE(bw[0].transferNs, 10 * kMs);
        QCOMPARE(bw[0].peakGBps, 300.0);
    }

    // One rank cannot tell waiting from transfer, but waiting only lengthens a collective: the same all-reduce in
    // 10 ms (held by a late peer) and in 2 ms both get the 2 ms transfer. 64 MiB in 2 ms = 33.554432 GB/s, 11.18 %
    // of 300 GB/s: each loses 2 ms − llround(2 ms × 0.111848…) = 1776304 ns, not the 10 ms collective's 9.78 ms.
    void slowLinkHoldsOnlyTheTransfer()
    {
        const TracePtr t = ncclAllReduces("NVIDIA A100-SXM4-80GB", 16 * 1024 * 1024, {10 * kMs, 2 * kMs});
        const AnalysisResult r = run(*t);
        QCOMPARE(r.communication.steps.size(), std::size_t(2));
        const std::vector<TimeNs> transfers = rankTransferTimes(r.communication);
        QCOMPARE(transfers, (std::vector<TimeNs> {2 * kMs, 2 * kMs}));
        const auto slow = ofKind(r, "slow_link");
        QCOMPARE(slow.size(), std::size_t(1));
        const Finding& f = *slow.front();
        const double share = 67'108'864.0 / double(2 * kMs) / 300.0;
        const TimeNs each = 2 * kMs - std::llround(double(2 * kMs) * share);
        QCOMPARE(each, TimeNs(1'776'304));
        QCOMPARE(f.lostNs, 2 * each);
        QCOMPARE(f.occurrences, std::uint64_t(2));
        QCOMPARE(detail<std::int64_t>(f, "transfer_ns"), 4 * kMs);
        QCOMPARE(detail<std::string>(f, "transfer_source"), std::string("fastest_of_size"));
        QVERIFY(std::abs(detail<double>(f, "busbw_gbps") - 33.554432) < 1e-9);
        // The what-if keeps each collective less its loss: the held one keeps its 8 ms of waiting.
        const AnalysisOptions options;
        const CancelToken cancel;
        const AnalysisContext context(*t, options, cancel);
        const PassOutput out = SlowLinkPass().run(context);
        QCOMPARE(out.findings.size(), std::size_t(1));
        const std::vector<double>& scales = out.findings.front().whatIf.scales;
        QCOMPARE(scales.size(), std::size_t(2));
        QVERIFY(std::abs(scales[0] - double(10 * kMs - each) / double(10 * kMs)) < 1e-12);
        QVERIFY(std::abs(scales[1] - double(2 * kMs - each) / double(2 * kMs)) < 1e-12);
        // Re-timed, each step is shorter by its loss (one stream, nothing else waits): the saving is the loss.
        QCOMPARE(f.savingNs, f.lostNs);
        const auto bw = summarizeBandwidth(r.communication, "NVIDIA A100-SXM4-80GB");
        QCOMPARE(bw.size(), std::size_t(1));
        QCOMPARE(bw[0].transferNs, 4 * kMs);
        QCOMPARE(bw[0].source, TransferSource::FastestOfSize);
    }

    // Fast enough (a quarter of the peak or more), too small, or an unknown link: no finding.
    void noSlowLink_data()
    {
        QTest::addColumn<QString>("device");
        QTest::addColumn<qint64>("nelems");
        QTest::addColumn<qint64>("dur");
        // 64 MiB in 0.8 ms = 83.9 GB/s, 28 % of 300.
        QTest::newRow("fast") << QStringLiteral("NVIDIA A100-SXM4-80GB") << qint64(16 << 20) << qint64(800'000);
        // 512 KiB: latency, not the link.
        QTest::newRow("small") << QStringLiteral("NVIDIA A100-SXM4-80GB") << qint64(128 << 10) << qint64(10 * kMs);
        QTest::newRow("unknown GPU") << QStringLiteral("Some GPU") << qint64(16 << 20) << qint64(10 * kMs);
    }
    void noSlowLink()
    {
        QFETCH(QString, device);
        QFETCH(qint64, nelems);
        QFETCH(qint64, dur);
        const TracePtr t = ncclAllReduce(device.toStdString(), nelems, dur);
        const AnalysisResult r = run(*t);
        QVERIFY(ofKind(r, "slow_link").empty());
        QCOMPARE(ofKind(r, "communication").size(), std::size_t(1));
        // The bandwidth is reported all the same.
        const auto bw = summarizeBandwidth(r.communication, device.toStdString());
        QCOMPARE(bw.size(), std::size_t(1));
        QCOMPARE(bw[0].bytes, std::int64_t(nelems * 4));
    }

    // An HCCL all-reduce whose main link communication.json measured (the rank-0 fixture's second operation):
    // 117.440512 MB over HCCS in 9.08862159375 ms = 12.9217 GB/s, 23.07 % of 910B's 56 GB/s; the operation lasts
    // 2.281 ms, all exposed → lost = 2281106 − llround(2281106 × 12.92168…/56).
    void slowHccs()
    {
        const TimeNs dur = 2'281'106;
        TraceBuilder tb;
        tb.metadata().devices.emplace_back(model::DeviceKind::Npu, 0, "Ascend910B2");
        tb.metadata().platform = model::Platform::TorchNpuCann;
        const model::TrackId stream = tb.addTrack({"stream 2", "NPU 0", "stream 2", "npu0", "s2",
                                                   model::DeviceKind::Npu, model::TrackRole::DeviceCompute, 0, 2, 0});
        const std::vector<model::Arg> list {
            {tb.intern("Link Type"), text(tb, "HCCS")},
            {tb.intern("Link Transit Size(MB)"), model::ArgValue::fromDouble(117.440512)},
            {tb.intern("Link Transit Time(ms)"), model::ArgValue::fromDouble(9.08862159375)}};
        model::SliceInput op;
        op.dur = dur;
        op.name = tb.intern("hcom_allReduce__586_1_1");
        op.category = SliceCategory::Communication;
        op.args = tb.addArgs(list);
        tb.addSlice(stream, op);
        model::SliceInput compute;
        compute.ts = dur;
        compute.dur = 20 * kMs - dur;
        compute.name = tb.intern("MatMul");
        compute.category = SliceCategory::Kernel;
        tb.addSlice(stream, compute);
        tb.addStep(1, tb.intern("step 1"), 0, 20 * kMs);
        const TracePtr t = tb.finalize();
        const AnalysisResult r = run(*t);
        const auto slow = ofKind(r, "slow_link");
        QCOMPARE(slow.size(), std::size_t(1));
        const double bw = 117.440512e6 / 9'088'622.0;
        const double share = bw / 56.0;
        QVERIFY(std::abs(bw - 12.9217) < 1e-4);
        QCOMPARE(slow.front()->lostNs, dur - std::llround(double(dur) * share));
        QCOMPARE(detail<std::string>(*slow.front(), "link"), std::string("HCCS"));
        QCOMPARE(detail<std::string>(*slow.front(), "transfer_source"), std::string("communication_json"));
        QVERIFY(slow.front()->recommendation.find("HCCL_BUFFSIZE") != std::string::npos);
    }
};

QTEST_APPLESS_MAIN(TestBandwidth)
#include "tst_bandwidth.moc"
