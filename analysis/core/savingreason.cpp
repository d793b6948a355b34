// SPDX-License-Identifier: MIT
#include "analysis/core/savingreason.h"

#include "analysis/core/pass.h"
#include "analysis/core/textformat.h"

#include <algorithm>
#include <vector>

namespace timesink::analysis {

using model::TimeNs;

TimeNs timeOnCriticalPath(const Finding& finding, std::span<const StepCriticalPath> paths)
{
    // The evidence as sorted, disjoint time ranges (ranges of several tracks may overlap in time).
    std::vector<std::pair<TimeNs, TimeNs>> ranges;
    ranges.reserve(finding.evidence.size());
    for (const EvidenceRange& e : finding.evidence) {
        if (e.end > e.start)
            ranges.emplace_back(e.start, e.end);
    }
    std::sort(ranges.begin(), ranges.end());
    std::vector<std::pair<TimeNs, TimeNs>> merged;
    for (const auto& r : ranges) {
        if (!merged.empty() && r.first <= merged.back().second)
            merged.back().second = std::max(merged.back().second, r.second);
        else
            merged.push_back(r);
    }
    TimeNs total = 0;
    for (const StepCriticalPath& p : paths) {
        if (!p.assessed)
            continue;
        // Segments are in time order; each one is matched against the ranges it can touch.
        auto first = merged.begin();
        for (const PathSegment& s : p.segments) {
            while (first != merged.end() && first->second <= s.start)
                ++first;
            for (auto r = first; r != merged.end() && r->first < s.end; ++r)
                total += std::min(s.end, r->second) - std::max(s.start, r->first);
        }
    }
    return total;
}

std::string savingReason(const Finding& finding, TimeNs onPathNs)
{
    if (finding.savingMethod != "retimed" && finding.savingMethod != "partly_retimed")
        return {};
    const TimeNs saving = finding.savingNs;
    const TimeNs lost = finding.lostNs;
    if (saving > 2 * lost) {
        if (onPathNs > lost)
            return "The saving is larger than the lost time because the steps' critical path runs through this "
                   "cause for "
                + formatDuration(onPathNs)
                + ": without it everything behind it on the path starts earlier, while the lost time counts only "
                + formatDuration(lost) + " of it.";
        return "The saving is larger than the lost time because the cause delays work that sets the step time: "
               "without it that work starts earlier, although only "
            + formatDuration(lost) + " is counted where the cause happens.";
    }
    if (2 * saving < lost) {
        const TimeNs off = std::max<TimeNs>(0, lost - std::min(onPathNs, lost));
        return "The saving is smaller than the lost time because only " + formatDuration(std::min(onPathNs, lost))
            + " of the cause lies on the steps' critical path; the other " + formatDuration(off)
            + " overlaps work that still sets the step time.";
    }
    return {};
}

void explainSavings(AnalysisResult& result)
{
    for (Finding& f : result.findings)
        f.savingReason = savingReason(f, timeOnCriticalPath(f, result.criticalPaths));
}

} // namespace timesink::analysis
