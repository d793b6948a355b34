// SPDX-License-Identifier: MIT
// Per-rank reports from other machines (`timesink-cli job` merging timesink.report/1 files): any bytes are a report
// or an error naming the file, and what is read back obeys the limits the reader promises (docs/limits.md "Reports
// from other machines"). The summary is then merged as three ranks of a job and written in every job format, so
// hostile strings and numbers reach the writers too.
#include "analysis/job/job.h"
#include "model/checkedmath.h"
#include "report/jobreport.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace {

void check(bool condition)
{
    if (!condition)
        __builtin_trap();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    namespace analysis = timesink::analysis;
    namespace report = timesink::report;
    const nlohmann::json j = nlohmann::json::parse(data, data + size, nullptr, false);
    if (j.is_discarded())
        return 0;
    analysis::RankSummary summary;
    std::string error;
    if (!report::rankSummaryFromReportJson(j, "fuzz.report.json", summary, error)) {
        check(!error.empty() && error.find("fuzz.report.json") != std::string::npos); // a refusal names the file
        return 0;
    }
    check(summary.analysedNs >= 0 && summary.analysedNs <= timesink::model::kMaxTimeNs);
    for (const analysis::RankStep& s : summary.steps) {
        check(s.durationNs >= 0 && s.computeNs >= 0 && s.communicationNs >= 0 && s.idleNs >= 0);
        check(s.computeNs <= s.durationNs && s.communicationNs <= s.durationNs && s.idleNs <= s.durationNs);
        check(s.communicationTransferNs >= -1 && s.communicationTransferNs <= s.durationNs);
        check(s.communicationIdleNs >= 0 && s.communicationIdleNs <= s.durationNs);
        for (const analysis::RankCollective& c : s.collectives)
            check(c.start <= c.end);
        // A step's device activity is kept only as canonical lists inside the step (the lanes' interval arithmetic).
        check(s.hasActivity || (s.activity.compute.empty() && s.activity.copy.empty() && s.activity.idle.empty()));
        for (const analysis::IntervalList* list : {&s.activity.compute, &s.activity.copy, &s.activity.idle}) {
            for (std::size_t i = 0; i < list->size(); ++i) {
                const analysis::Interval& a = (*list)[i];
                check(a.start >= 0 && a.start < a.end && a.end <= s.durationNs);
                check(i == 0 || (*list)[i - 1].end < a.start);
            }
        }
    }

    for (const analysis::RankFinding& f : summary.findings)
        check(f.lostNs >= 0 && !f.kind.empty());

    std::vector<analysis::RankSummary> ranks(3, summary);
    for (std::size_t r = 0; r < ranks.size(); ++r)
        ranks[r].rank = summary.rank >= 0 ? static_cast<std::int32_t>(summary.rank + r) : -1;
    const analysis::JobResult job = analysis::analyzeJob(std::move(ranks));
    // The lanes of every step: compute, copy and idle segments lie inside their lane's step.
    for (const analysis::JobStep& st : job.steps) {
        for (const analysis::RankLane& lane : analysis::stepLanes(job, st.number).lanes) {
            for (const analysis::LaneSegment& seg : lane.segments) {
                check(seg.start <= seg.end);
                if (seg.kind == analysis::LaneKind::Compute || seg.kind == analysis::LaneKind::Copy
                    || seg.kind == analysis::LaneKind::Idle)
                    check(seg.start >= lane.stepStart && seg.end <= lane.stepEnd);
            }
        }
    }
    for (const report::JobFormat format :
         {report::JobFormat::Text, report::JobFormat::Json, report::JobFormat::Markdown, report::JobFormat::Html,
          report::JobFormat::Csv}) {
        std::ostringstream out;
        report::writeJobReport(job, format, "fuzz", out);
        check(!out.str().empty());
    }
    return 0;
}
