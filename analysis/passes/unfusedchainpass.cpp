// SPDX-License-Identifier: MIT
#include "analysis/passes/unfusedchainpass.h"

#include "analysis/core/context.h"
#include "analysis/core/deviceactivity.h"
#include "analysis/core/findingaccumulator.h"
#include "analysis/core/opclassifier.h"
#include "analysis/core/textformat.h"

#include <algorithm>
#include <array>
#include <memory>
#include <span>

namespace timesink::analysis {

namespace {

using model::SliceCategory;

enum Pattern : std::size_t { kConvBnAct, kConvBn, kConvAct, kMatMulAddAct, kPatternCount };

constexpr std::array<std::string_view, kPatternCount> kPatternKeys
    = {"conv_bn_act", "conv_bn", "conv_act", "matmul_add_act"};
constexpr std::array<std::string_view, kPatternCount> kPatternLabels
    = {"Conv → BatchNorm → activation", "Conv → BatchNorm", "Conv → activation", "MatMul → Add → activation"};

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
    std::size_t first = 0;      // index of the head (Conv / MatMul) in the sequence
    std::size_t removed = 0;    // first removable element
    std::size_t end = 0;        // one past the last element
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
    WhatIf whatIf; // the removable ops (host) and their kernels or tasks (device)
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

/// A framework op of a chain found on a device run, waiting for the kernels it launched (ChainSearch::resolvePending).
struct Member
{
    model::SliceRef ref;
    std::uint32_t chain = 0;
    bool removable = false;
};

/// A chain of framework ops on a device run whose cost is the kernels its members launched.
struct PendingChain
{
    Pattern pattern = kConvBnAct;
    std::uint32_t firstMember = 0;
    std::uint32_t memberCount = 0;
};

/// One run of the pass over a trace: finds the chains, first among framework ops and then among device tasks and
/// layers not already covered by a framework chain, and accumulates each pattern's loss.
class ChainSearch
{
public:
    explicit ChainSearch(const AnalysisContext& context);

    /// Chains of framework ops on one host thread: consecutive framework ops with the same framework parent.
    void scanFrameworkOps(const model::Track& t);
    /// Charges the framework chains of a device run with the kernels their ops launched, and claims those kernels.
    void resolvePending();
    /// Chains of device tasks and RKNN layers in execution order; false when cancelled.
    bool scanDeviceSequences();

    /// Whether any op or task could head a chain (a Conv or MatMul).
    [[nodiscard]] bool sawCandidates() const { return m_sawCandidates; }
    /// The pattern's accumulated chains, or nullptr when none was found.
    [[nodiscard]] PatternState* found(Pattern p)
    {
        return m_states[p] && m_states[p]->acc.occurrences() > 0 ? m_states[p].get() : nullptr;
    }

private:
    PatternState& stateFor(Pattern p);
    [[nodiscard]] bool isClaimed(model::SliceRef r) const;
    [[nodiscard]] std::string_view nameOf(model::SliceRef r) const;
    /// Counts one chain and its evidence in its pattern's finding.
    void describe(PatternState& st, const std::vector<Element>& seq, const Chain& c, bool framework);
    /// Counts one chain, and its removable ops' time as lost (a framework chain on a device run: later, through the
    /// kernels it launched).
    void record(const std::vector<Element>& seq, const Chain& c, bool framework);
    /// Gives the framework ops of one sequence of a host thread their roles and records the chains among them.
    void scanFrameworkSequence(const model::Track& t, std::vector<Element>& ops);
    /// Records the chains of one device sequence that no framework chain covers.
    void matchDeviceSequence(const std::vector<Element>& seq);
    /// (member, kernel) for every kernel launched by a pending member or anything nested in it on its host track.
    [[nodiscard]] std::vector<std::pair<std::uint32_t, model::SliceRef>> kernelsOfMembers() const;

    const model::Trace& m_trace;
    const CancelToken& m_cancel;
    const StepClock& m_clock;
    const bool m_deviceWork;
    const bool m_rknn;
    std::array<std::unique_ptr<PatternState>, kPatternCount> m_states;
    // Device slices already covered by a framework-op chain, one flag per slice of each device track.
    std::vector<std::vector<bool>> m_claimed;
    OpTypeReader m_opTypes;
    bool m_sawCandidates = false;
    // Framework chains on a device run cost the kernels their ops launched. Those are found in one sweep
    // over the launch flows after all chains are known (a per-op flow lookup is too slow on big traces).
    std::vector<Member> m_members;
    std::vector<PendingChain> m_pending;
};

ChainSearch::ChainSearch(const AnalysisContext& context)
    : m_trace(context.trace())
    , m_cancel(context.cancel())
    , m_clock(context.clock())
    , m_deviceWork(context.hasDeviceWork())
    , m_rknn(context.trace().metadata().platform == Platform::Rknn)
    , m_claimed(context.trace().tracks().size())
    , m_opTypes(context.trace())
{
    for (const model::Track& t : m_trace.tracks()) {
        if (isDeviceTrack(t))
            m_claimed[t.id.value].assign(t.size(), false);
    }
}

PatternState& ChainSearch::stateFor(Pattern p)
{
    if (!m_states[p])
        m_states[p] = std::make_unique<PatternState>(m_clock);
    return *m_states[p];
}

bool ChainSearch::isClaimed(model::SliceRef r) const
{
    const auto& flags = m_claimed[r.track.value];
    return r.index.value < flags.size() && flags[r.index.value];
}

std::string_view ChainSearch::nameOf(model::SliceRef r) const
{
    return m_trace.str(m_trace.track(r.track).sliceName(r.index.value));
}

void ChainSearch::describe(PatternState& st, const std::vector<Element>& seq, const Chain& c, bool framework)
{
    st.acc.countOccurrence();
    (framework ? st.fromFramework : st.fromDevice) += 1;
    if (st.example.empty()) {
        for (std::size_t k = c.first; k < c.end; ++k) {
            if (k != c.skip)
                st.example += (k == c.first ? "" : " → ") + std::string(nameOf(seq[k].ref));
        }
    }
    const model::SliceRef head = seq[c.first].ref;
    const model::SliceRef last = seq[c.end - 1].ref;
    st.acc.addEvidence(head.track, m_trace.track(head.track).ts(head.index.value),
                       m_trace.track(last.track).end(last.index.value));
    for (std::size_t k = c.first; k < c.end; ++k)
        st.acc.addEvent(seq[k].ref);
}

void ChainSearch::record(const std::vector<Element>& seq, const Chain& c, bool framework)
{
    PatternState& st = stateFor(c.pattern);
    describe(st, seq, c, framework);
    if (framework && m_deviceWork) {
        m_pending.push_back(
            {c.pattern, static_cast<std::uint32_t>(m_members.size()), static_cast<std::uint32_t>(c.end - c.first)});
        for (std::size_t k = c.first; k < c.end; ++k)
            m_members.push_back(
                {seq[k].ref, static_cast<std::uint32_t>(m_pending.size() - 1), k >= c.removed && k != c.skip});
        return;
    }
    // Device tasks and layers, and host ops on a host-only run: the removable ops' own time goes.
    for (std::size_t k = c.removed; k < c.end; ++k) {
        if (k == c.skip)
            continue;
        const model::SliceRef r = seq[k].ref;
        const model::Track& t = m_trace.track(r.track);
        st.acc.addLoss(t.ts(r.index.value), t.end(r.index.value));
        ++st.removedOps;
        (isDeviceTrack(t) ? st.whatIf.removedDevice : st.whatIf.removedHost).push_back(r);
    }
}

std::vector<std::pair<std::uint32_t, model::SliceRef>> ChainSearch::kernelsOfMembers() const
{
    constexpr std::uint32_t kNone = static_cast<std::uint32_t>(-1);
    std::vector<std::vector<std::uint32_t>> owner(m_trace.tracks().size());
    for (std::uint32_t m = 0; m < m_members.size(); ++m) {
        auto& o = owner[m_members[m].ref.track.value];
        if (o.empty())
            o.assign(m_trace.track(m_members[m].ref.track).size(), kNone);
        o[m_members[m].ref.index.value] = m;
    }
    std::vector<std::pair<std::uint32_t, model::SliceRef>> launched; // (member, kernel)
    for (const model::Flow& f : m_trace.flows()) {
        if (f.kind != model::FlowKind::Launch)
            continue;
        const auto& o = owner[f.from.track.value];
        if (o.empty())
            continue;
        const model::Track& to = m_trace.track(f.to.track);
        if (!isDeviceTrack(to) || to.category(f.to.index.value) != SliceCategory::Kernel)
            continue;
        const model::Track& host = m_trace.track(f.from.track);
        model::SliceIndex i = f.from.index;
        for (std::size_t guard = 0; i.isValid() && guard <= host.depthCount(); ++guard) {
            if (o[i.value] != kNone) {
                launched.emplace_back(o[i.value], f.to);
                break;
            }
            i = host.parent(i.value);
        }
    }
    return launched;
}

// Kernels reach their op through launch flows from the op or anything nested in it on its host track.
void ChainSearch::resolvePending()
{
    if (m_pending.empty())
        return;
    const std::vector<std::pair<std::uint32_t, model::SliceRef>> launched = kernelsOfMembers();
    // Group by member with a counting sort (members are few per kernel, kernels are many).
    std::vector<std::uint32_t> start(m_members.size() + 1, 0);
    for (const auto& [m, k] : launched)
        ++start[m + 1];
    for (std::size_t m = 0; m < m_members.size(); ++m)
        start[m + 1] += start[m];
    std::vector<model::SliceRef> byMember(launched.size());
    {
        std::vector<std::uint32_t> fill(start.begin(), start.end() - 1);
        for (const auto& [m, k] : launched)
            byMember[fill[m]++] = k;
    }
    IntervalList spans;
    for (std::uint32_t m = 0; m < m_members.size(); ++m) {
        const Member& mem = m_members[m];
        for (std::uint32_t k = start[m]; k < start[m + 1]; ++k) {
            auto& flags = m_claimed[byMember[k].track.value];
            if (byMember[k].index.value < flags.size())
                flags[byMember[k].index.value] = true;
        }
        if (!mem.removable)
            continue;
        PatternState& st = stateFor(m_pending[mem.chain].pattern);
        ++st.removedOps;
        st.whatIf.removedHost.push_back(mem.ref);
        if (start[m] == start[m + 1]) {
            // The op launched nothing on a device run: it ran on the host, and its own time is what goes.
            const model::Track& t = m_trace.track(mem.ref.track);
            st.acc.addHostLoss(t.ts(mem.ref.index.value), t.end(mem.ref.index.value));
            continue;
        }
        spans.clear();
        for (std::uint32_t k = start[m]; k < start[m + 1]; ++k) {
            const model::Track& kt = m_trace.track(byMember[k].track);
            spans.push_back({kt.ts(byMember[k].index.value), kt.end(byMember[k].index.value)});
            st.acc.addEvent(byMember[k]);
            st.whatIf.removedDevice.push_back(byMember[k]);
        }
        for (const Interval& sp : unite(spans))
            st.acc.addLoss(sp.start, sp.end);
    }
}

void ChainSearch::scanFrameworkSequence(const model::Track& t, std::vector<Element>& ops)
{
    for (Element& e : ops) {
        const model::StringId nameId = t.sliceName(e.ref.index.value);
        const std::string_view name = m_trace.str(nameId);
        e.role = m_opTypes.roleOf(nameId);
        e.inPlace = !name.empty() && name.back() == '_';
        m_sawCandidates = m_sawCandidates || e.role == ChainRole::Conv || e.role == ChainRole::MatMul;
    }
    if (ops.size() >= 2) {
        for (const Chain& c : findChains(ops))
            record(ops, c, true);
    }
}

// The framework parent is the nearest enclosing HostOp. Python frames, module annotations and step markers in
// between are transparent: with with_stack=True, aten::conv2d and aten::relu_ sit under different Python frames
// yet run one after the other.
void ChainSearch::scanFrameworkOps(const model::Track& t)
{
    constexpr std::uint32_t kTopLevel = static_cast<std::uint32_t>(-1);
    // The framework parent of an op: the nearest enclosing framework op, up its (short) parent chain. Parents
    // precede their children in (ts, -dur) order; a parent that does not is ignored (a broken chain). Walked per
    // op, not stored per slice (a table of every host slice was 72 MB at 10 GB).
    const auto frameworkParentOf = [&t](std::uint32_t i) {
        for (std::uint32_t cur = i;;) {
            const model::SliceIndex p = t.parent(cur);
            if (!p.isValid() || p.value >= cur)
                return kTopLevel;
            if (t.category(p.value) == SliceCategory::HostOp)
                return p.value;
            cur = p.value;
        }
    };
    // Reserved for the worst case: untouched pages cost no memory, and the lists never move while they grow.
    std::vector<Element> topLevel;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> nested; // (framework parent, slice)
    topLevel.reserve(t.size());
    nested.reserve(t.size());
    for (std::uint32_t i = 0; i < t.size(); ++i) {
        if (t.category(i) != SliceCategory::HostOp)
            continue;
        const std::uint32_t parent = frameworkParentOf(i);
        if (parent == kTopLevel)
            topLevel.push_back({ChainRole::None, {t.id, model::SliceIndex(i)}, false});
        else
            nested.emplace_back(parent, i);
    }
    std::sort(nested.begin(), nested.end()); // by parent, then by slice index (= time order)
    scanFrameworkSequence(t, topLevel);
    std::vector<Element> seq;
    for (std::size_t k = 0; k < nested.size();) {
        seq.clear();
        const std::uint32_t parent = nested[k].first;
        for (; k < nested.size() && nested[k].first == parent; ++k)
            seq.push_back({ChainRole::None, {t.id, model::SliceIndex(nested[k].second)}, false});
        scanFrameworkSequence(t, seq);
    }
}

void ChainSearch::matchDeviceSequence(const std::vector<Element>& seq)
{
    for (const Chain& c : findChains(seq)) {
        bool covered = false;
        for (std::size_t k = c.first; k < c.end && !covered; ++k)
            covered = isClaimed(seq[k].ref);
        if (!covered)
            record(seq, c, false);
    }
}

// RKNN layers alternate between the NPU track and a CPU track, so all layers form one sequence; elsewhere each
// device stream is its own sequence.
bool ChainSearch::scanDeviceSequences()
{
    // Each stream's sequence is matched as soon as it is built (at 10 GB one holds ~10^7 kernels: keeping them all
    // until the end held ~0.4 GB).
    std::vector<Element> layers;
    std::vector<Element> seq;
    for (const model::Track& t : m_trace.tracks()) {
        const bool device = isDeviceTrack(t);
        // RKNN's "NPU core N" lanes (Synthetic) repeat the NPU track's layers: not a sequence of their own.
        if (!device && !(m_rknn && t.role != model::TrackRole::Counter && t.role != model::TrackRole::Synthetic))
            continue;
        if (m_cancel.cancelled())
            return false;
        const std::span<const std::uint32_t> top
            = t.depthCount() > 0 ? t.slicesAtDepth(0) : std::span<const std::uint32_t> {};
        seq.clear();
        seq.reserve(top.size());
        for (std::uint32_t i : top) {
            const SliceCategory c = t.category(i);
            if (c != SliceCategory::Kernel && c != SliceCategory::FallbackOp && c != SliceCategory::Other)
                continue;
            const model::SliceRef ref {t.id, model::SliceIndex(i)};
            const ChainRole role = m_opTypes.roleOf(m_opTypes.opType(ref));
            m_sawCandidates = m_sawCandidates || role == ChainRole::Conv || role == ChainRole::MatMul;
            seq.push_back({role, ref, false});
        }
        if (m_rknn)
            layers.insert(layers.end(), seq.begin(), seq.end());
        else
            matchDeviceSequence(seq);
    }
    if (m_rknn) {
        std::stable_sort(layers.begin(), layers.end(), [&](const Element& a, const Element& b) {
            return m_trace.track(a.ref.track).ts(a.ref.index.value) < m_trace.track(b.ref.track).ts(b.ref.index.value);
        });
        if (m_cancel.cancelled())
            return false;
        matchDeviceSequence(layers);
    }
    return true;
}

/// The finding of one pattern's chains, worded for the run: RKNN layers, device kernels or host ops.
Finding chainFinding(PatternState& st, Pattern pattern, std::string_view kind, Platform platform, bool deviceWork)
{
    const bool rknn = platform == Platform::Rknn;
    Finding f = st.acc.finish(std::string(kind));
    f.platform = platform;
    f.title = "Unfused " + std::string(kPatternLabels[pattern]) + ": " + std::to_string(f.occurrences)
        + (f.occurrences == 1 ? " chain, " : " chains, ") + formatDuration(f.lostNs) + " in separate "
        + (pattern == kMatMulAddAct  ? "add/activation"
               : pattern == kConvAct ? "activation"
               : pattern == kConvBn  ? "BatchNorm"
                                     : "BatchNorm/activation")
        + (rknn             ? " layers"
               : deviceWork ? " kernels"
                            : " ops");
    f.details.push_back({"pattern", std::string(kPatternKeys[pattern])});
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
    f.whatIf = std::move(st.whatIf);
    f.savingRule = "The removable ops of each chain (the BatchNorm and activation, or the add and activation) "
                   "and the kernels they launched take no time, on the host and on the device.";
    return f;
}

} // namespace

PassOutput UnfusedChainPass::run(const AnalysisContext& context) const
{
    const model::Trace& trace = context.trace();
    PassOutput out;
    ChainSearch search(context);
    // 1. Framework ops, on each host thread.
    for (const model::Track& t : trace.tracks()) {
        if (isDeviceTrack(t) || t.role == model::TrackRole::Counter || t.empty())
            continue;
        if (context.cancel().cancelled())
            return out;
        search.scanFrameworkOps(t);
    }
    search.resolvePending();
    // 2. Device tasks and layers in execution order.
    if (!search.scanDeviceSequences())
        return out;
    const Platform platform = trace.metadata().platform;
    if (!search.sawCandidates() && !context.hasDeviceWork() && trace.categoryCount(SliceCategory::HostOp) == 0) {
        out.notAssessedReason = platform == Platform::Rknn
            ? "the RKNN output has no per-layer table (perf_debug was off), so the layer sequence is unknown"
            : "the trace has neither framework ops nor device tasks with operator types";
        return out;
    }
    for (std::size_t p = 0; p < kPatternCount; ++p) {
        if (PatternState* st = search.found(static_cast<Pattern>(p)))
            out.findings.push_back(
                chainFinding(*st, static_cast<Pattern>(p), kind(), platform, context.hasDeviceWork()));
    }
    return out;
}

} // namespace timesink::analysis
