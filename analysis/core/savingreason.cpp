// SPDX-License-Identifier: MIT
#include "analysis/core/savingreason.h"

#include "analysis/core/pass.h"
#include "analysis/core/textformat.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace timesink::analysis {

using model::TimeNs;

namespace {

bool isHostClass(PathClass c)
{
    switch (c) {
    case PathClass::HostCompute:
    case PathClass::Python:
    case PathClass::Dataloader:
    case PathClass::Launch:
    case PathClass::Sync:
        return true;
    default:
        return false;
    }
}

bool isDeviceClass(PathClass c)
{
    return c == PathClass::DeviceCompute || c == PathClass::Copy || c == PathClass::Communication
        || c == PathClass::Fallback;
}

/// The class as a phrase inside a sentence ("most of it as host compute").
std::string_view classPhrase(PathClass c)
{
    switch (c) {
    case PathClass::HostCompute:
        return "host compute";
    case PathClass::Python:
        return "Python";
    case PathClass::Dataloader:
        return "DataLoader time";
    case PathClass::Launch:
        return "launch calls";
    case PathClass::Sync:
        return "a synchronise that blocks the host";
    case PathClass::DeviceCompute:
        return "device compute";
    case PathClass::Copy:
        return "copies";
    case PathClass::Communication:
        return "communication";
    case PathClass::Fallback:
        return "CPU fallback";
    case PathClass::Latency:
        return "latency";
    case PathClass::Unrecorded:
        return "unrecorded device work";
    case PathClass::ExternalWait:
        return "an external wait";
    }
    return "host compute";
}

} // namespace

CausePathShare pathShareOf(const Finding& finding, std::span<const StepCriticalPath> paths)
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
    CausePathShare share;
    for (const StepCriticalPath& p : paths) {
        if (!p.assessed)
            continue;
        share.pathNs += p.lengthNs();
        for (std::size_t c = 0; c < kPathClassCount; ++c) {
            if (isHostClass(static_cast<PathClass>(c)))
                share.hostNs += p.byClass[c];
            else if (isDeviceClass(static_cast<PathClass>(c)))
                share.deviceNs += p.byClass[c];
        }
        // Segments are in time order; each one is matched against the ranges it can touch.
        auto first = merged.begin();
        for (const PathSegment& s : p.segments) {
            while (first != merged.end() && first->second <= s.start)
                ++first;
            for (auto r = first; r != merged.end() && r->first < s.end; ++r) {
                const TimeNs ns = std::min(s.end, r->second) - std::max(s.start, r->first);
                share.onPathNs += ns;
                share.onPathByClass[static_cast<std::size_t>(s.cls)] += ns;
            }
        }
    }
    return share;
}

TimeNs timeOnCriticalPath(const Finding& finding, std::span<const StepCriticalPath> paths)
{
    return pathShareOf(finding, paths).onPathNs;
}

std::string savingReason(const Finding& finding, TimeNs onPathNs)
{
    CausePathShare share;
    share.onPathNs = onPathNs;
    return savingReason(finding, share);
}

std::string savingReason(const Finding& finding, const CausePathShare& share)
{
    if (finding.savingMethod != "retimed" && finding.savingMethod != "partly_retimed")
        return {};
    const TimeNs saving = finding.savingNs;
    const TimeNs lost = finding.lostNs;
    const TimeNs onPathNs = share.onPathNs;
    if (saving > 2 * lost) {
        // What bounds the steps, when the paths are known: the host or the device, with its share of the path.
        std::string bound;
        if (share.pathNs > 0) {
            const bool host = share.hostNs >= share.deviceNs;
            const TimeNs ns = host ? share.hostNs : share.deviceNs;
            bound = std::string(host ? "the host bounds these steps (" : "the device bounds these steps (")
                + std::to_string(std::lround(100.0 * double(ns) / double(share.pathNs))) + " % of their "
                + (host ? "critical path is host time)" : "critical path is device work)");
        }
        if (onPathNs > lost) {
            std::size_t most = 0;
            for (std::size_t c = 1; c < kPathClassCount; ++c) {
                if (share.onPathByClass[c] > share.onPathByClass[most])
                    most = c;
            }
            const std::string where = share.onPathByClass[most] > 0
                ? ", most of it as " + std::string(classPhrase(static_cast<PathClass>(most)))
                : std::string();
            if (!bound.empty())
                return "The saving is larger than the lost time because " + bound
                    + " and this cause lies on that path for " + formatDuration(onPathNs) + where
                    + ": without it what follows on the path starts earlier, while the lost time counts only "
                    + formatDuration(lost) + " where the cause happens.";
            return "The saving is larger than the lost time because the steps' critical path runs through this "
                   "cause for "
                + formatDuration(onPathNs)
                + ": without it everything behind it on the path starts earlier, while the lost time counts only "
                + formatDuration(lost) + " of it.";
        }
        return "The saving is larger than the lost time because " + (bound.empty() ? std::string() : bound + " and ")
            + "the cause delays work that sets the step time: without it that work starts earlier, although only "
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
        f.savingReason = savingReason(f, pathShareOf(f, result.criticalPaths));
}

} // namespace timesink::analysis
