// SPDX-License-Identifier: MIT
#pragma once

#include "model/types.h"

#include <cstddef>
#include <vector>

namespace timesink::exporters {

/// Assigns slices of one track to lanes on which they nest properly, for trace formats that describe a slice
/// by a begin and an end on a stack (Perfetto TrackEvent) or that reject partial overlaps (Chrome JSON viewers).
/// Slices must arrive in (ts, -dur) order, as a finalized model::Track stores them. Lane 0 takes every slice
/// that nests; a slice that partially overlaps an open one (only broken sources produce them) goes to the
/// first lane where it nests, so no time is clipped and no slice is dropped.
///
/// `onEnd(lane, endNs)` is called for each slice as it closes, in the order its END must be written on that
/// lane; every end is reported before a later begin on the same lane.
///
/// Example: [0,100) [10,20) [50,150) → lanes 0, 0, 1; ends reported: (0,20) when [50,150) is placed,
/// then closeAll() reports (0,100) and (1,150).
class SliceLanes
{
public:
    template <typename OnEnd> std::size_t place(model::TimeNs ts, model::TimeNs end, OnEnd&& onEnd)
    {
        for (std::size_t lane = 0;; ++lane) {
            if (lane == m_stacks.size())
                m_stacks.emplace_back();
            std::vector<model::TimeNs>& stack = m_stacks[lane];
            while (!stack.empty() && stack.back() <= ts) {
                onEnd(lane, stack.back());
                stack.pop_back();
            }
            if (stack.empty() || stack.back() >= end) {
                stack.push_back(end);
                return lane;
            }
        }
    }

    template <typename OnEnd> void closeAll(OnEnd&& onEnd)
    {
        for (std::size_t lane = 0; lane < m_stacks.size(); ++lane) {
            std::vector<model::TimeNs>& stack = m_stacks[lane];
            while (!stack.empty()) {
                onEnd(lane, stack.back());
                stack.pop_back();
            }
        }
    }

    [[nodiscard]] std::size_t laneCount() const { return m_stacks.size(); }

private:
    std::vector<std::vector<model::TimeNs>> m_stacks; // open slices' end times, innermost last
};

} // namespace timesink::exporters
