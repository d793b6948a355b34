// SPDX-License-Identifier: MIT
// Per-rank reports from other machines (`timesink-cli job` merging timesink.report/1 files): any bytes are a report
// or an error naming the file, and what is read back obeys the limits the reader promises (docs/limits.md "Reports
// from other machines"). The summary is then merged as three ranks of a job and written in every job format, so
// hostile strings and numbers reach the writers too.
#include "fuzz/jobinput.h"
#include "model/checkedmath.h"

#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    namespace analysis = timesink::analysis;
    using timesink::fuzz::check;
    const std::optional<analysis::RankSummary> read = timesink::fuzz::readRankReport(data, size);
    if (!read)
        return 0;
    const analysis::RankSummary& summary = *read;
    check(summary.analysedNs >= 0 && summary.analysedNs <= timesink::model::kMaxTimeNs);
    for (const analysis::RankStep& s : summary.steps) {
        check(s.durationNs >= 0 && s.computeNs >= 0 && s.communicationNs >= 0 && s.idleNs >= 0);
        check(s.computeNs <= s.durationNs && s.communicationNs <= s.durationNs && s.idleNs <= s.durationNs);
        check(s.communicationTransferNs >= -1 && s.communicationTransferNs <= s.durationNs);
        check(s.communicationIdleNs >= 0 && s.communicationIdleNs <= s.durationNs);
        for (const analysis::RankCollective& c : s.collectives)
            check(c.start <= c.end);
        // A step's device activity is kept only as canonical lists inside the step (the lanes' interval arithmetic).
        check(s.hasActivity
              || (s.activity.compute.empty() && s.activity.copy.empty() && s.activity.idle.empty()
                  && s.activity.communicationWait.empty() && s.activity.communicationIdle.empty()));
        for (const analysis::IntervalList* list : {&s.activity.compute, &s.activity.copy, &s.activity.idle,
                                                   &s.activity.communicationWait, &s.activity.communicationIdle}) {
            for (std::size_t i = 0; i < list->size(); ++i) {
                const analysis::Interval& a = (*list)[i];
                check(a.start >= 0 && a.start < a.end && a.end <= s.durationNs);
                check(i == 0 || (*list)[i - 1].end < a.start);
            }
        }
    }

    for (const analysis::RankFinding& f : summary.findings)
        check(f.lostNs >= 0 && !f.kind.empty());

    const analysis::JobResult job = timesink::fuzz::jobOfThree(summary);
    // The lanes of every step: compute, copy and idle segments lie inside their lane's step.
    for (const analysis::JobStep& st : job.steps) {
        const analysis::StepLanes lanes = analysis::stepLanes(job, st.number);
        for (const analysis::RankLane& lane : lanes.lanes) {
            for (const analysis::LaneSegment& seg : lane.segments) {
                check(seg.start <= seg.end);
                if (seg.kind == analysis::LaneKind::Compute || seg.kind == analysis::LaneKind::Copy
                    || seg.kind == analysis::LaneKind::Idle || seg.kind == analysis::LaneKind::CollectiveIdle)
                    check(seg.start >= lane.stepStart && seg.end <= lane.stepEnd);
            }
        }
    }
    timesink::fuzz::writeEveryJobFormat(job);
    return 0;
}
