// SPDX-License-Identifier: MIT
#include "analysis/intervals.h"

#include <algorithm>

namespace timesink::analysis {

IntervalList unite(IntervalList intervals)
{
    std::erase_if(intervals, [](const Interval& i) { return i.end <= i.start; });
    if (!std::is_sorted(intervals.begin(), intervals.end(),
                        [](const Interval& a, const Interval& b) { return a.start < b.start; })) {
        std::sort(intervals.begin(), intervals.end(),
                  [](const Interval& a, const Interval& b) { return a.start < b.start; });
    }
    IntervalList out;
    out.reserve(intervals.size());
    for (const Interval& i : intervals) {
        if (!out.empty() && i.start <= out.back().end)
            out.back().end = std::max(out.back().end, i.end);
        else
            out.push_back(i);
    }
    return out;
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

IntervalList intersect(const IntervalList& a, const IntervalList& b)
{
    IntervalList out;
    std::size_t i = 0;
    std::size_t j = 0;
    while (i < a.size() && j < b.size()) {
        const model::TimeNs s = std::max(a[i].start, b[j].start);
        const model::TimeNs e = std::min(a[i].end, b[j].end);
        if (s < e)
            out.push_back({s, e});
        if (a[i].end < b[j].end)
            ++i;
        else
            ++j;
    }
    return out;
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

} // namespace timesink::analysis
