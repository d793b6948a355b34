// SPDX-License-Identifier: MIT
#include "report/chromejsonexporter.h"

#include "report/exportlayout.h"
#include "report/slicelanes.h"
#include "report/textformat.h"
#include "report/tracesummary.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <vector>

namespace timesink::report {

using model::TimeNs;

namespace {

std::string jsonString(std::string_view text)
{
    return nlohmann::json(std::string(text)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::uint64_t sliceKey(std::uint32_t track, std::uint32_t index)
{
    return (std::uint64_t(track) << 32) | index;
}

class Writer
{
public:
    Writer(const model::Trace& trace, std::span<const analysis::Finding> findings, const TraceExportOptions& options,
           std::ostream& out)
        : m_trace(trace)
        , m_findings(findings)
        , m_options(options)
        , m_out(out)
        , m_layout(trace)
        , m_names(trace.strings().size())
    {
    }

    bool run(std::string& error)
    {
        const model::TraceMetadata& meta = m_trace.metadata();
        m_out << "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"timesink\",\"source\":"
              << jsonString(meta.sourcePath) << ",\"format\":" << jsonString(meta.format) << "},\"traceEvents\":[\n";
        writeProcesses();
        if (m_options.includeFlows)
            collectFlows();
        for (const model::Track& track : m_trace.tracks()) {
            writeTrack(track);
            if (!m_out)
                break;
        }
        if (m_out && m_options.includeFindings && !m_findings.empty())
            writeFindings();
        m_out << "\n]}\n";
        m_out.flush();
        if (!m_out) {
            error = "write failed after " + std::to_string(m_events) + " events";
            return false;
        }
        return true;
    }

    [[nodiscard]] std::uint64_t events() const { return m_events; }

private:
    /// Starts an event object: separator, then the fields every event has.
    void begin(char phase, std::int32_t pid, std::int32_t tid)
    {
        if (m_events++ > 0)
            m_out << ",\n";
        m_out << "{\"ph\":\"" << phase << "\",\"pid\":" << pid << ",\"tid\":" << tid;
    }

    void metadata(std::int32_t pid, std::int32_t tid, std::string_view name, std::string_view argKey,
                  const std::string& argJson)
    {
        begin('M', pid, tid);
        m_out << ",\"name\":\"" << name << "\",\"args\":{\"" << argKey << "\":" << argJson << "}}";
    }

    const std::string& nameJson(model::StringId id)
    {
        std::string& cached = m_names[id.value];
        if (cached.empty())
            cached = jsonString(m_trace.str(id));
        return cached;
    }

    void writeProcesses()
    {
        for (const ExportProcess& p : m_layout.processes()) {
            metadata(p.pid, 0, "process_name", "name", jsonString(p.name));
            metadata(p.pid, 0, "process_sort_index", "sort_index", std::to_string(p.sortIndex));
        }
        const auto tracks = m_trace.tracks();
        std::vector<std::uint32_t> order(tracks.size());
        std::iota(order.begin(), order.end(), 0u);
        std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
            return tracks[a].sortIndex < tracks[b].sortIndex;
        });
        m_trackRank.resize(tracks.size());
        for (std::size_t r = 0; r < order.size(); ++r)
            m_trackRank[order[r]] = r;
    }

    void collectFlows()
    {
        const auto flows = m_trace.flows();
        for (std::size_t i = 0; i < flows.size(); ++i) {
            const model::Flow& f = flows[i];
            if (!isLinkedFlow(f))
                continue;
            m_flowSources.emplace_back(sliceKey(f.from.track.value, f.from.index.value), i);
            m_flowTargets.emplace_back(sliceKey(f.to.track.value, f.to.index.value), i);
        }
        std::sort(m_flowSources.begin(), m_flowSources.end());
        std::sort(m_flowTargets.begin(), m_flowTargets.end());
    }

    std::string trackName(const model::Track& track) const
    {
        std::string_view name = m_trace.str(track.name);
        if (name.empty())
            name = m_trace.str(track.threadName);
        return name.empty() ? "track " + std::to_string(track.id.value) : std::string(name);
    }

    /// "GPU 0 / stream 7": the process makes a track name unambiguous in a finding's annotation.
    std::string evidenceTrackName(const model::Track& track) const
    {
        const std::string_view process = m_trace.str(track.processName);
        return process.empty() ? trackName(track) : std::string(process) + " / " + trackName(track);
    }

    std::int32_t laneTid(std::vector<std::int32_t>& lanes, std::size_t lane, std::int32_t pid, std::int32_t firstTid,
                         const std::string& name, std::size_t rank)
    {
        while (lanes.size() <= lane) {
            const std::size_t n = lanes.size();
            const std::int32_t tid = n == 0 ? firstTid : m_layout.newId();
            lanes.push_back(tid);
            metadata(pid, tid, "thread_name", "name",
                     jsonString(n == 0 ? name : name + " (overlap " + std::to_string(n) + ")"));
            metadata(pid, tid, "thread_sort_index", "sort_index", std::to_string(rank));
        }
        return lanes[lane];
    }

    void writeArgs(model::ArgSetId args)
    {
        m_out << ",\"args\":{";
        bool first = true;
        for (const model::Arg& arg : m_trace.args(args)) {
            m_out << (first ? "" : ",") << nameJson(arg.key) << ':';
            first = false;
            switch (arg.value.type) {
            case model::ArgValue::Type::Int:
                m_out << arg.value.i;
                break;
            case model::ArgValue::Type::Double:
                if (std::isfinite(arg.value.d))
                    m_out << nlohmann::json(arg.value.d).dump();
                else
                    m_out << "null";
                break;
            case model::ArgValue::Type::Bool:
                m_out << (arg.value.i != 0 ? "true" : "false");
                break;
            case model::ArgValue::Type::String:
                m_out << nameJson(model::StringId(arg.value.s));
                break;
            }
        }
        m_out << '}';
    }

    void writeFlowEnds(std::vector<std::pair<std::uint64_t, std::size_t>>& list, std::size_t& cursor,
                       std::uint64_t key, bool source, std::int32_t pid, std::int32_t tid, TimeNs ts)
    {
        while (cursor < list.size() && list[cursor].first < key)
            ++cursor;
        for (; cursor < list.size() && list[cursor].first == key; ++cursor) {
            const model::Flow& flow = m_trace.flows()[list[cursor].second];
            begin(source ? 's' : 'f', pid, tid);
            m_out << ",\"ts\":" << ChromeJsonExporter::formatMicros(ts) << ",\"id\":" << list[cursor].second + 1
                  << ",\"name\":\"flow\",\"cat\":\"" << model::flowKindKey(flow.kind) << '"'
                  << (source ? "" : ",\"bp\":\"e\"") << '}';
        }
    }

    void writeTrack(const model::Track& track)
    {
        const ExportProcess& process = m_layout.processes()[m_layout.processOf(track.id)];
        const std::int32_t pid = process.pid;
        const std::string name = trackName(track);
        const std::size_t rank = m_trackRank[track.id.value];
        if (!track.counterTimes().empty() && m_options.includeCounters) {
            const std::string counterName = jsonString(name);
            const auto times = track.counterTimes();
            const auto values = track.counterValues();
            for (std::size_t i = 0; i < times.size(); ++i) {
                begin('C', pid, m_layout.tidOf(track.id));
                m_out << ",\"ts\":" << ChromeJsonExporter::formatMicros(times[i]) << ",\"name\":" << counterName
                      << ",\"args\":{\"value\":"
                      << (std::isfinite(values[i]) ? nlohmann::json(values[i]).dump() : std::string("null")) << "}}";
            }
        }
        if (track.empty())
            return;
        std::vector<std::int32_t> lanes;
        laneTid(lanes, 0, pid, m_layout.tidOf(track.id), name, rank);
        SliceLanes stacks;
        const auto ignoreEnd = [](std::size_t, TimeNs) {};
        for (std::uint32_t i = 0; i < track.size(); ++i) {
            const std::size_t lane = stacks.place(track.ts(i), track.end(i), ignoreEnd);
            const std::int32_t tid = laneTid(lanes, lane, pid, lanes.front(), name, rank);
            begin('X', pid, tid);
            m_out << ",\"ts\":" << ChromeJsonExporter::formatMicros(track.ts(i))
                  << ",\"dur\":" << ChromeJsonExporter::formatMicros(track.dur(i)) << ",\"name\":"
                  << nameJson(track.sliceName(i)) << ",\"cat\":\"" << model::categoryKey(track.category(i)) << '"';
            if (m_options.includeArgs && track.args(i).isValid())
                writeArgs(track.args(i));
            m_out << '}';
            if (m_options.includeFlows) {
                // Written after the slice: a viewer binds "s" to the slice open at its timestamp on the thread.
                const std::uint64_t key = sliceKey(track.id.value, i);
                writeFlowEnds(m_flowSources, m_sourceCursor, key, true, pid, tid, track.ts(i));
                writeFlowEnds(m_flowTargets, m_targetCursor, key, false, pid, tid, track.ts(i));
            }
        }
    }

    void writeFindings()
    {
        const std::int32_t pid = m_layout.newId();
        metadata(pid, 0, "process_name", "name", jsonString("Timesink findings"));
        metadata(pid, 0, "process_sort_index", "sort_index", "-1");
        for (std::size_t r = 0; r < m_findings.size(); ++r) {
            const analysis::Finding& f = m_findings[r];
            const std::string name = "#" + std::to_string(r + 1) + " " + f.kind;
            std::vector<std::int32_t> lanes;
            laneTid(lanes, 0, pid, m_layout.newId(), name, r);
            std::vector<analysis::EvidenceRange> evidence = f.evidence;
            std::sort(evidence.begin(), evidence.end(), [](const auto& a, const auto& b) {
                return a.start != b.start ? a.start < b.start : a.end > b.end;
            });
            nlohmann::json args = {{"rank", r + 1},
                                   {"kind", f.kind},
                                   {"lost_ns", f.lostNs},
                                   {"lost", formatDuration(f.lostNs) + " (" + formatPercent(f.lostFraction) + ")"}};
            if (!f.recommendation.empty())
                args["recommendation"] = f.recommendation;
            const std::string title = jsonString(f.title);
            SliceLanes stacks;
            const auto ignoreEnd = [](std::size_t, TimeNs) {};
            for (const analysis::EvidenceRange& e : evidence) {
                const TimeNs end = std::max(e.start, e.end);
                const std::size_t lane = stacks.place(e.start, end, ignoreEnd);
                nlohmann::json a = args;
                if (e.track.isValid() && e.track.value < m_trace.tracks().size())
                    a["evidence_track"] = evidenceTrackName(m_trace.track(e.track));
                begin('X', pid, laneTid(lanes, lane, pid, lanes.front(), name, r));
                m_out << ",\"ts\":" << ChromeJsonExporter::formatMicros(e.start)
                      << ",\"dur\":" << ChromeJsonExporter::formatMicros(end - e.start) << ",\"name\":" << title
                      << ",\"cat\":\"timesink.finding\",\"args\":"
                      << a.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '}';
            }
        }
    }

    const model::Trace& m_trace;
    std::span<const analysis::Finding> m_findings;
    const TraceExportOptions& m_options;
    std::ostream& m_out;
    ExportLayout m_layout;
    std::vector<std::string> m_names; // escaped JSON string per StringId, filled on first use
    std::vector<std::size_t> m_trackRank;
    std::vector<std::pair<std::uint64_t, std::size_t>> m_flowSources; // (slice key, flow index)
    std::vector<std::pair<std::uint64_t, std::size_t>> m_flowTargets;
    std::size_t m_sourceCursor = 0;
    std::size_t m_targetCursor = 0;
    std::uint64_t m_events = 0;
};

} // namespace

ChromeJsonExporter::ChromeJsonExporter(const model::Trace& trace, std::span<const analysis::Finding> findings,
                                       TraceExportOptions options)
    : m_trace(trace)
    , m_findings(findings)
    , m_options(options)
{
}

bool ChromeJsonExporter::write(std::ostream& out, std::string& error)
{
    Writer writer(m_trace, m_findings, m_options, out);
    const bool ok = writer.run(error);
    m_events = writer.events();
    return ok;
}

std::string ChromeJsonExporter::formatMicros(TimeNs ns)
{
    const bool negative = ns < 0;
    const auto magnitude = negative ? static_cast<std::uint64_t>(-(ns + 1)) + 1 : static_cast<std::uint64_t>(ns);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%s%llu.%03llu", negative ? "-" : "", static_cast<unsigned long long>(magnitude / 1000),
                  static_cast<unsigned long long>(magnitude % 1000));
    return buf;
}

} // namespace timesink::report
