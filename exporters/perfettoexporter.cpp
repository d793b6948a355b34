// SPDX-License-Identifier: MIT
#include "exporters/perfettoexporter.h"

#include "analysis/core/textformat.h"
#include "exporters/exportlayout.h"
#include "exporters/proto/perfetto_trace.pb.h"
#include "exporters/slicelanes.h"
#include "model/trackname.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

namespace timesink::exporters {

namespace pb = timesink::perfetto;
using model::TimeNs;

namespace {

/// Every packet goes on one sequence so that interned names stay valid for the whole file.
constexpr std::uint32_t kSequenceId = 1;

std::uint64_t sliceKey(std::uint32_t track, std::uint32_t index)
{
    return (std::uint64_t(track) << 32) | index;
}

/// Flow endpoints sorted by (track, slice index): the exporter walks tracks and slices in that order, so one
/// cursor per list finds every slice's flows without a hash map.
struct FlowEndpoints
{
    std::vector<std::pair<std::uint64_t, std::uint64_t>> items; // (slice key, flow id)
    std::size_t cursor = 0;

    template <typename Fn> void take(std::uint64_t key, Fn&& fn)
    {
        while (cursor < items.size() && items[cursor].first < key)
            ++cursor;
        while (cursor < items.size() && items[cursor].first == key)
            fn(items[cursor++].second);
    }
};

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
        , m_nameSent(trace.strings().size(), false)
        , m_keySent(trace.strings().size(), false)
    {
    }

    bool run(std::string& error)
    {
        if (!checkTimestamps(error))
            return false;
        writeProcesses();
        if (m_options.includeFlows)
            collectFlows();
        for (const model::Track& track : m_trace.tracks()) {
            writeTrack(track);
            if (!m_out) {
                error = "write failed after " + std::to_string(m_packets) + " packets";
                return false;
            }
        }
        if (m_options.includeFindings && !m_findings.empty())
            writeFindings();
        m_out.flush();
        if (!m_out) {
            error = "write failed after " + std::to_string(m_packets) + " packets";
            return false;
        }
        return true;
    }

    [[nodiscard]] std::uint64_t packets() const { return m_packets; }

private:
    bool checkTimestamps(std::string& error)
    {
        bool negative = m_trace.sliceCount() > 0 && m_trace.startNs() < 0;
        for (const model::Track& t : m_trace.tracks()) {
            if ((!t.empty() && t.ts(0) < 0) || (!t.counterTimes().empty() && t.counterTimes().front() < 0))
                negative = true;
        }
        if (m_options.includeFindings) {
            for (const analysis::Finding& f : m_findings) {
                for (const analysis::EvidenceRange& e : f.evidence)
                    negative = negative || e.start < 0 || e.end < 0;
            }
        }
        if (negative) {
            error = "the trace has negative timestamps, which the Perfetto format cannot hold; export as Chrome "
                    "JSON (.json) instead";
            return false;
        }
        return true;
    }

    void emit(pb::TracePacket& packet)
    {
        packet.set_trusted_packet_sequence_id(kSequenceId);
        if (m_packets == 0)
            packet.set_sequence_flags(packet.sequence_flags() | pb::TracePacket::SEQ_INCREMENTAL_STATE_CLEARED);
        m_buffer.clear();
        packet.SerializeToString(&m_buffer);
        // Field 1 (Trace.packet), wire type 2 (length-delimited), then the varint length.
        char header[11];
        std::size_t n = 0;
        header[n++] = 0x0A;
        std::uint64_t len = m_buffer.size();
        do {
            auto byte = static_cast<unsigned char>(len & 0x7F);
            len >>= 7;
            if (len != 0)
                byte |= 0x80;
            header[n++] = static_cast<char>(byte);
        } while (len != 0);
        m_out.write(header, static_cast<std::streamsize>(n));
        m_out.write(m_buffer.data(), static_cast<std::streamsize>(m_buffer.size()));
        ++m_packets;
        packet.Clear();
    }

    std::uint64_t newUuid() { return m_nextUuid++; }

    void writeProcesses()
    {
        const auto& processes = m_layout.processes();
        m_processUuid.resize(processes.size());
        for (std::size_t p = 0; p < processes.size(); ++p) {
            m_processUuid[p] = newUuid();
            auto* d = m_packet.mutable_track_descriptor();
            d->set_uuid(m_processUuid[p]);
            d->mutable_process()->set_pid(processes[p].pid);
            d->mutable_process()->set_process_name(analysis::cleanText(processes[p].name));
            d->set_child_ordering(pb::TrackDescriptor::EXPLICIT);
            emit(m_packet);
        }
        // Rank tracks inside their process by (sortIndex, id) so Perfetto shows them in the model's order.
        const auto tracks = m_trace.tracks();
        std::vector<std::uint32_t> order(tracks.size());
        std::iota(order.begin(), order.end(), 0u);
        std::stable_sort(order.begin(), order.end(),
                         [&](std::uint32_t a, std::uint32_t b) { return tracks[a].sortIndex < tracks[b].sortIndex; });
        m_trackRank.resize(tracks.size());
        for (std::size_t r = 0; r < order.size(); ++r)
            m_trackRank[order[r]]
                = static_cast<std::int32_t>(std::min<std::size_t>(r, std::numeric_limits<std::int32_t>::max()));
    }

    void collectFlows()
    {
        const auto flows = m_trace.flows();
        for (std::size_t i = 0; i < flows.size(); ++i) {
            const model::Flow& f = flows[i];
            if (!f.isLinked())
                continue;
            const std::uint64_t id = i + 1;
            m_flowSources.items.emplace_back(sliceKey(f.from.track.value, f.from.index.value), id);
            m_flowTargets.items.emplace_back(sliceKey(f.to.track.value, f.to.index.value), id);
        }
        std::sort(m_flowSources.items.begin(), m_flowSources.items.end());
        std::sort(m_flowTargets.items.begin(), m_flowTargets.items.end());
    }

    std::string trackName(const model::Track& track) const
    {
        return analysis::cleanText(model::trackName(m_trace, track));
    }

    /// "GPU 0 / stream 7": the process makes a track name unambiguous in a finding's annotation.
    std::string evidenceTrackName(const model::Track& track) const
    {
        return analysis::cleanText(model::trackDisplayName(m_trace, track));
    }

    std::uint64_t describeTrack(const std::string& name, std::uint64_t parent, std::int32_t rank, bool counter)
    {
        const std::uint64_t uuid = newUuid();
        auto* d = m_packet.mutable_track_descriptor();
        d->set_uuid(uuid);
        if (parent != 0)
            d->set_parent_uuid(parent);
        d->set_name(name);
        d->set_sibling_order_rank(rank);
        if (counter)
            d->mutable_counter();
        emit(m_packet);
        return uuid;
    }

    /// The uuid of `lane` of a track, describing lane tracks (" (overlap N)") the first time they are used.
    std::uint64_t laneUuid(std::vector<std::uint64_t>& lanes, std::size_t lane, const std::string& name,
                           std::uint64_t parent, std::int32_t rank)
    {
        while (lanes.size() <= lane) {
            const std::size_t n = lanes.size();
            lanes.push_back(
                describeTrack(n == 0 ? name : name + " (overlap " + std::to_string(n) + ")", parent, rank, false));
        }
        return lanes[lane];
    }

    void internName(pb::TrackEvent* ev, model::StringId name, pb::TracePacket& packet)
    {
        if (name.isEmpty())
            return;
        ev->set_name_iid(name.value);
        if (!m_nameSent[name.value]) {
            m_nameSent[name.value] = true;
            auto* e = packet.mutable_interned_data()->add_event_names();
            e->set_iid(name.value);
            e->set_name(std::string(m_trace.str(name)));
        }
    }

    void internCategory(pb::TrackEvent* ev, model::SliceCategory category, pb::TracePacket& packet)
    {
        const auto c = static_cast<std::size_t>(category);
        ev->add_category_iids(c + 1);
        if (!m_categorySent[c]) {
            m_categorySent[c] = true;
            auto* e = packet.mutable_interned_data()->add_event_categories();
            e->set_iid(c + 1);
            e->set_name(std::string(model::categoryKey(category)));
        }
    }

    void addArgs(pb::TrackEvent* ev, model::ArgSetId args, pb::TracePacket& packet)
    {
        for (const model::Arg& arg : m_trace.args(args)) {
            auto* a = ev->add_debug_annotations();
            if (arg.key.isEmpty()) {
                a->set_name("");
            } else {
                a->set_name_iid(arg.key.value);
                if (!m_keySent[arg.key.value]) {
                    m_keySent[arg.key.value] = true;
                    auto* e = packet.mutable_interned_data()->add_debug_annotation_names();
                    e->set_iid(arg.key.value);
                    e->set_name(std::string(m_trace.str(arg.key)));
                }
            }
            switch (arg.value.type) {
            case model::ArgValue::Type::Int:
                a->set_int_value(arg.value.i);
                break;
            case model::ArgValue::Type::Double:
                a->set_double_value(arg.value.d);
                break;
            case model::ArgValue::Type::Bool:
                a->set_bool_value(arg.value.i != 0);
                break;
            case model::ArgValue::Type::String:
                a->set_string_value(std::string(m_trace.str(model::StringId(arg.value.s))));
                break;
            }
        }
    }

    void writeEnd(std::uint64_t uuid, TimeNs ts)
    {
        m_packet.set_timestamp(static_cast<std::uint64_t>(ts));
        auto* ev = m_packet.mutable_track_event();
        ev->set_type(pb::TrackEvent::TYPE_SLICE_END);
        ev->set_track_uuid(uuid);
        emit(m_packet);
    }

    void writeTrack(const model::Track& track)
    {
        const std::size_t process = m_layout.processOf(track.id);
        const std::uint64_t parent = m_processUuid[process];
        const std::string name = trackName(track);
        const std::int32_t rank = m_trackRank[track.id.value];
        if (track.role == model::TrackRole::Counter || !track.counterTimes().empty()) {
            if (!m_options.includeCounters)
                return;
            const std::uint64_t uuid = describeTrack(name, parent, rank, true);
            const auto times = track.counterTimes();
            const auto values = track.counterValues();
            for (std::size_t i = 0; i < times.size(); ++i) {
                m_packet.set_timestamp(static_cast<std::uint64_t>(times[i]));
                auto* ev = m_packet.mutable_track_event();
                ev->set_type(pb::TrackEvent::TYPE_COUNTER);
                ev->set_track_uuid(uuid);
                ev->set_double_counter_value(values[i]);
                emit(m_packet);
            }
            if (track.empty())
                return;
        }
        if (track.empty())
            return; // an importer's placeholder track: nothing to show
        std::vector<std::uint64_t> lanes;
        laneUuid(lanes, 0, name, parent, rank);
        SliceLanes stacks;
        const auto onEnd = [&](std::size_t lane, TimeNs end) { writeEnd(lanes[lane], end); };
        for (std::uint32_t i = 0; i < track.size(); ++i) {
            // Before building the BEGIN in m_packet: placing may write ENDs, a new lane its descriptor.
            const std::size_t lane = stacks.place(track.ts(i), track.end(i), onEnd);
            const std::uint64_t uuid = laneUuid(lanes, lane, name, parent, rank);
            m_packet.set_timestamp(static_cast<std::uint64_t>(track.ts(i)));
            m_packet.set_sequence_flags(pb::TracePacket::SEQ_NEEDS_INCREMENTAL_STATE);
            auto* ev = m_packet.mutable_track_event();
            ev->set_type(pb::TrackEvent::TYPE_SLICE_BEGIN);
            ev->set_track_uuid(uuid);
            internName(ev, track.sliceName(i), m_packet);
            internCategory(ev, track.category(i), m_packet);
            if (m_options.includeArgs && track.args(i).isValid())
                addArgs(ev, track.args(i), m_packet);
            if (m_options.includeFlows) {
                const std::uint64_t key = sliceKey(track.id.value, i);
                m_flowSources.take(key, [&](std::uint64_t id) { ev->add_flow_ids(id); });
                m_flowTargets.take(key, [&](std::uint64_t id) { ev->add_terminating_flow_ids(id); });
            }
            emit(m_packet);
        }
        stacks.closeAll(onEnd);
    }

    void writeFindings()
    {
        const std::uint64_t root = newUuid();
        {
            auto* d = m_packet.mutable_track_descriptor();
            d->set_uuid(root);
            d->set_name("Timesink findings");
            d->set_child_ordering(pb::TrackDescriptor::EXPLICIT);
            emit(m_packet);
        }
        for (std::size_t r = 0; r < m_findings.size(); ++r) {
            const analysis::Finding& f = m_findings[r];
            const std::string name = "#" + std::to_string(r + 1) + " " + analysis::cleanText(f.kind);
            const auto rank = static_cast<std::int32_t>(r);
            std::vector<std::uint64_t> lanes;
            laneUuid(lanes, 0, name, root, rank);
            std::vector<analysis::EvidenceRange> evidence = f.evidence;
            std::sort(evidence.begin(), evidence.end(), [](const auto& a, const auto& b) {
                return a.start != b.start ? a.start < b.start : a.end > b.end;
            });
            SliceLanes stacks;
            const auto onEnd = [&](std::size_t lane, TimeNs end) { writeEnd(lanes[lane], end); };
            const std::string title = analysis::cleanText(f.title);
            for (const analysis::EvidenceRange& e : evidence) {
                const TimeNs end = std::max(e.start, e.end);
                // Placing may write END packets and a new lane may write its descriptor: both reuse m_packet,
                // so they must happen before this event is built in it.
                const std::size_t lane = stacks.place(e.start, end, onEnd);
                const std::uint64_t uuid = laneUuid(lanes, lane, name, root, rank);
                m_packet.set_timestamp(static_cast<std::uint64_t>(e.start));
                auto* ev = m_packet.mutable_track_event();
                ev->set_type(pb::TrackEvent::TYPE_SLICE_BEGIN);
                ev->set_track_uuid(uuid);
                ev->set_name(title);
                ev->add_categories("timesink.finding");
                annotate(ev, "rank", static_cast<std::int64_t>(r + 1));
                annotate(ev, "kind", analysis::cleanText(f.kind));
                annotate(ev, "lost_ns", f.lostNs);
                annotate(ev, "lost",
                         analysis::formatDuration(f.lostNs) + " (" + analysis::formatPercent(f.lostFraction) + ")");
                if (e.track.isValid() && e.track.value < m_trace.tracks().size())
                    annotate(ev, "evidence_track", evidenceTrackName(m_trace.track(e.track)));
                if (!f.recommendation.empty())
                    annotate(ev, "recommendation", analysis::cleanText(f.recommendation));
                emit(m_packet);
            }
            stacks.closeAll(onEnd);
        }
    }

    static void annotate(pb::TrackEvent* ev, const std::string& name, std::int64_t value)
    {
        auto* a = ev->add_debug_annotations();
        a->set_name(name);
        a->set_int_value(value);
    }
    static void annotate(pb::TrackEvent* ev, const std::string& name, const std::string& value)
    {
        auto* a = ev->add_debug_annotations();
        a->set_name(name);
        a->set_string_value(value);
    }

    const model::Trace& m_trace;
    std::span<const analysis::Finding> m_findings;
    const TraceExportOptions& m_options;
    std::ostream& m_out;
    ExportLayout m_layout;
    pb::TracePacket m_packet;
    std::string m_buffer;
    std::uint64_t m_packets = 0;
    std::uint64_t m_nextUuid = 1;
    std::vector<std::uint64_t> m_processUuid;
    std::vector<std::int32_t> m_trackRank;
    std::vector<bool> m_nameSent;
    std::vector<bool> m_keySent;
    std::array<bool, model::kSliceCategoryCount> m_categorySent {};
    FlowEndpoints m_flowSources;
    FlowEndpoints m_flowTargets;
};

} // namespace

PerfettoExporter::PerfettoExporter(const model::Trace& trace, std::span<const analysis::Finding> findings,
                                   TraceExportOptions options)
    : m_trace(trace)
    , m_findings(findings)
    , m_options(options)
{
}

bool PerfettoExporter::write(std::ostream& out, std::string& error)
{
    Writer writer(m_trace, m_findings, m_options, out);
    const bool ok = writer.run(error);
    m_packets = writer.packets();
    return ok;
}

} // namespace timesink::exporters
