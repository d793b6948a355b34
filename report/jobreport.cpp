// SPDX-License-Identifier: MIT
#include "report/jobreport.h"

#include "analysis/job/jobcompare.h"
#include "model/checkedmath.h"
#include "model/importwarning.h"
#include "report/csvwriter.h"
#include "report/htmlwriter.h"
#include "report/jsonreportwriter.h"
#include "report/reportjson.h"
#include "report/textformat.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>

namespace timesink::report {

using analysis::JobResult;
using model::TimeNs;

namespace {

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
constexpr std::size_t kMaxReportSteps = 65'536;
constexpr std::size_t kMaxStepCollectives = 65'536;
constexpr auto kMaxExposedRanges = static_cast<std::size_t>(4 * (analysis::kStepActivityDivisions + 1)); // 8,196
constexpr std::size_t kMaxStepExposedRanges = 262'144;
constexpr std::size_t kMaxReportFindings = 1'024;
constexpr std::size_t kMaxReportWarnings = 64;
constexpr std::size_t kMaxReportTextBytes = 4'096;
constexpr std::int64_t kMaxWorldSize = std::int64_t {1} << 20;

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

// Typed reads that fail with a message naming the field instead of throwing deep inside a merge.
struct Reader
{
    const std::string& source;
    std::string& error;

    bool fail(const std::string& what)
    {
        if (error.empty())
            error = source + ": not a timesink.report/1 object (" + what + ")";
        return false;
    }
    bool integer(const nlohmann::json& j, const char* key, std::int64_t& out, bool required = true)
    {
        const auto it = j.find(key);
        if (it == j.end() || it->is_null())
            return required ? fail(std::string("missing \"") + key + "\"") : true;
        if (!it->is_number_integer())
            return fail(std::string("\"") + key + "\" is not an integer");
        out = it->get<std::int64_t>();
        return true;
    }
    bool text(const nlohmann::json& j, const char* key, std::string& out)
    {
        const auto it = j.find(key);
        if (it == j.end() || it->is_null())
            return true;
        if (!it->is_string())
            return fail(std::string("\"") + key + "\" is not a string");
        out = boundedText(it->get<std::string>());
        return true;
    }
};

/// A finding kind as Timesink writes them ("pipeline_bubble"): a kind from a report lands in every job writer's
/// tables and code spans, so anything else is not taken.
bool isKindId(std::string_view kind)
{
    return !kind.empty() && kind.size() <= 64 && std::all_of(kind.begin(), kind.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    });
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

/// Reads a step's optional "device_activity" into `step`; the reason it cannot be true otherwise (the step keeps its
/// numbers, only its picture is left out). Each list: [start, end] pairs inside [0, duration], at most 4 × 2,049.
std::string readActivity(const nlohmann::json& a, analysis::RankStep& step)
{
    if (!a.is_object())
        return "it is not an object";
    const auto res = a.find("resolution_ns");
    if (res == a.end() || !res->is_number_integer() || res->get<std::int64_t>() < 1
        || res->get<std::int64_t>() > model::kMaxTimeNs)
        return "\"resolution_ns\" is not a positive integer";
    step.activity.resolutionNs = res->get<TimeNs>();
    constexpr std::size_t kMaxPieces = 4 * (analysis::kStepActivityDivisions + 1);
    const std::pair<const char*, analysis::IntervalList*> lists[]
        = {{"compute", &step.activity.compute}, {"copy", &step.activity.copy}, {"idle", &step.activity.idle}};
    for (const auto& [name, list] : lists) {
        const auto it = a.find(name);
        if (it == a.end() || it->is_null())
            continue;
        if (!it->is_array())
            return std::string("\"") + name + "\" is not an array";
        if (it->size() > kMaxPieces)
            return std::string("\"") + name + "\" has " + std::to_string(it->size()) + " ranges (at most "
                + std::to_string(kMaxPieces) + ")";
        list->reserve(it->size());
        for (const nlohmann::json& e : *it) {
            if (!e.is_array() || e.size() != 2 || !e[0].is_number_integer() || !e[1].is_number_integer())
                return std::string("a range of \"") + name + "\" is not [start, end]";
            const TimeNs start = e[0].get<TimeNs>();
            const TimeNs end = e[1].get<TimeNs>();
            if (start < 0 || end < start || end > step.durationNs)
                return std::string("a range of \"") + name + "\" [" + std::to_string(start) + ", " + std::to_string(end)
                    + "] lies outside the step";
            list->push_back({start, end});
        }
        // Re-canonicalise: a hand-edited or foreign file must not break the interval arithmetic.
        *list = analysis::unite(std::move(*list));
    }
    step.hasActivity = true;
    return {};
}

} // namespace

bool rankSummaryFromReportJson(const nlohmann::json& j, const std::string& source, analysis::RankSummary& out,
                               std::string& error)
{
    error.clear();
    Reader r {source, error};
    if (!j.is_object())
        return r.fail("not a JSON object");
    const auto schema = j.find("schema");
    if (schema == j.end() || !schema->is_string() || *schema != kReportSchema)
        return r.fail("no \"schema\": \"timesink.report/1\"");
    out = {};
    out.source = source;
    const auto trace = j.find("trace");
    if (trace == j.end() || !trace->is_object())
        return r.fail("missing \"trace\"");
    std::int64_t rank = -1;
    std::int64_t world = -1;
    if (!r.integer(*trace, "rank", rank, false) || !r.integer(*trace, "world_size", world, false)
        || !r.text(*trace, "format", out.format) || !r.text(j, "platform", out.platform))
        return false;
    // The report's own problems (numbers out of range, steps and findings left out), at most kMaxReportWarnings.
    BoundedWarnings problems(out.warnings, "problems of report " + source);
    // Out of range, a rank or world size is unknown: clamped, 2^31 became a world size of 2^30 that won a tie.
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
    if (const auto ws = trace->find("warnings"); ws != trace->end() && ws->is_array()) {
        BoundedWarnings imported(out.warnings, "serious import warnings of report " + source);
        for (const nlohmann::json& w : *ws) {
            std::string kind;
            std::string message;
            if (!w.is_object() || !r.text(w, "kind", kind) || !r.text(w, "message", message))
                return r.fail("a warning is not {kind, count, message}");
            if (model::isSeriousImportWarning(kind))
                imported.add(std::move(message));
        }
        imported.finish();
    }
    if (const auto comm = j.find("communication"); comm != j.end() && comm->is_object()) {
        std::string waitSource;
        if (!r.text(*comm, "backend", out.backend) || !r.text(*comm, "wait_source", waitSource))
            return false;
        out.waitFromCommunicationJson = waitSource == "communication_json";
        out.waitFromTasks = waitSource == "wait_tasks" || out.waitFromCommunicationJson;
    }
    if (out.backend.empty())
        out.backend = "unknown";
    if (!r.integer(j, "analysed_ns", out.analysedNs))
        return false;
    // A report comes from another machine or another version: its numbers get the limits of an import
    // (docs/limits.md "Reports from other machines"). What cannot be a time at all refuses the report; a step, a
    // collective or a finding that breaks the limits is left out with a warning naming it.
    std::int64_t traceStart = 0;
    std::int64_t traceSpan = -1;
    if (!r.integer(*trace, "start_ns", traceStart, false) || !r.integer(*trace, "span_ns", traceSpan, false))
        return false;
    if (traceSpan < -1 || traceSpan > model::kMaxTimeNs || !model::timeInRange(traceStart))
        return r.fail("trace start_ns / span_ns out of range");
    // Where the trace is: the drill-down opens it (a report from another machine names a path on that machine).
    if (!r.text(*trace, "path", out.tracePath))
        return false;
    out.traceStartNs = traceStart;
    if (out.analysedNs < 0 || out.analysedNs > model::kMaxTimeNs || (traceSpan >= 0 && out.analysedNs > traceSpan))
        return r.fail("\"analysed_ns\": " + std::to_string(out.analysedNs) + " is not within the trace's span");
    if (!r.text(j, "generator", out.generator))
        return false;
    const auto steps = j.find("steps");
    if (steps == j.end() || !steps->is_array())
        return r.fail("missing \"steps\" (write it with analyze --format json)");
    const std::size_t stepCount = std::min(steps->size(), kMaxReportSteps);
    if (steps->size() > kMaxReportSteps)
        problems.add("report " + source + ": " + std::to_string(steps->size() - kMaxReportSteps)
                     + (steps->size() - kMaxReportSteps == 1 ? " step" : " steps") + " after the first "
                     + std::to_string(kMaxReportSteps) + " left out (at most " + std::to_string(kMaxReportSteps)
                     + " steps per report)");
    out.steps.reserve(stepCount);
    for (std::size_t si = 0; si < stepCount; ++si) {
        const nlohmann::json& s = (*steps)[si];
        if (!s.is_object())
            return r.fail("a step is not an object");
        analysis::RankStep step;
        if (!r.integer(s, "step", step.number) || !r.integer(s, "start_ns", step.startNs)
            || !r.integer(s, "duration_ns", step.durationNs) || !r.integer(s, "compute_ns", step.computeNs)
            || !r.integer(s, "communication_ns", step.communicationNs) || !r.integer(s, "idle_ns", step.idleNs)
            || !r.integer(s, "exposed_wait_ns", step.communicationWaitNs, false))
            return false;
        // Reports written before the split have only communication_wait_ns (the same figure) and no transfer.
        if (!s.contains("exposed_wait_ns") && !r.integer(s, "communication_wait_ns", step.communicationWaitNs, false))
            return false;
        if (s.contains("exposed_transfer_ns")
            && (!r.integer(s, "exposed_transfer_ns", step.communicationTransferNs)
                || !r.integer(s, "exposed_idle_ns", step.communicationIdleNs, false)))
            return false;
        std::string tooMany; // why the step's collectives cannot all be taken (then the step is left out)
        if (const auto cs = s.find("collectives"); cs != s.end() && cs->is_array()) {
            if (cs->size() > kMaxStepCollectives)
                tooMany = "it has " + std::to_string(cs->size()) + " collectives (at most "
                    + std::to_string(kMaxStepCollectives) + ")";
            std::size_t stepRanges = 0;
            step.collectives.reserve(tooMany.empty() ? cs->size() : 0);
            for (std::size_t ci = 0; ci < cs->size() && tooMany.empty(); ++ci) {
                const nlohmann::json& c = (*cs)[ci];
                analysis::RankCollective rc;
                if (!c.is_object() || !r.text(c, "op", rc.opKind) || !r.integer(c, "start_ns", rc.start)
                    || !r.integer(c, "end_ns", rc.end))
                    return r.fail("a collective is not {op, start_ns, end_ns, exposed}");
                if (const auto ex = c.find("exposed"); ex != c.end() && ex->is_array()) {
                    rc.exposed.reserve(ex->size());
                    for (const nlohmann::json& e : *ex) {
                        if (!e.is_array() || e.size() != 2 || !e[0].is_number_integer() || !e[1].is_number_integer())
                            return r.fail("an exposed range is not [start, end]");
                        const TimeNs start = e[0].get<TimeNs>();
                        const TimeNs end = e[1].get<TimeNs>();
                        // Not a range at all: unite() would drop it silently and the waiting would change.
                        if (end < start)
                            return r.fail("step " + std::to_string(step.number) + ", collective " + std::to_string(ci)
                                          + " (" + rc.opKind + "): \"exposed\" range [" + std::to_string(start) + ", "
                                          + std::to_string(end) + "] ends before it starts");
                        rc.exposed.push_back({start, end});
                    }
                }
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
                if (stepRanges > kMaxStepExposedRanges) {
                    tooMany
                        = "its collectives have more than " + std::to_string(kMaxStepExposedRanges) + " exposed ranges";
                    break;
                }
                step.collectives.push_back(std::move(rc));
            }
        }
        if (!tooMany.empty()) {
            problems.add("report " + source + ": step " + std::to_string(step.number) + " left out: " + tooMany);
            continue;
        }
        if (std::string why = stepProblem(step, traceStart, traceSpan); !why.empty()) {
            problems.add("report " + source + ": step " + std::to_string(step.number) + " left out: " + why);
            continue;
        }
        if (const auto a = s.find("device_activity"); a != s.end() && !a->is_null()) {
            if (std::string why = readActivity(*a, step); !why.empty()) {
                step.hasActivity = false;
                step.activity = {};
                problems.add("report " + source + ": step " + std::to_string(step.number)
                             + ": device_activity left out: " + why);
            }
        }
        out.steps.push_back(std::move(step));
    }
    if (const auto fs = j.find("findings"); fs != j.end() && fs->is_array()) {
        if (fs->size() > kMaxReportFindings)
            problems.add("report " + source + ": " + std::to_string(fs->size() - kMaxReportFindings)
                         + (fs->size() - kMaxReportFindings == 1 ? " finding" : " findings") + " after the first "
                         + std::to_string(kMaxReportFindings) + " left out (at most "
                         + std::to_string(kMaxReportFindings) + " per report)");
        for (std::size_t fi = 0; fi < std::min(fs->size(), kMaxReportFindings); ++fi) {
            const nlohmann::json& f = (*fs)[fi];
            if (!f.is_object())
                return r.fail("a finding is not an object");
            analysis::RankFinding rf;
            std::int64_t occurrences = 0;
            if (!r.text(f, "kind", rf.kind) || !r.text(f, "title", rf.title) || !r.integer(f, "lost_ns", rf.lostNs)
                || !r.integer(f, "occurrences", occurrences, false))
                return false;
            rf.occurrences = static_cast<std::uint64_t>(std::max<std::int64_t>(0, occurrences));
            if (const auto lf = f.find("lost_fraction"); lf != f.end() && lf->is_number())
                rf.lostFraction = lf->get<double>();
            if (!isKindId(rf.kind)) {
                problems.add("report " + source
                             + ": a finding left out: its kind is not an id ([a-z0-9_], at most 64 characters)");
                continue;
            }
            if (rf.lostNs < 0 || rf.lostNs > model::kMaxTimeNs || !std::isfinite(rf.lostFraction)
                || rf.lostFraction < 0) {
                problems.add("report " + source + ": finding \"" + rf.title + "\" left out: lost_ns "
                             + std::to_string(rf.lostNs) + " is impossible");
                continue;
            }
            out.findings.push_back(std::move(rf));
        }
    }
    problems.finish();
    return true;
}

analysis::RankSummary rankSummaryFromModel(const ReportModel& model)
{
    analysis::RankSummary out;
    std::string error;
    // The JSON object the analyze command writes, read back through the same reader as a report file.
    const nlohmann::json j = nlohmann::json::parse(
        reportJson(model).dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
    rankSummaryFromReportJson(j, model.trace.metadata.sourcePath, out, error);
    return out;
}

namespace {

/// Walks the start of a JSON text with nlohmann's SAX interface until the top-level object's "schema" value: stops
/// there, at the first value that is not an object at the top, or where the (cut) text ends.
class SchemaSax
{
public:
    std::string schema;

    bool null() { return value(); }
    bool boolean(bool /*unused*/) { return value(); }
    bool number_integer(nlohmann::json::number_integer_t /*unused*/) { return value(); }
    bool number_unsigned(nlohmann::json::number_unsigned_t /*unused*/) { return value(); }
    bool number_float(nlohmann::json::number_float_t /*unused*/, const std::string& /*unused*/) { return value(); }
    bool binary(nlohmann::json::binary_t& /*unused*/) { return value(); }
    bool string(std::string& text)
    {
        if (m_depth == 1 && m_atSchema) {
            schema = text;
            return false; // found: stop reading
        }
        return value();
    }
    bool start_object(std::size_t /*unused*/)
    {
        if (m_atSchema)
            return false; // "schema": {…} is no tag
        ++m_depth;
        return true;
    }
    bool end_object()
    {
        --m_depth;
        return m_depth > 0; // the top-level object ended without a "schema"
    }
    bool start_array(std::size_t /*unused*/)
    {
        if (m_depth == 0 || m_atSchema)
            return false; // the top level is no object, or "schema": […]
        ++m_depth;
        return true;
    }
    bool end_array()
    {
        --m_depth;
        return true;
    }
    bool key(std::string& name)
    {
        m_atSchema = m_depth == 1 && name == "schema";
        return true;
    }
    bool parse_error(std::size_t /*unused*/, const std::string& /*unused*/,
                     const nlohmann::detail::exception& /*unused*/)
    {
        return false;
    }

private:
    [[nodiscard]] bool value() const
    {
        // A scalar at the top level, or "schema" holding something other than a string.
        return m_depth > 0 && !(m_depth == 1 && m_atSchema);
    }
    int m_depth = 0;
    bool m_atSchema = false;
};

} // namespace

std::string jsonSchemaTag(const std::filesystem::path& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return {};
    std::string head(std::size_t {64} << 10, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(in.gcount()));
    SchemaSax sax;
    (void)nlohmann::json::sax_parse(head, &sax, nlohmann::json::input_format_t::json, false);
    return sax.schema;
}

bool looksLikeReportJson(const std::filesystem::path& path)
{
    return jsonSchemaTag(path) == kReportSchema;
}

bool readRankReport(const std::filesystem::path& path, analysis::RankSummary& out, std::string& error)
{
    // A report is a summary (kilobytes; a 1,000-step rank with its collectives a few MB): anything far larger is not
    // one, and is refused before it is parsed into memory.
    constexpr std::uintmax_t kMaxReportBytes = std::uintmax_t {256} << 20;
    std::error_code ec;
    if (const std::uintmax_t size = std::filesystem::file_size(path, ec); !ec && size > kMaxReportBytes) {
        error = path.string() + ": " + std::to_string(size >> 20)
            + " MiB is too large for a timesink.report/1 file (at most 256 MiB)";
        return false;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        error = path.string() + ": cannot be read";
        return false;
    }
    nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
    if (j.is_discarded()) {
        error = path.string() + ": not valid JSON";
        return false;
    }
    return rankSummaryFromReportJson(j, path.string(), out, error);
}

nlohmann::ordered_json jobJson(const JobResult& job, const std::string& generator)
{
    using nlohmann::ordered_json;
    ordered_json j;
    j["schema"] = kJobSchema;
    j["generator"] = generator;
    j["world_size"] = job.worldSize;
    j["rank_count"] = job.ranks.size();
    j["rank_time_ns"] = job.rankTimeNs;
    j["total_lost_ns"] = job.lostNs;
    j["total_lost_fraction"] = job.rankTimeNs > 0 ? double(job.lostNs) / double(job.rankTimeNs) : 0.0;
    j["warnings"] = job.warnings;
    ordered_json ranks = ordered_json::array();
    for (const analysis::JobRank& r : job.ranks) {
        ordered_json steps = ordered_json::array();
        for (const analysis::JobRankStep& s : r.steps) {
            steps.push_back({{"step", s.number},
                             {"duration_ns", s.durationNs},
                             {"compute_ns", s.computeNs},
                             {"communication_ns", s.communicationNs},
                             {"communication_wait_ns", s.communicationWaitNs}, // = exposed_wait_ns (job/1)
                             {"exposed_wait_ns", s.communicationWaitNs},
                             {"exposed_transfer_ns", s.communicationTransferNs},
                             {"exposed_idle_ns", s.communicationIdleNs},
                             {"idle_ns", s.idleNs},
                             {"clock_offset_ns", s.offsetNs},
                             {"caused_wait_ns", s.causedWaitNs},
                             {"last_arrivals", s.lastArrivals}});
        }
        ordered_json findings = ordered_json::array();
        for (std::size_t i = 0; i < r.findings.size(); ++i) {
            const analysis::RankFinding& f = r.findings[i];
            findings.push_back({{"rank", i + 1},
                                {"kind", f.kind},
                                {"title", f.title},
                                {"lost_ns", f.lostNs},
                                {"lost_fraction", f.lostFraction},
                                {"occurrences", f.occurrences}});
        }
        ranks.push_back({{"rank", r.rank},
                         {"source", r.source},
                         {"format", r.format},
                         {"backend", r.backend},
                         {"wait_source",
                          r.waitFromCommunicationJson ? "communication_json"
                              : r.waitFromTasks       ? "wait_tasks"
                                                      : "cross_rank_alignment"},
                         {"analysed_ns", r.analysedNs},
                         {"steps", std::move(steps)},
                         {"findings", std::move(findings)}});
    }
    j["ranks"] = std::move(ranks);
    ordered_json steps = ordered_json::array();
    for (const analysis::JobStep& s : job.steps) {
        steps.push_back({{"step", s.number},
                         {"ranks", s.ranks},
                         {"slowest_rank", s.slowestRank},
                         {"slowest_ns", s.slowestNs},
                         {"fastest_rank", s.fastestRank},
                         {"fastest_ns", s.fastestNs},
                         {"spread_ns", s.spreadNs},
                         {"mean_ns", s.meanNs},
                         {"communication_wait_ns", s.communicationWaitNs}, // = exposed_wait_ns (job/1)
                         {"exposed_wait_ns", s.communicationWaitNs},
                         {"aligned_collectives", s.alignedCollectives}});
    }
    j["steps"] = std::move(steps);
    ordered_json findings = ordered_json::array();
    for (std::size_t i = 0; i < job.findings.size(); ++i) {
        const analysis::Finding& f = job.findings[i];
        ordered_json perStep = ordered_json::array();
        for (const analysis::StepLoss& s : f.perStep)
            perStep.push_back({{"step", s.stepNumber}, {"lost_ns", s.lostNs}, {"step_ns", s.stepNs}});
        ordered_json details = ordered_json::object();
        for (const analysis::Detail& d : f.details)
            std::visit([&](const auto& v) { details[d.key] = v; }, d.value);
        findings.push_back({{"rank", i + 1},
                            {"kind", f.kind},
                            {"title", f.title},
                            {"lost_ns", f.lostNs},
                            {"lost_fraction", f.lostFraction},
                            {"occurrences", f.occurrences},
                            {"platform", analysis::platformKey(f.platform)},
                            {"per_step", std::move(perStep)},
                            {"details", std::move(details)},
                            {"explanation", f.explanation},
                            {"recommendation", f.recommendation}});
    }
    j["findings"] = std::move(findings);
    ordered_json kinds = ordered_json::array();
    for (const analysis::JobKindLoss& k : job.lostByKind)
        kinds.push_back(
            {{"kind", k.kind}, {"lost_ns", k.lostNs}, {"lost_fraction", k.fraction}, {"findings", k.findings}});
    j["lost_by_kind"] = std::move(kinds);
    return j;
}

std::optional<JobFormat> jobFormatFromName(std::string_view name)
{
    if (name == "text" || name == "txt")
        return JobFormat::Text;
    if (name == "json")
        return JobFormat::Json;
    if (name == "md" || name == "markdown")
        return JobFormat::Markdown;
    if (name == "html" || name == "htm")
        return JobFormat::Html;
    if (name == "csv")
        return JobFormat::Csv;
    return std::nullopt;
}

std::optional<JobFormat> jobFormatFromPath(const std::filesystem::path& path)
{
    std::string ext = path.extension().string();
    if (ext.empty())
        return std::nullopt;
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return jobFormatFromName(std::string_view(ext).substr(1));
}

namespace {

// The step numbers of the table's columns and each rank's steps by number.
struct Grid
{
    std::vector<std::int64_t> steps;
    std::vector<std::map<std::int64_t, const analysis::JobRankStep*>> cells; // per rank
};

Grid gridOf(const JobResult& job)
{
    Grid g;
    for (const analysis::JobStep& s : job.steps)
        g.steps.push_back(s.number);
    g.cells.resize(job.ranks.size());
    for (std::size_t r = 0; r < job.ranks.size(); ++r) {
        for (const analysis::JobRankStep& s : job.ranks[r].steps)
            g.cells[r][s.number] = &s;
    }
    return g;
}

/// The step whose ranks differ most, or nullptr when every step took the same time on every rank.
const analysis::JobStep* widestSpread(const JobResult& job)
{
    const analysis::JobStep* widest = nullptr;
    for (const analysis::JobStep& s : job.steps) {
        if (s.spreadNs > 0 && (!widest || s.spreadNs > widest->spreadNs))
            widest = &s;
    }
    return widest;
}

/// "In step 3, rank 2 is 3.10 ms slower than rank 0 (the widest spread)."
std::string spreadSentence(const JobResult& job)
{
    const analysis::JobStep* s = widestSpread(job);
    if (!s)
        return job.ranks.size() > 1 ? "Every rank took the same time in every step." : std::string();
    return "In step " + std::to_string(s->number) + ", rank " + std::to_string(s->slowestRank) + " is "
        + formatDuration(s->spreadNs) + " slower than rank " + std::to_string(s->fastestRank)
        + " (the widest spread between ranks).";
}

void writeText(const JobResult& job, std::ostream& out)
{
    std::string backend = "unknown";
    for (const analysis::JobRank& r : job.ranks) {
        if (r.backend != "unknown") {
            backend = r.backend;
            break;
        }
    }
    out << "Job: " << job.ranks.size() << (job.ranks.size() == 1 ? " rank" : " ranks");
    if (job.worldSize > 0)
        out << " (world size " << job.worldSize << ")";
    out << ", " << job.steps.size() << (job.steps.size() == 1 ? " step" : " steps")
        << ", collectives: " << terminalText(backend) << "\n";
    out << "Rank-time analysed " << formatDuration(job.rankTimeNs) << ", lost " << formatDuration(job.lostNs) << " ("
        << formatPercent(job.rankTimeNs > 0 ? double(job.lostNs) / double(job.rankTimeNs) : 0.0) << ")\n";
    for (const std::string& w : job.warnings)
        out << "warning: " << terminalText(w) << "\n";
    const Grid g = gridOf(job);
    const std::size_t shownSteps = std::min<std::size_t>(g.steps.size(), 12);
    out << "\nStep time in ms (communication wait in brackets), rank × step:\n";
    char buf[160];
    std::snprintf(buf, sizeof buf, "%-6s", "rank");
    out << buf;
    for (std::size_t i = 0; i < shownSteps; ++i) {
        std::snprintf(buf, sizeof buf, " %22s", ("step " + std::to_string(g.steps[i])).c_str());
        out << buf;
    }
    if (shownSteps < g.steps.size())
        out << "  … " << g.steps.size() - shownSteps << " more";
    out << "\n";
    for (std::size_t r = 0; r < job.ranks.size(); ++r) {
        std::snprintf(buf, sizeof buf, "%-6d", job.ranks[r].rank);
        out << buf;
        for (std::size_t i = 0; i < shownSteps; ++i) {
            const auto it = g.cells[r].find(g.steps[i]);
            std::string cell = "-";
            if (it != g.cells[r].end())
                cell = formatMillisecondsRounded(it->second->durationNs) + " ["
                    + formatMillisecondsRounded(it->second->communicationWaitNs) + "]";
            std::snprintf(buf, sizeof buf, " %22s", cell.c_str());
            out << buf;
        }
        out << "\n";
    }
    // The spread row only when the ranks differ: "0.000 r0>r0" says nothing.
    if (widestSpread(job)) {
        std::snprintf(buf, sizeof buf, "%-6s", "spread");
        out << buf;
        for (std::size_t i = 0; i < shownSteps; ++i) {
            const analysis::JobStep& s = job.steps[i];
            const std::string cell = s.spreadNs > 0 ? formatMillisecondsRounded(s.spreadNs) + " r"
                    + std::to_string(s.slowestRank) + ">r" + std::to_string(s.fastestRank)
                                                    : std::string("-");
            std::snprintf(buf, sizeof buf, " %22s", cell.c_str());
            out << buf;
        }
        out << "\n";
    }
    if (const std::string sentence = spreadSentence(job); !sentence.empty())
        out << sentence << "\n";
    if (job.findings.empty()) {
        out << "\nNo findings.\n";
        return;
    }
    out << "\n";
    std::snprintf(buf, sizeof buf, "%4s  %-26s %12s %8s  ", "rank", "kind", "lost ms", "% time");
    out << buf << "title\n";
    for (std::size_t i = 0; i < job.findings.size(); ++i) {
        const analysis::Finding& f = job.findings[i];
        std::snprintf(buf, sizeof buf, "%4zu  %-26s %12s %8s  ", i + 1, kindLabel(f.kind).c_str(),
                      formatMillisecondsRounded(f.lostNs).c_str(), formatPercent(f.lostFraction).c_str());
        out << buf << terminalText(f.title) << "\n";
    }
    for (std::size_t i = 0; i < job.findings.size(); ++i) {
        const analysis::Finding& f = job.findings[i];
        out << "\n" << i + 1 << ". " << terminalText(f.title) << "\n";
        std::string line;
        for (const analysis::Detail& d : f.details)
            line += (line.empty() ? "" : ", ") + d.key + "=" + terminalText(analysis::detailText(d));
        if (!line.empty())
            out << "   numbers: " << line << "\n";
        out << "   why: " << terminalText(f.explanation) << "\n";
        out << "   do:  " << terminalText(f.recommendation) << "\n";
    }
}

std::string mdCell(std::string_view text)
{
    std::string out;
    for (const char c : cleanText(text)) {
        if (c == '|' || c == '\\' || c == '`' || c == '*' || c == '_' || c == '<' || c == '>' || c == '[' || c == ']')
            out.push_back('\\');
        out.push_back(c);
    }
    return out;
}

std::string hexColor(std::uint32_t rgb)
{
    char buf[8];
    std::snprintf(buf, sizeof buf, "#%06x", static_cast<unsigned>(rgb & 0xffffffU));
    return buf;
}

/// Milliseconds with 3 decimals for axis labels and captions.
std::string ms(TimeNs ns)
{
    return formatMillisecondsRounded(ns) + " ms";
}

/// A tick step for `span` ns: 1, 2 or 5 × 10^k, about `count` ticks.
TimeNs tickStep(TimeNs span, int count)
{
    const double raw = std::max(1.0, double(span) / std::max(1, count));
    const double p = std::pow(10.0, std::floor(std::log10(raw)));
    for (const double m : {1.0, 2.0, 5.0, 10.0}) {
        if (m * p >= raw)
            return std::max<TimeNs>(1, static_cast<TimeNs>(m * p));
    }
    return std::max<TimeNs>(1, static_cast<TimeNs>(10 * p));
}

/// Base64 of `data` (RFC 4648, with padding).
std::string base64(std::string_view data)
{
    static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    out.reserve((data.size() + 2) / 3 * 4);
    for (std::size_t i = 0; i < data.size(); i += 3) {
        std::uint32_t v = static_cast<std::uint8_t>(data[i]) << 16;
        if (i + 1 < data.size())
            v |= static_cast<std::uint32_t>(static_cast<std::uint8_t>(data[i + 1])) << 8;
        if (i + 2 < data.size())
            v |= static_cast<std::uint8_t>(data[i + 2]);
        out.push_back(kAlphabet[(v >> 18) & 63]);
        out.push_back(kAlphabet[(v >> 12) & 63]);
        out.push_back(i + 1 < data.size() ? kAlphabet[(v >> 6) & 63] : '=');
        out.push_back(i + 2 < data.size() ? kAlphabet[v & 63] : '=');
    }
    return out;
}

/// A Markdown picture of an SVG, as a data: URI (renders in VS Code, Typora, GitLab, pandoc; the report stays
/// one file).
std::string mdImage(const std::string& alt, const std::string& svg)
{
    if (svg.empty())
        return {};
    return "![" + mdCell(alt) + "](data:image/svg+xml;base64," + base64(svg) + ")";
}

/// Straggler ranks of the job (the ranks its straggler findings name).
std::set<std::int64_t> stragglerRanks(const JobResult& job)
{
    return analysis::jobStragglerRanks(job);
}

std::string foldedRanks(const std::vector<std::int32_t>& ranks)
{
    std::string out;
    std::size_t items = 0;
    for (std::size_t i = 0; i < ranks.size();) {
        std::size_t j = i;
        while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1)
            ++j;
        if (items == 12) {
            out += ", …";
            break;
        }
        out += (items ? ", " : "") + std::to_string(ranks[i]) + (j > i ? "–" + std::to_string(ranks[j]) : "");
        ++items;
        i = j + 1;
    }
    return out;
}

} // namespace

std::string jobHeatMapSvg(const JobResult& job, analysis::JobMeasure measure)
{
    const Grid g = gridOf(job);
    const std::set<std::int64_t> stragglers = stragglerRanks(job);
    TimeNs maxV = 0;
    for (std::size_t r = 0; r < job.ranks.size(); ++r) {
        for (const auto& [n, s] : g.cells[r])
            maxV = std::max(maxV, analysis::jobMeasureValue(*s, measure));
    }
    const std::string title = analysis::jobMeasureLabel(measure) + " per rank and step (ms)";
    const int cellW = std::clamp(900 / std::max<int>(1, int(g.steps.size())), 8, 72);
    const int cellH = job.ranks.size() > 64 ? (job.ranks.size() > 256 ? 2 : 6) : 18;
    const int left = 130;
    const int top = 44;
    const int mapW = cellW * int(g.steps.size());
    const int mapH = cellH * int(job.ranks.size());
    const int width = std::max(left + mapW + 10, 560);
    const int height = top + mapH + 64;
    std::ostringstream out;
    out << "<svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" aria-label=\"" << escapeHtml(title)
        << "\" viewBox=\"0 0 " << width << ' ' << height << "\" width=\"" << width << "\" height=\"" << height
        << "\" font-family=\"sans-serif\" font-size=\"11\">\n"
        << "<defs><pattern id=\"nostep\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\">"
           "<rect width=\"6\" height=\"6\" fill=\"#eeeeee\"/><path d=\"M0,6 L6,0\" stroke=\"#999999\"/></pattern>"
           "<linearGradient id=\"scale\">";
    for (int i = 0; i <= 4; ++i)
        out << "<stop offset=\"" << i * 25 << "%\" stop-color=\"" << hexColor(analysis::jobHeatColor(i / 4.0))
            << "\"/>";
    out << "</linearGradient></defs>\n<text x=\"2\" y=\"14\" font-size=\"13\" font-weight=\"bold\">"
        << escapeHtml(title) << "</text>\n<text x=\"" << left - 6 << "\" y=\"" << top - 3
        << "\" text-anchor=\"end\">step →</text>";
    const std::size_t labelEvery = cellW >= 40 ? 1 : std::max<std::size_t>(1, 40 / std::size_t(cellW));
    for (std::size_t i = 0; i < g.steps.size(); i += labelEvery)
        out << "<text x=\"" << left + cellW * int(i) + 1 << "\" y=\"" << top - 3 << "\">" << g.steps[i] << "</text>";
    out << "\n";
    const std::size_t rankEvery = cellH >= 12 ? 1 : std::max<std::size_t>(1, 12 / std::size_t(cellH));
    for (std::size_t r = 0; r < job.ranks.size(); ++r) {
        const int y = top + cellH * int(r);
        const bool straggler = stragglers.count(job.ranks[r].rank) > 0;
        if (r % rankEvery == 0 || straggler)
            out << "<text x=\"2\" y=\"" << y + std::min(cellH, 12) - 2 << "\""
                << (straggler ? " fill=\"#a00026\" font-weight=\"bold\"" : "") << ">rank " << job.ranks[r].rank
                << (straggler ? " · straggler" : "") << "</text>";
        for (std::size_t i = 0; i < g.steps.size(); ++i) {
            const int x = left + cellW * int(i);
            const auto it = g.cells[r].find(g.steps[i]);
            if (it == g.cells[r].end()) {
                out << "<rect x=\"" << x << "\" y=\"" << y << "\" width=\"" << cellW - 1 << "\" height=\""
                    << std::max(1, cellH - 1) << "\" fill=\"url(#nostep)\"><title>rank " << job.ranks[r].rank
                    << " has no step " << g.steps[i] << "</title></rect>";
                continue;
            }
            const TimeNs v = analysis::jobMeasureValue(*it->second, measure);
            out << "<rect x=\"" << x << "\" y=\"" << y << "\" width=\"" << cellW - 1 << "\" height=\""
                << std::max(1, cellH - 1) << "\" fill=\""
                << hexColor(analysis::jobHeatColor(maxV > 0 ? double(v) / double(maxV) : 0.0)) << "\"><title>rank "
                << job.ranks[r].rank << ", step " << g.steps[i] << ": " << escapeHtml(ms(v)) << "</title></rect>";
        }
        if (straggler && cellH >= 4)
            out << "<rect x=\"" << left - 1 << "\" y=\"" << y - 1 << "\" width=\"" << mapW + 1 << "\" height=\""
                << cellH << "\" fill=\"none\" stroke=\"#a00026\" stroke-width=\"1.5\"/>";
        out << "\n";
    }
    const int legendY = top + mapH + 14;
    out << "<rect x=\"" << left << "\" y=\"" << legendY << "\" width=\"200\" height=\"10\" fill=\"url(#scale)\" "
        << "stroke=\"#999999\"/><text x=\"" << left - 4 << "\" y=\"" << legendY + 9
        << "\" text-anchor=\"end\">0 ms</text><text x=\"" << left + 204 << "\" y=\"" << legendY + 9 << "\">"
        << escapeHtml(ms(maxV)) << "</text>"
        << "<rect x=\"" << left + 290 << "\" y=\"" << legendY << "\" width=\"10\" height=\"10\" fill=\"url(#nostep)\"/>"
        << "<text x=\"" << left + 304 << "\" y=\"" << legendY + 9 << "\">no such step</text>\n";
    if (!job.missingRanks.empty())
        out << "<text x=\"2\" y=\"" << legendY + 30
            << "\" fill=\"#a00026\">Missing: " << (job.missingRanks.size() == 1 ? "rank " : "ranks ")
            << escapeHtml(foldedRanks(job.missingRanks)) << " (world size " << job.worldSize << ", no input)</text>\n";
    out << "</svg>\n";
    return out.str();
}

namespace {

struct LaneStyle
{
    const char* fill;
    const char* what;
};

LaneStyle laneStyle(analysis::LaneKind kind)
{
    switch (kind) {
    case analysis::LaneKind::Wait:
        return {"url(#wait)", "waiting for the last rank"};
    case analysis::LaneKind::Transfer:
        return {"#2166ac", "in the collective after all arrived"};
    case analysis::LaneKind::Overlapped:
        return {"#92c5de", "collective overlapped by compute"};
    case analysis::LaneKind::Compute:
        return {"#4dac26", "device compute"};
    case analysis::LaneKind::Copy:
        return {"#e08214", "copy / memset"};
    case analysis::LaneKind::Idle:
        return {"#efd595", "device idle"};
    }
    return {"#e4e4e4", ""};
}

} // namespace

std::string jobLanesSvg(const JobResult& job, std::int64_t step)
{
    const analysis::StepLanes lanes = analysis::stepLanes(job, step);
    if (lanes.lanes.empty())
        return {};
    const TimeNs span = std::max<TimeNs>(1, lanes.axisEnd - lanes.axisStart);
    const int left = 130;
    const int top = 44;
    const int plotW = 760;
    const int laneH = std::clamp(600 / int(lanes.lanes.size()), 2, 18);
    const int plotH = laneH * int(lanes.lanes.size());
    const int width = left + plotW + 20;
    const int height = top + plotH + 60;
    const auto x
        = [&](TimeNs t) { return left + static_cast<double>(t - lanes.axisStart) * plotW / static_cast<double>(span); };
    const std::string title = "Step " + std::to_string(step) + ": ranks on a common clock"
        + (lanes.matchedCollectives > 0 ? " (aligned on the collectives' ends)" : " (aligned on the step start)");
    std::ostringstream out;
    out.precision(1);
    out << std::fixed;
    out << "<svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" aria-label=\"" << escapeHtml(title)
        << "\" viewBox=\"0 0 " << width << ' ' << height << "\" width=\"" << width << "\" height=\"" << height
        << "\" font-family=\"sans-serif\" font-size=\"11\">\n"
        << "<defs><pattern id=\"wait\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\">"
           "<rect width=\"6\" height=\"6\" fill=\"#f4a6a6\"/><path d=\"M0,6 L6,0\" stroke=\"#c0392b\" "
           "stroke-width=\"1.5\"/></pattern></defs>\n"
        << "<text x=\"2\" y=\"14\" font-size=\"13\" font-weight=\"bold\">" << escapeHtml(title) << "</text>\n";
    if (lanes.lanesWithoutActivity > 0)
        out << "<text x=\"2\" y=\"27\" font-size=\"10\" fill=\"#59636e\">" << lanes.lanesWithoutActivity << " of "
            << lanes.lanes.size()
            << " ranks recorded no device activity for this step (reports written before Timesink kept it, or no "
               "device work): their lanes show the collectives only</text>\n";
    // Axis: ms from the earliest step start.
    const TimeNs tick = tickStep(span, 8);
    for (TimeNs t = 0; t <= span; t += tick) {
        const double tx = x(lanes.axisStart + t);
        out << "<line x1=\"" << tx << "\" y1=\"" << top - 4 << "\" x2=\"" << tx << "\" y2=\"" << top + plotH
            << "\" stroke=\"#dddddd\"/><text x=\"" << tx << "\" y=\"" << top - 8 << "\" text-anchor=\"middle\">"
            << escapeHtml(formatDuration(t)) << "</text>";
    }
    out << "\n";
    const std::size_t rankEvery = laneH >= 12 ? 1 : std::max<std::size_t>(1, 12 / std::size_t(laneH));
    for (std::size_t i = 0; i < lanes.lanes.size(); ++i) {
        const analysis::RankLane& lane = lanes.lanes[i];
        const analysis::JobRank& rank = job.ranks[lane.rankIndex];
        const int y = top + laneH * int(i);
        const int h = std::max(1, laneH - (laneH > 4 ? 2 : 0));
        if (i % rankEvery == 0 || lane.straggler)
            out << "<text x=\"2\" y=\"" << y + std::min(laneH, 12) - 2 << "\""
                << (lane.straggler ? " fill=\"#a00026\" font-weight=\"bold\"" : "") << ">rank " << rank.rank
                << (lane.straggler ? " · last" : "") << "</text>";
        out << "<rect x=\"" << x(lane.stepStart) << "\" y=\"" << y << "\" width=\""
            << x(lane.stepEnd) - x(lane.stepStart) << "\" height=\"" << h << "\" fill=\"#e4e4e4\"><title>rank "
            << rank.rank << ", step " << step << ": " << escapeHtml(ms(lane.stepEnd - lane.stepStart))
            << ", communication wait " << escapeHtml(ms(lane.waitNs)) << "</title></rect>";
        // A lane can carry millions of pieces (a report's exposed ranges): the SVG is bounded by the picture, not by
        // them. Only what lies on the axis is drawn (a collective may reach far past its step), and a piece that
        // starts inside the rectangle already pending for its kind (at least half a pixel wide) widens it instead of
        // adding one, so each kind has fewer rectangles than twice the plot's width in pixels; the tooltip then
        // tells the span the rectangle covers.
        struct Pending
        {
            bool active = false;
            double x0 = 0;
            double x1 = 0;
            TimeNs start = 0;
            TimeNs end = 0;
        };
        std::array<Pending, 6> pending {};
        const auto flush = [&](analysis::LaneKind kind) {
            Pending& p = pending[static_cast<std::size_t>(kind)];
            if (!p.active)
                return;
            const LaneStyle style = laneStyle(kind);
            out << "<rect x=\"" << p.x0 << "\" y=\"" << y << "\" width=\"" << p.x1 - p.x0 << "\" height=\"" << h
                << "\" fill=\"" << style.fill << "\"><title>rank " << rank.rank << ": " << style.what << ", "
                << escapeHtml(ms(p.end - p.start)) << "</title></rect>";
            p.active = false;
        };
        for (const analysis::LaneSegment& seg : lane.segments) {
            const TimeNs start = std::max(seg.start, lanes.axisStart);
            const TimeNs end = std::min(seg.end, lanes.axisEnd);
            if (end < start)
                continue;
            const double x0 = x(start);
            const double x1 = x0 + std::max(0.5, x(end) - x0);
            Pending& p = pending[static_cast<std::size_t>(seg.kind)];
            if (p.active && x0 <= p.x1) {
                p.x1 = std::max(p.x1, x1);
                p.end = std::max(p.end, end);
                continue;
            }
            flush(seg.kind);
            p = {true, x0, x1, start, end};
        }
        for (std::size_t k = 0; k < pending.size(); ++k)
            flush(static_cast<analysis::LaneKind>(k));
        out << "\n";
    }
    for (std::size_t k = 0; k < lanes.lastArrivals.size(); ++k) {
        const auto& [t, rankIndex] = lanes.lastArrivals[k];
        if (t == std::numeric_limits<TimeNs>::min())
            continue;
        out << "<line x1=\"" << x(t) << "\" y1=\"" << top << "\" x2=\"" << x(t) << "\" y2=\"" << top + plotH
            << "\" stroke=\"#a00026\" stroke-width=\"1.5\" stroke-dasharray=\"4 2\"><title>collective " << k + 1
            << ": rank " << job.ranks[rankIndex].rank << " arrives last</title></line>";
    }
    // Legend, two rows: what the device did, then the collectives.
    const int ly = top + plotH + 12;
    const auto key = [&out](int kx, int ky, const char* fill, const char* label) {
        out << "<rect x=\"" << kx << "\" y=\"" << ky << "\" width=\"12\" height=\"10\" fill=\"" << fill
            << "\"/><text x=\"" << kx + 16 << "\" y=\"" << ky + 9 << "\">" << label << "</text>";
    };
    out << "\n";
    key(2, ly, laneStyle(analysis::LaneKind::Compute).fill, "compute");
    key(110, ly, laneStyle(analysis::LaneKind::Copy).fill, "copy / memset");
    key(240, ly, laneStyle(analysis::LaneKind::Idle).fill, "device idle");
    key(360, ly, "#e4e4e4", "not recorded (report without device activity)");
    key(2, ly + 18, "url(#wait)", "communication: waiting for the last rank");
    key(270, ly + 18, laneStyle(analysis::LaneKind::Transfer).fill, "transfer (exposed after all arrived)");
    key(525, ly + 18, laneStyle(analysis::LaneKind::Overlapped).fill, "collective overlapped by compute");
    out << "<line x1=\"" << 748 << "\" y1=\"" << ly + 16 << "\" x2=\"" << 748 << "\" y2=\"" << ly + 30
        << "\" stroke=\"#a00026\" stroke-width=\"1.5\" stroke-dasharray=\"4 2\"/><text x=\"" << 754 << "\" y=\""
        << ly + 27 << "\">last arrival</text>\n</svg>\n";
    return out.str();
}

namespace {

void writeMarkdown(const JobResult& job, const std::string& generator, std::ostream& out)
{
    out << "# Timesink job report\n\n";
    out << "- Ranks: " << job.ranks.size();
    if (job.worldSize > 0)
        out << " (world size " << job.worldSize << ")";
    out << "\n- Steps: " << job.steps.size() << "\n- Rank-time analysed: " << formatDuration(job.rankTimeNs)
        << "\n- Lost: **" << formatDuration(job.lostNs) << "** ("
        << formatPercent(job.rankTimeNs > 0 ? double(job.lostNs) / double(job.rankTimeNs) : 0.0) << ")\n";
    for (const std::string& w : job.warnings)
        out << "- Warning: " << mdCell(w) << "\n";
    out << "\n## Findings\n\n| # | kind | finding | lost | % |\n|---:|---|---|---:|---:|\n";
    for (std::size_t i = 0; i < job.findings.size(); ++i) {
        const analysis::Finding& f = job.findings[i];
        out << "| " << i + 1 << " | " << mdCell(kindLabel(f.kind)) << " | " << mdCell(f.title) << " | "
            << formatDuration(f.lostNs) << " | " << formatPercent(f.lostFraction) << " |\n";
    }
    out << "\n## Step time by rank (ms; communication wait in brackets)\n\n| rank |";
    const Grid g = gridOf(job);
    for (const std::int64_t s : g.steps)
        out << " step " << s << " |";
    out << "\n|---:|";
    for (std::size_t i = 0; i < g.steps.size(); ++i)
        out << "---:|";
    out << "\n";
    for (std::size_t r = 0; r < job.ranks.size(); ++r) {
        out << "| " << job.ranks[r].rank << " |";
        for (const std::int64_t s : g.steps) {
            const auto it = g.cells[r].find(s);
            out << " "
                << (it == g.cells[r].end() ? std::string("–")
                                           : formatMillisecondsRounded(it->second->durationNs) + " ["
                            + formatMillisecondsRounded(it->second->communicationWaitNs) + "]")
                << " |";
        }
        out << "\n";
    }
    if (widestSpread(job)) {
        out << "| spread |";
        for (const analysis::JobStep& s : job.steps)
            out << " "
                << (s.spreadNs > 0 ? formatMillisecondsRounded(s.spreadNs) + " (rank " + std::to_string(s.slowestRank)
                            + " slowest)"
                                   : std::string("–"))
                << " |";
        out << "\n";
    }
    if (const std::string sentence = spreadSentence(job); !sentence.empty())
        out << "\n" << mdCell(sentence) << "\n";
    out << "\n"
        << mdImage("Heat map: step time by rank and step", jobHeatMapSvg(job, JobHeatMeasure::StepTime)) << "\n\n"
        << mdImage("Heat map: communication wait by rank and step",
                   jobHeatMapSvg(job, JobHeatMeasure::CommunicationWait))
        << "\n";
    if (const std::int64_t worst = analysis::worstStep(job); worst >= 0)
        out << "\n" << mdImage("Rank lanes of step " + std::to_string(worst), jobLanesSvg(job, worst)) << "\n";
    for (std::size_t i = 0; i < job.findings.size(); ++i) {
        const analysis::Finding& f = job.findings[i];
        out << "\n### " << i + 1 << ". " << mdCell(f.title) << "\n\n";
        std::string line;
        for (const analysis::Detail& d : f.details)
            line += (line.empty() ? "" : ", ") + d.key + " = " + mdCell(analysis::detailText(d));
        if (!line.empty())
            out << "Numbers: " << line << "\n\n";
        out << mdCell(f.explanation) << "\n\n**Recommendation:** " << mdCell(f.recommendation) << "\n";
    }
    out << "\n## Ranks\n\n| rank | source | trace | analysed | top finding |\n|---:|---|---|---:|---|\n";
    for (const analysis::JobRank& r : job.ranks) {
        out << "| " << r.rank << " | " << mdCell(r.source) << " | "
            << (r.tracePath.empty() ? std::string("–") : mdCell(r.tracePath)) << " | " << formatDuration(r.analysedNs)
            << " | " << (r.findings.empty() ? std::string("–") : mdCell(r.findings.front().title)) << " |\n";
    }
    out << "\n_" << mdCell(generator) << "_\n";
}

void writeHtml(const JobResult& job, const std::string& generator, std::ostream& out)
{
    out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Timesink job report</title>\n"
           "<style>body{font:14px/1.5 -apple-system,\"Segoe UI\",Helvetica,Arial,sans-serif;max-width:1100px;"
           "margin:0 auto;padding:24px;color:#1f2328}table{border-collapse:collapse;width:100%;font-size:13px}"
           "th,td{border:1px solid #d1d9e0;padding:4px 8px;text-align:left;vertical-align:top}"
           "td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}"
           "svg{max-width:100%;height:auto;font:11px sans-serif}figcaption{color:#59636e;font-size:12px}"
           ".recommendation{background:#ddf4ff;border-left:4px solid #0969da;padding:8px 12px}</style>"
           "</head><body>\n<h1>Timesink job report</h1>\n";
    out << "<p>" << job.ranks.size() << " ranks";
    if (job.worldSize > 0)
        out << " (world size " << job.worldSize << ")";
    out << ", " << job.steps.size() << " steps. Rank-time analysed " << escapeHtml(formatDuration(job.rankTimeNs))
        << ", lost <strong>" << escapeHtml(formatDuration(job.lostNs)) << "</strong> ("
        << formatPercent(job.rankTimeNs > 0 ? double(job.lostNs) / double(job.rankTimeNs) : 0.0) << ").</p>\n";
    for (const std::string& w : job.warnings)
        out << "<p>Warning: " << escapeHtml(w) << "</p>\n";
    out << "<h2>Findings</h2>\n<table><tr><th>#</th><th>kind</th><th>finding</th><th>lost</th><th>%</th></tr>\n";
    for (std::size_t i = 0; i < job.findings.size(); ++i) {
        const analysis::Finding& f = job.findings[i];
        out << "<tr><td class=\"num\">" << i + 1 << "</td><td>" << escapeHtml(kindLabel(f.kind)) << "</td><td>"
            << escapeHtml(f.title) << "</td><td class=\"num\">" << escapeHtml(formatDuration(f.lostNs))
            << "</td><td class=\"num\">" << formatPercent(f.lostFraction) << "</td></tr>\n";
    }
    out << "</table>\n<h2>Rank × step</h2>\n";
    for (const analysis::JobMeasure m :
         {analysis::JobMeasure::StepTime, analysis::JobMeasure::CommunicationWait, analysis::JobMeasure::CausedWait})
        out << "<figure>" << jobHeatMapSvg(job, m) << "</figure>\n";
    if (const std::int64_t worst = analysis::worstStep(job); worst >= 0) {
        out << "<h2>Rank lanes of step " << worst << " (the slowest)</h2>\n<figure>" << jobLanesSvg(job, worst)
            << "<figcaption>Each rank's step on the first rank's clock (clock offsets from the collectives' ends). "
               "Hatched: time inside a collective before the last rank arrived; dark blue: the rest of the "
               "exposed collective (transfer, or idle inside the collective where the rank's plane tasks say so); "
               "light blue: collective time device compute overlapped; green: device compute; orange: copies and "
               "memsets; pale: the device idle; grey: a rank whose report recorded no device activity. Compute, "
               "copies and idle are drawn at 1/2048 of the step.</figcaption>"
               "</figure>\n";
    }
    if (const std::string sentence = spreadSentence(job); !sentence.empty())
        out << "<p>" << escapeHtml(sentence) << "</p>\n";
    out << "<table><tr><th>step</th><th>slowest rank</th><th>fastest rank</th><th>spread</th><th>mean</th>"
           "<th>communication wait (all ranks)</th></tr>\n";
    for (const analysis::JobStep& s : job.steps) {
        out << "<tr><td class=\"num\">" << s.number << "</td><td>" << s.slowestRank << " ("
            << escapeHtml(formatDuration(s.slowestNs)) << ")</td><td>" << s.fastestRank << " ("
            << escapeHtml(formatDuration(s.fastestNs)) << ")</td><td class=\"num\">"
            << escapeHtml(formatDuration(s.spreadNs)) << "</td><td class=\"num\">"
            << escapeHtml(formatDuration(s.meanNs)) << "</td><td class=\"num\">"
            << escapeHtml(formatDuration(s.communicationWaitNs)) << "</td></tr>\n";
    }
    out << "</table>\n<h2>Details</h2>\n";
    for (std::size_t i = 0; i < job.findings.size(); ++i) {
        const analysis::Finding& f = job.findings[i];
        out << "<h3>" << i + 1 << ". " << escapeHtml(f.title) << "</h3>\n<p>";
        for (const analysis::Detail& d : f.details)
            out << "<code>" << escapeHtml(d.key) << "</code> " << escapeHtml(analysis::detailText(d)) << " · ";
        out << "</p>\n<p>" << escapeHtml(f.explanation) << "</p>\n<p class=\"recommendation\">"
            << escapeHtml(f.recommendation) << "</p>\n";
    }
    out << "<h2>Ranks</h2>\n<table><tr><th>rank</th><th>source</th><th>trace</th><th>analysed</th><th>top "
           "finding</th></tr>\n";
    for (const analysis::JobRank& r : job.ranks) {
        out << "<tr><td class=\"num\">" << r.rank << "</td><td>" << escapeHtml(r.source) << "</td><td>"
            << escapeHtml(r.tracePath) << "</td><td class=\"num\">" << escapeHtml(formatDuration(r.analysedNs))
            << "</td><td>" << (r.findings.empty() ? std::string("–") : escapeHtml(r.findings.front().title))
            << "</td></tr>\n";
    }
    out << "</table>\n<footer>" << escapeHtml(generator) << "</footer>\n</body></html>\n";
}

void writeCsv(const JobResult& job, std::ostream& out)
{
    out << "rank,kind,title,lost_ns,lost_ms,lost_percent,occurrences,explanation,recommendation\r\n";
    for (std::size_t i = 0; i < job.findings.size(); ++i) {
        const analysis::Finding& f = job.findings[i];
        out << i + 1 << ',' << csvText(f.kind) << ',' << csvText(f.title) << ',' << f.lostNs << ','
            << formatMillisecondsRounded(f.lostNs) << ',' << formatFixed(f.lostFraction * 100.0, 1) << ','
            << f.occurrences << ',' << csvText(f.explanation) << ',' << csvText(f.recommendation) << "\r\n";
    }
}

} // namespace

void writeJobReport(const JobResult& job, JobFormat format, const std::string& generator, std::ostream& out)
{
    switch (format) {
    case JobFormat::Text:
        writeText(job, out);
        return;
    case JobFormat::Json:
        out << jobJson(job, generator).dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << '\n';
        return;
    case JobFormat::Markdown:
        writeMarkdown(job, generator, out);
        return;
    case JobFormat::Html:
        writeHtml(job, generator, out);
        return;
    case JobFormat::Csv:
        writeCsv(job, out);
        return;
    }
}

} // namespace timesink::report
