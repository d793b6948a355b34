// SPDX-License-Identifier: MIT
#include "analysis/compare/compare.h"
#include "model/tracebuilder.h"

#include <QTest>

#include <algorithm>

using namespace timesink;
using model::DeviceKind;
using model::SliceCategory;
using model::TimeNs;
using model::TraceBuilder;
using model::TracePtr;

namespace {

model::Arg intArg(TraceBuilder& b, std::string_view key, std::int64_t v)
{
    return model::Arg {b.intern(key), model::ArgValue::fromInt(v)};
}

model::Arg stringArg(TraceBuilder& b, std::string_view key, std::string_view v)
{
    return model::Arg {b.intern(key), model::ArgValue::fromString(b.intern(v))};
}

/// Kineto-like GPU run: steps #10 and #11. In each step aten::conv2d → aten::cudnn_convolution →
/// cudaLaunchKernel → kernel (flow), and aten::relu_ → cudaLaunchKernel → kernel (flow).
/// Conv kernels 50 + 60 ns, relu kernels 10 + 12 ns; plus a backward conv kernel of 7 ns linked only by
/// `External id` (no flow) in step #11.
TracePtr gpuRun()
{
    TraceBuilder b;
    b.metadata().format = "kineto";
    const auto host = b.hostThread("main", 1, 1);
    const auto gpu = b.deviceStream(0, 7);
    const TimeNs conv[] = {50, 60};
    const TimeNs relu[] = {10, 12};
    for (int s = 0; s < 2; ++s) {
        const TimeNs t0 = s * 1000;
        b.step(host, 10 + s, t0, 1000);
        b.slice(host, SliceCategory::HostOp, "aten::conv2d", t0 + 100, 200);
        b.slice(host, SliceCategory::HostOp, "aten::cudnn_convolution", t0 + 120, 160);
        const auto l1 = b.slice(host, SliceCategory::RuntimeApi, "cudaLaunchKernel", t0 + 130, 10);
        const auto k1 = b.slice(gpu, SliceCategory::Kernel, "implicit_gemm", t0 + 200, conv[s]);
        b.addFlow(l1, k1);
        b.slice(host, SliceCategory::HostOp, "aten::relu_", t0 + 300, 50);
        const auto l2 = b.slice(host, SliceCategory::RuntimeApi, "cudaLaunchKernel", t0 + 310, 5);
        const auto k2 = b.slice(gpu, SliceCategory::Kernel, "relu_kernel", t0 + 320, relu[s]);
        b.addFlow(l2, k2);
    }
    // Backward: evaluate_function wraps ConvolutionBackward0 wraps aten::convolution_backward (External id 77).
    const model::Arg ext[] = {intArg(b, "External id", 77)};
    b.slice(host, SliceCategory::HostOp, "autograd::engine::evaluate_function: ConvolutionBackward0", 1500, 100);
    b.slice(host, SliceCategory::HostOp, "ConvolutionBackward0", 1505, 90);
    b.slice(host, SliceCategory::HostOp, "aten::convolution_backward", 1510, 80, ext);
    b.slice(gpu, SliceCategory::Kernel, "wgrad_kernel", 1600, 7, ext);
    return b.finalize();
}

/// torch_npu-like run: steps #50 and #51, each 2000 ns.
///  * conv: Python aten::conv2d → aten::convolution → Conv2D (HostOp) with an async_npu flow to the task
///    "Conv2D1" (200 ns in #50, 220 ns in #51);
///  * relu: Python aten::relu_ → Enqueue ─flow→ Dequeue@aclnnInplaceRelu on the task-queue thread (tid 2);
///    the CANN lane of tid 2 calls AscendCL@aclnnInplaceRelu at the same time, which HostToDevice-flows to
///    the task "aclnnInplaceRelu_Relu_Relu" (40 ns, #50 only);
///  * "BNTrainingUpdate" task (30 ns, #51) with no link at all: its own operator;
///  * a ProfilerStep-less DDP wrapper around the conv: not a dispatcher op, never the operator.
TracePtr npuRun()
{
    TraceBuilder b;
    b.metadata().format = "torch_npu";
    const auto python = b.hostThread("python", 100, 1);
    const auto dequeue = b.hostThread("dequeue", 100, 2);
    const auto cann = b.hostThread("cann", 200, 2);
    const auto npu = b.deviceStream(0, 2, DeviceKind::Npu);
    const TimeNs conv[] = {200, 220};
    for (int s = 0; s < 2; ++s) {
        const TimeNs t0 = s * 2000;
        b.step(python, 50 + s, t0, 2000);
        b.slice(python, SliceCategory::HostOp, "DistributedDataParallel.forward", t0 + 50, 400);
        b.slice(python, SliceCategory::HostOp, "aten::conv2d", t0 + 100, 300);
        b.slice(python, SliceCategory::HostOp, "aten::convolution", t0 + 110, 280);
        const auto op = b.slice(python, SliceCategory::HostOp, "Conv2D", t0 + 120, 260);
        const auto task = b.slice(npu, SliceCategory::Kernel, "Conv2D1", t0 + 500, conv[s]);
        b.addFlow(op, task);
    }
    b.slice(python, SliceCategory::HostOp, "aten::relu_", 460, 40);
    const auto enq = b.slice(python, SliceCategory::Other, "Enqueue", 470, 2);
    const auto deq = b.slice(dequeue, SliceCategory::Other, "Dequeue@aclnnInplaceRelu", 600, 50);
    b.addFlow(enq, deq, model::FlowKind::Other);
    const auto acl = b.slice(cann, SliceCategory::RuntimeApi, "AscendCL@aclnnInplaceRelu", 610, 30);
    const auto reluTask = b.slice(npu, SliceCategory::Kernel, "aclnnInplaceRelu_Relu_Relu", 800, 40);
    b.addFlow(acl, reluTask);
    b.slice(npu, SliceCategory::Kernel, "BNTrainingUpdate", 2900, 30);
    return b.finalize();
}

const analysis::CompareOperator* findOp(const analysis::CompareResult& r, std::string_view name)
{
    auto it = std::find_if(r.operators.begin(), r.operators.end(),
                           [&](const analysis::CompareOperator& o) { return o.name == name; });
    return it == r.operators.end() ? nullptr : &*it;
}

analysis::CompareResult compare(const model::Trace& base, const model::Trace& cand,
                                const analysis::CompareOptions& options = {},
                                std::span<const analysis::Finding> bf = {}, std::span<const analysis::Finding> cf = {})
{
    analysis::CompareResult r;
    std::string error;
    if (!analysis::compareRuns(base, bf, cand, cf, options, r, error))
        qFatal("compareRuns failed: %s", error.c_str());
    return r;
}

analysis::Finding finding(std::string kind, std::string title, TimeNs lost,
                          std::vector<std::pair<std::size_t, TimeNs>> perStep = {})
{
    analysis::Finding f;
    f.kind = std::move(kind);
    f.title = std::move(title);
    f.lostNs = lost;
    for (auto [step, ns] : perStep)
        f.perStep.push_back(analysis::StepLoss {step, 0, ns, 0});
    return f;
}

} // namespace

class TestCompare : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void dispatcherOpNames_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("dispatcher");
        QTest::newRow("aten") << "aten::conv2d" << true;
        QTest::newRow("overload") << "aten::add.Tensor" << true;
        QTest::newRow("npu") << "npu::npu_dtype_cast" << true;
        QTest::newRow("c10d") << "c10d::allreduce_" << true;
        QTest::newRow("autograd wrapper") << "autograd::engine::evaluate_function: ConvolutionBackward0" << false;
        QTest::newRow("nested namespace") << "torch::autograd::AccumulateGrad" << false;
        QTest::newRow("python path") << "torch.distributed.ddp.reducer::copy_bucket_to_grad" << false;
        QTest::newRow("module") << "DistributedDataParallel.forward" << false;
        QTest::newRow("vendor op") << "Conv2D" << false;
        QTest::newRow("empty op") << "aten::" << false;
        QTest::newRow("empty namespace") << "::conv" << false;
    }
    void dispatcherOpNames()
    {
        QFETCH(QString, name);
        QFETCH(bool, dispatcher);
        QCOMPARE(analysis::CompareAttribution::isDispatcherOpName(name.toStdString()), dispatcher);
    }

    void gpuAttributionToOutermostOperator()
    {
        const TracePtr t = gpuRun();
        const analysis::CompareAttribution a(*t);
        QVERIFY(a.deviceTimed());
        QCOMPARE(a.items().size(), std::size_t(5));
        QCOMPARE(a.attributedCount(), std::uint64_t(5));
        const auto totals = a.totals(std::vector<std::size_t> {0, 1});
        QCOMPARE(totals.size(), std::size_t(3));
        QCOMPARE(totals.at("aten::conv2d").ns, TimeNs(110));
        QCOMPARE(totals.at("aten::conv2d").calls, std::uint64_t(2));
        QCOMPARE(totals.at("aten::relu_").ns, TimeNs(22));
        // External id names the innermost op; the operator is the outermost dispatcher op around it.
        QCOMPARE(totals.at("aten::convolution_backward").ns, TimeNs(7));
        const auto step11 = a.totals(std::vector<std::size_t> {1});
        QCOMPARE(step11.at("aten::conv2d").ns, TimeNs(60));
        QCOMPARE(step11.at("aten::conv2d").slices, std::uint64_t(1));
    }

    void npuAttributionThroughQueueAndCann()
    {
        const TracePtr t = npuRun();
        const analysis::CompareAttribution a(*t);
        QVERIFY(a.deviceTimed());
        QCOMPARE(a.items().size(), std::size_t(4));
        QCOMPARE(a.attributedCount(), std::uint64_t(3));
        const auto totals = a.totals(std::vector<std::size_t> {0, 1});
        QCOMPARE(totals.at("aten::conv2d").ns, TimeNs(420));
        QCOMPARE(totals.at("aten::relu_").ns, TimeNs(40));
        QCOMPARE(totals.at("BNTrainingUpdate").ns, TimeNs(30));
        QCOMPARE(totals.count("DistributedDataParallel.forward"), std::size_t(0));
        // The relu task runs after the step's host work but was launched in step #50.
        QCOMPARE(a.totals(std::vector<std::size_t> {0}).at("aten::relu_").ns, TimeNs(40));
        // The unlinked task counts in the step its own start falls in.
        QCOMPARE(a.totals(std::vector<std::size_t> {0}).count("BNTrainingUpdate"), std::size_t(0));
    }

    void gpuVersusNpuKnownDeltas()
    {
        const TracePtr gpu = gpuRun();
        const TracePtr npu = npuRun();
        const analysis::CompareResult r = compare(*gpu, *npu);
        QCOMPARE(r.steps.size(), std::size_t(2));
        QCOMPARE(r.steps[0].baselineNumber, std::int64_t(10));
        QCOMPARE(r.steps[0].candidateNumber, std::int64_t(50));
        QCOMPARE(r.steps[1].baselineNumber, std::int64_t(11));
        QCOMPARE(r.steps[1].candidateNumber, std::int64_t(51));
        QCOMPARE(r.steps[0].deltaNs(), TimeNs(1000));
        QVERIFY(r.notes.empty());

        QCOMPARE(r.operators.size(), std::size_t(4));
        // Sorted by |delta|: conv +310, batch_norm +30 (Ascend name mapped), relu +18, conv backward -7.
        QCOMPARE(r.operators[0].name, std::string("aten::conv2d"));
        QCOMPARE(r.operators[0].baselineNs, TimeNs(110));
        QCOMPARE(r.operators[0].candidateNs, TimeNs(420));
        QCOMPARE(r.operators[0].deltaNs(), TimeNs(310));
        QCOMPARE(*r.operators[0].ratio(), 420.0 / 110.0);
        QCOMPARE(r.operators[1].name, std::string("aten::batch_norm"));
        QCOMPARE(r.operators[1].baselineNs, TimeNs(0));
        QCOMPARE(r.operators[1].candidateNs, TimeNs(30));
        QVERIFY(!r.operators[1].ratio());
        QCOMPARE(r.operators[1].candidateNames, std::vector<std::string> {"BNTrainingUpdate"});
        QCOMPARE(r.operators[2].name, std::string("aten::relu"));
        QCOMPARE(r.operators[2].deltaNs(), TimeNs(18));
        QCOMPARE(r.operators[2].baselineNames, std::vector<std::string> {"aten::relu_"});
        QCOMPARE(r.operators[2].baselineCalls, std::uint64_t(2));
        QCOMPARE(r.operators[2].candidateCalls, std::uint64_t(1));
        QCOMPARE(r.operators[3].name, std::string("aten::convolution_backward"));
        QCOMPARE(r.operators[3].deltaNs(), TimeNs(-7));
        QCOMPARE(r.baseline.operatorNs, TimeNs(139));
        QCOMPARE(r.candidate.operatorNs, TimeNs(490));
        QCOMPARE(r.candidate.workSlices, std::uint64_t(4));
        QCOMPARE(r.candidate.attributedSlices, std::uint64_t(3));
    }

    void stepSelectionPairsChosenSteps()
    {
        const TracePtr gpu = gpuRun();
        const TracePtr npu = npuRun();
        analysis::CompareOptions options;
        std::string error;
        QVERIFY(
            analysis::CompareStepSelection::parsePair("#11:0", options.baselineSteps, options.candidateSteps, error));
        const analysis::CompareResult r = compare(*gpu, *npu, options);
        QCOMPARE(r.steps.size(), std::size_t(1));
        QCOMPARE(r.steps[0].baselineIndex, std::size_t(1));
        QCOMPARE(r.steps[0].candidateIndex, std::size_t(0));
        const auto* conv = findOp(r, "aten::conv2d");
        QVERIFY(conv);
        QCOMPARE(conv->baselineNs, TimeNs(60));   // step #11 only
        QCOMPARE(conv->candidateNs, TimeNs(200)); // step #50 only
        QCOMPARE(findOp(r, "aten::convolution_backward")->baselineNs, TimeNs(7));
        QVERIFY(!findOp(r, "aten::batch_norm")); // in #51, not compared
    }

    void unequalStepCountsPairFromTheStart()
    {
        TraceBuilder b;
        const auto host = b.hostThread();
        for (int i = 0; i < 3; ++i)
            b.step(host, 7 + i, i * 100, 100 + i);
        const TracePtr three = b.finalize();
        const TracePtr gpu = gpuRun();
        const analysis::CompareResult r = compare(*three, *gpu);
        QCOMPARE(r.steps.size(), std::size_t(2));
        QCOMPARE(r.steps[1].baselineNumber, std::int64_t(8));
        QCOMPARE(r.steps[1].baselineNs, TimeNs(100)); // [100, 201) cut where #9 starts, as analyze counts it
        QCOMPARE(r.steps[1].candidateNumber, std::int64_t(11));
        QCOMPARE(r.notes.size(), std::size_t(2));
        QCOMPARE(r.notes[0],
                 std::string("the baseline selects 3 steps and the candidate 2; only the first 2 of each "
                             "are compared (choose with --steps)"));
        QCOMPARE(r.notes[1], std::string("the baseline has no device work: its operator times are host time"));

        analysis::CompareOptions bad;
        std::string error;
        QVERIFY(analysis::CompareStepSelection::parse("#99", bad.candidateSteps, error));
        analysis::CompareResult ignored;
        QVERIFY(!analysis::compareRuns(*three, {}, *gpu, {}, bad, ignored, error));
        QCOMPARE(error,
                 std::string("candidate: no step numbered #99: the trace has 2 steps: indices 0-1, numbers "
                             "#10-#11"));
    }

    void hostOnlyRunsUseHostTime()
    {
        // CPU-only: aten::linear (100) contains aten::addmm; a dataloader region and a module wrapper are not
        // operators; aten::add (30) sits at top level.
        auto build = [](TimeNs linear, TimeNs add) {
            TraceBuilder b;
            const auto host = b.hostThread();
            b.step(host, 1, 0, 1000);
            b.slice(host, SliceCategory::HostOp, "nn.Module: Net", 10, 500);
            b.slice(host, SliceCategory::HostOp, "aten::linear", 20, linear);
            b.slice(host, SliceCategory::HostOp, "aten::addmm", 25, linear - 10);
            b.slice(host, SliceCategory::HostOp, "aten::add", 600, add);
            return b.finalize();
        };
        const TracePtr base = build(100, 30);
        const TracePtr cand = build(150, 20);
        const analysis::CompareResult r = compare(*base, *cand);
        QVERIFY(!r.baseline.deviceTimed);
        QCOMPARE(r.operators.size(), std::size_t(2));
        QCOMPARE(r.operators[0].name, std::string("aten::linear"));
        QCOMPARE(r.operators[0].deltaNs(), TimeNs(50));
        QCOMPARE(r.operators[1].name, std::string("aten::add"));
        QCOMPARE(r.operators[1].deltaNs(), TimeNs(-10));
    }

    void edgeNpuLayersAreTheirOwnOperators()
    {
        // RKNN-like: one inference, layers laid out on the edge NPU track, the type in an OpType arg; a CPU
        // fallback layer on a CPU track.
        auto build = [](TimeNs conv, TimeNs transpose, std::string_view convType) {
            TraceBuilder b;
            const auto npu = b.deviceStream(0, 0, DeviceKind::EdgeNpu);
            const auto cpu = b.hostThread("cpu", 1, 1);
            const model::Arg a1[] = {stringArg(b, "OpType", convType)};
            b.slice(npu, SliceCategory::Kernel, "Conv:/model.0/conv/Conv", 0, conv, a1);
            const model::Arg a2[] = {stringArg(b, "OpType", convType)};
            b.slice(npu, SliceCategory::Kernel, "Conv:/model.1/conv/Conv", conv, conv, a2);
            const model::Arg a3[] = {stringArg(b, "OpType", "Transpose")};
            b.slice(cpu, SliceCategory::FallbackOp, "Transpose:/model.22/Reshape", 2 * conv, transpose, a3);
            return b.finalize();
        };
        const TracePtr v15 = build(100, 590, "ConvRelu");
        const TracePtr v23 = build(80, 600, "ConvExSwish");
        const analysis::CompareResult r = compare(*v15, *v23);
        QCOMPARE(r.steps.size(), std::size_t(1));
        QCOMPARE(r.operators.size(), std::size_t(2));
        QCOMPARE(r.operators[0].name, std::string("aten::conv2d"));
        QCOMPARE(r.operators[0].baselineNs, TimeNs(200));
        QCOMPARE(r.operators[0].candidateNs, TimeNs(160));
        QCOMPARE(r.operators[0].baselineCalls, std::uint64_t(2));
        QCOMPARE(r.operators[0].baselineNames, std::vector<std::string> {"ConvRelu"});
        QCOMPARE(r.operators[0].candidateNames, std::vector<std::string> {"ConvExSwish"});
        QCOMPARE(r.operators[1].name, std::string("aten::permute"));
        QCOMPARE(r.operators[1].deltaNs(), TimeNs(10));
    }

    void userOpMapMatchesVendorNames()
    {
        const TracePtr gpu = gpuRun();
        const TracePtr npu = npuRun();
        analysis::CompareOpMap map; // empty: no built-in names
        std::string error;
        QVERIFY(map.addTsv("batchnorm\tBNTrainingUpdate\n", "user.tsv", error));
        analysis::CompareOptions options;
        options.opMap = &map;
        const analysis::CompareResult r = compare(*gpu, *npu, options);
        QVERIFY(findOp(r, "batchnorm"));
        QVERIFY(!findOp(r, "aten::batch_norm"));
        QVERIFY(!findOp(r, "aten::relu")); // without the map, relu_ is compared under its own name
        QCOMPARE(findOp(r, "aten::relu_")->deltaNs(), TimeNs(18));
    }

    void findingsExplainTheDelta()
    {
        const TracePtr gpu = gpuRun();
        const TracePtr npu = npuRun();
        // Step delta: (2000 + 2000) - (1000 + 1000) = 2000 ns.
        const std::vector<analysis::Finding> base = {
            finding("pipeline_bubble", "Device idle 1.5 ms in 2 steps", 300, {{0, 100}, {1, 200}}),
            finding("copy_hotspot", "HtoD pageable copies: 12 ms", 50),
            finding("dataloader_starvation", "Dataloader starves the device 10% of each step", 400),
        };
        const std::vector<analysis::Finding> cand = {
            finding("cpu_fallback", "AI_CPU fallback of Cast: 412 ms lost over 5 steps", 900, {{0, 500}, {1, 400}}),
            finding("pipeline_bubble", "Device idle 3.25 ms in 2 steps", 700, {{0, 300}, {1, 400}}),
            finding("dataloader_starvation", "Input pipeline stalls the NPU", 400),
        };
        analysis::CompareOptions options;
        std::string error;
        QVERIFY(analysis::CompareStepSelection::parsePair("1:1", options.baselineSteps, options.candidateSteps, error));
        const analysis::CompareResult r = compare(*gpu, *npu, options, base, cand);
        // Over the paired steps (#11 vs #51): cpu_fallback 400 only on the candidate; bubble 200 → 400; copies
        // (no per-step split) 50 only on the baseline; dataloader matched by kind, equal → not listed.
        QCOMPARE(r.baseline.findingLostNs, (std::vector<TimeNs> {200, 50, 400}));
        QCOMPARE(r.candidate.findingLostNs, (std::vector<TimeNs> {400, 400, 400}));
        QCOMPARE(r.explanations.size(), std::size_t(3));
        QCOMPARE(r.explanations[0].status, analysis::CompareExplanation::Status::CandidateOnly);
        QCOMPARE(r.explanations[0].kind, std::string("cpu_fallback"));
        QCOMPARE(r.explanations[0].deltaNs(), TimeNs(400));
        QCOMPARE(r.explanations[0].shareOfStepDelta, 0.4); // step delta over the pair: 2000 - 1000
        QCOMPARE(r.explanations[1].status, analysis::CompareExplanation::Status::Grew);
        QCOMPARE(r.explanations[1].kind, std::string("pipeline_bubble"));
        QCOMPARE(r.explanations[1].counterpartTitle, std::string("Device idle 1.5 ms in 2 steps"));
        QCOMPARE(r.explanations[1].deltaNs(), TimeNs(200));
        QCOMPARE(*r.explanations[1].baselineFinding, std::size_t(0));
        QCOMPARE(*r.explanations[1].candidateFinding, std::size_t(1));
        QCOMPARE(r.explanations[2].status, analysis::CompareExplanation::Status::BaselineOnly);
        QCOMPARE(r.explanations[2].deltaNs(), TimeNs(-50));
        QCOMPARE(r.explanations[2].shareOfStepDelta, 0.0);
    }

    void findingTitlesMatchWithNumbersBlanked()
    {
        const TracePtr t = gpuRun();
        const std::vector<analysis::Finding> base = {
            finding("copy_hotspot", "Conv2D: 12 pageable HtoD copies, 3.5 ms", 10),
            finding("copy_hotspot", "Conv3D: 4 pageable HtoD copies, 1 ms", 20),
        };
        const std::vector<analysis::Finding> cand = {
            finding("copy_hotspot", "Conv3D: 40 pageable HtoD copies, 2.25 s", 30),
            finding("copy_hotspot", "Conv2D: 1 pageable HtoD copies, 800 µs", 5),
        };
        const analysis::CompareResult r = compare(*t, *t, {}, base, cand);
        QCOMPARE(r.explanations.size(), std::size_t(2));
        QCOMPARE(r.explanations[0].status, analysis::CompareExplanation::Status::Grew);
        QCOMPARE(r.explanations[0].counterpartTitle, std::string("Conv3D: 4 pageable HtoD copies, 1 ms"));
        QCOMPARE(r.explanations[1].status, analysis::CompareExplanation::Status::Shrank);
        QCOMPARE(r.explanations[1].counterpartTitle, std::string("Conv2D: 12 pageable HtoD copies, 3.5 ms"));
    }

    void sameTraceHasNoDelta()
    {
        const TracePtr t = npuRun();
        const analysis::CompareResult r = compare(*t, *t);
        QVERIFY(!r.operators.empty());
        for (const auto& op : r.operators) {
            QCOMPARE(op.deltaNs(), TimeNs(0));
            QCOMPARE(*op.ratio(), 1.0);
        }
        QVERIFY(r.explanations.empty());
    }
};

QTEST_APPLESS_MAIN(TestCompare)
#include "tst_compare.moc"
