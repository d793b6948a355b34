// SPDX-License-Identifier: MIT
#include "report/job/ranklimits.h"

#include "model/checkedmath.h"

#include <algorithm>

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

} // namespace timesink::report
