// SPDX-License-Identifier: MIT
#pragma once

// Reads a .pftrace back with the generated protobuf classes (an independent reader of our own writer):
// resolves interned names, pairs BEGIN/END per track, and reports any inconsistency of the packet stream.

#include "exporters/proto/perfetto_trace.pb.h"
#include "model/trace.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace timesink::testing {

namespace pb = timesink::perfetto;

struct DecodedSlice
{
    std::string track; // descriptor name without the " (overlap N)" suffix
    std::string name;
    std::int64_t ts = 0;
    std::int64_t dur = 0;
    std::string category;
    std::map<std::string, std::string> args; // values as text
    std::vector<std::uint64_t> flowsOut;
    std::vector<std::uint64_t> flowsIn;
    std::uint64_t trackUuid = 0;
    auto key() const { return std::tie(track, ts, dur, name); }
};

struct DecodedTrack
{
    std::string name;
    std::uint64_t parent = 0;
    bool counter = false;
    bool process = false;
    std::int32_t pid = 0;
};

struct Decoded
{
    std::size_t packets = 0;
    std::map<std::uint64_t, DecodedTrack> tracks;
    std::vector<DecodedSlice> slices;
    std::vector<std::tuple<std::uint64_t, std::int64_t, double>> counters;
    std::map<std::string, int> internedNameCount;
    std::string error; // empty when the stream is consistent
};

inline std::string stripOverlap(const std::string& name)
{
    const auto pos = name.find(" (overlap ");
    return pos == std::string::npos ? name : name.substr(0, pos);
}

inline std::string annotationText(const pb::DebugAnnotation& a)
{
    if (a.has_int_value())
        return "int:" + std::to_string(a.int_value());
    if (a.has_double_value())
        return "double:" + std::to_string(a.double_value());
    if (a.has_bool_value())
        return a.bool_value() ? "bool:true" : "bool:false";
    if (a.has_string_value())
        return "string:" + a.string_value();
    return "?";
}

inline Decoded decode(const std::string& bytes)
{
    Decoded d;
    pb::Trace trace;
    if (!trace.ParseFromString(bytes)) {
        d.error = "not a Trace message";
        return d;
    }
    d.packets = std::size_t(trace.packet_size());
    std::map<std::uint64_t, std::string> names, categories, keys;
    std::map<std::uint64_t, std::vector<DecodedSlice>> open;
    for (int i = 0; i < trace.packet_size(); ++i) {
        const pb::TracePacket& p = trace.packet(i);
        if (p.trusted_packet_sequence_id() != 1)
            d.error = "packet " + std::to_string(i) + " is not on sequence 1";
        if (i == 0 && !(p.sequence_flags() & pb::TracePacket::SEQ_INCREMENTAL_STATE_CLEARED))
            d.error = "the first packet does not clear the incremental state";
        if (p.has_interned_data()) {
            for (const auto& e : p.interned_data().event_names()) {
                names[e.iid()] = e.name();
                ++d.internedNameCount[e.name()];
            }
            for (const auto& e : p.interned_data().event_categories())
                categories[e.iid()] = e.name();
            for (const auto& e : p.interned_data().debug_annotation_names())
                keys[e.iid()] = e.name();
        }
        if (p.has_track_descriptor()) {
            const auto& td = p.track_descriptor();
            DecodedTrack t;
            t.name = td.has_process() ? td.process().process_name() : td.name();
            t.parent = td.parent_uuid();
            t.counter = td.has_counter();
            t.process = td.has_process();
            t.pid = td.has_process() ? td.process().pid() : 0;
            d.tracks[td.uuid()] = t;
        }
        if (!p.has_track_event())
            continue;
        const auto& ev = p.track_event();
        const auto ts = static_cast<std::int64_t>(p.timestamp());
        if (ev.type() == pb::TrackEvent::TYPE_COUNTER) {
            d.counters.emplace_back(ev.track_uuid(), ts, ev.double_counter_value());
        } else if (ev.type() == pb::TrackEvent::TYPE_SLICE_BEGIN) {
            if (!d.tracks.count(ev.track_uuid()))
                d.error = "event before its track descriptor";
            DecodedSlice s;
            s.trackUuid = ev.track_uuid();
            s.track = stripOverlap(d.tracks[ev.track_uuid()].name);
            if (ev.has_name_iid()) {
                if (!names.count(ev.name_iid()))
                    d.error = "name iid " + std::to_string(ev.name_iid()) + " used before it was interned";
                s.name = names[ev.name_iid()];
            } else {
                s.name = ev.name();
            }
            for (const auto iid : ev.category_iids())
                s.category = categories[iid];
            for (const auto& c : ev.categories())
                s.category = c;
            for (const auto& a : ev.debug_annotations())
                s.args[a.has_name_iid() ? keys[a.name_iid()] : a.name()] = annotationText(a);
            s.flowsOut.assign(ev.flow_ids().begin(), ev.flow_ids().end());
            s.flowsIn.assign(ev.terminating_flow_ids().begin(), ev.terminating_flow_ids().end());
            s.ts = ts;
            open[ev.track_uuid()].push_back(s);
        } else if (ev.type() == pb::TrackEvent::TYPE_SLICE_END) {
            auto& stack = open[ev.track_uuid()];
            if (stack.empty()) {
                d.error = "END without BEGIN";
                continue;
            }
            DecodedSlice s = stack.back();
            stack.pop_back();
            if (ts < s.ts)
                d.error = "END before its BEGIN";
            s.dur = ts - s.ts;
            d.slices.push_back(s);
        }
    }
    for (const auto& [uuid, stack] : open) {
        if (!stack.empty())
            d.error = "unclosed slice on track " + std::to_string(uuid);
    }
    return d;
}

inline std::vector<DecodedSlice> modelSlices(const model::Trace& t)
{
    std::vector<DecodedSlice> out;
    for (const model::Track& track : t.tracks()) {
        for (std::uint32_t i = 0; i < track.size(); ++i) {
            DecodedSlice s;
            s.track = std::string(t.str(track.name));
            s.name = std::string(t.str(track.sliceName(i)));
            s.ts = track.ts(i);
            s.dur = track.dur(i);
            out.push_back(s);
        }
    }
    return out;
}

inline void sortSlices(std::vector<DecodedSlice>& v)
{
    std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.key() < b.key(); });
}

} // namespace timesink::testing
