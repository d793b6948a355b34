// SPDX-License-Identifier: MIT
#include "analysis/passes/precisionpass.h"

#include "analysis/core/callsite.h"
#include "analysis/core/context.h"
#include "analysis/core/deviceactivity.h"
#include "analysis/core/findingaccumulator.h"
#include "analysis/core/opclassifier.h"
#include "analysis/core/textformat.h"
#include "model/argnames.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <map>

namespace timesink::analysis {

namespace {

using model::SliceCategory;

enum class Precision : std::uint8_t { Unknown, Fp32, Reduced };

std::string lower(std::string_view s)
{
    std::string out(s);
    for (char& c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

bool has(std::string_view text, std::string_view needle)
{
    return text.find(needle) != std::string_view::npos;
}

// Host names that say autocast / a gradient scaler is active.
bool isAmpMarker(std::string_view name)
{
    const std::string n = lower(name);
    return has(n, "autocast") || has(n, "grad_scaler") || has(n, "_amp_update_scale") || has(n, "ampupdatescale")
        || has(n, "_amp_foreach_non_finite_check_and_unscale");
}

// Matmul or convolution by Ascend op type or GPU kernel name.
bool isMatmulOrConv(std::string_view opTypeLower, std::string_view nameLower, bool haveOpType)
{
    if (haveOpType)
        return has(opTypeLower, "matmul") || has(opTypeLower, "conv2d") || has(opTypeLower, "conv3d")
            || opTypeLower == "conv" || has(opTypeLower, "gemm");
    // Not a bare "conv": elementwise kernels that "convert" dtypes would match; not "fbgemm" (a library prefix).
    bool gemm = false;
    for (std::size_t at = nameLower.find("gemm"); at != std::string_view::npos && !gemm;
         at = nameLower.find("gemm", at + 1))
        gemm = at < 2 || nameLower.substr(at - 2, 2) != "fb";
    return gemm || has(nameLower, "convolve") || has(nameLower, "conv2d") || has(nameLower, "conv3d")
        || has(nameLower, "fprop") || has(nameLower, "dgrad") || has(nameLower, "wgrad") || has(nameLower, "winograd");
}

Precision fromDataType(std::string_view dtype)
{
    const std::string t = lower(dtype);
    if (t == "float" || t == "dt_float" || t == "float32" || t == "fp32")
        return Precision::Fp32;
    if (has(t, "float16") || has(t, "bf16") || has(t, "bfloat16") || t == "half" || t == "fp16")
        return Precision::Reduced;
    return Precision::Unknown;
}

Precision fromKernelName(std::string_view nameLower)
{
    for (std::string_view token : {"hmma", "fp16", "bf16", "f16", "hgemm", "h884", "h1688", "h16816", "half"}) {
        if (has(nameLower, token))
            return Precision::Reduced;
    }
    for (std::string_view token : {"sgemm", "f32f32_f32f32", "fp32", "_f32_"}) {
        if (has(nameLower, token))
            return Precision::Fp32;
    }
    return Precision::Unknown;
}

std::string recommendationFor(Platform p, const std::string& ops)
{
    std::string text = "Run " + ops + " inside the autocast region: ";
    if (p == Platform::TorchNpuCann)
        text += "wrap the forward pass and the loss in torch.autocast(device_type='npu', dtype=torch.bfloat16 or "
                "torch.float16) (torch.npu.amp.autocast on older torch_npu), make sure these modules are not called "
                "outside it or with explicitly .float()-ed inputs, and keep a GradScaler for float16. ";
    else
        text += "wrap the forward pass in torch.autocast(device_type='cuda', dtype=torch.float16 or "
                "torch.bfloat16), make sure these modules are not called outside it, under "
                "torch.autocast(enabled=False), or with explicitly .float()-ed inputs; on Ampere and newer, "
                "torch.backends.cuda.matmul.allow_tf32 = True also speeds up what stays FP32. ";
    text += "Some layers are kept in FP32 on purpose — the loss and often the classification head, a common cure "
            "for NaN losses under mixed precision; leave those and move the rest.";
    return text;
}

} // namespace

PassOutput PrecisionPass::run(const AnalysisContext& context) const
{
    const model::Trace& trace = context.trace();
    const CancelToken& cancel = context.cancel();
    PassOutput out;
    if (std::string why = context.noDeviceWorkReason("there is no device precision"); !why.empty())
        return PassOutput::notAssessed(std::move(why));
    // Is mixed precision in use? Host markers first (few distinct names; looked up once per name id).
    bool ampHost = false;
    std::vector<std::int8_t> marker(trace.strings().size(), -1);
    for (const model::Track& t : trace.tracks()) {
        if (ampHost || isDeviceTrack(t) || t.role == model::TrackRole::Counter)
            continue;
        for (std::uint32_t i = 0; i < t.size() && !ampHost; ++i) {
            const model::StringId id = t.sliceName(i);
            if (id.value >= marker.size())
                continue;
            if (marker[id.value] < 0)
                marker[id.value] = isAmpMarker(trace.str(id)) ? 1 : 0;
            ampHost = marker[id.value] == 1;
        }
    }
    const StepClock& clock = context.clock();
    CallSiteResolver sites(trace);
    FindingAccumulator acc(clock);
    OpTypeReader types(trace);
    // Bit 0: matmul/conv; bits 1–2: the Precision the kernel name says. Two tables: an op type from the args is
    // judged by op-type rules, a bare kernel name by kernel-name rules.
    constexpr std::uint8_t kMatmulConv = 1;
    std::array<std::vector<std::uint8_t>, 2> memo {std::vector<std::uint8_t>(trace.strings().size(), 0xff),
                                                   std::vector<std::uint8_t>(trace.strings().size(), 0xff)};
    auto classOf = [&](model::StringId id, bool isOpType) -> std::uint8_t {
        if (id.value >= memo[0].size())
            return 0;
        std::uint8_t& m = memo[isOpType ? 1 : 0][id.value];
        if (m == 0xff) {
            // A kernel's own name, without its parameter list: "split_embedding_…_kernel<c10::Half, …>(at::…)"
            // names argument types there, not what the kernel computes in.
            std::string_view raw = trace.str(id);
            if (!isOpType)
                raw = raw.substr(0, raw.find('('));
            const std::string text = lower(raw);
            const bool mc = isOpType ? isMatmulOrConv(text, {}, true) : isMatmulOrConv({}, text, false);
            const Precision named = isOpType ? Precision::Unknown : fromKernelName(text);
            m = static_cast<std::uint8_t>((mc ? kMatmulConv : 0) | (static_cast<std::uint8_t>(named) << 1));
        }
        return m;
    };
    model::TimeNs fp32Ns = 0;
    model::TimeNs reducedNs = 0;
    std::uint64_t reducedTasks = 0;
    std::map<std::string, model::TimeNs> byOp;
    std::size_t seen = 0;
    std::vector<model::SliceRef> fp32;
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
            const model::StringId typeId = types.opType(ref);
            const bool haveOpType = typeId != t.sliceName(i);
            // Matmul/conv and the precision its name says, memoised per op-type / name string.
            const std::uint8_t cls = classOf(typeId, haveOpType);
            if ((cls & kMatmulConv) == 0)
                continue;
            Precision p = Precision::Unknown;
            if (const std::optional<model::ArgValue> v = trace.arg(ref, model::argnames::kInputDataTypes);
                v.has_value() && v->type == model::ArgValue::Type::String) {
                const std::string_view dtypes = trace.str(model::StringId(v->s));
                p = fromDataType(dtypes.substr(0, dtypes.find(';')));
            }
            if (p == Precision::Unknown && !haveOpType)
                p = static_cast<Precision>(cls >> 1);
            if (p == Precision::Reduced) {
                reducedNs += t.dur(i);
                ++reducedTasks;
            } else if (p == Precision::Fp32) {
                fp32.push_back(ref);
            }
        }
    }
    const bool amp = ampHost || reducedTasks > 0;
    if (!amp || fp32.empty())
        return out;
    for (const model::SliceRef& ref : fp32) {
        const model::Track& t = trace.track(ref.track);
        const std::uint32_t i = ref.index.value;
        model::TimeNs inSteps = 0;
        // The estimate: half of each FP32 task's time inside steps.
        clock.forEachOverlap(t.ts(i), t.end(i), [&](std::size_t step, model::TimeNs s, model::TimeNs e) {
            acc.addLossInStep(step, (e - s) / 2);
            inSteps += e - s;
        });
        if (inSteps <= 0)
            continue;
        fp32Ns += inSteps;
        acc.countOccurrence();
        acc.addEvidence(t.id, t.ts(i), t.end(i));
        acc.addEvent(ref);
        byOp[sites.operatorName(ref, rawOpType(trace, ref))] += inSteps;
    }
    if (acc.lostNs() <= 0)
        return out;
    Finding f = acc.finish(std::string(kind()));
    f.platform = trace.metadata().platform;
    f.whatIf.scaledDevice = fp32;
    f.whatIf.scale = 0.5;
    f.savingRule = "The FP32 matmul/conv tasks take half their time (the same estimate as the lost time).";
    std::vector<std::pair<std::string, model::TimeNs>> ops(byOp.begin(), byOp.end());
    std::stable_sort(ops.begin(), ops.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    std::string opList;
    std::string topOps;
    for (std::size_t k = 0; k < ops.size(); ++k) {
        if (!opList.empty())
            opList += ", ";
        opList += ops[k].first + " " + formatDuration(ops[k].second);
        if (k < 3)
            topOps += (k == 0 ? "" : ", ") + ops[k].first;
    }
    f.title = "FP32 matmul/conv in a mixed-precision run: about " + formatDuration(f.lostNs) + " (estimate, "
        + std::to_string(f.occurrences) + (f.occurrences == 1 ? " task)" : " tasks)");
    f.details.push_back({"estimate", std::string("half of the FP32 matmul/conv time")});
    f.details.push_back({"fp32_ns", fp32Ns});
    f.details.push_back({"fp32_tasks", static_cast<std::int64_t>(f.occurrences)});
    f.details.push_back({"reduced_precision_ns", reducedNs});
    f.details.push_back({"reduced_precision_tasks", static_cast<std::int64_t>(reducedTasks)});
    f.details.push_back({"amp_evidence",
                         std::string(ampHost && reducedTasks > 0 ? "autocast/scaler and fp16/bf16 tasks"
                                         : ampHost               ? "autocast/scaler on the host"
                                                                 : "fp16/bf16 matmul/conv tasks")});
    f.details.push_back({"ops", opList});
    f.explanation = "The run uses mixed precision, yet these matmuls and convolutions ran in FP32, which uses a "
                    "fraction of the tensor-core (Cube unit) throughput. The lost time is an estimate: half their "
                    "device time, the conservative gain of FP16/BF16 on A100-class GPUs and Ascend 910.";
    f.recommendation = recommendationFor(f.platform, topOps);
    out.findings.push_back(std::move(f));
    return out;
}

} // namespace timesink::analysis
