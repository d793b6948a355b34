// SPDX-License-Identifier: MIT
#include "analysis/passes/lowefficiencypass.h"

#include "analysis/core/context.h"
#include "analysis/core/findingaccumulator.h"
#include "analysis/core/textformat.h"
#include "analysis/efficiency/efficiency.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <unordered_set>

namespace timesink::analysis {

namespace {

using efficiency::DataType;
using efficiency::Dims;
using efficiency::OperatorEfficiency;
using efficiency::WorkClass;
using model::SliceRef;
using model::TimeNs;

enum class Cause : std::uint8_t { TinyGemm, Fp32, Misaligned, ElementwiseChain };
constexpr std::size_t kCauseCount = 4;

std::string_view causeKey(Cause c)
{
    switch (c) {
    case Cause::TinyGemm:
        return "tiny_gemm";
    case Cause::Fp32:
        return "fp32_matmul";
    case Cause::Misaligned:
        return "misaligned_dims";
    case Cause::ElementwiseChain:
        return "elementwise_chain";
    }
    return "";
}

/// One flagged operator: why, at what fraction of the roofline it is judged, and what its kernels keep.
struct Flagged
{
    const OperatorEfficiency* op = nullptr;
    Cause cause = Cause::TinyGemm;
    double fraction = 0.0;             // of the roofline the finding judges it against
    std::vector<std::int64_t> offDims; // misaligned: the dimensions that are not multiples of `alignment`
    int alignment = 0;
    std::vector<SliceRef> kernels; // the kernels re-timed (chains: those next to another elementwise kernel)
    TimeNs lostNs = 0;
    TimeNs kernelNs = 0;
};

std::uint64_t keyOf(SliceRef r)
{
    return (std::uint64_t {r.track.value} << 32) | r.index.value;
}

/// "[8944,1024]x[1024,2816]" (describeShapes) → its tensors.
std::vector<Dims> dimsOf(const std::string& shapes)
{
    std::string json = "[";
    for (const char c : shapes)
        json += c == 'x' ? ',' : c;
    json += ']';
    return efficiency::parseKinetoDims(json).value_or(std::vector<Dims> {});
}

/// The tile a matrix unit computes in: 16 on the Ascend Cube (16×16×16 fractals) and for INT8/FP8, 8 for FP16/BF16
/// on GPU tensor cores and RKNN FP16, 4 for TF32 on GPUs.
int alignmentFor(Platform p, DataType t)
{
    if (p == Platform::TorchNpuCann)
        return 16;
    if (t == DataType::Int8 || t == DataType::Fp8)
        return 16;
    if (t == DataType::Fp32 && p != Platform::Rknn)
        return 4;
    return 8;
}

/// The GEMM's M, N and K or the convolution's channel counts, where the shapes tell them.
std::vector<std::int64_t> matrixDims(const OperatorEfficiency& o)
{
    std::vector<Dims> t = dimsOf(o.shapes);
    std::vector<std::int64_t> out;
    if (o.workClass == WorkClass::Conv) {
        // NCHW activations and an [O, C/g, kh, kw] weight; NC1HWC0 (5-D, C0 = 16) is already padded to the Cube.
        if (t.size() < 2 || t[0].size() < 3 || t[1].size() < 3 || t[0].size() == 5)
            return out;
        const bool backward = o.name.find("backward") != std::string::npos;
        out.push_back(t[0][1]);
        out.push_back(backward && t.size() > 2 ? t[1][1] : t[1][0]);
        return out;
    }
    std::erase_if(t, [](const Dims& d) { return d.size() < 2; });
    if (t.size() < 2)
        return out;
    if (o.name.find("linear") != std::string::npos) { // input [..., K], weight [N, K]
        out = {t[0].back(), t[1][0]};
        return out;
    }
    // The last two matrices (addmm's first may be a 2-D bias): their trailing dims are M, K and K, N.
    for (std::size_t i = t.size() - 2; i < t.size(); ++i) {
        out.push_back(t[i][t[i].size() - 2]);
        out.push_back(t[i].back());
    }
    return out;
}

/// The fraction of the roofline an FP32 matrix operator would reach had it run in the chip's best half-precision
/// type (FLOPs at that peak, half the bytes), and that peak's name; nothing when the chip's half-precision peak is
/// not at least twice the one it ran at.
std::optional<std::pair<double, DataType>> halfPrecisionFraction(const OperatorEfficiency& o,
                                                                 const efficiency::DevicePeaks& d)
{
    if (o.dtype != DataType::Fp32 || !efficiency::isMatrixClass(o.workClass) || o.deviceNs <= 0)
        return std::nullopt;
    std::optional<double> ran = o.peakType == DataType::Tf32 ? d.peakFlops(DataType::Tf32) : std::nullopt;
    if (!ran)
        ran = d.peakFlops(DataType::Fp32);
    DataType half = DataType::Bf16;
    std::optional<double> peak = d.peakFlops(DataType::Bf16);
    if (const auto fp16 = d.peakFlops(DataType::Fp16); fp16 && (!peak || *fp16 > *peak)) {
        peak = fp16;
        half = DataType::Fp16;
    }
    if (!peak || (ran && *peak < 2.0 * *ran))
        return std::nullopt;
    const std::optional<double> bw = d.bandwidth();
    const double c = o.flops / *peak;
    const double m = bw ? o.bytes / 2.0 / *bw : 0.0;
    const double seconds = static_cast<double>(o.deviceNs) / 1e9;
    return std::make_pair(std::min(1.0, std::max(c, m) / seconds), half);
}

/// Memory-bound arithmetic off the matrix units: elementwise, normalisation, reductions. An operator without FLOPs
/// (an RKNN Concat or Reshape layer, whose bytes alone are measured) moves data and is data_movement's business.
bool isVectorWork(const OperatorEfficiency& o)
{
    return !efficiency::isMatrixClass(o.workClass) && o.bound == "memory" && o.flops > 0;
}

/// The first cause that applies to an operator under the flag, or nothing.
std::optional<Flagged> judge(const OperatorEfficiency& o, const efficiency::DevicePeaks& d, Platform p,
                             TimeNs tinyKernelNs)
{
    const bool gemmOrConv = o.workClass == WorkClass::Gemm || o.workClass == WorkClass::Conv;
    const double fraction = o.rooflineFraction && !o.rooflineFraction->clamped ? o.rooflineFraction->value : 1.0;
    Flagged f;
    f.op = &o;
    f.fraction = fraction;
    if (gemmOrConv && fraction < kLowEfficiencyFlag && o.calls >= kTinyGemmMinCalls
        && o.deviceNs < tinyKernelNs * static_cast<TimeNs>(o.calls)) {
        f.cause = Cause::TinyGemm;
        return f;
    }
    if (gemmOrConv) {
        if (const auto half = halfPrecisionFraction(o, d); half && half->first < kLowEfficiencyFlag) {
            f.cause = Cause::Fp32;
            f.fraction = half->first;
            return f;
        }
    }
    if (gemmOrConv && fraction < kLowEfficiencyFlag) {
        f.alignment = alignmentFor(p, o.dtype);
        for (std::int64_t v : matrixDims(o)) {
            if (v > 0 && v % f.alignment != 0 && std::find(f.offDims.begin(), f.offDims.end(), v) == f.offDims.end())
                f.offDims.push_back(v);
        }
        if (!f.offDims.empty()) {
            f.cause = Cause::Misaligned;
            return f;
        }
    }
    if (isVectorWork(o) && fraction < kLowEfficiencyFlag) {
        f.cause = Cause::ElementwiseChain;
        return f;
    }
    return std::nullopt;
}

/// The nearest kernel before (dir −1) or after (+1) slice i on its track, within a few slices.
std::optional<std::uint32_t> neighbourKernel(const model::Track& t, std::uint32_t i, int dir)
{
    for (int step = 1; step <= 4; ++step) {
        const std::int64_t j = static_cast<std::int64_t>(i) + static_cast<std::int64_t>(dir) * step;
        if (j < 0 || j >= static_cast<std::int64_t>(t.size()))
            return std::nullopt;
        if (t.category(static_cast<std::uint32_t>(j)) == model::SliceCategory::Kernel)
            return static_cast<std::uint32_t>(j);
    }
    return std::nullopt;
}

/// A chain candidate keeps the kernels that run next to another memory-bound (non-matrix) kernel in their stream.
void keepChainKernels(const model::Trace& trace, const std::unordered_set<std::uint64_t>& vectorWork, Flagged& f)
{
    for (const SliceRef& k : f.op->deviceWork) {
        const model::Track& t = trace.track(k.track);
        bool chained = false;
        for (int dir : {-1, 1}) {
            const auto j = neighbourKernel(t, k.index.value, dir);
            chained = chained || (j && vectorWork.contains(keyOf(SliceRef {k.track, model::SliceIndex(*j)})));
        }
        if (chained)
            f.kernels.push_back(k);
    }
}

std::string recommendationFor(Cause c, Platform p, int alignment)
{
    const bool npu = p == Platform::TorchNpuCann;
    const bool rknn = p == Platform::Rknn;
    const std::string a = std::to_string(alignment);
    switch (c) {
    case Cause::Misaligned:
        if (npu)
            return "Pad these dimensions to multiples of 16: the Cube unit computes 16×16×16 fractals and rounds every "
                   "dimension up, so the padding is computed for nothing. Choose hidden, vocabulary, head and channel "
                   "sizes in multiples of 16 (pad the vocabulary, the batch × sequence with padding tokens).";
        if (rknn)
            return "Use channel counts in multiples of " + a
                + " (16 for INT8, 8 for FP16): the NPU's MAC array pads the rest and computes it for nothing; for the "
                  "input layer let the NPU's pre-processing (mean_values/std_values in rknn.config) take a 3-channel "
                  "image.";
        return "Pad these dimensions to multiples of " + a
            + ": cuBLAS/hipBLASLt and cuDNN/MIOpen pick tensor-core (matrix-core) tiles only for aligned sizes. Pad "
              "the "
              "vocabulary and hidden sizes, the batch × sequence, and the channels of convolutions (3 → 4 or 8 for the "
              "input layer, with channels_last memory format).";
    case Cause::Fp32:
        if (npu)
            return "Run these matmuls/convolutions in BF16/FP16 under torch.autocast(device_type='npu', "
                   "dtype=torch.bfloat16); the Cube unit has no full-rate FP32. What must stay FP32 can use HF32: "
                   "torch.npu.matmul.allow_hf32 = True and torch.npu.conv.allow_hf32 = True.";
        if (rknn)
            return "Quantise the model to INT8 (rknn.build(do_quantization=True, dataset=...)) or at least build it "
                   "in FP16: the NPU's MAC array is INT8/FP16.";
        return "Run these matmuls/convolutions in BF16/FP16 under torch.autocast(device_type='cuda', "
               "dtype=torch.bfloat16) (ROCm uses the same API); what must stay FP32 can use TF32: "
               "torch.set_float32_matmul_precision('high') and torch.backends.cudnn.allow_tf32 = True.";
    case Cause::TinyGemm:
        if (npu)
            return "These GEMMs are too small to fill the Cube units, and launching them costs as much as running "
                   "them: batch them "
                   "(one BatchMatMul instead of many MatMuls, a larger batch), or capture the step in graph mode "
                   "(torch.compile(model, backend=torchair.get_npu_backend()), aclgraph) to remove the launch cost.";
        if (rknn)
            return "These layers are too small to fill the NPU: merge them (optimization_level=3, a larger input "
                   "batch), or move the tiny matmuls to post-processing on the CPU.";
        return "These GEMMs are too small to fill the GPU and are bound by launching them: batch them (torch.bmm or a "
               "grouped GEMM instead of many mm calls, a larger batch), or capture them in a CUDA/HIP graph "
               "(torch.compile(model, mode='reduce-overhead')).";
    case Cause::ElementwiseChain:
        if (npu)
            return "Fuse these memory-bound elementwise/normalisation kernels: torch.compile with the torchair backend "
                   "(graph mode fuses them), or the fused torch_npu operators (torch_npu.npu_rms_norm, npu_swiglu, "
                   "npu_rotary_mul, npu_fast_gelu) instead of chains of small ones.";
        if (rknn)
            return "Keep rknn.config(optimization_level=3) so the toolkit fuses elementwise layers into their "
                   "neighbours, and fold constant scales into the preceding convolution before export.";
        return "Fuse these memory-bound elementwise/normalisation kernels so the intermediate tensors do not go "
               "through device memory: torch.compile(model) (Inductor emits one kernel per chain), or fused kernels "
               "(fused LayerNorm/RMSNorm, fused optimizers with foreach=True/fused=True).";
    }
    return {};
}

std::string titleFor(Cause c, std::size_t ops, double fraction, int alignment, TimeNs kernelNs)
{
    const std::string many = std::to_string(ops) + (ops == 1 ? " operator" : " operators");
    const std::string at
        = " at " + formatPercent(fraction) + " of roofline, " + formatDuration(kernelNs) + " of kernels";
    switch (c) {
    case Cause::Misaligned:
        return "GEMM/conv dimensions not multiples of " + std::to_string(alignment) + ": " + many + at;
    case Cause::Fp32:
        return "FP32 GEMM/conv on a chip with a faster half-precision peak: " + many + at + " (BF16/FP16 roofline)";
    case Cause::TinyGemm:
        return "Small GEMMs (too small to fill the chip, launch-bound): " + many + at;
    case Cause::ElementwiseChain:
        return "Memory-bound elementwise chains (fusion candidates): " + many + at;
    }
    return {};
}

std::string describeOperator(const Flagged& f)
{
    const OperatorEfficiency& o = *f.op;
    std::string s = o.name + " " + o.shapes + " " + std::string(efficiency::dataTypeKey(o.dtype)) + ": "
        + std::to_string(o.calls) + (o.calls == 1 ? " call, " : " calls, ") + formatDuration(o.deviceNs) + ", "
        + formatPercent(f.fraction) + " of roofline";
    if (!o.bound.empty())
        s += " (" + o.bound + "-bound)";
    if (!f.offDims.empty()) {
        s += ", dims";
        for (std::int64_t v : f.offDims)
            s += " " + std::to_string(v);
    }
    return s;
}

/// Where a finding's kernels go: its accumulator and the what-if's scaled kernels with their scales.
struct Retimed
{
    FindingAccumulator& acc;
    std::vector<SliceRef> scaled;
    std::vector<double> scales;
};

/// Re-times an operator's kernels at the target: each keeps fraction / target of its time, never less than the
/// shortest a kernel runs (nor more than all of it), so its loss is at most its own time. Fills the operator's lost
/// and kernel time inside the steps, and, given `into`, the finding's loss, evidence and what-if.
void retime(const model::Trace& trace, const StepClock& clock, Flagged& f, Retimed* into)
{
    f.lostNs = 0;
    f.kernelNs = 0;
    const double keep = std::clamp(f.fraction / kLowEfficiencyTarget, 0.0, 1.0);
    for (const SliceRef& k : f.kernels) {
        const model::Track& t = trace.track(k.track);
        const TimeNs dur = t.dur(k.index.value);
        if (dur <= 0)
            continue;
        const double s
            = std::clamp(std::max(keep, static_cast<double>(kShortestKernelNs) / static_cast<double>(dur)), 0.0, 1.0);
        TimeNs inSteps = 0;
        clock.forEachOverlap(t.ts(k.index.value), t.end(k.index.value), [&](std::size_t step, TimeNs a, TimeNs b) {
            const auto lost = static_cast<TimeNs>(static_cast<double>(b - a) * (1.0 - s));
            if (into)
                into->acc.addLossInStep(step, lost);
            f.lostNs += lost;
            inSteps += b - a;
        });
        if (inSteps <= 0)
            continue;
        f.kernelNs += inSteps;
        if (!into)
            continue;
        into->acc.countOccurrence();
        into->acc.addEvidence(t.id, t.ts(k.index.value), t.end(k.index.value));
        into->acc.addEvent(k);
        into->scaled.push_back(k);
        into->scales.push_back(s);
    }
}

/// One finding for the operators of one cause (at least one kernel inside a step).
Finding finish(Cause cause, std::vector<Flagged>& ops, const AnalysisContext& context, FindingAccumulator& acc,
               const std::vector<SliceRef>& scaled, const std::vector<double>& scales)
{
    std::sort(ops.begin(), ops.end(), [](const Flagged& a, const Flagged& b) {
        return a.lostNs != b.lostNs ? a.lostNs > b.lostNs : a.op->name < b.op->name;
    });
    TimeNs kernelNs = 0;
    double rooflineNs = 0.0;
    int alignment = 0;
    std::string worst;
    for (std::size_t k = 0; k < ops.size(); ++k) {
        kernelNs += ops[k].kernelNs;
        rooflineNs += ops[k].fraction * static_cast<double>(ops[k].kernelNs);
        alignment = std::max(alignment, ops[k].alignment);
        if (k < 5)
            worst += (k == 0 ? "" : "; ") + describeOperator(ops[k]);
    }
    const double fraction = kernelNs > 0 ? rooflineNs / static_cast<double>(kernelNs) : 0.0;
    Finding f = acc.finish("low_efficiency");
    f.platform = context.trace().metadata().platform;
    f.whatIf.scaledDevice = scaled;
    f.whatIf.scales = scales;
    f.savingRule = "The operators' kernels take the time they would at " + formatPercent(kLowEfficiencyTarget)
        + " of their roofline (never under " + formatDuration(kShortestKernelNs) + " a kernel).";
    f.title = titleFor(cause, ops.size(), fraction, alignment, kernelNs);
    f.details.push_back({"cause", std::string(causeKey(cause))});
    f.details.push_back({"target_fraction", kLowEfficiencyTarget});
    f.details.push_back({"roofline_fraction", fraction});
    f.details.push_back({"operators", static_cast<std::int64_t>(ops.size())});
    f.details.push_back({"kernels", static_cast<std::int64_t>(scaled.size())});
    f.details.push_back({"kernel_ns", kernelNs});
    if (alignment > 0)
        f.details.push_back({"alignment", static_cast<std::int64_t>(alignment)});
    f.details.push_back({"worst_operators", worst});
    f.explanation = "These operators reach " + formatPercent(fraction)
        + " of what the chip allows for their FLOPs and bytes (the roofline: max(FLOPs / peak, bytes / bandwidth)). "
          "The lost time re-times their kernels at "
        + formatPercent(kLowEfficiencyTarget) + " of the roofline, a target a fix can reach.";
    f.recommendation = recommendationFor(cause, f.platform, alignment);
    return f;
}

} // namespace

std::shared_ptr<const efficiency::EfficiencyReport> makeEfficiencyReport(const model::Trace& trace,
                                                                         const CancelToken* cancel)
{
    return std::make_shared<const efficiency::EfficiencyReport>(
        efficiency::computeEfficiency(trace, efficiency::builtinPeakTable(), cancel, true));
}

PassOutput LowEfficiencyPass::run(const AnalysisContext& context) const
{
    const model::Trace& trace = context.trace();
    // The report is made whatever this pass concludes: analyze() hands it to the reports and the views.
    const auto report = makeEfficiencyReport(trace, &context.cancel());
    if (context.cancel().cancelled())
        return {};
    const auto notAssessed = [&](std::string why) {
        PassOutput out = PassOutput::notAssessed(std::move(why));
        out.efficiency = report;
        return out;
    };
    if (std::string why = context.noDeviceWorkReason("there is no device efficiency"); !why.empty())
        return notAssessed(std::move(why));
    // An RKNN table measures each layer's MAC usage itself: low_mac_usage reports the under-used convolutions and
    // data_movement the layers that compute nothing; a roofline estimate of the same layers would count them twice.
    if (trace.metadata().platform == Platform::Rknn)
        return notAssessed("RKNN layers carry their measured MAC usage: low_mac_usage and data_movement "
                           "report the layers that fall short, the Roofline view shows each against the chip");
    const efficiency::EfficiencyReport& r = *report;
    if (!r.device)
        return notAssessed("no peaks for the device (" + r.deviceNotResolved + ")");
    if (!r.notAssessed.empty())
        return notAssessed("no operator's work is known: " + r.notAssessed);
    const Platform platform = trace.metadata().platform;
    std::array<std::vector<Flagged>, kCauseCount> byCause;
    std::unordered_set<std::uint64_t> vectorWork; // kernels of memory-bound non-matrix operators
    for (const OperatorEfficiency& o : r.operators) {
        if (isVectorWork(o)) {
            for (const SliceRef& k : o.deviceWork)
                vectorWork.insert(keyOf(k));
        }
    }
    for (const OperatorEfficiency& o : r.operators) {
        std::optional<Flagged> f = judge(o, *r.device, platform, context.options().tinyKernelNs);
        if (!f)
            continue;
        if (f->cause == Cause::ElementwiseChain)
            keepChainKernels(trace, vectorWork, *f);
        else
            f->kernels = o.deviceWork;
        byCause[static_cast<std::size_t>(f->cause)].push_back(std::move(*f));
    }
    PassOutput out;
    out.efficiency = report;
    const StepClock& clock = context.clock();
    for (std::size_t c = 0; c < kCauseCount; ++c) {
        if (context.cancel().cancelled())
            return {};
        // First what each operator loses; then only those that lose something make the finding.
        std::vector<Flagged> kept;
        for (Flagged& f : byCause[c]) {
            retime(trace, clock, f, nullptr);
            if (f.lostNs > 0)
                kept.push_back(std::move(f));
        }
        if (kept.empty())
            continue;
        FindingAccumulator acc(clock);
        Retimed retimed {acc, {}, {}};
        for (Flagged& f : kept)
            retime(trace, clock, f, &retimed);
        if (acc.lostNs() > 0)
            out.findings.push_back(finish(static_cast<Cause>(c), kept, context, acc, retimed.scaled, retimed.scales));
    }
    return out;
}

} // namespace timesink::analysis
