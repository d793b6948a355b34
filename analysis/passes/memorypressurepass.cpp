// SPDX-License-Identifier: MIT
#include "analysis/passes/memorypressurepass.h"

#include "analysis/core/context.h"
#include "analysis/core/deviceactivity.h"
#include "analysis/core/hostcallclaim.h"
#include "analysis/core/opclassifier.h"
#include "analysis/core/textformat.h"
#include "model/argnames.h"

#include <algorithm>
#include <cstdlib>
#include <map>

namespace timesink::analysis {

namespace {

std::string recommendationFor(Platform p)
{
    if (p == Platform::TorchNpuCann)
        return "Keep the caching allocator from going back to the driver inside the step: let it grow segments "
               "instead of splitting and freeing them (PYTORCH_NPU_ALLOC_CONF=expandable_segments:True), do not call "
               "torch.npu.empty_cache() in the loop, drop references to tensors you no longer need (losses kept "
               "for logging: store loss.item() every N steps, not the tensor), and if the working set is close "
               "to the NPU's memory, use a smaller batch with gradient accumulation.";
    return "Keep the caching allocator from going back to the driver inside the step: set "
           "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (fewer, growable segments; less fragmentation), do "
           "not call torch.cuda.empty_cache() in the loop, drop references to tensors you no longer need (keep "
           "loss.item() for logging, not the tensor), and if the working set is close to the device's memory "
           "(torch.cuda.memory_summary() shows the peak), use a smaller batch with gradient accumulation.";
}

// "cudaFree ×3, cudaMalloc ×5" over the calls that overlap a step.
std::string callSummary(const model::Trace& trace, const StepClock& clock, const std::vector<model::SliceRef>& calls)
{
    std::map<std::string_view, std::uint64_t> byName;
    for (const model::SliceRef& r : calls) {
        const model::Track& t = trace.track(r.track);
        bool inStep = false;
        clock.forEachHostOverlap(t.ts(r.index.value), t.end(r.index.value),
                                 [&](std::size_t, model::TimeNs, model::TimeNs) { inStep = true; });
        if (inStep)
            ++byName[trace.str(t.sliceName(r.index.value))];
    }
    std::string text;
    for (const auto& [name, n] : byName) {
        if (!text.empty())
            text += ", ";
        text += std::string(name) + " ×" + std::to_string(n);
    }
    return text;
}

// The allocator's peak inside steps on the device with the highest one, from Kineto's "GPU N memory allocated"
// counters (bytes), and that device's memory when the trace names it ("device_memory_bytes.N", from
// deviceProperties.totalGlobalMem).
struct Peak
{
    double bytes = -1;
    std::int32_t device = -1;
    std::int64_t capacity = 0;
};

Peak allocatorPeak(const model::Trace& trace, const StepClock& clock)
{
    Peak peak;
    for (const model::Track& t : trace.tracks()) {
        if (t.role != model::TrackRole::Counter || t.deviceIndex < 0)
            continue;
        if (trace.str(t.name) != model::allocatedMemoryCounterName(t.deviceIndex))
            continue;
        const auto times = t.counterTimes();
        const auto values = t.counterValues();
        for (std::size_t i = 0; i < times.size() && i < values.size(); ++i) {
            // Finite, and within int64 once converted (a malformed counter must not reach the report).
            if (clock.hostStepAt(times[i]) < clock.size() && values[i] > peak.bytes && values[i] < 9.0e18) {
                peak.bytes = values[i];
                peak.device = t.deviceIndex;
            }
        }
    }
    if (peak.device >= 0) {
        const std::string key = "device_memory_bytes." + std::to_string(peak.device);
        for (const auto& [k, v] : trace.metadata().properties) {
            if (k == key)
                peak.capacity = std::strtoll(v.c_str(), nullptr, 10);
        }
    }
    return peak;
}

} // namespace

PassOutput MemoryPressurePass::run(const AnalysisContext& context) const
{
    const model::Trace& trace = context.trace();
    const CancelToken& cancel = context.cancel();
    PassOutput out;
    if (std::string why = context.noHostTimelineReason(); !why.empty())
        return PassOutput::notAssessed(std::move(why));
    if (!context.hasStepMarkers()) {
        out.notAssessedReason = "the trace has no step markers, so allocations at start-up (model and optimizer state) "
                                "cannot be told from allocations inside the training loop";
        return out;
    }
    if (!mayHaveHostCall(trace, {HostCallKind::Allocator}))
        return out;
    const DeviceActivity& activity = context.activity();
    if (activity.hostAllocator.empty() || cancel.cancelled())
        return out;
    const StepClock& clock = context.clock();
    const IdleAttribution& idle = context.idle();
    if (cancel.cancelled())
        return out;
    auto claim = claimHostCalls(trace, clock, activity, activity.hostAllocator, activity.allocatorSlices,
                                idle.allocator, std::string(kind()));
    if (!claim)
        return out;
    Finding f = std::move(claim->finding);
    f.platform = trace.metadata().platform;
    const std::string calls = std::to_string(claim->calls) + (claim->calls == 1 ? " call" : " calls");
    f.title = claim->deviceless
        ? "Device allocator calls inside the steps: " + formatDuration(f.lostNs) + " (" + calls + ")"
        : "Device idle while the host allocates or frees device memory: " + formatDuration(f.lostNs) + " (" + calls
            + ")";
    f.details.push_back({"allocator_calls", static_cast<std::int64_t>(claim->calls)});
    f.details.push_back({"allocator_ns", claim->callNs});
    f.details.push_back({"calls_by_name", callSummary(trace, clock, activity.allocatorSlices)});
    f.details.push_back({"device_work", std::string(claim->deviceless ? "none" : "present")});
    const Peak peak = allocatorPeak(trace, clock);
    std::string peakText;
    if (peak.device >= 0) {
        f.details.push_back({"peak_allocated_bytes", static_cast<std::int64_t>(peak.bytes)});
        f.details.push_back({"peak_device", static_cast<std::int64_t>(peak.device)});
        if (peak.capacity > 0) {
            const double share = peak.bytes / double(peak.capacity);
            f.details.push_back({"device_memory_bytes", peak.capacity});
            f.details.push_back({"peak_share", share});
            peakText = " Allocated memory peaked at " + formatPercent(share) + " of the device's memory in the steps.";
        }
    }
    f.explanation = std::string("The framework's caching allocator went to the driver inside the step (its cache "
                                "missed, or it released cached blocks to make room), and these calls ")
        + (claim->deviceless ? "cost the host this time."
                             : "left the device without queued work (frees also wait for the device to finish). "
                               "Only the idle device time while the calls run counts.")
        + peakText;
    f.recommendation = recommendationFor(f.platform);
    out.findings.push_back(std::move(f));
    return out;
}

} // namespace timesink::analysis
