// SPDX-License-Identifier: MIT
#include "analysis/passes/opcompilepass.h"

#include "analysis/core/context.h"
#include "analysis/core/deviceactivity.h"
#include "analysis/core/hostcallclaim.h"
#include "analysis/core/opclassifier.h"
#include "analysis/core/textformat.h"

#include <algorithm>
#include <map>

namespace timesink::analysis {

namespace {

std::string recommendationFor(Platform p)
{
    if (p == Platform::TorchNpuCann)
        return "Stop compiling operators inside the step: use the prebuilt binary operators with "
               "torch_npu.npu.set_compile_mode(jit_compile=False) (the default from torch_npu 2.1 on; check that "
               "nothing sets it back to True), keep input shapes fixed or pad them to a few buckets so each "
               "operator sees the same shapes every step (variable sequence lengths and the last, smaller batch "
               "are the usual causes: DataLoader(drop_last=True)), and for a static model run it in graph mode "
               "(torch.compile(model, backend=torchair.get_npu_backend())) so it is compiled once.";
    if (p == Platform::Rknn)
        return "Build the RKNN model once with fixed input shapes (rknn.build / dynamic_input lists only the shapes "
               "you need) instead of rebuilding at run time.";
    return "Stop recompiling inside the step: mark the dimensions that change as dynamic "
           "(torch._dynamo.mark_dynamic(tensor, dim)) or pad inputs to a few bucket sizes, cap recompiles with "
           "torch._dynamo.config.cache_size_limit and find their cause with TORCH_LOGS=\"recompiles\"; with "
           "torch.backends.cudnn.benchmark=True every new input shape triggers cuDNN autotuning, so keep shapes "
           "fixed (DataLoader(drop_last=True)) or turn benchmark off for variable shapes.";
}

// The operators being compiled: torch_npu runs each operator's CANN calls inside a "Dequeue@<op>" range on its
// task-queue thread, which is another track than the CANN calls; the range enclosing a compile call names the
// operator. "Conv2D ×5, ReduceSum ×5"; empty when no call has one (GPU traces).
std::string compiledOps(const model::Trace& trace, const std::vector<model::SliceRef>& calls)
{
    std::vector<const model::Track*> hosts;
    for (const model::Track& t : trace.tracks()) {
        if (!isDeviceTrack(t) && t.role != model::TrackRole::Counter && !t.empty())
            hosts.push_back(&t);
    }
    std::map<std::string, std::uint64_t> ops;
    for (const model::SliceRef& ref : calls) {
        const model::Track& ct = trace.track(ref.track);
        const model::TimeNs s = ct.ts(ref.index.value);
        const model::TimeNs e = ct.end(ref.index.value);
        bool found = false;
        for (const model::Track* t : hosts) {
            t->forEachInRange(s, e, [&](std::uint32_t i) {
                const std::string_view name = trace.str(t->sliceName(i));
                if (t->ts(i) <= s && t->end(i) >= e && name.starts_with("Dequeue@") && name.size() > 8) {
                    ++ops[std::string(name.substr(8))];
                    found = true;
                }
                return !found;
            });
            if (found)
                break;
        }
    }
    std::string text;
    for (const auto& [op, n] : ops)
        text += (text.empty() ? "" : ", ") + op + " ×" + std::to_string(n);
    return text;
}

} // namespace

PassOutput OpCompilePass::run(const AnalysisContext& context) const
{
    const model::Trace& trace = context.trace();
    const CancelToken& cancel = context.cancel();
    PassOutput out;
    if (std::string why = context.noHostTimelineReason(); !why.empty())
        return PassOutput::notAssessed(std::move(why));
    if (!context.hasStepMarkers()) {
        out.notAssessedReason = "the trace has no step markers, so compile calls at start-up (first use of each "
                                "operator) cannot be told from compiles inside the training loop";
        return out;
    }
    if (!mayHaveHostCall(trace, {HostCallKind::Compile, HostCallKind::Autotune}))
        return out;
    const DeviceActivity& activity = context.activity();
    if (activity.hostCompile.empty() || cancel.cancelled())
        return out;
    const StepClock& clock = context.clock();
    const IdleAttribution& idle = context.idle();
    if (cancel.cancelled())
        return out;
    auto claim = claimHostCalls(trace, clock, activity, activity.hostCompile, activity.compileSlices, idle.compile,
                                std::string(kind()));
    if (!claim)
        return out;
    Finding f = std::move(claim->finding);
    f.platform = trace.metadata().platform;
    const std::string calls = std::to_string(claim->calls) + (claim->calls == 1 ? " call" : " calls");
    f.title = claim->deviceless
        ? "Operators compiled during the steps: " + formatDuration(f.lostNs) + " (" + calls + ")"
        : "Device idle while operators compile: " + formatDuration(f.lostNs) + " (" + calls + ", "
            + formatDuration(claim->callNs) + " compiling)";
    f.details.push_back({"compile_calls", static_cast<std::int64_t>(claim->calls)});
    f.details.push_back({"compile_ns", claim->callNs});
    f.details.push_back({"device_work", std::string(claim->deviceless ? "none" : "present")});
    const std::string ops = compiledOps(trace, f.events);
    if (!ops.empty())
        f.details.push_back({"compiled_ops", ops});
    f.explanation = std::string("The host compiled operators inside the step (their shapes or attributes were new to "
                                "the operator cache), and ")
        + (claim->deviceless ? "the step waited for the compiler."
                             : "the device had nothing to run until the compiled operator was launched. Only the "
                               "idle device time counts; compile time hidden behind running device work does not.");
    f.recommendation = recommendationFor(f.platform);
    if (!ops.empty())
        f.recommendation += " The operators compiled here: " + ops + ".";
    out.findings.push_back(std::move(f));
    return out;
}

} // namespace timesink::analysis
