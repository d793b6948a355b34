// SPDX-License-Identifier: MIT
#include "report/job/ranklimits.h"

#include "model/checkedmath.h"
#include "model/utf8.h"

#include <algorithm>
#include <cmath>

namespace timesink::report {

using model::TimeNs;

/// Closes the shortest gaps of `list` (canonical: sorted, disjoint) until it has `maxPieces` pieces; returns the
/// longest gap closed (0 when the list already fits).
/// Example: ({[0,1], [2,3], [13,14], [15,16]}, 2) → {[0,3], [13,16]}, 1.
TimeNs closeShortestGaps(analysis::IntervalList& list, std::size_t maxPieces)
{
    if (list.size() <= maxPieces || maxPieces == 0)
        return 0;
    std::vector<TimeNs> gaps(list.size() - 1);
    for (std::size_t i = 0; i + 1 < list.size(); ++i)
        gaps[i] = list[i + 1].start - list[i].end;
    const std::size_t toClose = list.size() - maxPieces;
    std::nth_element(gaps.begin(), gaps.begin() + static_cast<std::ptrdiff_t>(toClose - 1), gaps.end());
    const TimeNs threshold = gaps[toClose - 1];
    // Every gap shorter than the threshold closes, then gaps of exactly the threshold until enough have closed.
    std::size_t shorter = 0;
    for (std::size_t i = 0; i + 1 < list.size(); ++i)
        shorter += list[i + 1].start - list[i].end < threshold ? 1 : 0;
    std::size_t equalToClose = toClose - shorter;
    std::size_t kept = 0;
    for (std::size_t i = 1; i < list.size(); ++i) {
        const TimeNs gap = list[i].start - list[kept].end;
        const bool close = gap < threshold || (gap == threshold && equalToClose > 0);
        if (close) {
            equalToClose -= gap == threshold ? 1 : 0;
            list[kept].end = list[i].end;
        } else {
            list[++kept] = list[i];
        }
    }
    list.resize(kept + 1);
    return threshold;
}

/// `text` cut to at most kMaxReportTextBytes bytes at the start of a UTF-8 character, with "…" when cut.
std::string boundedText(std::string text)
{
    if (text.size() <= kMaxReportTextBytes)
        return text;
    std::size_t cut = kMaxReportTextBytes;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80)
        --cut;
    text.resize(cut);
    return text + "…";
}

/// Why a step read from a report cannot be true ("duration_ns -5 is negative"), or empty. The same limits as
/// an import: times within ±2^62 ns, durations not negative, the step inside the trace's span when the report
/// gives one, no part of the step longer than the step, collectives that end after they start.
std::string stepProblem(const analysis::RankStep& s, std::int64_t traceStart, std::int64_t traceSpan)
{
    // exposed_transfer_ns is −1 in a report that did not split it (read as "unknown", not as a time).
    const std::pair<const char*, TimeNs> parts[]
        = {{"duration_ns", s.durationNs},
           {"compute_ns", s.computeNs},
           {"communication_ns", s.communicationNs},
           {"exposed_wait_ns", s.communicationWaitNs},
           {"exposed_transfer_ns", s.communicationTransferNs == -1 ? 0 : s.communicationTransferNs},
           {"exposed_idle_ns", s.communicationIdleNs},
           {"idle_ns", s.idleNs}};
    for (const auto& [name, value] : parts) {
        if (value < 0)
            return std::string(name) + " " + std::to_string(value) + " is negative";
        if (value > model::kMaxTimeNs || (traceSpan >= 0 && value > traceSpan))
            return std::string(name) + " " + std::to_string(value) + " is longer than the trace";
    }
    if (!model::timeInRange(s.startNs))
        return "start_ns " + std::to_string(s.startNs) + " is out of range";
    for (const auto& [name, value] : parts) {
        if (value > s.durationNs)
            return std::string(name) + " " + std::to_string(value) + " is longer than the step ("
                + std::to_string(s.durationNs) + " ns)";
    }
    if (traceSpan >= 0 && (s.startNs < traceStart || s.startNs - traceStart > traceSpan - s.durationNs))
        return "the step [" + std::to_string(s.startNs) + ", +" + std::to_string(s.durationNs)
            + ") lies outside the trace [" + std::to_string(traceStart) + ", +" + std::to_string(traceSpan) + ")";
    for (const analysis::RankCollective& c : s.collectives) {
        if (!model::timeInRange(c.start) || !model::timeInRange(c.end) || c.end < c.start)
            return "a collective (" + c.opKind + ") ends before it starts or lies out of range";
        for (const analysis::Interval& e : c.exposed) {
            if (e.start < c.start || e.end > c.end)
                return "an exposed range of a collective (" + c.opKind + ") lies outside it";
        }
    }
    return {};
}

namespace {

/// A finding kind as Timesink writes them ("pipeline_bubble"): a kind from a report lands in every job writer's
/// tables and code spans, so anything else is not taken.
bool isKindId(std::string_view kind)
{
    return !kind.empty() && kind.size() <= 64 && std::all_of(kind.begin(), kind.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    });
}

/// A text of a report as a job keeps it: well-formed UTF-8 (a report read from a file is; a trace analysed here may
/// hold anything the JSON writer would have replaced), then bounded.
std::string reportText(std::string text)
{
    model::makeValidUtf8(text);
    return boundedText(std::move(text));
}

/// The collectives of `step` under the limits, with a warning for each one coarsened; the reason the step must be
/// left out (too many collectives or exposed ranges), or empty.
std::string limitCollectives(DraftStep& draft, const std::string& source, BoundedWarnings& problems)
{
    analysis::RankStep& step = draft.step;
    if (draft.collectivesGiven > kMaxStepCollectives)
        return "it has " + std::to_string(draft.collectivesGiven) + " collectives (at most "
            + std::to_string(kMaxStepCollectives) + ")";
    std::size_t stepRanges = 0;
    for (std::size_t ci = 0; ci < step.collectives.size(); ++ci) {
        analysis::RankCollective& rc = step.collectives[ci];
        rc.opKind = reportText(std::move(rc.opKind));
        rc.group = reportText(std::move(rc.group));
        rc.linkTransport = reportText(std::move(rc.linkTransport));
        // Re-canonicalise: a hand-edited or foreign file must not break the interval arithmetic.
        rc.exposed = analysis::unite(std::move(rc.exposed));
        if (const std::size_t given = rc.exposed.size(); given > kMaxExposedRanges) {
            const TimeNs closed = closeShortestGaps(rc.exposed, kMaxExposedRanges);
            problems.add("report " + source + ": step " + std::to_string(step.number) + ", collective "
                         + std::to_string(ci) + " (" + rc.opKind + "): " + std::to_string(given)
                         + " exposed ranges merged into " + std::to_string(kMaxExposedRanges) + " (gaps up to "
                         + std::to_string(closed) + " ns closed)");
        }
        stepRanges += rc.exposed.size();
        if (stepRanges > kMaxStepExposedRanges)
            return "its collectives have more than " + std::to_string(kMaxStepExposedRanges) + " exposed ranges";
    }
    return {};
}

} // namespace

std::string activityProblem(const analysis::StepActivity& activity, TimeNs durationNs)
{
    if (activity.resolutionNs < 1 || activity.resolutionNs > model::kMaxTimeNs)
        return "\"resolution_ns\" is not a positive integer";
    const std::pair<const char*, const analysis::IntervalList*> lists[]
        = {{"compute", &activity.compute},
           {"copy", &activity.copy},
           {"idle", &activity.idle},
           {"communication_wait", &activity.communicationWait},
           {"communication_idle", &activity.communicationIdle}};
    for (const auto& [name, list] : lists) {
        if (list->size() > kMaxActivityRanges)
            return std::string("\"") + name + "\" has " + std::to_string(list->size()) + " ranges (at most "
                + std::to_string(kMaxActivityRanges) + ")";
        for (const analysis::Interval& i : *list) {
            if (i.start < 0 || i.end < i.start || i.end > durationNs)
                return std::string("a range of \"") + name + "\" [" + std::to_string(i.start) + ", "
                    + std::to_string(i.end) + "] lies outside the step";
        }
    }
    return {};
}

model::Expected<analysis::RankSummary> limitRankReport(RankReportDraft draft, const std::string& source)
{
    const auto fail = [&](const std::string& what) {
        return model::Status(model::StatusKind::Malformed, source + ": not a timesink.report/1 object (" + what + ")");
    };
    // What cannot be a time at all refuses the report; a step, a collective or a finding that breaks the limits is
    // left out with a warning naming it (docs/limits.md "Reports from other machines").
    if (draft.traceSpanNs < -1 || draft.traceSpanNs > model::kMaxTimeNs || !model::timeInRange(draft.traceStartNs))
        return fail("trace start_ns / span_ns out of range");
    const TimeNs analysedNs = draft.summary.analysedNs;
    if (analysedNs < 0 || analysedNs > model::kMaxTimeNs || (draft.traceSpanNs >= 0 && analysedNs > draft.traceSpanNs))
        return fail("\"analysed_ns\": " + std::to_string(analysedNs) + " is not within the trace's span");

    analysis::RankSummary out = std::move(draft.summary);
    out.source = source;
    out.traceStartNs = draft.traceStartNs;
    out.steps.clear();
    out.findings.clear();
    out.warnings.clear();
    for (std::string* text : {&out.format, &out.platform, &out.backend, &out.tracePath, &out.generator})
        *text = reportText(std::move(*text));
    if (out.backend.empty())
        out.backend = "unknown";

    // The report's own problems (numbers out of range, steps and findings left out), at most kMaxReportWarnings.
    BoundedWarnings problems(out.warnings, "problems of report " + source);
    // Out of range, a rank or world size is unknown: clamped, 2^31 became a world size of 2^30 that won a tie.
    std::int64_t rank = draft.rank;
    std::int64_t world = draft.worldSize;
    if (rank >= kMaxWorldSize) {
        problems.add("report " + source + ": rank " + std::to_string(rank) + " is out of range (0 to "
                     + std::to_string(kMaxWorldSize - 1) + "); taken as unknown");
        rank = -1;
    }
    if (world > kMaxWorldSize) {
        problems.add("report " + source + ": world size " + std::to_string(world) + " is out of range (1 to "
                     + std::to_string(kMaxWorldSize) + "); taken as unknown");
        world = -1;
    }
    out.rank = static_cast<std::int32_t>(std::max<std::int64_t>(rank, -1));
    out.worldSize = static_cast<std::int32_t>(std::max<std::int64_t>(world, -1));
    {
        BoundedWarnings imported(out.warnings, "serious import warnings of report " + source);
        for (std::string& message : draft.seriousImportWarnings)
            imported.add(reportText(std::move(message)));
        imported.finish();
    }

    if (draft.stepsGiven > kMaxReportSteps)
        problems.add("report " + source + ": " + std::to_string(draft.stepsGiven - kMaxReportSteps)
                     + (draft.stepsGiven - kMaxReportSteps == 1 ? " step" : " steps") + " after the first "
                     + std::to_string(kMaxReportSteps) + " left out (at most " + std::to_string(kMaxReportSteps)
                     + " steps per report)");
    out.steps.reserve(std::min(draft.steps.size(), kMaxReportSteps));
    for (std::size_t si = 0; si < draft.steps.size() && si < kMaxReportSteps; ++si) {
        DraftStep& d = draft.steps[si];
        analysis::RankStep& step = d.step;
        std::string why = limitCollectives(d, source, problems);
        if (why.empty())
            why = stepProblem(step, draft.traceStartNs, draft.traceSpanNs);
        if (!why.empty()) {
            problems.add("report " + source + ": step " + std::to_string(step.number) + " left out: " + why);
            continue;
        }
        if (step.hasActivity || !d.activityUnreadable.empty()) {
            std::string bad = d.activityUnreadable.empty() ? activityProblem(step.activity, step.durationNs)
                                                           : std::move(d.activityUnreadable);
            if (!bad.empty()) {
                step.hasActivity = false;
                step.activity = {};
                problems.add("report " + source + ": step " + std::to_string(step.number)
                             + ": device_activity left out: " + bad);
            } else {
                // Re-canonicalise: a hand-edited or foreign file must not break the interval arithmetic.
                for (analysis::IntervalList* list :
                     {&step.activity.compute, &step.activity.copy, &step.activity.idle,
                      &step.activity.communicationWait, &step.activity.communicationIdle})
                    *list = analysis::unite(std::move(*list));
            }
        }
        // The host's evidence before the first collective: each part within the stretch, names bounded.
        const bool hostOk = step.hostBeforeFirstNs >= 0 && step.hostBeforeFirstNs <= model::kMaxTimeNs
            && std::all_of(step.hostBeforeFirst.begin(), step.hostBeforeFirst.end(),
                           [&](const analysis::HostActivity& a) {
                               return a.ns >= 0 && a.ns <= step.hostBeforeFirstNs;
                           });
        if (!hostOk) {
            problems.add("report " + source + ": step " + std::to_string(step.number)
                         + ": host_before_first_collective left out: a part is negative or longer than its stretch");
            step.hostBeforeFirst.clear();
            step.hostBeforeFirstNs = 0;
        }
        for (analysis::HostActivity& a : step.hostBeforeFirst)
            a.name = reportText(std::move(a.name));
        out.steps.push_back(std::move(step));
    }

    if (draft.findingsGiven > kMaxReportFindings)
        problems.add("report " + source + ": " + std::to_string(draft.findingsGiven - kMaxReportFindings)
                     + (draft.findingsGiven - kMaxReportFindings == 1 ? " finding" : " findings") + " after the first "
                     + std::to_string(kMaxReportFindings) + " left out (at most " + std::to_string(kMaxReportFindings)
                     + " per report)");
    for (std::size_t fi = 0; fi < draft.findings.size() && fi < kMaxReportFindings; ++fi) {
        analysis::RankFinding& rf = draft.findings[fi];
        rf.kind = reportText(std::move(rf.kind));
        rf.title = reportText(std::move(rf.title));
        if (!isKindId(rf.kind)) {
            problems.add("report " + source
                         + ": a finding left out: its kind is not an id ([a-z0-9_], at most 64 characters)");
            continue;
        }
        if (rf.lostNs < 0 || rf.lostNs > model::kMaxTimeNs || !std::isfinite(rf.lostFraction) || rf.lostFraction < 0) {
            problems.add("report " + source + ": finding \"" + rf.title + "\" left out: lost_ns "
                         + std::to_string(rf.lostNs) + " is impossible");
            continue;
        }
        out.findings.push_back(std::move(rf));
    }
    problems.finish();
    return out;
}

} // namespace timesink::report
