// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/finding.h"
#include "analysis/core/stepclock.h"

#include <vector>

namespace timesink::analysis {

/// Most evidence ranges and event references one finding keeps. Huge traces can produce millions
/// of occurrences; the GUI needs enough to highlight, not all of them. The lost time is always exact.
inline constexpr std::size_t kMaxEvidence = 1000;

/// Collects the lost time of one finding step by step, with capped evidence, while a pass scans.
/// Lost time is only counted inside step windows, so lostNs never exceeds the analysed wall time.
/// Example:
///   FindingAccumulator acc(clock);
///   acc.addLoss(120, 170);               // 50 ns lost in whichever step(s) cover [120, 170)
///   acc.addEvidence(track, 120, 170);
///   Finding f = acc.finish("pipeline_bubble"); // f.lostNs == 50 (if a step covers it)
class FindingAccumulator
{
public:
    explicit FindingAccumulator(const StepClock& clock);

    /// Adds lost device time [t0, t1), clipped to the steps' analysis windows. Returns the nanoseconds counted.
    model::TimeNs addLoss(model::TimeNs t0, model::TimeNs t1);
    /// Adds lost host time [t0, t1) (host ops, host fallbacks, dataloader spans), clipped to the steps' host
    /// windows: a host op belongs to the step its host was in, whatever the device was doing.
    model::TimeNs addHostLoss(model::TimeNs t0, model::TimeNs t1);
    /// Adds lost time already known to lie in step `stepIndex`.
    void addLossInStep(std::size_t stepIndex, model::TimeNs ns);
    void addEvidence(model::TrackId track, model::TimeNs start, model::TimeNs end);
    void addEvent(model::SliceRef ref);
    void countOccurrence(std::uint64_t n = 1) { m_occurrences += n; }

    [[nodiscard]] model::TimeNs lostNs() const { return m_lost; }
    [[nodiscard]] std::uint64_t occurrences() const { return m_occurrences; }
    [[nodiscard]] std::uint64_t evidenceDropped() const { return m_evidenceDropped; }

    /// Builds the finding: kind, lost time, occurrences, per-step losses (steps with a loss only,
    /// in step order), evidence sorted by time, events, firstTs. Title and texts are the caller's.
    [[nodiscard]] Finding finish(std::string kind) const;

private:
    model::TimeNs addLoss(model::TimeNs t0, model::TimeNs t1, bool hostTime);

    const StepClock& m_clock;
    std::vector<model::TimeNs> m_perStep;
    std::vector<EvidenceRange> m_evidence;
    std::vector<model::SliceRef> m_events;
    model::TimeNs m_lost = 0;
    model::TimeNs m_firstTs = 0;
    bool m_haveFirst = false;
    std::uint64_t m_occurrences = 0;
    std::uint64_t m_evidenceDropped = 0;
};

} // namespace timesink::analysis
