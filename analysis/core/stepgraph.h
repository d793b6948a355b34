// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/criticalpath.h"
#include "analysis/core/finding.h"
#include "analysis/core/pass.h"
#include "analysis/core/stepclock.h"
#include "model/trace.h"

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace timesink::analysis {

/// The critical paths of a trace's steps and what each what-if saves per step.
struct Retiming
{
    std::vector<StepCriticalPath> steps;             // one per trace step (StepClock index)
    std::vector<std::vector<model::TimeNs>> savings; // [what-if][step]: saving in ns, −1 where not re-timed
    std::string notAssessedReason;                   // the whole trace cannot be re-timed (empty otherwise)
    std::size_t stepsAssessed = 0;
    std::size_t cyclicSteps = 0;       // steps whose graph had a cycle (corrupt flows): warned, fallen back
    std::size_t inconsistentSteps = 0; // steps that broke a physical bound (a bug): warned, not reported
};

/// The trace-wide groundwork of re-timing, the same for every what-if: which call launched each device operation,
/// the trace's typical launch latency and stream gap (what a thread did in a step is read per step). It
/// costs one pass over the trace's flows and tracks, so analyze() builds it on a worker while the passes run.
/// Read-only once built: retimeSteps may use one plan from several threads.
class RetimingPlan
{
public:
    RetimingPlan(const model::Trace& trace, const StepClock& clock);
    ~RetimingPlan();
    RetimingPlan(const RetimingPlan&) = delete;
    RetimingPlan& operator=(const RetimingPlan&) = delete;
    RetimingPlan(RetimingPlan&&) = delete;
    RetimingPlan& operator=(RetimingPlan&&) = delete;

    /// Why no step of this trace can be re-timed (laid-out timestamps, no device work, no launch links), or empty.
    [[nodiscard]] const std::string& notAssessedReason() const { return m_reason; }
    [[nodiscard]] const StepClock& clock() const { return m_clock; }
    /// Device work the trace does not record (DeviceActivity::unrecorded): launch latency over it is booked as
    /// `unrecorded` on the paths. Set before retimeSteps, never while it runs.
    void setUnrecorded(IntervalList unrecorded);

    struct State;
    [[nodiscard]] const State& state() const { return *m_state; }

private:
    const StepClock& m_clock;
    std::unique_ptr<State> m_state;
    std::string m_reason;
};

/// Builds each analysed step's dependency graph and re-times it once per what-if (docs/analysis.md).
///
/// Nodes: per host thread that launches device work or blocks on it, its runtime calls (launches, blocking calls)
/// and the host time between them, in program order; the device operations those calls launched (launch flows),
/// in stream order; device operations of the step window without a launch link, pinned at their measured start.
/// Edges: program order; launch → operation (with the launch latency measured, or the trace's typical one where
/// the operation waited for its stream); stream order (with the measured gap, or the typical one); a blocking call
/// ends after the last operation launched before it that ended before it returned, on each stream. Work of earlier
/// steps is pinned at its measured times, so every step is re-timed from its own measured start. The graph replays
/// the measured times exactly; a what-if changes durations and drops edges, and the saving is how much earlier the
/// step's last host or device end comes (clipped to [0, step window]).
/// A step whose graph has a cycle (corrupt flows) is not re-timed (savings −1), never a hang.
/// Example:
///   WhatIf noFetch; noFetch.removedHost = fetchSlices;
///   const WhatIf* list[] = {&noFetch};
///   Retiming r = retimeSteps(trace, clock, list, cancel);
///   r.savings[0][i];  // how much shorter step i gets without the fetches
Retiming retimeSteps(const RetimingPlan& plan, std::span<const WhatIf* const> whatIfs, const CancelToken& cancel);
/// The same with a plan of its own.
Retiming retimeSteps(const model::Trace& trace, const StepClock& clock, std::span<const WhatIf* const> whatIfs,
                     const CancelToken& cancel);

/// The what-if of fixing every finding at once: the union of their what-ifs (a device operation both removed and
/// scaled is removed; scaled operations take the smallest scale of the findings that scale them).
WhatIf mergeWhatIfs(std::span<const Finding> findings);

/// Re-times the analysed steps once per finding and once for all findings together and fills, from that one
/// computation: every finding's savingNs, savingFraction, savingMethod and per-step savings (kinds without a
/// what-if, steps not re-timed: the lost time), the result's savingNs (all findings fixed together, never more than
/// a step's window per step), its critical paths and the cycle warning; then clears the findings' what-ifs and
/// ranks them (rankBefore). Called by analyze() after the passes, with the plan it built beside them.
void projectSavings(const RetimingPlan& plan, const CancelToken& cancel, AnalysisResult& result);

} // namespace timesink::analysis
