// SPDX-License-Identifier: MIT
#pragma once

#include "model/types.h"

#include <algorithm>
#include <vector>

namespace timesink::analysis {

/// A half-open time range [start, end).
struct Interval
{
    model::TimeNs start = 0;
    model::TimeNs end = 0;
    [[nodiscard]] model::TimeNs length() const { return end - start; }
    bool operator==(const Interval&) const = default;
};

/// A list of intervals kept sorted by start, non-overlapping and non-touching ("canonical").
/// All set operations below take and return canonical lists. Example:
///   unite({{0,10},{5,20},{30,40}}) == {{0,20},{30,40}}
///   subtract({{0,20}}, {{5,8},{10,12}}) == {{0,5},{8,10},{12,20}}
using IntervalList = std::vector<Interval>;

/// Sorts arbitrary intervals and merges overlapping or touching ones; empty intervals are dropped.
IntervalList unite(IntervalList intervals);
/// Adds [s, e) to a canonical list during a sweep in start order (no interval of the list starts after s): merged
/// into the last interval when they overlap or touch, dropped when empty. The list stays canonical, so a sweep over
/// slices sorted by start builds their union without collecting them (nested slices cost nothing).
inline void appendInStartOrder(IntervalList& list, model::TimeNs s, model::TimeNs e)
{
    if (e <= s)
        return;
    if (!list.empty() && s <= list.back().end)
        list.back().end = std::max(list.back().end, e);
    else
        list.push_back({s, e});
}
/// Union of two canonical lists (linear).
IntervalList uniteSorted(const IntervalList& a, const IntervalList& b);
/// a minus b (linear).
IntervalList subtract(const IntervalList& a, const IntervalList& b);
/// a intersected with b (linear).
IntervalList intersect(const IntervalList& a, const IntervalList& b);
/// totalLength(intersect(a, b)) without building the intersection (linear, no allocation).
model::TimeNs intersectionLength(const IntervalList& a, const IntervalList& b);
/// The parts of a canonical list inside [t0, t1) (binary search, then linear in the result).
IntervalList clip(const IntervalList& a, model::TimeNs t0, model::TimeNs t1);
/// Total length of a canonical list.
model::TimeNs totalLength(const IntervalList& a);
/// Length of the part of a canonical list inside [t0, t1), without allocating.
model::TimeNs overlapLength(const IntervalList& a, model::TimeNs t0, model::TimeNs t1);
/// The same for a run of nearby queries on one list: `hint` (0 for the first query) is where the last query's
/// intervals began, and the search gallops from there in either direction, so queries that move along the list
/// (a sweep forwards, a path walked backwards) cost a few steps each instead of a binary search of the whole list.
/// Any order of queries gives the same lengths. Example:
///   std::size_t hint = 0;
///   for (const auto& [t0, t1] : spans) total += overlapLength(busy, t0, t1, hint);
model::TimeNs overlapLength(const IntervalList& a, model::TimeNs t0, model::TimeNs t1, std::size_t& hint);
/// A canonical list with every gap shorter than `gap` filled: the pieces that remain are at least `gap` apart, so
/// a list over a span T has at most T / gap + 1 of them (a picture's resolution). Example:
///   closeGaps({{0,10},{12,20},{40,50}}, 5) == {{0,20},{40,50}}
IntervalList closeGaps(const IntervalList& a, model::TimeNs gap);

} // namespace timesink::analysis
