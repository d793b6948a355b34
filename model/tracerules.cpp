// SPDX-License-Identifier: MIT
#include "model/tracerules.h"

#include <array>

namespace timesink::model {

namespace {

std::string slicePlace(std::uint32_t i, std::size_t trackIndex)
{
    return "slice " + std::to_string(i) + " of track " + std::to_string(trackIndex);
}

} // namespace

std::string trackStructureIssue(const Track& t, std::size_t trackIndex)
{
    const std::string track = "track " + std::to_string(trackIndex);
    const auto n = static_cast<std::uint32_t>(t.size());
    bool any = false;
    TimeNs start = 0;
    TimeNs end = 0;
    for (std::uint32_t i = 0; i < n; ++i) {
        const TimeNs ts = t.ts(i);
        const TimeNs dur = t.dur(i);
        if (!sliceTimesInRange(ts, dur))
            return slicePlace(i, trackIndex) + " lasts " + std::to_string(dur) + " ns from " + std::to_string(ts)
                + " ns: outside ±2^62 ns or negative";
        if (i > 0 && (t.ts(i - 1) > ts || (t.ts(i - 1) == ts && t.dur(i - 1) < dur)))
            return slicePlace(i, trackIndex) + " is out of order";
        if (const SliceIndex p = t.parent(i); p.isValid()) {
            if (p.value >= i)
                return slicePlace(i, trackIndex) + " has parent " + std::to_string(p.value) + ", not an earlier slice";
            if (t.ts(p.value) > ts || t.end(p.value) < ts + dur)
                return slicePlace(i, trackIndex) + " is not inside its parent";
            if (t.depth(p.value) >= t.depth(i))
                return slicePlace(i, trackIndex) + " is not deeper than its parent";
        }
        start = any ? std::min(start, ts) : ts;
        end = any ? std::max(end, ts + dur) : ts + dur;
        any = true;
    }
    std::size_t indexed = 0;
    TimeNs busy = 0;
    for (std::size_t d = 0; d < t.depthCount(); ++d) {
        const auto slices = t.slicesAtDepth(d);
        for (std::size_t k = 0; k < slices.size(); ++k) {
            if (slices[k] >= n || t.depth(slices[k]) != d || (k > 0 && slices[k - 1] >= slices[k]))
                return "depth index " + std::to_string(d) + " of " + track;
            if (d == 0)
                busy = saturatingAdd(busy, t.dur(slices[k]));
        }
        indexed += slices.size();
        for (const auto& level : t.summaries(d)) {
            for (const SummaryBucket& b : level) {
                if (!intervalInRange(b.start, b.end) || b.busyNs < 0)
                    return "summaries of " + track;
            }
        }
    }
    if (indexed != n)
        return "depth index of " + track + " lists " + std::to_string(indexed) + " of " + std::to_string(n) + " slices";
    const auto counters = t.counterTimes();
    for (std::size_t k = 0; k < counters.size(); ++k) {
        if (!timeInRange(counters[k]) || (k > 0 && counters[k - 1] > counters[k]))
            return "counter sample " + std::to_string(k) + " of " + track + " is out of range or order";
    }
    if (!counters.empty()) {
        start = any ? std::min(start, counters.front()) : counters.front();
        end = any ? std::max(end, counters.back()) : counters.back();
    }
    if (t.startNs() != start || t.endNs() != end)
        return track + " claims to span " + std::to_string(t.startNs()) + ".." + std::to_string(t.endNs())
            + " ns, its events " + std::to_string(start) + ".." + std::to_string(end) + " ns";
    if (t.busyNs() != busy)
        return track + " claims " + std::to_string(t.busyNs()) + " ns busy, its slices " + std::to_string(busy) + " ns";
    return {};
}

std::string traceStructureIssue(const Trace& trace)
{
    bool any = false;
    TimeNs start = 0;
    TimeNs end = 0;
    std::size_t slices = 0;
    std::array<std::uint64_t, kSliceCategoryCount> categories {};
    const auto tracks = trace.tracks();
    for (std::size_t ti = 0; ti < tracks.size(); ++ti) {
        const Track& t = tracks[ti];
        if (std::string issue = trackStructureIssue(t, ti); !issue.empty())
            return issue;
        slices += t.size();
        for (std::uint32_t i = 0; i < t.size(); ++i)
            ++categories[static_cast<std::size_t>(t.category(i))];
        if (t.empty() && t.counterTimes().empty())
            continue;
        start = any ? std::min(start, t.startNs()) : t.startNs();
        end = any ? std::max(end, t.endNs()) : t.endNs();
        any = true;
    }
    if (trace.startNs() != start || trace.endNs() != end)
        return "the trace claims to span " + std::to_string(trace.startNs()) + ".." + std::to_string(trace.endNs())
            + " ns, its tracks " + std::to_string(start) + ".." + std::to_string(end) + " ns";
    if (trace.sliceCount() != slices)
        return "the trace claims " + std::to_string(trace.sliceCount()) + " slices, its tracks hold "
            + std::to_string(slices);
    for (std::size_t c = 0; c < categories.size(); ++c) {
        if (trace.categoryCount(static_cast<SliceCategory>(c)) != categories[c])
            return "the category counts";
    }
    const auto steps = trace.steps();
    for (std::size_t s = 0; s < steps.size(); ++s) {
        if (!intervalInRange(steps[s].start, steps[s].end))
            return "step " + std::to_string(s) + " runs from " + std::to_string(steps[s].start) + " to "
                + std::to_string(steps[s].end) + " ns: outside ±2^62 ns or backwards";
    }
    return {};
}

} // namespace timesink::model
