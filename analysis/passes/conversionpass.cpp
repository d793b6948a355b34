// SPDX-License-Identifier: MIT
#include "analysis/passes/conversionpass.h"

#include "analysis/core/callsite.h"
#include "analysis/core/context.h"
#include "analysis/core/deviceactivity.h"
#include "analysis/core/findingaccumulator.h"
#include "analysis/core/opclassifier.h"
#include "analysis/core/textformat.h"

#include <algorithm>
#include <map>
#include <memory>

namespace timesink::analysis {

namespace {

using model::SliceCategory;

enum class Conversion : std::uint8_t { None, Format, Dtype, Layout };

enum class Candidate : std::uint8_t { None, TransData, Cast, Transpose, NchwToNhwc, NhwcToNchw };

// What an op type or task name says the task may be. "TransData", "trans_TransData_3" → TransData;
// "Cast", "aclnnCast_CastAiCore_Cast" → Cast; "TransposeD" → Transpose (a conversion only if formats or
// types change); "void cudnn::ops::nchwToNhwcKernel<…>" → NchwToNhwc.
Candidate conversionCandidate(std::string_view text)
{
    const std::string type = normalizeOpType(text);
    if (type == "transdata" || text.find("TransData") != std::string_view::npos)
        return Candidate::TransData;
    if (type == "cast" || text.ends_with("_Cast"))
        return Candidate::Cast;
    if (type == "transpose" || type == "transposed")
        return Candidate::Transpose;
    if (text.find("nchwToNhwc") != std::string_view::npos)
        return Candidate::NchwToNhwc;
    if (text.find("nhwcToNchw") != std::string_view::npos)
        return Candidate::NhwcToNchw;
    return Candidate::None;
}

struct Group
{
    explicit Group(const StepClock& clock)
        : acc(clock)
    {
    }
    FindingAccumulator acc;
    model::TimeNs deviceNs = 0;
    std::map<std::string, std::uint64_t> byType;  // "TransData" → tasks
    std::map<std::string, std::uint64_t> changes; // "NCHW→NC1HWC0" / "FLOAT→FLOAT16" → tasks
    bool format = false;
    bool dtype = false;
    bool layout = false;
    std::vector<model::SliceRef> tasks; // for re-timing without them (WhatIf)
};

std::string_view firstItem(std::string_view list)
{
    const std::size_t semi = list.find(';');
    return semi == std::string_view::npos ? list : list.substr(0, semi);
}

std::string_view textArg(const model::Trace& trace, model::SliceRef ref, std::string_view key)
{
    const std::optional<model::ArgValue> v = trace.arg(ref, key);
    if (!v.has_value() || v->type != model::ArgValue::Type::String)
        return {};
    return trace.str(model::StringId(v->s));
}

// Kernels launched from inside an explicit cast (an aten::to/_to_copy/… that no other aten op encloses),
// mapped to that cast op. The casts are found by name id first: most traces have few of them.
std::map<model::SliceRef, model::SliceRef> explicitCastKernels(const model::Trace& trace, const CallSiteResolver& sites)
{
    std::map<model::SliceRef, model::SliceRef> out;
    std::vector<model::StringId> ids;
    for (std::string_view n : {"aten::to", "aten::_to_copy", "aten::type_as", "aten::float", "aten::half",
                               "aten::bfloat16", "aten::double"}) {
        const model::StringId id = trace.strings().find(n);
        if (!id.isEmpty())
            ids.push_back(id);
    }
    if (ids.empty())
        return out;
    for (const model::Track& t : trace.tracks()) {
        if (isDeviceTrack(t) || t.role == model::TrackRole::Counter)
            continue;
        for (std::uint32_t i = 0; i < t.size(); ++i) {
            if (t.category(i) != SliceCategory::HostOp
                || std::find(ids.begin(), ids.end(), t.sliceName(i)) == ids.end())
                continue;
            const model::SliceRef op {t.id, model::SliceIndex(i)};
            if (sites.outermostAtenOp(op) != op)
                continue;
            auto collect = [&](std::uint32_t k) {
                for (const model::Flow& f : trace.flowsFrom({t.id, model::SliceIndex(k)})) {
                    if (f.kind == model::FlowKind::Launch && isDeviceTrack(trace.track(f.to.track))
                        && trace.track(f.to.track).category(f.to.index.value) == SliceCategory::Kernel)
                        out.emplace(f.to, op);
                }
            };
            collect(i);
            t.forEachInRange(
                t.ts(i), t.end(i),
                [&](std::uint32_t k) {
                    if (t.ts(k) >= t.ts(i) && t.end(k) <= t.end(i))
                        collect(k);
                },
                t.depth(i) + 1u);
        }
    }
    return out;
}

std::string summary(const std::map<std::string, std::uint64_t>& counts)
{
    std::string text;
    for (const auto& [name, n] : counts) {
        if (!text.empty())
            text += ", ";
        text += name + " ×" + std::to_string(n);
    }
    return text;
}

std::string recommendationFor(Platform p, const Group& g, const std::string& op)
{
    std::string text;
    if (p == Platform::TorchNpuCann) {
        if (g.format)
            text += "Let operators keep the NPU's internal formats between them instead of converting back to NCHW "
                    "after each one: torch.npu.config.allow_internal_format = True, and convert the weights once "
                    "(torch_npu.npu_format_cast on the module's parameters after model.to('npu')) rather than on "
                    "every call. ";
        if (g.dtype)
            text += "Keep tensors in the dtype the operator computes in: cast the model and its inputs once "
                    "(model.to(dtype), an integer dtype the NPU supports such as int32 for indices) instead of "
                    "letting each call insert Cast tasks. ";
        text += "Start with " + op + ", which triggers these conversions.";
        return text;
    }
    if (g.layout)
        text += "Use channels-last end to end so cuDNN does not transpose NCHW ↔ NHWC around each convolution: "
                "model = model.to(memory_format=torch.channels_last) and "
                "input = input.to(memory_format=torch.channels_last) (tensor-core convolutions compute in NHWC). ";
    if (g.dtype)
        text += "Cast once, not every step: keep " + op
            + "'s inputs in the dtype the next op computes in (store "
              "buffers and constants in that dtype, remove .float()/.half()/.to(dtype) calls from forward), and "
              "under mixed precision let torch.autocast insert the casts it needs. ";
    text += "Start with " + op + ", which triggers these conversions.";
    return text;
}

} // namespace

PassOutput ConversionPass::run(const AnalysisContext& context) const
{
    const model::Trace& trace = context.trace();
    const CancelToken& cancel = context.cancel();
    PassOutput out;
    if (std::string why = context.noDeviceWorkReason("there are no device conversions"); !why.empty())
        return PassOutput::notAssessed(std::move(why));
    const StepClock& clock = context.clock();
    CallSiteResolver sites(trace);
    const std::map<model::SliceRef, model::SliceRef> castKernels = explicitCastKernels(trace, sites);
    OpTypeReader types(trace);
    // Per op-type id (and per name id for tasks without an op type): what kind of conversion it could be.
    std::vector<std::uint8_t> memo(trace.strings().size(), 0xff);
    auto candidateOf = [&](model::StringId typeId, model::StringId nameId) {
        auto classify = [&](model::StringId id) {
            if (id.value >= memo.size())
                return Candidate::None;
            std::uint8_t& m = memo[id.value];
            if (m == 0xff)
                m = static_cast<std::uint8_t>(conversionCandidate(trace.str(id)));
            return static_cast<Candidate>(m);
        };
        const Candidate byType = classify(typeId);
        return byType != Candidate::None || typeId == nameId ? byType : classify(nameId);
    };
    std::map<std::string, std::unique_ptr<Group>> groups;
    std::size_t seen = 0;
    for (const model::Track& t : trace.tracks()) {
        if (!isDeviceTrack(t))
            continue;
        for (std::uint32_t i = 0; i < t.size(); ++i) {
            if ((++seen & 0xfff) == 0 && cancel.cancelled())
                return out;
            const SliceCategory c = t.category(i);
            if (c != SliceCategory::Kernel && c != SliceCategory::Other)
                continue;
            const model::SliceRef ref {t.id, model::SliceIndex(i)};
            // Candidates by op type (or name) first, memoised per string: arg lookups only for those.
            const model::StringId typeId = types.opType(ref);
            const Candidate cand = candidateOf(typeId, t.sliceName(i));
            if (cand == Candidate::None && castKernels.empty())
                continue;
            const std::string_view name = trace.str(t.sliceName(i));
            const std::string_view opType = trace.str(typeId);
            Conversion kind = Conversion::None;
            std::string typeLabel(opType);
            std::string_view inFormat, outFormat, inType, outType;
            if (cand != Candidate::None) {
                inFormat = firstItem(textArg(trace, ref, "Input Formats"));
                outFormat = firstItem(textArg(trace, ref, "Output Formats"));
                inType = firstItem(textArg(trace, ref, "Input Data Types"));
                outType = firstItem(textArg(trace, ref, "Output Data Types"));
            }
            switch (cand) {
            case Candidate::TransData:
                kind = Conversion::Format;
                typeLabel = "TransData";
                break;
            case Candidate::Cast:
                kind = Conversion::Dtype;
                typeLabel = "Cast";
                break;
            case Candidate::Transpose:
                if (!inFormat.empty() && !outFormat.empty() && inFormat != outFormat)
                    kind = Conversion::Format;
                else if (!inType.empty() && !outType.empty() && inType != outType)
                    kind = Conversion::Dtype;
                else
                    continue;
                break;
            case Candidate::NchwToNhwc:
            case Candidate::NhwcToNchw:
                kind = Conversion::Layout;
                typeLabel = cand == Candidate::NchwToNhwc ? "nchwToNhwcKernel" : "nhwcToNchwKernel";
                break;
            case Candidate::None:
                break;
            }
            std::string op;
            if (kind == Conversion::None) {
                // A device cast the model asked for: a kernel launched under an explicit aten::to/_to_copy/….
                const auto it = castKernels.find(ref);
                if (c != SliceCategory::Kernel || it == castKernels.end())
                    continue;
                op = trace.str(trace.track(it->second.track).sliceName(it->second.index.value));
                kind = Conversion::Dtype;
                typeLabel = "cast kernel";
            } else {
                op = sites.operatorName(ref, opType.empty() ? name : opType);
            }
            auto& slot = groups[op];
            if (!slot)
                slot = std::make_unique<Group>(clock);
            Group& g = *slot;
            const model::TimeNs lost = g.acc.addLoss(t.ts(i), t.end(i));
            if (lost <= 0)
                continue;
            g.deviceNs += lost;
            g.acc.countOccurrence();
            g.acc.addEvidence(t.id, t.ts(i), t.end(i));
            g.acc.addEvent(ref);
            g.tasks.push_back(ref);
            ++g.byType[typeLabel];
            g.format = g.format || kind == Conversion::Format;
            g.dtype = g.dtype || kind == Conversion::Dtype;
            g.layout = g.layout || kind == Conversion::Layout;
            if (kind == Conversion::Format && !inFormat.empty() && !outFormat.empty())
                ++g.changes[std::string(inFormat) + "→" + std::string(outFormat)];
            else if (kind == Conversion::Dtype && !inType.empty() && !outType.empty())
                ++g.changes[std::string(inType) + "→" + std::string(outType)];
        }
    }

    const Platform platform = trace.metadata().platform;
    for (auto& [op, g] : groups) {
        if (g->acc.lostNs() <= 0)
            continue;
        Finding f = g->acc.finish(std::string(kind()));
        f.platform = platform;
        const std::string what = g->layout ? "Layout conversions"
            : g->format && g->dtype        ? "Format and dtype conversions"
            : g->format                    ? "Format conversions"
                                           : "Dtype conversions";
        f.title = what + " around " + op + ": " + formatDuration(f.lostNs) + " (" + std::to_string(f.occurrences)
            + (f.occurrences == 1 ? " task)" : " tasks)");
        f.details.push_back({"op", op});
        f.details.push_back({"tasks", static_cast<std::int64_t>(f.occurrences)});
        f.details.push_back({"device_ns", g->deviceNs});
        f.details.push_back({"by_type", summary(g->byType)});
        if (!g->changes.empty())
            f.details.push_back({"changes", summary(g->changes)});
        f.explanation = "These device tasks only change how a tensor is laid out or what type it has; they compute "
                        "nothing the model needs. They exist because one operator produces a layout or dtype the "
                        "next one cannot read.";
        f.recommendation = recommendationFor(platform, *g, op);
        f.whatIf.removedDevice = std::move(g->tasks);
        f.savingRule = "These conversion tasks take no time on the device (their stream order stays).";
        out.findings.push_back(std::move(f));
    }
    return out;
}

} // namespace timesink::analysis
