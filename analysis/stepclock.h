// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/intervals.h"
#include "model/trace.h"

#include <functional>
#include <vector>

namespace timesink::analysis {

/// The steps of a trace as time windows, for clipping lost time to the analysed wall time.
/// Steps are ordered by start; overlapping step markers (rare, e.g. nested ProfilerSteps) are made
/// disjoint by cutting each step at the start of the next, so no nanosecond is analysed twice.
/// Example: steps [0,100) and [80,200) become windows [0,80) and [80,200).
class StepClock
{
public:
    explicit StepClock(const model::Trace& trace);

    [[nodiscard]] std::size_t size() const { return m_windows.size(); }
    [[nodiscard]] const Interval& window(std::size_t i) const { return m_windows[i]; }
    [[nodiscard]] const model::Step& step(std::size_t i) const { return m_trace.steps()[i]; }
    /// Sum of the window lengths: the analysed wall time.
    [[nodiscard]] model::TimeNs analysedNs() const { return m_analysed; }
    /// The windows, sorted and disjoint (adjacent windows may touch; empty ones are kept).
    [[nodiscard]] const IntervalList& windows() const { return m_windows; }

    /// Calls f(stepIndex, clippedStart, clippedEnd) for every step window that [t0, t1) overlaps.
    template <typename F>
    void forEachOverlap(model::TimeNs t0, model::TimeNs t1, F&& f) const
    {
        auto it = std::partition_point(m_windows.begin(), m_windows.end(),
                                       [t0](const Interval& w) { return w.end <= t0; });
        for (; it != m_windows.end() && it->start < t1; ++it) {
            const model::TimeNs s = std::max(it->start, t0);
            const model::TimeNs e = std::min(it->end, t1);
            if (s < e)
                f(static_cast<std::size_t>(it - m_windows.begin()), s, e);
        }
    }
    /// The step whose window contains t, or size() when none does.
    [[nodiscard]] std::size_t stepAt(model::TimeNs t) const;

private:
    const model::Trace& m_trace;
    IntervalList m_windows; // one per trace step, same index; an empty window for a step swallowed by its predecessor
    model::TimeNs m_analysed = 0;
};

} // namespace timesink::analysis
