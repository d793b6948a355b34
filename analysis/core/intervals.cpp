// SPDX-License-Identifier: MIT
#include "analysis/core/intervals.h"

#include "analysis/core/gallop.h"

#include <algorithm>

namespace timesink::analysis {

namespace {

bool startsBefore(const Interval& a, const Interval& b)
{
    return a.start < b.start;
}

// Sorts by start. Callers mostly hand in the slices of several tracks one track after another, each track in time
// order: a few ascending runs, which pairwise merges sort in O(n log runs) where a sort would cost O(n log n). (Which
// of two intervals with the same start comes first does not change their union.)
void sortByStart(IntervalList& intervals)
{
    constexpr std::size_t kMaxRuns = 256;
    std::vector<std::size_t> bounds {0};
    for (std::size_t i = 1; i < intervals.size(); ++i) {
        if (intervals[i].start < intervals[i - 1].start) {
            if (bounds.size() == kMaxRuns) {
                std::sort(intervals.begin(), intervals.end(), startsBefore);
                return;
            }
            bounds.push_back(i);
        }
    }
    if (bounds.size() == 1)
        return; // already sorted
    bounds.push_back(intervals.size());
    IntervalList scratch(intervals.size());
    IntervalList* from = &intervals;
    IntervalList* to = &scratch;
    while (bounds.size() > 2) {
        std::vector<std::size_t> merged {0};
        for (std::size_t r = 0; r + 1 < bounds.size(); r += 2) {
            const auto first = from->begin() + static_cast<std::ptrdiff_t>(bounds[r]);
            const auto middle = from->begin() + static_cast<std::ptrdiff_t>(bounds[r + 1]);
            const auto last
                = r + 2 < bounds.size() ? from->begin() + static_cast<std::ptrdiff_t>(bounds[r + 2]) : middle;
            std::merge(first, middle, middle, last, to->begin() + static_cast<std::ptrdiff_t>(bounds[r]), startsBefore);
            merged.push_back(r + 2 < bounds.size() ? bounds[r + 2] : bounds[r + 1]);
        }
        bounds = std::move(merged);
        std::swap(from, to);
    }
    if (from != &intervals)
        intervals = std::move(*from);
}

} // namespace

IntervalList unite(IntervalList intervals)
{
    std::erase_if(intervals, [](const Interval& i) { return i.end <= i.start; });
    sortByStart(intervals);
    // Merged in place: a second list as long as the input is memory the kernel must map and zero first (at 10 GB
    // these lists run to hundreds of MB, and their page faults grew the analysis faster than the trace).
    std::size_t kept = 0;
    for (std::size_t k = 0; k < intervals.size(); ++k) {
        const Interval i = intervals[k];
        if (kept > 0 && i.start <= intervals[kept - 1].end)
            intervals[kept - 1].end = std::max(intervals[kept - 1].end, i.end);
        else
            intervals[kept++] = i;
    }
    intervals.resize(kept);
    if (kept < intervals.capacity() / 2)
        intervals.shrink_to_fit(); // a result kept for the whole analysis should not hold the input's size
    return intervals;
}

IntervalList uniteSorted(const IntervalList& a, const IntervalList& b)
{
    IntervalList out;
    out.reserve(a.size() + b.size());
    std::size_t i = 0;
    std::size_t j = 0;
    while (i < a.size() || j < b.size()) {
        const Interval& next = (j >= b.size() || (i < a.size() && a[i].start <= b[j].start)) ? a[i++] : b[j++];
        if (!out.empty() && next.start <= out.back().end)
            out.back().end = std::max(out.back().end, next.end);
        else
            out.push_back(next);
    }
    return out;
}

IntervalList subtract(const IntervalList& a, const IntervalList& b)
{
    IntervalList out;
    std::size_t j = 0;
    for (const Interval& x : a) {
        model::TimeNs cursor = x.start;
        while (j < b.size() && b[j].end <= cursor)
            ++j;
        std::size_t k = j;
        while (k < b.size() && b[k].start < x.end) {
            if (b[k].start > cursor)
                out.push_back({cursor, b[k].start});
            cursor = std::max(cursor, b[k].end);
            if (cursor >= x.end)
                break;
            ++k;
        }
        if (cursor < x.end)
            out.push_back({cursor, x.end});
    }
    return out;
}

namespace {

// Calls f(s, e) for each non-empty piece of a ∩ b, in order: the one walk intersect() and intersectionLength() share.
template <typename F> void forEachIntersection(const IntervalList& a, const IntervalList& b, F&& f)
{
    std::size_t i = 0;
    std::size_t j = 0;
    while (i < a.size() && j < b.size()) {
        const model::TimeNs s = std::max(a[i].start, b[j].start);
        const model::TimeNs e = std::min(a[i].end, b[j].end);
        if (s < e)
            f(s, e);
        if (a[i].end < b[j].end)
            ++i;
        else
            ++j;
    }
}

} // namespace

IntervalList intersect(const IntervalList& a, const IntervalList& b)
{
    IntervalList out;
    forEachIntersection(a, b, [&](model::TimeNs s, model::TimeNs e) { out.push_back({s, e}); });
    return out;
}

model::TimeNs intersectionLength(const IntervalList& a, const IntervalList& b)
{
    model::TimeNs total = 0;
    forEachIntersection(a, b, [&](model::TimeNs s, model::TimeNs e) { total += e - s; });
    return total;
}

IntervalList clip(const IntervalList& a, model::TimeNs t0, model::TimeNs t1)
{
    IntervalList out;
    auto it = std::partition_point(a.begin(), a.end(), [t0](const Interval& i) { return i.end <= t0; });
    for (; it != a.end() && it->start < t1; ++it)
        out.push_back({std::max(it->start, t0), std::min(it->end, t1)});
    return out;
}

model::TimeNs totalLength(const IntervalList& a)
{
    model::TimeNs total = 0;
    for (const Interval& i : a)
        total += i.length();
    return total;
}

model::TimeNs overlapLength(const IntervalList& a, model::TimeNs t0, model::TimeNs t1)
{
    model::TimeNs total = 0;
    auto it = std::partition_point(a.begin(), a.end(), [t0](const Interval& i) { return i.end <= t0; });
    for (; it != a.end() && it->start < t1; ++it)
        total += std::min(it->end, t1) - std::max(it->start, t0);
    return total;
}

model::TimeNs overlapLength(const IntervalList& a, model::TimeNs t0, model::TimeNs t1, std::size_t& hint)
{
    // The first interval ending after t0 (the list is sorted by start and by end alike).
    const auto first
        = gallopingPartitionPoint(a.begin(), a.end(), a.begin() + static_cast<std::ptrdiff_t>(std::min(hint, a.size())),
                                  [t0](const Interval& i) { return i.end <= t0; });
    hint = static_cast<std::size_t>(first - a.begin());
    model::TimeNs total = 0;
    for (auto it = first; it != a.end() && it->start < t1; ++it)
        total += std::min(it->end, t1) - std::max(it->start, t0);
    return total;
}

IntervalList closeGaps(const IntervalList& a, model::TimeNs gap)
{
    IntervalList out;
    out.reserve(a.size());
    for (const Interval& i : a) {
        if (!out.empty() && i.start - out.back().end < gap)
            out.back().end = i.end;
        else
            out.push_back(i);
    }
    return out;
}

} // namespace timesink::analysis
