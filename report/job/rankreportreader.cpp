// SPDX-License-Identifier: MIT
#include "report/job/rankreportreader.h"

#include "model/checkedmath.h"
#include "model/importwarning.h"
#include "report/core/schemas.h"
#include "report/job/ranklimits.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

namespace timesink::report {

using model::TimeNs;

namespace {

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

} // namespace timesink::report
