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
///
/// Two windows are narrowed so that what is not the run's steady state is not counted as lost:
/// * Start-up. A trace without step markers (one synthetic step) that has measured device work is analysed
///   from the first to the last device activity; the time before is start-up (`startupNs()`), not a bubble.
/// * Warm-up. With three or more steps, a first step longer than twice the median of the others is the warm-up
///   step (allocator, cuDNN/CANN autotuning, compilation). Its window is empty unless `includeWarmup`.
class StepClock
{
public:
    explicit StepClock(const model::Trace& trace, bool includeWarmup = false);

    [[nodiscard]] std::size_t size() const { return m_windows.size(); }
    [[nodiscard]] const Interval& window(std::size_t i) const { return m_windows[i]; }
    [[nodiscard]] const model::Step& step(std::size_t i) const { return m_trace.steps()[i]; }
    /// Sum of the window lengths: the analysed wall time.
    [[nodiscard]] model::TimeNs analysedNs() const { return m_analysed; }
    /// The windows, sorted and disjoint (adjacent windows may touch; empty ones are kept).
    [[nodiscard]] const IntervalList& windows() const { return m_windows; }

    /// Time before the first device activity, left out of the synthetic step (0 when nothing was left out).
    [[nodiscard]] model::TimeNs startupNs() const { return m_startupNs; }
    /// Index of the warm-up step, or size() when no step looks like one.
    [[nodiscard]] std::size_t warmupStep() const { return m_warmup; }
    /// True when the warm-up step was left out of the analysis (its window is empty).
    [[nodiscard]] bool warmupExcluded() const { return m_warmup < size() && !m_includeWarmup; }
    /// The window step i would have without the warm-up rule (for showing the warm-up step itself).
    [[nodiscard]] const Interval& fullWindow(std::size_t i) const { return m_full[i]; }

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
    IntervalList m_full;    // the same before the warm-up rule
    model::TimeNs m_analysed = 0;
    model::TimeNs m_startupNs = 0;
    std::size_t m_warmup = 0;
    bool m_includeWarmup = false;
};

} // namespace timesink::analysis
