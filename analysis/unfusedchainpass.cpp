// SPDX-License-Identifier: MIT
#include "analysis/unfusedchainpass.h"

#include "analysis/deviceactivity.h"
#include "analysis/findingaccumulator.h"
#include "analysis/opclassifier.h"
#include "analysis/platform.h"
#include "analysis/textformat.h"

#include <algorithm>
#include <array>
#include <memory>
#include <set>

namespace timesink::analysis {

namespace {

using model::SliceCategory;

enum Pattern : std::size_t { kConvBnAct, kConvBn, kConvAct, kMatMulAddAct, kPatternCount };

constexpr std::array<std::string_view, kPatternCount> kPatternKeys = {"conv_bn_act", "conv_bn", "conv_act",
                                                                      "matmul_add_act"};
constexpr std::array<std::string_view, kPatternCount> kPatternLabels = {
    "Conv → BatchNorm → activation", "Conv → BatchNorm", "Conv → activation", "MatMul → Add → activation"};

struct Element
{
    ChainRole role = ChainRole::None;
    model::SliceRef ref;
    bool inPlace = false; // ATen in-place op (name ends in '_'), e.g. aten::add_
};

constexpr std::size_t kNoSkip = static_cast<std::size_t>(-1);

struct Chain
{
    Pattern pattern = kConvBnAct;
    std::size_t first = 0;   // index of the head (Conv / MatMul) in the sequence
    std::size_t removed = 0; // first removable element
    std::size_t end = 0;     // one past the last element
    std::size_t skip = kNoSkip; // a BatchNorm counter update inside the chain: neither fused nor removed
};

// Greedy, left to right, longest pattern first; elements of one chain never start another.
std::vector<Chain> findChains(const std::vector<Element>& seq)
{
    std::vector<Chain> out;
    std::size_t i = 0;
    while (i < seq.size()) {
        if (seq[i].role == ChainRole::Conv) {
            std::size_t j = i + 1;
            std::size_t skip = kNoSkip;
            // In training mode BatchNorm first bumps num_batches_tracked with an in-place add
            // (aten::add_) between the conv and aten::batch_norm; it belongs to the BatchNorm.
            if (j + 1 < seq.size() && seq[j].role == ChainRole::Add && seq[j].inPlace
                && seq[j + 1].role == ChainRole::BatchNorm) {
                skip = j;
                ++j;
            }
            const std::size_t bnStart = j;
            while (j < seq.size() && seq[j].role == ChainRole::BatchNorm)
                ++j;
            const bool bn = j > bnStart;
            const bool act = j < seq.size() && seq[j].role == ChainRole::Activation;
            if (bn || act) {
                const Pattern p = bn ? (act ? kConvBnAct : kConvBn) : kConvAct;
                const std::size_t end = act ? j + 1 : j;
                out.push_back({p, i, i + 1, end, bn ? skip : kNoSkip});
                i = end;
                continue;
            }
        } else if (seq[i].role == ChainRole::MatMul && i + 2 < seq.size() && seq[i + 1].role == ChainRole::Add
                   && seq[i + 2].role == ChainRole::Activation) {
            out.push_back({kMatMulAddAct, i, i + 1, i + 3, kNoSkip});
            i += 3;
            continue;
        }
        ++i;
    }
    return out;
}

struct PatternState
{
    explicit PatternState(const StepClock& clock)
        : acc(clock)
    {
    }
    FindingAccumulator acc;
    std::string example;
    std::int64_t removedOps = 0;
    std::int64_t fromFramework = 0;
    std::int64_t fromDevice = 0;
};

std::string recommendationFor(Platform p, Pattern pattern)
{
    const bool linear = pattern == kMatMulAddAct;
    switch (p) {
    case Platform::Rknn:
        if (linear)
            return "RKNN fuses a MatMul/Gemm with its bias Add and activation when they follow each other directly "
                   "in the ONNX graph: export with torch.onnx.export(..., do_constant_folding=True) so the bias is "
                   "a constant, use nn.Linear (Gemm with bias) rather than matmul + add, and keep "
                   "rknn.config(optimization_level=3), the default.";
        return "rknn-toolkit2 folds BatchNormalization into the preceding Conv and fuses the activation (one "
               "ConvRelu/ConvExSwish layer) when the graph is exported for inference: call model.eval() and "
               "export with torch.onnx.export(..., training=torch.onnx.TrainingMode.EVAL, "
               "do_constant_folding=True), or fold BN first with torch.ao.quantization.fuse_modules; keep "
               "rknn.config(optimization_level=3) (the default). A BN that survives usually has a second "
               "consumer of the conv output or a non-constant scale.";
    case Platform::TorchNpuCann:
        return std::string("In eager mode torch_npu launches each op as its own task. For training, run the model in "
                           "graph mode (torch.compile(model, backend=torchair.get_npu_backend())) so CANN can fuse ")
            + (linear ? "the bias add and activation into the MatMul" : "BatchNorm and the activation")
            + ". For inference, fold BN into the conv with torch.ao.quantization.fuse_modules(model.eval(), "
              "[[\"conv\", \"bn\", \"relu\"]]) before export, and convert with ATC, which fuses Conv+BN+ReLU.";
    case Platform::Cpu:
        if (linear)
            return "Use nn.Linear (bias fused into addmm) and torch.compile(model) to fuse the activation into the "
                   "GEMM epilogue; for inference, torch.jit.freeze(torch.jit.script(model.eval())) lets oneDNN "
                   "fuse Linear + activation.";
        return "For inference, fold BatchNorm into the conv and fuse the ReLU: "
               "torch.ao.quantization.fuse_modules(model.eval(), [[\"conv1\", \"bn1\", \"relu\"]]) or "
               "torch.jit.freeze(torch.jit.script(model.eval())), which folds Conv-BN and lets oneDNN fuse the "
               "activation. For training, torch.compile(model) fuses the BatchNorm and activation into fewer "
               "kernels.";
    default:
        if (linear)
            return "Use nn.Linear (the bias add runs inside the GEMM as addmm) and torch.compile(model), which "
                   "fuses the activation into the GEMM epilogue or one pointwise kernel; for inference "
                   "torch.jit.freeze(torch.jit.script(model.eval())) fuses linear + activation as well.";
        return "For training, torch.compile(model) fuses the BatchNorm and activation into fewer kernels. For "
               "inference, fold BatchNorm into the conv weights and fuse the ReLU: "
               "torch.ao.quantization.fuse_modules(model.eval(), [[\"conv1\", \"bn1\", \"relu\"]]) or "
               "torch.jit.freeze(torch.jit.script(model.eval())); with channels_last and cuDNN the folded conv "
               "then runs with the activation as one kernel.";
    }
}

} // namespace

PassOutput UnfusedChainPass::run(const model::Trace& trace, const AnalysisOptions& options,
                                 const CancelToken& cancel) const
{
    PassOutput out;
    const StepClock clock(trace);
    const Platform platform = detectPlatform(trace);
    const DeviceActivity activity = computeDeviceActivity(trace, options, cancel);
    std::array<std::unique_ptr<PatternState>, kPatternCount> states;
    auto stateFor = [&](Pattern p) -> PatternState& {
        if (!states[p])
            states[p] = std::make_unique<PatternState>(clock);
        return *states[p];
    };
    std::set<model::SliceRef> claimed; // device slices already covered by a framework-op chain
    auto nameOf = [&](model::SliceRef r) { return trace.str(trace.track(r.track).sliceName(r.index.value)); };
    bool sawCandidates = false;

    // Kernels launched by a framework op (itself or anything nested in it on its host track).
    auto launchedKernels = [&](model::SliceRef op, std::vector<model::SliceRef>& kernels) {
        const model::Track& t = trace.track(op.track);
        const model::TimeNs t0 = t.ts(op.index.value);
        const model::TimeNs t1 = t.end(op.index.value);
        auto collect = [&](model::SliceRef from) {
            for (const model::Flow& f : trace.flowsFrom(from)) {
                const model::Track& to = trace.track(f.to.track);
                if (f.kind == model::FlowKind::Launch && isDeviceTrack(to)
                    && to.category(f.to.index.value) == SliceCategory::Kernel)
                    kernels.push_back(f.to);
            }
        };
        collect(op);
        for (std::size_t d = t.depth(op.index.value) + 1u; d < t.depthCount(); ++d) {
            const auto [lo, hi] = t.rangeAtDepth(d, t0, t1);
            const auto idx = t.slicesAtDepth(d);
            for (std::size_t k = lo; k < hi; ++k) {
                if (t.ts(idx[k]) >= t0 && t.end(idx[k]) <= t1)
                    collect({op.track, model::SliceIndex(idx[k])});
            }
        }
    };

    auto record = [&](const std::vector<Element>& seq, const Chain& c, bool framework) {
        PatternState& st = stateFor(c.pattern);
        st.acc.countOccurrence();
        (framework ? st.fromFramework : st.fromDevice) += 1;
        if (st.example.empty()) {
            for (std::size_t k = c.first; k < c.end; ++k) {
                if (k != c.skip)
                    st.example += (k == c.first ? "" : " → ") + std::string(nameOf(seq[k].ref));
            }
        }
        for (std::size_t k = c.first; k < c.end; ++k) {
            const model::Track& t = trace.track(seq[k].ref.track);
            st.acc.addEvent(seq[k].ref);
            if (k == c.first)
                st.acc.addEvidence(seq[k].ref.track, t.ts(seq[k].ref.index.value),
                                   trace.track(seq[c.end - 1].ref.track).end(seq[c.end - 1].ref.index.value));
        }
        for (std::size_t k = c.first; k < c.end; ++k) {
            const model::SliceRef r = seq[k].ref;
            const bool removable = k >= c.removed && k != c.skip;
            if (!framework || !activity.hasDeviceWork) {
                if (removable) {
                    const model::Track& t = trace.track(r.track);
                    st.acc.addLoss(t.ts(r.index.value), t.end(r.index.value));
                    ++st.removedOps;
                }
                continue;
            }
            std::vector<model::SliceRef> kernels;
            launchedKernels(r, kernels);
            for (const model::SliceRef& kr : kernels)
                claimed.insert(kr);
            if (!removable)
                continue;
            ++st.removedOps;
            if (kernels.empty()) {
                // The op launched nothing on a device run: it ran on the host, and its own time is what goes.
                const model::Track& t = trace.track(r.track);
                st.acc.addLoss(t.ts(r.index.value), t.end(r.index.value));
                continue;
            }
            IntervalList spans;
            for (const model::SliceRef& kr : kernels) {
                const model::Track& kt = trace.track(kr.track);
                spans.push_back({kt.ts(kr.index.value), kt.end(kr.index.value)});
                st.acc.addEvent(kr);
            }
            for (const Interval& s : unite(std::move(spans)))
                st.acc.addLoss(s.start, s.end);
        }
    };

    // 1. Framework ops: sibling HostOps (same parent) on each host thread.
    for (const model::Track& t : trace.tracks()) {
        if (isDeviceTrack(t) || t.role == model::TrackRole::Counter)
            continue;
        for (std::size_t d = 0; d < t.depthCount(); ++d) {
            if (cancel.cancelled())
                return out;
            const auto idx = t.slicesAtDepth(d);
            std::vector<Element> seq;
            model::SliceIndex parent;
            auto flush = [&]() {
                if (seq.size() >= 2) {
                    for (const Chain& c : findChains(seq))
                        record(seq, c, true);
                }
                seq.clear();
            };
            for (std::uint32_t i : idx) {
                if (t.category(i) != SliceCategory::HostOp)
                    continue;
                if (t.parent(i) != parent) {
                    flush();
                    parent = t.parent(i);
                }
                const std::string_view name = trace.str(t.sliceName(i));
                const ChainRole role = chainRole(normalizeOpType(name));
                sawCandidates = sawCandidates || role == ChainRole::Conv || role == ChainRole::MatMul;
                seq.push_back({role, {t.id, model::SliceIndex(i)}, !name.empty() && name.back() == '_'});
            }
            flush();
        }
    }

    // 2. Device tasks and layers in execution order. RKNN layers alternate between the NPU track and a
    // CPU track, so all layers form one sequence; elsewhere each device stream is its own sequence.
    const bool rknn = platform == Platform::Rknn;
    std::vector<std::vector<Element>> sequences;
    std::vector<Element> layers;
    for (const model::Track& t : trace.tracks()) {
        const bool device = isDeviceTrack(t);
        if (!device && !(rknn && t.role != model::TrackRole::Counter))
            continue;
        std::vector<Element> seq;
        for (std::uint32_t i : t.depthCount() > 0 ? t.slicesAtDepth(0) : std::span<const std::uint32_t> {}) {
            const SliceCategory c = t.category(i);
            if (c != SliceCategory::Kernel && c != SliceCategory::FallbackOp && c != SliceCategory::Other)
                continue;
            const model::SliceRef ref {t.id, model::SliceIndex(i)};
            const ChainRole role = chainRole(normalizeOpType(rawOpType(trace, ref)));
            sawCandidates = sawCandidates || role == ChainRole::Conv || role == ChainRole::MatMul;
            seq.push_back({role, ref, false});
        }
        if (rknn)
            layers.insert(layers.end(), seq.begin(), seq.end());
        else
            sequences.push_back(std::move(seq));
    }
    if (rknn) {
        std::stable_sort(layers.begin(), layers.end(), [&](const Element& a, const Element& b) {
            return trace.track(a.ref.track).ts(a.ref.index.value) < trace.track(b.ref.track).ts(b.ref.index.value);
        });
        sequences.push_back(std::move(layers));
    }
    for (const auto& seq : sequences) {
        if (cancel.cancelled())
            return out;
        for (const Chain& c : findChains(seq)) {
            bool covered = false;
            for (std::size_t k = c.first; k < c.end && !covered; ++k)
                covered = claimed.count(seq[k].ref) > 0;
            if (!covered)
                record(seq, c, false);
        }
    }

    if (!sawCandidates && !activity.hasDeviceWork && trace.categoryCount(SliceCategory::HostOp) == 0) {
        out.notAssessedReason = "the trace has neither framework ops nor device tasks with operator types";
        return out;
    }
    for (std::size_t p = 0; p < kPatternCount; ++p) {
        if (!states[p] || states[p]->acc.occurrences() == 0)
            continue;
        PatternState& st = *states[p];
        Finding f = st.acc.finish(std::string(kind()));
        f.platform = platform;
        const auto pattern = static_cast<Pattern>(p);
        f.title = "Unfused " + std::string(kPatternLabels[p]) + ": " + std::to_string(f.occurrences)
            + (f.occurrences == 1 ? " chain, " : " chains, ") + formatMs(f.lostNs) + " in separate "
            + (pattern == kMatMulAddAct ? "add/activation" : pattern == kConvAct ? "activation"
                                                         : pattern == kConvBn   ? "BatchNorm"
                                                                                : "BatchNorm/activation")
            + (rknn ? " layers" : " kernels");
        f.details.push_back({"pattern", std::string(kPatternKeys[p])});
        f.details.push_back({"chains", static_cast<std::int64_t>(f.occurrences)});
        f.details.push_back({"removable_ops", st.removedOps});
        f.details.push_back({"from_framework_ops", st.fromFramework});
        f.details.push_back({"from_device_tasks", st.fromDevice});
        f.details.push_back({"example", st.example});
        f.explanation = "Each op of the chain reads and writes the whole feature map in memory and costs a launch; "
                        "fused, the BatchNorm folds into the convolution weights (inference) or runs in the same "
                        "kernel, and the activation is applied on the way out.";
        if (pattern == kMatMulAddAct)
            f.explanation = "The bias add and the activation each read and write the whole output of the matrix "
                            "multiply again; fused, they run as the GEMM's epilogue.";
        f.recommendation = recommendationFor(platform, pattern);
        out.findings.push_back(std::move(f));
    }
    return out;
}

} // namespace timesink::analysis
