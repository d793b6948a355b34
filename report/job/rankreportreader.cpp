// SPDX-License-Identifier: MIT
#include "report/job/rankreportreader.h"

#include "model/checkedmath.h"
#include "model/importwarning.h"
#include "report/core/schemas.h"
#include "report/job/ranklimits.h"

#include <algorithm>
#include <fstream>
#include <limits>
#include <type_traits>

namespace timesink::report {

using model::TimeNs;

namespace {

// Typed reads that fail with a message naming the field instead of throwing deep inside a merge. Texts are taken as
// given: limitRankReport bounds them.
struct Reader
{
    const std::string& source;
    std::string error;
    model::StatusKind kind = model::StatusKind::Malformed;

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
        out = it->get<std::string>();
        return true;
    }
};

/// Reads a step's "device_activity" into `step` as given (limitRankReport checks its values); why it cannot be read
/// otherwise (the step keeps its numbers, only its picture is left out). Each list: [start, end] pairs.
std::string readActivity(const nlohmann::json& a, analysis::RankStep& step)
{
    if (!a.is_object())
        return "it is not an object";
    const auto res = a.find("resolution_ns");
    if (res == a.end() || !res->is_number_integer())
        return "\"resolution_ns\" is not a positive integer";
    step.activity.resolutionNs = res->get<TimeNs>();
    // A report written before the communication split has no "communication_wait": the lanes draw the waiting
    // from alignment then (StepActivity::communicationSplit false).
    step.activity.communicationSplit = a.contains("communication_wait");
    const std::pair<const char*, analysis::IntervalList*> lists[]
        = {{"compute", &step.activity.compute},
           {"copy", &step.activity.copy},
           {"idle", &step.activity.idle},
           {"communication_wait", &step.activity.communicationWait},
           {"communication_idle", &step.activity.communicationIdle}};
    for (const auto& [name, list] : lists) {
        const auto it = a.find(name);
        if (it == a.end() || it->is_null())
            continue;
        if (!it->is_array())
            return std::string("\"") + name + "\" is not an array";
        if (it->size() > kMaxActivityRanges) // before anything is read into memory
            return std::string("\"") + name + "\" has " + std::to_string(it->size()) + " ranges (at most "
                + std::to_string(kMaxActivityRanges) + ")";
        list->reserve(it->size());
        for (const nlohmann::json& e : *it) {
            if (!e.is_array() || e.size() != 2 || !e[0].is_number_integer() || !e[1].is_number_integer())
                return std::string("a range of \"") + name + "\" is not [start, end]";
            list->push_back({e[0].get<TimeNs>(), e[1].get<TimeNs>()});
        }
    }
    step.hasActivity = true;
    return {};
}

/// Reads a step's collectives as given into `d` (at most kMaxStepCollectives: beyond that only their count).
bool readCollectives(const nlohmann::json& s, DraftStep& d, Reader& r)
{
    const auto cs = s.find("collectives");
    if (cs == s.end() || !cs->is_array())
        return true;
    d.collectivesGiven = cs->size();
    if (cs->size() > kMaxStepCollectives)
        return true; // limitRankReport leaves the step out
    d.step.collectives.reserve(cs->size());
    for (std::size_t ci = 0; ci < cs->size(); ++ci) {
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
                    return r.fail("step " + std::to_string(d.step.number) + ", collective " + std::to_string(ci) + " ("
                                  + boundedText(rc.opKind) + "): \"exposed\" range [" + std::to_string(start) + ", "
                                  + std::to_string(end) + "] ends before it starts");
                rc.exposed.push_back({start, end});
            }
        }
        if (!r.text(c, "group", rc.group) || !r.integer(c, "seq", rc.seq, false))
            return false;
        if (rc.seq < -1)
            return r.fail("step " + std::to_string(d.step.number) + ", collective " + std::to_string(ci)
                          + ": \"seq\" is negative");
        // "peer": a send's or recv's other end; absent in reports written before it (then never matched pairwise).
        std::int64_t peer = -1;
        if (!r.integer(c, "peer", peer, false))
            return false;
        if (peer < -1 || peer >= kMaxWorldSize)
            return r.fail("step " + std::to_string(d.step.number) + ", collective " + std::to_string(ci)
                          + ": \"peer\" is not a rank of 0 .. " + std::to_string(kMaxWorldSize - 1));
        rc.peer = static_cast<std::int32_t>(peer);
        std::int64_t groupSize = -1;
        if (!r.integer(c, "bytes", rc.bytes, false) || !r.integer(c, "group_size", groupSize, false)
            || !r.text(c, "link", rc.linkTransport) || !r.integer(c, "link_transit_ns", rc.linkTransitNs, false))
            return false;
        if (rc.bytes < -1 || rc.bytes > (std::int64_t(1) << 52) || groupSize < -1 || groupSize > kMaxWorldSize
            || rc.linkTransitNs < 0 || !model::timeInRange(rc.linkTransitNs))
            return r.fail("step " + std::to_string(d.step.number) + ", collective " + std::to_string(ci)
                          + ": \"bytes\", \"group_size\" or \"link_transit_ns\" out of range");
        rc.groupSize = static_cast<std::int32_t>(groupSize);
        if (const auto gr = c.find("group_ranks"); gr != c.end() && !gr->is_null()) {
            if (!gr->is_array() || gr->size() > static_cast<std::size_t>(kMaxWorldSize))
                return r.fail("\"group_ranks\" is not a list of at most " + std::to_string(kMaxWorldSize) + " ranks");
            rc.groupRanks.reserve(gr->size());
            for (const nlohmann::json& g : *gr) {
                if (!g.is_number_integer() || g.get<std::int64_t>() < 0 || g.get<std::int64_t>() >= kMaxWorldSize)
                    return r.fail("a rank of \"group_ranks\" is not a rank of 0 .. "
                                  + std::to_string(kMaxWorldSize - 1));
                rc.groupRanks.push_back(static_cast<std::int32_t>(g.get<std::int64_t>()));
            }
        }
        d.step.collectives.push_back(std::move(rc));
    }
    return true;
}

/// Reads one step object as given into `d`.
bool readStep(const nlohmann::json& s, DraftStep& d, Reader& r)
{
    if (!s.is_object())
        return r.fail("a step is not an object");
    analysis::RankStep& step = d.step;
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
    if (!readCollectives(s, d, r))
        return false;
    // What the host did before the first collective (absent in reports written before it; null without one).
    if (const auto h = s.find("host_before_first_collective"); h != s.end() && !h->is_null()) {
        const auto top = h->is_object() ? h->find("top") : h->end();
        if (!h->is_object() || !r.integer(*h, "window_ns", step.hostBeforeFirstNs) || top == h->end()
            || !top->is_array() || top->size() > analysis::kHostActivityKept)
            return r.fail("\"host_before_first_collective\" is not {window_ns, top: [at most "
                          + std::to_string(analysis::kHostActivityKept) + " {name, ns}]}");
        for (const nlohmann::json& a : *top) {
            analysis::HostActivity act;
            if (!a.is_object() || !r.text(a, "name", act.name) || !r.integer(a, "ns", act.ns))
                return false;
            step.hostBeforeFirst.push_back(std::move(act));
        }
    }
    if (const auto a = s.find("device_activity"); a != s.end() && !a->is_null()) {
        d.activityUnreadable = readActivity(*a, step);
        if (!d.activityUnreadable.empty()) {
            step.hasActivity = false;
            step.activity = {};
        }
    }
    return true;
}

/// Reads the report object `j` into `d` as given; false with r.error (and r.kind) when it is not one.
/// One entry of trace.rank_links ({src_rank, dst_rank, transport, bytes, transit_ns}); false when it has another
/// shape (ranks and figures non-negative integers, the transport a text of at most 32 bytes).
bool rankLinkFromJson(const nlohmann::json& l, model::RankLink& out)
{
    if (!l.is_object())
        return false;
    const auto count = [&](const char* key, auto& into) {
        const auto it = l.find(key);
        if (it == l.end() || !it->is_number_integer() || it->template get<std::int64_t>() < 0
            || it->template get<std::int64_t>() > std::numeric_limits<std::remove_reference_t<decltype(into)>>::max())
            return false;
        into = static_cast<std::remove_reference_t<decltype(into)>>(it->template get<std::int64_t>());
        return true;
    };
    const auto transport = l.find("transport");
    if (transport == l.end() || !transport->is_string())
        return false;
    out.transport = transport->get<std::string>();
    return count("src_rank", out.src) && count("dst_rank", out.dst) && count("bytes", out.bytes)
        && count("transit_ns", out.transitNs) && model::isWellFormed(out);
}

bool readDraft(const nlohmann::json& j, Reader& r, RankReportDraft& d)
{
    const auto schema = j.find("schema"); // end() when j is no object
    if (!j.is_object() || schema == j.end() || !schema->is_string() || *schema != kReportSchema) {
        r.kind = model::StatusKind::NotRecognised;
        return r.fail(j.is_object() ? "no \"schema\": \"timesink.report/1\"" : "not a JSON object");
    }
    const auto trace = j.find("trace");
    if (trace == j.end() || !trace->is_object())
        return r.fail("missing \"trace\"");
    analysis::RankSummary& sum = d.summary;
    if (!r.integer(*trace, "rank", d.rank, false) || !r.integer(*trace, "world_size", d.worldSize, false)
        || !r.text(*trace, "format", sum.format) || !r.text(j, "platform", sum.platform))
        return false;
    if (const auto ws = trace->find("warnings"); ws != trace->end() && ws->is_array()) {
        for (const nlohmann::json& w : *ws) {
            std::string kind;
            std::string message;
            if (!w.is_object() || !r.text(w, "kind", kind) || !r.text(w, "message", message))
                return r.fail("a warning is not {kind, count, message}");
            if (model::isSeriousImportWarning(kind))
                d.seriousImportWarnings.push_back(std::move(message));
        }
    }
    if (const auto comm = j.find("communication"); comm != j.end() && comm->is_object()) {
        std::string waitSource;
        if (!r.text(*comm, "backend", sum.backend) || !r.text(*comm, "wait_source", waitSource))
            return false;
        sum.waitFromCommunicationJson = waitSource == "communication_json";
        sum.waitFromTasks = waitSource == "wait_tasks" || sum.waitFromCommunicationJson;
    }
    // Where the trace is: the drill-down opens it (a report from another machine names a path on that machine).
    if (!r.integer(j, "analysed_ns", sum.analysedNs) || !r.integer(*trace, "start_ns", d.traceStartNs, false)
        || !r.integer(*trace, "span_ns", d.traceSpanNs, false) || !r.text(*trace, "path", sum.tracePath)
        || !r.text(j, "generator", sum.generator))
        return false;
    // The rank-pair links the importer read (trace.rank_links, Ascend); an entry of the wrong shape is left out. A
    // report of timesink 0.3 and older wrote them as the text trace.properties.rank_links.
    if (const auto links = trace->find("rank_links"); links != trace->end() && links->is_array()) {
        std::vector<model::RankLink> read;
        for (const nlohmann::json& l : *links) {
            model::RankLink link;
            if (rankLinkFromJson(l, link))
                read.push_back(std::move(link));
        }
        model::mergeRankLinks(sum.links, read);
    } else if (const auto props = trace->find("properties"); props != trace->end() && props->is_object()) {
        if (const auto text = props->find("rank_links"); text != props->end() && text->is_string())
            sum.links = model::parseRankLinks(text->get_ref<const std::string&>());
    }
    // The first GPU/NPU's name: the key of the link table (analysis/core/bandwidth.h).
    if (const auto devs = trace->find("devices"); devs != trace->end() && devs->is_array()) {
        for (const nlohmann::json& dv : *devs) {
            const auto kind = dv.is_object() ? dv.find("kind") : dv.end();
            const auto name = dv.is_object() ? dv.find("name") : dv.end();
            if (kind == dv.end() || name == dv.end() || !kind->is_string() || !name->is_string()
                || (*kind != "gpu" && *kind != "npu") || name->get_ref<const std::string&>().empty())
                continue;
            sum.device = boundedText(name->get<std::string>());
            break;
        }
    }
    const auto steps = j.find("steps");
    if (steps == j.end() || !steps->is_array())
        return r.fail("missing \"steps\" (write it with analyze --format json)");
    // Only what the limits keep is read into memory; the rest is counted.
    d.stepsGiven = steps->size();
    d.steps.resize(std::min(steps->size(), kMaxReportSteps));
    for (std::size_t si = 0; si < d.steps.size(); ++si) {
        if (!readStep((*steps)[si], d.steps[si], r))
            return false;
    }
    if (const auto fs = j.find("findings"); fs != j.end() && fs->is_array()) {
        d.findingsGiven = fs->size();
        d.findings.reserve(std::min(fs->size(), kMaxReportFindings));
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
            d.findings.push_back(std::move(rf));
        }
    }
    return true;
}

} // namespace

model::Expected<analysis::RankSummary> rankSummaryFromReportJson(const nlohmann::json& j, const std::string& source)
{
    Reader r {source, {}};
    RankReportDraft d;
    if (!readDraft(j, r, d))
        return model::Status(r.kind, r.error);
    return limitRankReport(std::move(d), source);
}

model::Expected<analysis::RankSummary> readRankReport(const std::filesystem::path& path)
{
    // A report is a summary (kilobytes; a 1,000-step rank with its collectives a few MB): anything far larger is not
    // one, and is refused before it is parsed into memory.
    constexpr std::uintmax_t kMaxReportBytes = std::uintmax_t {256} << 20;
    std::error_code ec;
    if (const std::uintmax_t size = std::filesystem::file_size(path, ec); !ec && size > kMaxReportBytes)
        return model::Status(model::StatusKind::NotRecognised,
                             path.string() + ": " + std::to_string(size >> 20)
                                 + " MiB is too large for a timesink.report/1 file (at most 256 MiB)");
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return model::Status(model::StatusKind::CannotRead, path.string() + ": cannot be read");
    const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
    if (j.is_discarded())
        return model::Status(model::StatusKind::Malformed, path.string() + ": not valid JSON");
    return rankSummaryFromReportJson(j, path.string());
}

} // namespace timesink::report
