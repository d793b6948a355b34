// SPDX-License-Identifier: MIT
// The porting-advisor kinds (op_compile, conversion, precision, memory_pressure): builder-made traces with the
// lost time worked out by hand in the comments, a control run where none may fire, and the real fixtures.
// Fixture figures were computed independently with Python over the raw files (scripts quoted per test).
#include "analysis/core/pass.h"
#include "model/tracebuilder.h"
#include "tests/analysis/findinglookup.h"
#include "tests/common/fixtures.h"

#include <QTest>

#include <algorithm>
#include <array>

using namespace timesink;
using namespace timesink::analysis;
using model::Arg;
using model::ArgValue;
using model::SliceCategory;
using model::TimeNs;
using model::TraceBuilder;
using model::TracePtr;

using testing::ofKind;

namespace {

std::string detailOf(const Finding& f, std::string_view key)
{
    for (const Detail& d : f.details) {
        if (d.key == key)
            return detailText(d);
    }
    return "<missing>";
}

bool notAssessed(const AnalysisResult& r, std::string_view kind)
{
    return std::any_of(r.notAssessed.begin(), r.notAssessed.end(),
                       [&](const NotAssessed& n) { return n.kind == kind; });
}

AnalysisResult run(const model::Trace& t, TimeNs bubbleThreshold = 1)
{
    CancelToken cancel;
    AnalysisOptions o;
    o.bubbleThresholdNs = bubbleThreshold;
    return analyze(t, o, cancel);
}

TimeNs lostOf(const AnalysisResult& r, std::string_view kind)
{
    TimeNs total = 0;
    for (const Finding* f : ofKind(r, kind))
        total += f->lostNs;
    return total;
}

// A device task with kernel_details-style args.
model::SliceRef task(TraceBuilder& b, model::TrackId track, std::string_view name, TimeNs ts, TimeNs dur,
                     std::string_view opType, std::string_view inFormat, std::string_view outFormat,
                     std::string_view inType, std::string_view outType, SliceCategory c = SliceCategory::Kernel)
{
    std::vector<Arg> args;
    args.push_back({b.intern("OP Type"), ArgValue::fromString(b.intern(opType))});
    args.push_back({b.intern("Input Formats"), ArgValue::fromString(b.intern(inFormat))});
    args.push_back({b.intern("Output Formats"), ArgValue::fromString(b.intern(outFormat))});
    args.push_back({b.intern("Input Data Types"), ArgValue::fromString(b.intern(inType))});
    args.push_back({b.intern("Output Data Types"), ArgValue::fromString(b.intern(outType))});
    return b.slice(track, c, name, ts, dur, args);
}

// A framework op on `host` at [ts, ts+dur) launching `device` through a runtime call inside it.
void launchFrom(TraceBuilder& b, model::TrackId host, std::string_view op, TimeNs ts, TimeNs dur,
                model::SliceRef device, std::string_view call = "cudaLaunchKernel")
{
    b.slice(host, SliceCategory::HostOp, op, ts, dur);
    const model::SliceRef launch = b.slice(host, SliceCategory::RuntimeApi, call, ts + 1, dur - 2);
    b.addFlow(launch, device);
}

} // namespace

class TestPortingPasses : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // Step 1 [0,1000): kernels [0,100) and [500,1000); a compile call [50,450) (with a nested opCompile) on the
    // CANN thread; a dataloader span [300,350) on the main thread.
    // Idle [100,500) = 400: the dataloader claims [300,350) = 50, the compile [100,300)+[350,450) = 300,
    // the bubble gets [450,500) = 50. Step 2 [1000,2000): the device is busy throughout, so a compile
    // [1100,1200) costs nothing. compile_ns = 400 + 100 = 500 over 2 calls (the nested one is not a call).
    void opCompileClaimsIdleAfterDataloader()
    {
        TraceBuilder b;
        b.metadata().format = "torch_npu";
        const auto host = b.hostThread("main", 1, 1);
        const auto cann = b.hostThread("cann", 2, 7);
        const auto npu = b.deviceStream(0, 2, model::DeviceKind::Npu);
        b.step(host, 1, 0, 1000);
        b.step(host, 2, 1000, 1000);
        b.slice(host, SliceCategory::Dataloader, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 300,
                50);
        // torch_npu's task-queue thread names the operator whose CANN calls run inside it.
        b.slice(b.hostThread("dequeue", 1, 7), SliceCategory::HostOp, "Dequeue@Conv2D", 40, 420);
        b.slice(cann, SliceCategory::RuntimeApi, "AscendCL@aclopCompileAndExecute", 50, 400);
        b.slice(cann, SliceCategory::RuntimeApi, "AscendCL@opCompile", 60, 100);
        b.slice(cann, SliceCategory::RuntimeApi, "AscendCL@aclopCompileAndExecute", 1100, 100);
        b.slice(npu, SliceCategory::Kernel, "Conv2D1", 0, 100);
        b.slice(npu, SliceCategory::Kernel, "Conv2D2", 500, 500);
        b.slice(npu, SliceCategory::Kernel, "Conv2D3", 1000, 1000);
        const TracePtr t = b.finalize();
        const AnalysisResult r = run(*t);
        const auto oc = ofKind(r, "op_compile");
        QCOMPARE(oc.size(), std::size_t(1));
        QCOMPARE(oc[0]->lostNs, TimeNs(300));
        QCOMPARE(oc[0]->occurrences, std::uint64_t(2));
        QCOMPARE(detailOf(*oc[0], "compile_calls"), std::string("2"));
        QCOMPARE(detailOf(*oc[0], "compile_ns"), std::string("500"));
        QCOMPARE(oc[0]->perStep.size(), std::size_t(1));
        QCOMPARE(oc[0]->perStep[0].stepNumber, std::int64_t(1));
        QCOMPARE(oc[0]->perStep[0].lostNs, TimeNs(300));
        QCOMPARE(oc[0]->platform, Platform::TorchNpuCann);
        QVERIFY(oc[0]->recommendation.find("set_compile_mode(jit_compile=False)") != std::string::npos);
        QCOMPARE(detailOf(*oc[0], "compiled_ops"), std::string("Conv2D ×1"));
        // Evidence: the idle ranges on the NPU stream and the two outer compile calls.
        QCOMPARE(oc[0]->events.size(), std::size_t(2));
        QVERIFY(std::any_of(oc[0]->evidence.begin(), oc[0]->evidence.end(),
                            [&](const EvidenceRange& e) { return e.track == npu && e.start == 100 && e.end == 300; }));
        QCOMPARE(lostOf(r, "dataloader_starvation"), TimeNs(50));
        QCOMPARE(lostOf(r, "pipeline_bubble"), TimeNs(50));
        // Every idle nanosecond once: 50 + 300 + 50 = 400.
        QCOMPARE(lostOf(r, "dataloader_starvation") + lostOf(r, "op_compile") + lostOf(r, "pipeline_bubble"),
                 TimeNs(400));
    }

    // No device tracks: the compile time inside the step is the loss. A Dynamo compile range [100,400) with a
    // nested compile_fx_inner frame → 300; a compile range outside the step [1200,1300) is not counted.
    void opCompileHostOnlyCountsCompileTime()
    {
        TraceBuilder b;
        b.metadata().format = "kineto";
        const auto host = b.hostThread();
        b.step(host, 7, 0, 1000);
        b.slice(host, SliceCategory::Annotation, "_compile.compile_inner (dynamo_timed)", 100, 300);
        b.slice(host, SliceCategory::PythonFrame, "torch/_inductor/compile_fx.py(512): compile_fx_inner", 150, 100);
        b.slice(host, SliceCategory::Annotation, "_compile.compile_inner (dynamo_timed)", 1200, 100);
        const AnalysisResult r = run(*b.finalize());
        const auto oc = ofKind(r, "op_compile");
        QCOMPARE(oc.size(), std::size_t(1));
        QCOMPARE(oc[0]->lostNs, TimeNs(300));
        QCOMPARE(oc[0]->occurrences, std::uint64_t(1));
        QCOMPARE(detailOf(*oc[0], "device_work"), std::string("none"));
        QVERIFY(oc[0]->recommendation.find("mark_dynamic") != std::string::npos);
    }

    // cuDNN autotuning is expected in the first step: cudnnFind in step 1 [100,300) is ignored, in step 2
    // [1100,1300) it claims the idle device time (the only kernels are [0,50) and [1000,1050)) → 200.
    void autotuneCountsAfterTheFirstStep()
    {
        TraceBuilder b;
        b.metadata().format = "kineto";
        const auto host = b.hostThread();
        const auto gpu = b.deviceStream(0, 7);
        b.step(host, 1, 0, 1000);
        b.step(host, 2, 1000, 1000);
        b.slice(host, SliceCategory::RuntimeApi, "cudnnFindConvolutionForwardAlgorithmEx", 100, 200);
        b.slice(host, SliceCategory::RuntimeApi, "cudnnFindConvolutionForwardAlgorithmEx", 1100, 200);
        b.slice(gpu, SliceCategory::Kernel, "k", 0, 50);
        b.slice(gpu, SliceCategory::Kernel, "k", 1000, 50);
        const AnalysisResult r = run(*b.finalize());
        const auto oc = ofKind(r, "op_compile");
        QCOMPARE(oc.size(), std::size_t(1));
        QCOMPARE(oc[0]->lostNs, TimeNs(200));
        QCOMPARE(oc[0]->perStep.size(), std::size_t(1));
        QCOMPARE(oc[0]->perStep[0].stepNumber, std::int64_t(2));
        QCOMPARE(oc[0]->platform, Platform::PyTorchCuda);
    }

    // Step [0,1000), kernels [0,100) and [600,1000). Main thread: cudaFree [150,250), cudaMalloc [300,350),
    // cudaMallocAsync [400,450) (stream-ordered, not counted). Another thread compiles [320,340).
    // Idle [100,600) = 500: compile claims [320,340) = 20 first; the allocator [150,250) + [300,320) + [340,350)
    // = 130; the bubbles get the other 350.
    void memoryPressureClaimsAllocatorIdle()
    {
        TraceBuilder b;
        b.metadata().format = "kineto";
        const auto host = b.hostThread("main", 1, 1);
        const auto other = b.hostThread("compile", 1, 2);
        const auto gpu = b.deviceStream(0, 7);
        b.step(host, 3, 0, 1000);
        b.slice(host, SliceCategory::RuntimeApi, "cudaFree", 150, 100);
        b.slice(host, SliceCategory::RuntimeApi, "cudaMalloc", 300, 50);
        b.slice(host, SliceCategory::RuntimeApi, "cudaMallocAsync", 400, 50);
        b.slice(other, SliceCategory::Annotation, "compile_fx_inner (dynamo_timed)", 320, 20);
        b.slice(gpu, SliceCategory::Kernel, "k0", 0, 100);
        b.slice(gpu, SliceCategory::Kernel, "k1", 600, 400);
        // Kineto's allocator counter and the device's memory: the peak inside the step is 900 of 1000 bytes
        // (the 990 after the step does not count).
        model::TrackInfo counter;
        counter.name = "GPU 0 memory allocated";
        counter.role = model::TrackRole::Counter;
        counter.deviceKind = model::DeviceKind::Gpu;
        counter.deviceIndex = 0;
        const auto mem = b.addTrack(counter);
        b.addCounterSample(mem, 10, 500);
        b.addCounterSample(mem, 310, 900);
        b.addCounterSample(mem, 400, 700);
        b.addCounterSample(mem, 1500, 990);
        b.metadata().properties.emplace_back("device_memory_bytes.0", "1000");
        const AnalysisResult r = run(*b.finalize());
        const auto mp = ofKind(r, "memory_pressure");
        QCOMPARE(detailOf(*mp[0], "peak_allocated_bytes"), std::string("900"));
        QCOMPARE(detailOf(*mp[0], "device_memory_bytes"), std::string("1000"));
        QCOMPARE(detailOf(*mp[0], "peak_share"), std::string("0.9"));
        QVERIFY(mp[0]->explanation.find("peaked at 90.0%") != std::string::npos);
        QCOMPARE(mp.size(), std::size_t(1));
        QCOMPARE(mp[0]->lostNs, TimeNs(130));
        QCOMPARE(mp[0]->occurrences, std::uint64_t(2));
        QCOMPARE(detailOf(*mp[0], "allocator_ns"), std::string("150"));
        QCOMPARE(detailOf(*mp[0], "calls_by_name"), std::string("cudaFree ×1, cudaMalloc ×1"));
        QCOMPARE(mp[0]->perStep.size(), std::size_t(1));
        QCOMPARE(mp[0]->perStep[0].stepNumber, std::int64_t(3));
        QVERIFY(mp[0]->recommendation.find("expandable_segments:True") != std::string::npos);
        QCOMPARE(lostOf(r, "op_compile"), TimeNs(20));
        QCOMPARE(lostOf(r, "pipeline_bubble"), TimeNs(350));
    }

    // Without step markers, start-up allocations cannot be told from the loop's: not assessed.
    void memoryPressureNeedsSteps()
    {
        TraceBuilder b;
        const auto host = b.hostThread();
        const auto gpu = b.deviceStream(0, 7);
        b.slice(host, SliceCategory::RuntimeApi, "cudaMalloc", 0, 100);
        b.slice(gpu, SliceCategory::Kernel, "k", 200, 100);
        const AnalysisResult r = run(*b.finalize());
        QVERIFY(ofKind(r, "memory_pressure").empty());
        QVERIFY(notAssessed(r, "memory_pressure"));
        QVERIFY(notAssessed(r, "op_compile"));
    }

    // Ascend tasks in step [0,10000), launched from aten::conv2d (flows): TransData NCHW→NC1HWC0 [0,100) and
    // NCHW→FRACTAL_Z [200,260), Cast FLOAT→FLOAT16 [300,340), Transpose NCHW→NHWC [400,420) count = 220;
    // a Transpose ND→ND FLOAT→FLOAT (a real permutation) and an AI_CPU Cast (cpu_fallback's) do not.
    // A TransData without a launch flow is grouped under its op type: 30.
    void conversionAscendByFrameworkOp()
    {
        TraceBuilder b;
        b.metadata().format = "torch_npu";
        const auto host = b.hostThread();
        const auto npu = b.deviceStream(0, 2, model::DeviceKind::Npu);
        b.step(host, 50, 0, 10000);
        launchFrom(b, host, "aten::conv2d", 0, 50,
                   task(b, npu, "trans_TransData_0", 0, 100, "TransData", "NCHW", "NC1HWC0", "FLOAT", "FLOAT"),
                   "aclnnConvolution");
        launchFrom(b, host, "aten::conv2d", 60, 50,
                   task(b, npu, "trans_TransData_1", 200, 60, "TransData", "NCHW", "FRACTAL_Z", "FLOAT", "FLOAT"),
                   "aclnnConvolution");
        launchFrom(
            b, host, "aten::conv2d", 120, 50,
            task(b, npu, "aclnnCast_CastAiCore_Cast", 300, 40, "Cast", "FORMAT_ND", "FORMAT_ND", "FLOAT", "FLOAT16"),
            "aclnnCast");
        launchFrom(b, host, "aten::conv2d", 180, 50,
                   task(b, npu, "TransposeD1", 400, 20, "TransposeD", "NCHW", "NHWC", "FLOAT", "FLOAT"),
                   "aclnnTranspose");
        launchFrom(b, host, "aten::permute", 240, 50,
                   task(b, npu, "Transpose2", 500, 70, "Transpose", "FORMAT_ND;FORMAT_ND", "FORMAT_ND", "FLOAT;INT64",
                        "FLOAT"),
                   "aclnnTranspose");
        task(b, npu, "Cast3", 600, 80, "Cast", "FORMAT_ND", "FORMAT_ND", "INT64", "INT32", SliceCategory::FallbackOp);
        task(b, npu, "trans_TransData_9", 700, 30, "TransData", "NC1HWC0", "NCHW", "FLOAT", "FLOAT");
        const AnalysisResult r = run(*b.finalize());
        const auto conv = ofKind(r, "conversion");
        QCOMPARE(conv.size(), std::size_t(2));
        QCOMPARE(conv[0]->lostNs, TimeNs(220));
        QCOMPARE(detailOf(*conv[0], "op"), std::string("aten::conv2d"));
        QCOMPARE(conv[0]->occurrences, std::uint64_t(4));
        QCOMPARE(detailOf(*conv[0], "by_type"), std::string("Cast ×1, TransData ×2, TransposeD ×1"));
        QCOMPARE(detailOf(*conv[0], "changes"),
                 std::string("FLOAT→FLOAT16 ×1, NCHW→FRACTAL_Z ×1, NCHW→NC1HWC0 ×1, NCHW→NHWC ×1"));
        QVERIFY(conv[0]->title.find("Format and dtype conversions around aten::conv2d") == 0);
        QVERIFY(conv[0]->recommendation.find("allow_internal_format") != std::string::npos);
        QCOMPARE(conv[0]->events.size(), std::size_t(4));
        QCOMPARE(conv[1]->lostNs, TimeNs(30));
        QCOMPARE(detailOf(*conv[1], "op"), std::string("TransData"));
    }

    // GPU: cuDNN layout kernels under aten::conv2d (12 + 8 = 20) and a cast the model asked for
    // (aten::to → aten::_to_copy → kernel, 30). The cast autocast inserts inside aten::linear (40) is not counted.
    void conversionGpuLayoutAndExplicitCasts()
    {
        TraceBuilder b;
        b.metadata().format = "kineto";
        const auto host = b.hostThread();
        const auto gpu = b.deviceStream(0, 7);
        b.step(host, 1, 0, 10000);
        launchFrom(b, host, "aten::conv2d", 0, 100,
                   b.slice(gpu, SliceCategory::Kernel, "void cudnn::ops::nchwToNhwcKernel<float, float, float, false>",
                           100, 12));
        launchFrom(b, host, "aten::conv2d", 200, 100,
                   b.slice(gpu, SliceCategory::Kernel, "void cudnn::ops::nhwcToNchwKernel<float, float, float, true>",
                           300, 8));
        // An explicit x.float(): aten::to → aten::_to_copy → aten::copy_ → cudaLaunchKernel.
        b.slice(host, SliceCategory::HostOp, "aten::to", 400, 100);
        b.slice(host, SliceCategory::HostOp, "aten::_to_copy", 401, 98);
        b.slice(host, SliceCategory::HostOp, "aten::copy_", 402, 96);
        b.addFlow(b.slice(host, SliceCategory::RuntimeApi, "cudaLaunchKernel", 403, 90),
                  b.slice(gpu, SliceCategory::Kernel, "void at::native::unrolled_elementwise_kernel<copy>", 500, 30));
        // Autocast's cast inside aten::linear.
        b.slice(host, SliceCategory::HostOp, "aten::linear", 600, 200);
        b.slice(host, SliceCategory::HostOp, "aten::to", 601, 100);
        b.addFlow(b.slice(host, SliceCategory::RuntimeApi, "cudaLaunchKernel", 602, 90),
                  b.slice(gpu, SliceCategory::Kernel, "void at::native::unrolled_elementwise_kernel<copy>", 700, 40));
        const AnalysisResult r = run(*b.finalize());
        const auto conv = ofKind(r, "conversion");
        QCOMPARE(conv.size(), std::size_t(2));
        QCOMPARE(conv[0]->lostNs, TimeNs(30));
        QCOMPARE(detailOf(*conv[0], "op"), std::string("aten::to"));
        QCOMPARE(detailOf(*conv[0], "by_type"), std::string("cast kernel ×1"));
        QVERIFY(conv[0]->recommendation.find("Cast once") != std::string::npos);
        QCOMPARE(conv[1]->lostNs, TimeNs(20));
        QCOMPARE(detailOf(*conv[1], "op"), std::string("aten::conv2d"));
        QCOMPARE(detailOf(*conv[1], "by_type"), std::string("nchwToNhwcKernel ×1, nhwcToNchwKernel ×1"));
        QVERIFY(conv[1]->recommendation.find("channels_last") != std::string::npos);
    }

    // GPU AMP run (an fp16 gemm) with an FP32 sgemm [200,400) under aten::linear and an FP32 conv [500,600):
    // the estimate is half their time = 100 + 50 = 150. Without AMP evidence the same FP32 work is not a finding.
    void precisionHalvesFp32MatmulTime()
    {
        for (const bool amp : {true, false}) {
            TraceBuilder b;
            b.metadata().format = "kineto";
            const auto host = b.hostThread();
            const auto gpu = b.deviceStream(0, 7);
            b.step(host, 1, 0, 1000);
            if (amp)
                b.slice(gpu, SliceCategory::Kernel, "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_nn", 0, 100);
            launchFrom(b, host, "aten::linear", 150, 40,
                       b.slice(gpu, SliceCategory::Kernel, "ampere_sgemm_128x64_nn", 200, 200));
            launchFrom(
                b, host, "aten::conv2d", 450, 40,
                b.slice(gpu, SliceCategory::Kernel, "sm80_xmma_fprop_implicit_gemm_f32f32_f32f32_f32_nchw", 500, 100));
            const AnalysisResult r = run(*b.finalize());
            const auto p = ofKind(r, "precision");
            if (!amp) {
                QVERIFY(p.empty());
                continue;
            }
            QCOMPARE(p.size(), std::size_t(1));
            QCOMPARE(p[0]->lostNs, TimeNs(150));
            QCOMPARE(p[0]->occurrences, std::uint64_t(2));
            QCOMPARE(detailOf(*p[0], "fp32_ns"), std::string("300"));
            QCOMPARE(detailOf(*p[0], "reduced_precision_tasks"), std::string("1"));
            QCOMPARE(detailOf(*p[0], "ops"), std::string("aten::linear 200 ns, aten::conv2d 100 ns"));
            QVERIFY(p[0]->title.find("estimate") != std::string::npos);
            QVERIFY(p[0]->recommendation.find("torch.autocast(device_type='cuda'") != std::string::npos);
        }
    }

    // Ascend: GradScaler on the host (aten::_amp_update_scale_) and a MatMulV2 with FLOAT inputs [0,400)
    // → 200; a BF16 MatMulV3 is fine.
    void precisionAscendFromDataTypes()
    {
        TraceBuilder b;
        b.metadata().format = "torch_npu";
        const auto host = b.hostThread();
        const auto npu = b.deviceStream(0, 2, model::DeviceKind::Npu);
        b.step(host, 1, 0, 1000);
        b.slice(host, SliceCategory::HostOp, "aten::_amp_update_scale_", 900, 50);
        task(b, npu, "MatMulV2_1", 0, 400, "MatMulV2", "ND;ND", "ND", "FLOAT;FLOAT", "FLOAT");
        task(b, npu, "MatMulV3_2", 500, 100, "MatMulV3", "ND;ND", "ND", "DT_BF16;DT_BF16", "DT_BF16");
        const AnalysisResult r = run(*b.finalize());
        const auto p = ofKind(r, "precision");
        QCOMPARE(p.size(), std::size_t(1));
        QCOMPARE(p[0]->lostNs, TimeNs(200));
        QCOMPARE(detailOf(*p[0], "amp_evidence"), std::string("autocast/scaler and fp16/bf16 tasks"));
        QVERIFY(p[0]->recommendation.find("device_type='npu'") != std::string::npos);
    }

    // The control: a static-shape, channels-last AMP run. fp16 tensor-core gemm and NHWC conv kernels, an
    // autocast cast inside aten::linear, the autocast range on the host, no allocator or compile calls.
    // None of the porting kinds may fire.
    void controlRunFiresNothing()
    {
        TraceBuilder b;
        b.metadata().format = "kineto";
        const auto host = b.hostThread();
        const auto gpu = b.deviceStream(0, 7);
        for (int s = 0; s < 3; ++s) {
            const TimeNs t0 = s * 1000;
            b.step(host, s + 1, t0, 1000);
            b.slice(host, SliceCategory::PythonFrame, "torch/amp/autocast_mode.py(300): __enter__", t0 + 1, 5);
            launchFrom(b, host, "aten::conv2d", t0 + 10, 50,
                       b.slice(gpu, SliceCategory::Kernel,
                               "sm80_xmma_fprop_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize128x128", t0 + 20,
                               300));
            b.slice(host, SliceCategory::HostOp, "aten::linear", t0 + 100, 200);
            b.slice(host, SliceCategory::HostOp, "aten::to", t0 + 101, 50);
            b.addFlow(b.slice(host, SliceCategory::RuntimeApi, "cudaLaunchKernel", t0 + 102, 40),
                      b.slice(gpu, SliceCategory::Kernel, "void at::native::unrolled_elementwise_kernel<copy>",
                              t0 + 330, 20));
            b.addFlow(
                b.slice(host, SliceCategory::RuntimeApi, "cudaLaunchKernel", t0 + 160, 40),
                b.slice(gpu, SliceCategory::Kernel, "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_nn", t0 + 360, 600));
        }
        const AnalysisResult r = run(*b.finalize());
        for (std::string_view kind : {"op_compile", "conversion", "precision", "memory_pressure"}) {
            QVERIFY2(ofKind(r, kind).empty(), std::string(kind).c_str());
            QVERIFY2(!notAssessed(r, kind), std::string(kind).c_str());
        }
    }

    // Copy advice. Step [0,10000), no compute. HtoD [100,600) of 32×3×224×224 float32 (19 267 584 bytes; the
    // copy has no size arg, so the shape decides) from aten::to: uint8 would save three quarters, 14 450 688 bytes. A
    // DtoH [1000,1100) from loss.item() at train.py(42) (a Python frame around aten::item, inside a torch/ frame that
    // is skipped).
    void copyHotspotAdvice()
    {
        TraceBuilder b;
        b.metadata().format = "kineto";
        const auto host = b.hostThread();
        const auto copyEngine = b.deviceStream(0, 8, model::DeviceKind::Gpu, model::TrackRole::DeviceCopy);
        b.step(host, 1, 0, 10000);
        const std::array<Arg, 2> shapes {
            Arg {b.intern("Input Dims"), ArgValue::fromString(b.intern("[[32, 3, 224, 224], [], [], []]"))},
            Arg {b.intern("Input type"), ArgValue::fromString(b.intern("[\"float\", \"Scalar\", \"\", \"\"]"))}};
        b.slice(host, SliceCategory::HostOp, "aten::to", 0, 90, shapes);
        const auto htod
            = b.memcpy(copyEngine, model::MemcpyDirection::HostToDevice, model::HostMemoryKind::Pinned, 100, 500);
        b.addFlow(b.slice(host, SliceCategory::RuntimeApi, "cudaMemcpyAsync", 10, 50), htod);
        b.slice(host, SliceCategory::PythonFrame, "train.py(42): train_step", 900, 300);
        b.slice(host, SliceCategory::PythonFrame, "torch/_tensor.py(1000): item", 905, 290);
        b.slice(host, SliceCategory::HostOp, "aten::item", 910, 280);
        const auto dtoh
            = b.memcpy(copyEngine, model::MemcpyDirection::DeviceToHost, model::HostMemoryKind::Pageable, 1000, 100);
        b.addFlow(b.slice(host, SliceCategory::RuntimeApi, "cudaMemcpyAsync", 920, 200), dtoh);
        const AnalysisResult r = run(*b.finalize());
        const auto copies = ofKind(r, "copy_hotspot");
        QCOMPARE(copies.size(), std::size_t(2));
        QCOMPARE(detailOf(*copies[0], "direction"), std::string("htod"));
        QCOMPARE(detailOf(*copies[0], "float32_image_copies"), std::string("1"));
        QCOMPARE(detailOf(*copies[0], "image_shape"), std::string("32×3×224×224"));
        QCOMPARE(detailOf(*copies[0], "uint8_saving_bytes"), std::string("14450688"));
        QVERIFY(copies[0]->recommendation.find("send the images as uint8") != std::string::npos);
        QVERIFY(copies[0]->recommendation.find("saving 13.8 MiB") != std::string::npos);
        QCOMPARE(detailOf(*copies[1], "direction"), std::string("dtoh"));
        QCOMPARE(detailOf(*copies[1], "python_lines"), std::string("train.py(42): train_step ×1"));
        QVERIFY(copies[1]->recommendation.find("asked for at train.py(42): train_step") != std::string::npos);
    }

    // python3 /tmp verify (quoted): trace_view.json, times rounded to ns, the step ProfilerStep#50;
    //   compile = union of AscendCL@aclopCompileAndExecute spans → 19 calls, 14 049 230 ns;
    //   busy = union of all X events of the "Ascend Hardware" and "HCCL" processes except the sync tasks
    //   (EVENT_WAIT, EVENT_RECORD, Notify Wait, … by name or Task Type — they keep no device busy);
    //   idle = step − busy = 44 295 718 ns; idle ∩ compile = 4 997 116 ns (the same with the sync tasks counted busy);
    //   idle ∩ DataLoader spans = 3 332 400, DataLoader ∩ compile = 0 (so the dataloader takes nothing from the
    //   compiles); TransData = Ascend Hardware tasks whose name contains TransData: 57 tasks, 1 423 203 ns
    //   (kernel_details.csv says 57 rows of Type TransData, 1423.202 µs). No FP16/BF16 data type and no AMP marker: no
    //   precision.
    void ascendLevel1Fixture()
    {
        LOAD_FIXTURE(trace, std::string("torch_npu/msinsight_text_level1_rank0_ascend_pt"));
        const AnalysisResult r = run(*trace, AnalysisOptions {}.bubbleThresholdNs);
        const auto oc = ofKind(r, "op_compile");
        QCOMPARE(oc.size(), std::size_t(1));
        QCOMPARE(oc[0]->lostNs, TimeNs(4'997'116));
        QCOMPARE(oc[0]->occurrences, std::uint64_t(19));
        QCOMPARE(detailOf(*oc[0], "compile_ns"), std::string("14049230"));
        // python3: the Dequeue@<op> range enclosing each compile call (same thread id, Python process):
        //   Conv2D 5, Conv2DBackpropFilter 5, ReduceSum 5, Conv2DBackpropInput 4.
        QCOMPARE(detailOf(*oc[0], "compiled_ops"),
                 std::string("Conv2D ×5, Conv2DBackpropFilter ×5, Conv2DBackpropInput ×4, ReduceSum ×5"));
        QCOMPARE(oc[0]->perStep.size(), std::size_t(1));
        QCOMPARE(oc[0]->perStep[0].stepNumber, std::int64_t(50));
        QCOMPARE(oc[0]->perStep[0].stepNs, TimeNs(155'985'800));
        QCOMPARE(oc[0]->platform, Platform::TorchNpuCann);
        QCOMPARE(lostOf(r, "dataloader_starvation"), TimeNs(3'332'400));
        std::uint64_t transData = 0;
        TimeNs transDataNs = 0;
        for (const Finding* f : ofKind(r, "conversion")) {
            const std::string types = detailOf(*f, "by_type");
            if (types.rfind("TransData ×", 0) == 0) {
                transData += f->occurrences;
                transDataNs += f->lostNs;
            }
        }
        QCOMPARE(transData, std::uint64_t(57));
        QCOMPARE(transDataNs, TimeNs(1'423'203));
        const auto conv = ofKind(r, "conversion");
        QCOMPARE(detailOf(*conv[0], "op"), std::string("aten::convolution_backward"));
        QVERIFY(ofKind(r, "precision").empty());
        QVERIFY(ofKind(r, "memory_pressure").empty());
        // The ImageNet batch goes to the NPU as float32 (aten::to, Input Dims 32,3,224,224, Input type float):
        // uint8 would save 32·3·224·224·3 = 14 450 688 bytes.
        const Finding* images = nullptr;
        for (const Finding* f : ofKind(r, "copy_hotspot")) {
            if (detailOf(*f, "direction") == "htod")
                images = f;
        }
        QVERIFY(images != nullptr);
        QCOMPARE(detailOf(*images, "float32_image_copies"), std::string("1"));
        QCOMPARE(detailOf(*images, "image_shape"), std::string("32×3×224×224"));
        QCOMPARE(detailOf(*images, "uint8_saving_bytes"), std::string("14450688"));
        QVERIFY(images->recommendation.find("x.to('npu', non_blocking=True)") != std::string::npos);
        // memory_record.csv → allocator counters. python3: rows with Component == "PTA": 381, max Total
        // Allocated(MB) 1187.9814453125, max Total Reserved(MB) 1452.0, all on NPU:0.
        const model::Track* allocated = nullptr;
        const model::Track* reserved = nullptr;
        for (const model::Track& t : trace->tracks()) {
            if (t.role != model::TrackRole::Counter)
                continue;
            if (trace->str(t.name) == "NPU MEM PTA/Allocated (MB)")
                allocated = &t;
            if (trace->str(t.name) == "NPU MEM PTA/Reserved (MB)")
                reserved = &t;
        }
        QVERIFY(allocated != nullptr && reserved != nullptr);
        QCOMPARE(allocated->counterValues().size(), std::size_t(381));
        QCOMPARE(allocated->deviceIndex, 0);
        QCOMPARE(*std::max_element(allocated->counterValues().begin(), allocated->counterValues().end()),
                 1187.9814453125);
        QCOMPARE(*std::max_element(reserved->counterValues().begin(), reserved->counterValues().end()), 1452.0);
    }

    // The database export of the same run family: sqlite3 on ascend_pytorch_profiler_0.db,
    //   SELECT count(*), sum(endNs - startNs) FROM CANN_API WHERE name = (id of 'aclopCompileAndExecute')
    //   → 19, 27 601 640 ns (the 19 opCompile calls are nested in them).
    void ascendDbFixture()
    {
        LOAD_FIXTURE(trace, std::string("msprof/msinsight_db_level1_rank0_ascend_pt"));
        const AnalysisResult r = run(*trace, AnalysisOptions {}.bubbleThresholdNs);
        const auto oc = ofKind(r, "op_compile");
        QCOMPARE(oc.size(), std::size_t(1));
        QCOMPARE(oc[0]->occurrences, std::uint64_t(19));
        QCOMPARE(detailOf(*oc[0], "compile_ns"), std::string("27601640"));
        QVERIFY(oc[0]->lostNs > 0 && oc[0]->lostNs <= 27'601'640);
        QVERIFY(!ofKind(r, "conversion").empty());
    }

    // python3: kernels (cat "kernel") whose name contains nchwToNhwc or nhwcToNchw, clipped to the three
    // ProfilerSteps: 633 kernels (474 nchwToNhwcKernel, 159 nhwcToNchwKernel), 15 120 910 ns.
    void ncclFixtureLayoutKernels()
    {
        LOAD_FIXTURE(trace, std::string("torch/hta_a100_nccl_data.json.gz"));
        const AnalysisResult r = run(*trace, AnalysisOptions {}.bubbleThresholdNs);
        std::uint64_t tasks = 0;
        TimeNs ns = 0;
        for (const Finding* f : ofKind(r, "conversion")) {
            QCOMPARE(f->platform, Platform::PyTorchCuda);
            QVERIFY(f->recommendation.find("channels_last") != std::string::npos);
            tasks += f->occurrences;
            ns += f->lostNs;
        }
        QCOMPARE(tasks, std::uint64_t(633));
        QCOMPARE(ns, TimeNs(15'120'910));
        QVERIFY(ofKind(r, "precision").empty()); // an FP32 run: no AMP anywhere
    }

    // A sampled DLRM-style A100 trace: FP32 sgemm kernels next to fp16 embedding kernels whose parameter lists
    // name c10::Half (and fbgemm_gpu kernels, a library prefix, not a gemm). No autocast, no fp16 matmul: it is
    // not a mixed-precision run, so its FP32 gemms are no precision finding.
    void precisionIgnoresHalfEmbeddings()
    {
        LOAD_FIXTURE(trace, std::string("torch/hta_sampled_rank-0_noflows.json.gz"));
        const AnalysisResult r = run(*trace, AnalysisOptions {}.bubbleThresholdNs);
        QVERIFY(ofKind(r, "precision").empty());
    }

    // The H100 trace's deviceProperties: totalGlobalMem 85018279936 for device 0, kept for memory_pressure.
    // Its one DtoH copy (correlation 8331) comes from cudaMemcpyAsync in aten::_local_scalar_dense ← aten::item
    // ← aten::is_nonzero (an `if tensor:`), whose innermost enclosing python_function on that thread is
    // transformers/modeling_attn_mask_utils.py(429): _prepare_4d_attention_mask_for_sdpa (python3 over the file).
    void deviceMemoryAndPythonLineFromH100Trace()
    {
        LOAD_FIXTURE(trace, std::string("torch/tracelens_h100_gaunernst_bert-small-uncased__1016001.json.gz"));
        const AnalysisResult r = run(*trace, AnalysisOptions {}.bubbleThresholdNs);
        const auto copies = ofKind(r, "copy_hotspot");
        QCOMPARE(copies.size(), std::size_t(1));
        QCOMPARE(detailOf(*copies[0], "direction"), std::string("dtoh"));
        QCOMPARE(detailOf(*copies[0], "python_lines"),
                 std::string("transformers/modeling_attn_mask_utils.py(429): _prepare_4d_attention_mask_for_sdpa ×1"));
        const auto& props = trace->metadata().properties;
        const auto it = std::find_if(props.begin(), props.end(),
                                     [](const auto& p) { return p.first == "device_memory_bytes.0"; });
        QVERIFY(it != props.end());
        QCOMPARE(it->second, std::string("85018279936"));
    }

    // Device dtype casts the model asks for, on a real A100 trace. python3: for every runtime call whose kernel
    // (same correlation) exists, the enclosing cpu_op aten::… ops on its thread; when the outermost is
    // aten::to/_to_copy/type_as/float/half/bfloat16/double, the kernel's time inside the 6 ProfilerSteps:
    // 114 kernels (direct_copy_kernel casts of int/float/long/double tensors), 1736 µs.
    void explicitCastsOnA100Fixture()
    {
        LOAD_FIXTURE(trace, std::string("torch/hta_a100_trace_diff_control.json.gz"));
        const AnalysisResult r = run(*trace, AnalysisOptions {}.bubbleThresholdNs);
        const auto conv = ofKind(r, "conversion");
        QCOMPARE(conv.size(), std::size_t(1));
        QCOMPARE(detailOf(*conv[0], "op"), std::string("aten::to"));
        QCOMPARE(conv[0]->occurrences, std::uint64_t(114));
        QCOMPARE(conv[0]->lostNs, TimeNs(1'736'000));
        QCOMPARE(detailOf(*conv[0], "by_type"), std::string("cast kernel ×114"));
    }

    // A bf16 training run's kernel_details.csv (8 MatMulV3 and 4 MatMulV2, all DT_BF16): nothing in FP32.
    // The AlexNet benchmark trace allocates with cudaMalloc/cudaFree but has no step markers: not assessed.
    void negativeFixtures()
    {
        {
            LOAD_FIXTURE(trace, std::string("torch_npu/mstt_advisor_ut_2025_kernel_details.csv"));
            const AnalysisResult r = run(*trace, AnalysisOptions {}.bubbleThresholdNs);
            QVERIFY(ofKind(r, "precision").empty());
            QVERIFY(ofKind(r, "conversion").empty());
        }
        {
            LOAD_FIXTURE(trace,
                         std::string("torch/hta_a100_alexnet_benchmark_result_2869224_1695835535_trace.json.gz"));
            const AnalysisResult r = run(*trace, AnalysisOptions {}.bubbleThresholdNs);
            QVERIFY(ofKind(r, "memory_pressure").empty());
            QVERIFY(notAssessed(r, "memory_pressure"));
        }
    }
};

QTEST_GUILESS_MAIN(TestPortingPasses)
#include "tst_portingpasses.moc"
