// SPDX-License-Identifier: MIT
#pragma once

#include <algorithm>
#include <cstddef>
#include <iterator>

namespace timesink::analysis {

/// std::partition_point(first, last, pred) for a run of searches that each land near the last one: it gallops
/// from `hint` (steps of 1, 2, 4 … towards the answer) and binary-searches only the last step, so a search that
/// moves k places costs ~2 log k probes instead of log n. Any hint in [first, last] gives partition_point's answer.
/// Example (a sweep of sorted intervals by a moving time t):
///   it = gallopingPartitionPoint(list.begin(), list.end(), it, [t](const Interval& i) { return i.end <= t; });
template <typename It, typename Pred> It gallopingPartitionPoint(It first, It last, It hint, Pred pred)
{
    const auto n = static_cast<std::size_t>(std::distance(first, last));
    const auto h = std::min(static_cast<std::size_t>(std::distance(first, hint)), n);
    std::size_t lo = 0;
    std::size_t hi = n;
    if (h < n && pred(first[h])) {
        // Forwards: the answer lies past h.
        lo = h + 1;
        for (std::size_t step = 1; lo + step - 1 < n; step *= 2) {
            if (!pred(first[lo + step - 1])) {
                hi = lo + step - 1;
                break;
            }
            lo += step;
        }
    } else {
        // Backwards: the answer is at or before h.
        hi = h;
        for (std::size_t step = 1; hi > 0; step *= 2) {
            const std::size_t probe = hi >= step ? hi - step : 0;
            if (pred(first[probe])) {
                lo = probe + 1;
                break;
            }
            hi = probe;
        }
    }
    return std::partition_point(first + static_cast<std::ptrdiff_t>(lo), first + static_cast<std::ptrdiff_t>(hi), pred);
}

} // namespace timesink::analysis
