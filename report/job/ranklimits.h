// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/intervals.h"
#include "analysis/core/stepactivity.h"
#include "analysis/job/job.h"
#include "model/expected.h"
#include "model/types.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace timesink::report {

// What a per-rank report may hold (docs/limits.md "Reports from other machines"). A report is a summary that a job
// multiplies by its ranks and every job writer multiplies again (a Markdown cell, two heat-map cells and a lane per
// rank and step), so each list read from one is bounded here, where the file is read, not by the 256 MiB file limit
// alone (an 18 MB report of 10^6 exposed ranges made a 344 MB Markdown job report):
// * steps: the first kMaxReportSteps are taken, the rest left out with a warning (the job of what fits is still
//   worth having; the warning says the rank's table is cut);
// * a collective's exposed ranges: more than kMaxExposedRanges (the cap of a step's device activity) are coarsened,
//   their shortest gaps closed until kMaxExposedRanges remain, with a warning naming the longest gap closed, as the
//   analysis coarsens device activity: a rank analysed from its trace goes through this reader too, and a long
//   collective overlapped by thousands of small kernels is real, so its step must stay;
// * a step with more than kMaxStepCollectives collectives, or more than kMaxStepExposedRanges exposed ranges after
//   that, is left out with a warning naming it, like a step whose numbers cannot be true (keeping some collectives
//   would change the waiting the job attributes);
// * findings: the first kMaxReportFindings (they are ranked), the rest counted in a warning;
// * the rank's import warnings and the job's warnings about this report: kMaxReportWarnings each, then one line
//   counting the rest;
// * each text (titles, op names, backend, paths, messages): kMaxReportTextBytes, cut at a character with "…";
// * rank and world size: a world size of 1 .. kMaxWorldSize, a rank of 0 .. kMaxWorldSize − 1; anything else is
//   "unknown", with a warning (a garbled 2^31 must not become the job's world size).
inline constexpr std::size_t kMaxReportSteps = 65'536;
inline constexpr std::size_t kMaxStepCollectives = 65'536;
inline constexpr auto kMaxExposedRanges = static_cast<std::size_t>(4 * (analysis::kStepActivityDivisions + 1)); // 8,196
inline constexpr std::size_t kMaxStepExposedRanges = 262'144;
/// Each list of a step's device activity: what the analysis writes (kStepActivityDivisions + 1), with room to spare.
inline constexpr auto kMaxActivityRanges = static_cast<std::size_t>(4 * (analysis::kStepActivityDivisions + 1));
inline constexpr std::size_t kMaxReportFindings = 1'024;
inline constexpr std::size_t kMaxReportWarnings = 64;
inline constexpr std::size_t kMaxReportTextBytes = 4'096;
inline constexpr std::int64_t kMaxWorldSize = std::int64_t {1} << 20;

/// Closes the shortest gaps of `list` (canonical: sorted, disjoint) until it has `maxPieces` pieces; returns the
/// longest gap closed (0 when the list already fits).
/// Example: ({[0,1], [2,3], [13,14], [15,16]}, 2) → {[0,3], [13,16]}, 1.
model::TimeNs closeShortestGaps(analysis::IntervalList& list, std::size_t maxPieces);

/// `text` cut to at most kMaxReportTextBytes bytes at the start of a UTF-8 character, with "…" when cut.
std::string boundedText(std::string text);

/// Warnings about one report, at most kMaxReportWarnings of them; past that, one line counts the rest.
class BoundedWarnings
{
public:
    BoundedWarnings(std::vector<std::string>& out, std::string what)
        : m_out(out)
        , m_what(std::move(what))
    {
    }
    BoundedWarnings(const BoundedWarnings&) = delete;
    BoundedWarnings& operator=(const BoundedWarnings&) = delete;
    ~BoundedWarnings() = default;
    void add(std::string message)
    {
        if (m_added++ < kMaxReportWarnings)
            m_out.push_back(boundedText(std::move(message)));
    }
    /// Appends the line that counts what was not listed (call once, at the end).
    void finish()
    {
        if (m_added > kMaxReportWarnings)
            m_out.push_back(std::to_string(m_added - kMaxReportWarnings) + " more " + m_what + " not listed");
    }

private:
    std::vector<std::string>& m_out;
    std::string m_what;
    std::size_t m_added = 0;
};

/// Why a step's device activity cannot be true ("a range of \"idle\" [5, 90] lies outside the step"), or empty:
/// a resolution of 1 .. 2^62 ns, at most kMaxActivityRanges ranges per list, each inside [0, durationNs].
std::string activityProblem(const analysis::StepActivity& activity, model::TimeNs durationNs);

/// One step of a rank report before the limits: the step as given, how many collectives the report gave for it
/// (`step.collectives` is empty when they were too many to read) and why its device activity could not be read.
struct DraftStep
{
    analysis::RankStep step;
    std::size_t collectivesGiven = 0;
    std::string activityUnreadable;
};

/// What a rank report says before the limits above are applied. It comes from a `timesink.report/1` object
/// (rankreportreader.cpp) or from the typed report of a trace analysed in this process (job/ranksummary.cpp); both
/// end in limitRankReport, so a job built from traces equals a job built from their reports.
struct RankReportDraft
{
    /// Texts as given (not yet bounded); `steps`, `findings` and `warnings` empty (they are below).
    analysis::RankSummary summary;
    std::int64_t rank = -1;
    std::int64_t worldSize = -1;
    std::int64_t traceStartNs = 0;
    std::int64_t traceSpanNs = -1;                  // −1 unknown
    std::vector<std::string> seriousImportWarnings; // the messages of the trace's serious import warnings
    std::vector<DraftStep> steps;                   // at most kMaxReportSteps
    std::size_t stepsGiven = 0;                     // how many steps the report holds
    std::vector<analysis::RankFinding> findings;    // ranked, at most kMaxReportFindings
    std::size_t findingsGiven = 0;
};

/// The summary a job merges, from `draft` under the limits above: what breaks one is left out or coarsened with a
/// warning in the summary's `warnings`. A Malformed status naming `source` when a number cannot be a time at all (the
/// trace's start or span, the analysed time): then the report is refused.
model::Expected<analysis::RankSummary> limitRankReport(RankReportDraft draft, const std::string& source);

/// Why a step read from a report cannot be true ("duration_ns -5 is negative"), or empty. The same limits as
/// an import: times within ±2^62 ns, durations not negative, the step inside the trace's span when the report
/// gives one, no part of the step longer than the step, collectives that end after they start.
std::string stepProblem(const analysis::RankStep& s, std::int64_t traceStart, std::int64_t traceSpan);

} // namespace timesink::report
