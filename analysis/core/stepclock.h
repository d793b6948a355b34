// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/intervals.h"
#include "model/trace.h"

#include <functional>
#include <optional>
#include <vector>

namespace timesink::analysis {

/// The steps of a trace as time windows, for clipping lost time to the analysed wall time.
///
/// Every step has two windows:
/// * The host window: its `ProfilerStep#N` marker. Steps are ordered by start; overlapping step markers (rare,
///   e.g. nested ProfilerSteps) are made disjoint by cutting each step at the start of the next, so no
///   nanosecond is analysed twice. Example: steps [0,100) and [80,200) become windows [0,80) and [80,200).
/// * The analysis window (`window()`), where the step's device time is counted: the host window moved to follow
///   the device. A device can lag its host by a whole step; its work then runs after the host step has ended
///   and belongs to the step whose host launched it. The step's device window (`deviceWindow()`) is the first
///   start to the last end of the device operations launched (launch flows) from inside its host window, widened
///   to the device-side `ProfilerStep#N` annotation (`gpu_user_annotation`) where the trace has one. Then
///     analysis window of step N = [a(N), min(a(N+1), max(host end(N), D(N))))
///     a(N) = max(host start(N), min(D(N−1), device start(N)))
///   where D(N) is the latest device end of steps ≤ N (none: −∞; a step that launched nothing has no device
///   start, the min is then D(N−1)). D(−1), before the first step, is the end of the device work queued before
///   it: operations that started before the first step's own work and were launched before its host step, or
///   before the trace began (an activity whose correlation id names no call in the trace: the profiler started
///   while the device still drained earlier work). A step begins once its host has begun it and the device has
///   finished the work of earlier steps (or begun this step's, if sooner); it ends when the next begins, or when
///   both its host step and the device work it launched have ended. Without a lagging device (every step's
///   device work ends inside its host step) the analysis windows are the host windows. Windows are disjoint and
///   sorted; a window squeezed out by its neighbours is empty.
///   Example: host steps [0,100), [100,200); the device runs step 1's work over [10,160) and step 2's over
///   [160,300) → analysis windows [0,160) and [160,300).
///
/// Device-time passes (the breakdown, idle attribution, device summary, copies, conversions, …) count inside the
/// analysis windows; host-time facts (dataloader span time, host calls, host fallback ops, launch statistics)
/// inside the host windows (`forEachHostOverlap`, `hostStepAt`).
///
/// Two windows are narrowed so that what is not the run's steady state is not counted as lost:
/// * Start-up. A trace without step markers (one synthetic step) that has measured device work is analysed
///   from the first to the last device activity; the time before is start-up (`startupNs()`), not a bubble.
/// * Warm-up. With three or more steps, a first step whose host window is longer than twice the median of the
///   others is the warm-up step (allocator, cuDNN/CANN autotuning, compilation). Its windows are empty unless
///   `includeWarmup`.
class StepClock
{
public:
    explicit StepClock(const model::Trace& trace, bool includeWarmup = false);

    [[nodiscard]] std::size_t size() const { return m_windows.size(); }
    /// The analysis window of step i (see above).
    [[nodiscard]] const Interval& window(std::size_t i) const { return m_windows[i]; }
    [[nodiscard]] const model::Step& step(std::size_t i) const { return m_trace.steps()[i]; }
    /// Sum of the analysis window lengths: the analysed wall time.
    [[nodiscard]] model::TimeNs analysedNs() const { return m_analysed; }
    /// The analysis windows, sorted and disjoint (adjacent windows may touch; empty ones are kept).
    [[nodiscard]] const IntervalList& windows() const { return m_windows; }
    /// The host window of step i (empty for an excluded warm-up step).
    [[nodiscard]] const Interval& hostWindow(std::size_t i) const { return m_host[i]; }

    /// Where the device ran step i's work (first start, last end), when it launched any.
    [[nodiscard]] bool hasDeviceWindow(std::size_t i) const { return m_hasDevice[i]; }
    [[nodiscard]] const Interval& deviceWindow(std::size_t i) const { return m_device[i]; }

    /// Time before the first device activity, left out of the synthetic step (0 when nothing was left out).
    [[nodiscard]] model::TimeNs startupNs() const { return m_startupNs; }
    /// Index of the warm-up step, or size() when no step looks like one.
    [[nodiscard]] std::size_t warmupStep() const { return m_warmup; }
    /// True when the warm-up step was left out of the analysis (its windows are empty).
    [[nodiscard]] bool warmupExcluded() const { return m_warmup < size() && !m_includeWarmup; }
    /// The analysis and host windows step i would have without the warm-up rule (for showing the warm-up step).
    [[nodiscard]] const Interval& fullWindow(std::size_t i) const { return m_full[i]; }
    [[nodiscard]] const Interval& fullHostWindow(std::size_t i) const { return m_hostFull[i]; }

    /// Calls f(stepIndex, clippedStart, clippedEnd) for every analysis window that [t0, t1) overlaps.
    template <typename F> void forEachOverlap(model::TimeNs t0, model::TimeNs t1, F&& f) const
    {
        overlapIn(m_windows, t0, t1, f);
    }
    /// The same over the host windows.
    template <typename F> void forEachHostOverlap(model::TimeNs t0, model::TimeNs t1, F&& f) const
    {
        overlapIn(m_host, t0, t1, f);
    }
    /// The step whose analysis window contains t, or size() when none does.
    [[nodiscard]] std::size_t stepAt(model::TimeNs t) const { return indexIn(m_windows, t); }
    /// The step whose host window contains t, or size() when none does.
    [[nodiscard]] std::size_t hostStepAt(model::TimeNs t) const { return indexIn(m_host, t); }

private:
    template <typename F> static void overlapIn(const IntervalList& windows, model::TimeNs t0, model::TimeNs t1, F& f)
    {
        auto it = std::partition_point(windows.begin(), windows.end(), [t0](const Interval& w) { return w.end <= t0; });
        for (; it != windows.end() && it->start < t1; ++it) {
            const model::TimeNs s = std::max(it->start, t0);
            const model::TimeNs e = std::min(it->end, t1);
            if (s < e)
                f(static_cast<std::size_t>(it - windows.begin()), s, e);
        }
    }
    static std::size_t indexIn(const IntervalList& windows, model::TimeNs t);
    void findDeviceWindows();
    void findQueuedBefore();

    const model::Trace& m_trace;
    IntervalList m_windows;  // analysis windows, one per trace step, same index (empty ones kept)
    IntervalList m_full;     // the same before the warm-up rule
    IntervalList m_host;     // host windows
    IntervalList m_hostFull; // the same before the warm-up rule
    IntervalList m_device;   // raw device windows ({0, 0} where m_hasDevice is false)
    std::vector<bool> m_hasDevice;
    std::optional<model::TimeNs> m_queuedBeforeEnd; // D(−1): end of the device work queued before the first step
    model::TimeNs m_analysed = 0;
    model::TimeNs m_startupNs = 0;
    std::size_t m_warmup = 0;
    bool m_includeWarmup = false;
};

} // namespace timesink::analysis
