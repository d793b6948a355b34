// SPDX-License-Identifier: MIT
#include "parsers/snapshot/snapshotheader.h"

#include "model/snapshotaccess.h"

#include <algorithm>
#include <cstdint>

namespace timesink::parsers::snapshot {

using model::SnapshotAccess;

void fillHeader(const model::Trace& trace, const SourceIdentity& source, std::string_view writer, pb::Header& h)
{
    h.set_format_version(kFormatVersion);
    h.set_writer(std::string(writer));
    auto* src = h.mutable_source();
    src->set_path(source.path);
    src->set_size(source.size);
    src->set_mtime_ns(source.mtimeNs);
    src->set_content_hash(source.contentHash);

    const model::TraceMetadata& meta = trace.metadata();
    h.set_format(meta.format);
    h.set_format_version_text(meta.formatVersion);
    h.set_source_path(meta.sourcePath);
    for (const model::Device& d : meta.devices) {
        auto* pd = h.add_devices();
        pd->set_kind(static_cast<std::uint32_t>(d.kind));
        pd->set_index(d.index);
        pd->set_name(d.name);
        pd->set_ai_cores(d.aiCores);
        pd->set_ai_core_clock_mhz(d.aiCoreClockMHz);
        pd->set_compute_source(d.computeSource);
        pd->set_compute_units(d.computeUnits);
        pd->set_memory_bytes(d.memoryBytes);
    }
    h.set_rank(meta.rank);
    h.set_world_size(meta.worldSize);
    h.set_profiler_level(meta.profilerLevel);
    h.set_synthetic_timestamps(meta.syntheticTimestamps);
    h.set_platform(std::string(model::platformKey(meta.platform)));
    for (const auto& [key, value] : meta.properties) {
        auto* p = h.add_properties();
        p->set_key(key);
        p->set_value(value);
    }
    for (const model::RankLink& l : meta.rankLinks) {
        auto* pl = h.add_rank_links();
        pl->set_src(l.src);
        pl->set_dst(l.dst);
        pl->set_transport(l.transport);
        pl->set_bytes(l.bytes);
        pl->set_transit_ns(l.transitNs);
    }
    for (const model::ImportWarning& w : trace.warnings()) {
        auto* pw = h.add_warnings();
        pw->set_kind(w.kind);
        pw->set_count(w.count);
        pw->set_message(w.message);
    }
    for (const model::Step& s : trace.steps()) {
        auto* ps = h.add_steps();
        ps->set_number(s.number);
        ps->set_name(s.name.value);
        ps->set_start(s.start);
        ps->set_end(s.end);
        ps->set_marker_track(s.marker.track.value);
        ps->set_marker_index(s.marker.index.value);
        ps->set_synthetic(s.synthetic);
    }
    for (const model::Track& t : trace.tracks()) {
        auto* pt = h.add_tracks();
        pt->set_name(t.name.value);
        pt->set_process_name(t.processName.value);
        pt->set_thread_name(t.threadName.value);
        pt->set_process_key(t.processKey.value);
        pt->set_thread_key(t.threadKey.value);
        pt->set_device_kind(static_cast<std::uint32_t>(t.deviceKind));
        pt->set_role(static_cast<std::uint32_t>(t.role));
        pt->set_device_index(t.deviceIndex);
        pt->set_stream_id(t.streamId);
        pt->set_sort_index(t.sortIndex);
        pt->set_slices(t.size());
        pt->set_counter_samples(t.counterTimes().size());
        for (const auto& d : SnapshotAccess::byDepth(t))
            pt->add_depth_sizes(d.size());
        for (const auto& levels : SnapshotAccess::summaries(t)) {
            pt->add_summary_levels(static_cast<std::uint32_t>(levels.size()));
            for (const auto& level : levels)
                pt->add_summary_sizes(level.size());
        }
        pt->set_start(t.startNs());
        pt->set_end(t.endNs());
        pt->set_busy(t.busyNs());
    }
    for (const std::uint64_t c : SnapshotAccess::categoryCounts(trace))
        h.add_category_counts(c);
    h.set_slice_count(trace.sliceCount());
    h.set_start(trace.startNs());
    h.set_end(trace.endNs());
    h.set_string_count(trace.strings().size());
    h.set_arg_value_bytes(SnapshotAccess::argValueBytes(trace.argStore()).size());
    h.set_arg_offset_count(SnapshotAccess::argOffsets(trace.argStore()).size());
    h.set_arg_schema_key_count(SnapshotAccess::argSchemaKeys(trace.argStore()).size());
    h.set_arg_schema_offset_count(SnapshotAccess::argSchemaOffsets(trace.argStore()).size());
    h.set_flow_count(trace.flows().size());
    h.set_model_bytes(trace.bytesUsed());
}

void restoreFromHeader(const pb::Header& h, const std::string& sourcePath, model::Trace& trace)
{
    auto& tracks = SnapshotAccess::tracks(trace);
    for (std::size_t i = 0; i < tracks.size(); ++i) {
        const pb::Track& p = h.tracks(static_cast<int>(i));
        model::Track& t = tracks[i];
        t.id = model::TrackId(static_cast<std::uint32_t>(i));
        t.name = model::StringId(p.name());
        t.processName = model::StringId(p.process_name());
        t.threadName = model::StringId(p.thread_name());
        t.processKey = model::StringId(p.process_key());
        t.threadKey = model::StringId(p.thread_key());
        t.deviceKind = static_cast<model::DeviceKind>(p.device_kind());
        t.role = static_cast<model::TrackRole>(p.role());
        t.deviceIndex = p.device_index();
        t.streamId = p.stream_id();
        t.sortIndex = p.sort_index();
        SnapshotAccess::trackStart(t) = p.start();
        SnapshotAccess::trackEnd(t) = p.end();
        SnapshotAccess::busy(t) = p.busy();
    }
    for (const pb::Step& s : h.steps()) {
        SnapshotAccess::steps(trace).push_back(model::Step {
            s.number(), model::StringId(s.name()), s.start(), s.end(),
            model::SliceRef {model::TrackId(s.marker_track()), model::SliceIndex(s.marker_index())}, s.synthetic()});
    }
    for (const pb::Warning& w : h.warnings())
        SnapshotAccess::warnings(trace).push_back(model::ImportWarning {w.kind(), w.count(), w.message()});
    model::TraceMetadata& meta = SnapshotAccess::metadata(trace);
    meta.format = h.format();
    meta.formatVersion = h.format_version_text();
    meta.sourcePath = sourcePath;
    for (const pb::Device& d : h.devices()) {
        model::Device device;
        device.kind = static_cast<model::DeviceKind>(d.kind());
        device.index = d.index();
        device.name = d.name();
        device.aiCores = d.ai_cores();
        device.aiCoreClockMHz = d.ai_core_clock_mhz();
        device.computeSource = d.compute_source();
        device.computeUnits = std::max(d.compute_units(), 0); // an untrusted file: negative is "not said"
        device.memoryBytes = std::max<std::int64_t>(d.memory_bytes(), 0);
        meta.devices.push_back(std::move(device));
    }
    meta.rank = h.rank();
    meta.worldSize = h.world_size();
    meta.profilerLevel = h.profiler_level();
    meta.syntheticTimestamps = h.synthetic_timestamps();
    meta.platform = model::platformFromKey(h.platform());
    for (const pb::Property& p : h.properties()) {
        // A snapshot written before rank links were typed kept them as this text.
        if (p.key() == "rank_links")
            model::mergeRankLinks(meta.rankLinks, model::parseRankLinks(p.value()));
        else
            meta.properties.emplace_back(p.key(), p.value());
    }
    // An untrusted file: what the importer would never write (negative ranks or figures, a long transport) is dropped.
    std::vector<model::RankLink> links;
    for (const pb::RankLink& l : h.rank_links()) {
        model::RankLink link {l.src(), l.dst(), l.transport(), l.bytes(), l.transit_ns()};
        if (model::isWellFormed(link))
            links.push_back(std::move(link));
    }
    model::mergeRankLinks(meta.rankLinks, links);
    auto& counts = SnapshotAccess::categoryCounts(trace);
    for (std::size_t c = 0; c < counts.size(); ++c)
        counts[c] = h.category_counts(static_cast<int>(c));
    SnapshotAccess::sliceCount(trace) = h.slice_count();
    SnapshotAccess::start(trace) = h.start();
    SnapshotAccess::end(trace) = h.end();
}

} // namespace timesink::parsers::snapshot
