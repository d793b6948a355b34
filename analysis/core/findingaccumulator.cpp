// SPDX-License-Identifier: MIT
#include "analysis/core/findingaccumulator.h"

#include <algorithm>

namespace timesink::analysis {

FindingAccumulator::FindingAccumulator(const StepClock& clock)
    : m_clock(clock)
    , m_perStep(clock.size(), 0)
{
}

model::TimeNs FindingAccumulator::addLoss(model::TimeNs t0, model::TimeNs t1, bool hostTime)
{
    model::TimeNs counted = 0;
    const auto add = [&](std::size_t step, model::TimeNs s, model::TimeNs e) {
        m_perStep[step] += e - s;
        counted += e - s;
        if (!m_haveFirst || s < m_firstTs) {
            m_firstTs = s;
            m_haveFirst = true;
        }
    };
    if (hostTime)
        m_clock.forEachHostOverlap(t0, t1, add);
    else
        m_clock.forEachOverlap(t0, t1, add);
    m_lost += counted;
    return counted;
}

model::TimeNs FindingAccumulator::addLoss(model::TimeNs t0, model::TimeNs t1)
{
    return addLoss(t0, t1, false);
}

model::TimeNs FindingAccumulator::addHostLoss(model::TimeNs t0, model::TimeNs t1)
{
    return addLoss(t0, t1, true);
}

void FindingAccumulator::addLossInStep(std::size_t stepIndex, model::TimeNs ns)
{
    if (stepIndex >= m_perStep.size() || ns <= 0)
        return;
    m_perStep[stepIndex] += ns;
    m_lost += ns;
}

void FindingAccumulator::addEvidence(model::TrackId track, model::TimeNs start, model::TimeNs end)
{
    if (!m_haveFirst || start < m_firstTs) {
        m_firstTs = start;
        m_haveFirst = true;
    }
    if (m_evidence.size() >= kMaxEvidence) {
        ++m_evidenceDropped;
        return;
    }
    m_evidence.push_back({track, start, end});
}

void FindingAccumulator::addEvent(model::SliceRef ref)
{
    if (m_events.size() < kMaxEvidence && ref.isValid())
        m_events.push_back(ref);
}

Finding FindingAccumulator::finish(std::string kind) const
{
    Finding f;
    f.kind = std::move(kind);
    f.lostNs = m_lost;
    f.occurrences = m_occurrences;
    f.lostFraction = m_clock.analysedNs() > 0 ? double(m_lost) / double(m_clock.analysedNs()) : 0.0;
    for (std::size_t i = 0; i < m_perStep.size(); ++i) {
        if (m_perStep[i] == 0)
            continue;
        const model::Step& s = m_clock.step(i);
        f.perStep.push_back({i, s.number, m_perStep[i], m_clock.window(i).length()});
    }
    f.evidence = m_evidence;
    std::stable_sort(f.evidence.begin(), f.evidence.end(), [](const EvidenceRange& a, const EvidenceRange& b) {
        return a.start != b.start ? a.start < b.start : a.track < b.track;
    });
    f.events = m_events;
    f.evidenceOmitted = m_evidenceDropped;
    f.firstTs = m_haveFirst ? m_firstTs : 0;
    return f;
}

} // namespace timesink::analysis
