// SPDX-License-Identifier: MIT
#include "analysis/core/hostcallclaim.h"

#include "analysis/core/findingaccumulator.h"

#include <algorithm>

namespace timesink::analysis {

std::optional<HostCallClaim> claimHostCalls(const model::Trace& trace, const StepClock& clock,
                                            const DeviceActivity& activity, const IntervalList& calls,
                                            const std::vector<model::SliceRef>& callSlices,
                                            const std::vector<IdlePiece>& claimed, std::string kind)
{
    HostCallClaim out;
    out.deviceless = !activity.hasDeviceWork;
    FindingAccumulator acc(clock);
    std::uint64_t merged = 0;
    for (const Interval& c : calls) {
        model::TimeNs inSteps = 0;
        clock.forEachHostOverlap(c.start, c.end,
                                 [&](std::size_t, model::TimeNs s, model::TimeNs e) { inSteps += e - s; });
        if (inSteps <= 0)
            continue;
        out.callNs += inSteps;
        ++merged;
        if (out.deviceless)
            acc.addHostLoss(c.start, c.end);
    }
    if (!out.deviceless) {
        for (const IdlePiece& p : claimed) {
            acc.addLossInStep(p.step, p.range.length());
            if (activity.primaryDeviceTrack.isValid())
                acc.addEvidence(activity.primaryDeviceTrack, p.range.start, p.range.end);
        }
    }
    if (merged == 0 || acc.lostNs() <= 0)
        return std::nullopt;
    std::vector<model::SliceRef> sorted = callSlices;
    std::sort(sorted.begin(), sorted.end());
    std::vector<model::SliceRef> removed;
    for (const model::SliceRef& ref : callSlices) {
        const model::Track& t = trace.track(ref.track);
        const std::uint32_t i = ref.index.value;
        // Nested calls (opCompile inside aclopCompileAndExecute) are part of their parent's range.
        bool nested = false;
        for (model::SliceIndex p = t.parent(i); p.isValid() && !nested; p = t.parent(p.value)) {
            nested = std::binary_search(sorted.begin(), sorted.end(), model::SliceRef {ref.track, p});
        }
        if (nested)
            continue;
        bool inStep = false;
        clock.forEachHostOverlap(t.ts(i), t.end(i), [&](std::size_t, model::TimeNs, model::TimeNs) { inStep = true; });
        if (!inStep)
            continue;
        ++out.calls;
        removed.push_back(ref);
        acc.addEvent(ref);
        acc.addEvidence(ref.track, t.ts(i), t.end(i));
    }
    acc.countOccurrence(out.calls);
    out.finding = acc.finish(std::move(kind));
    out.finding.whatIf.removedHost = std::move(removed);
    out.finding.savingRule = "These host calls take no time; the host launches its next work that much earlier.";
    return out;
}

} // namespace timesink::analysis
