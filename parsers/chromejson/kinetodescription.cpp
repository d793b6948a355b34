// SPDX-License-Identifier: MIT
// The Kineto importer: parsing a Timesink export's description (kinetodescription.h).
#include "parsers/chromejson/kinetodescription.h"

#include "model/checkedmath.h"
#include "model/tracebuilder.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace timesink::parsers::chromejson::kineto {

using model::SliceCategory;
using model::TimeNs;

namespace {

/// The enum value whose key is `key` (keys from model/types.h), or nullopt.
template <typename E> std::optional<E> enumFromKey(std::string_view key, int count, std::string_view (*keyOf)(E))
{
    for (int i = 0; i < count; ++i) {
        if (keyOf(static_cast<E>(i)) == key)
            return static_cast<E>(i);
    }
    return std::nullopt;
}

} // namespace

std::optional<model::SliceCategory> categoryFromKey(std::string_view key)
{
    return enumFromKey<model::SliceCategory>(key, model::kSliceCategoryCount, model::categoryKey);
}

/// Reads the "timesink" object; nullopt (and `error` says which field) when it is not what the exporter writes.
std::optional<ExportDescription> parseDescription(const nlohmann::json& j, std::string& error)
{
    using nlohmann::json;
    const auto text = [](const json& o, const char* key, std::string& out) {
        const auto it = o.find(key);
        if (it == o.end() || !it->is_string())
            return false;
        out = it->get<std::string>();
        return true;
    };
    const auto integer = [](const json& o, const char* key, auto& out) {
        using T = std::remove_reference_t<decltype(out)>;
        const auto it = o.find(key);
        if (it == o.end() || !it->is_number_integer()
            || (it->is_number_unsigned() && it->get<std::uint64_t>() > std::uint64_t(INT64_MAX)))
            return false;
        // Through int64 with a range check: a value out of the field's range is an error, not a wrap.
        const auto v = it->get<std::int64_t>();
        if (v < std::int64_t(std::numeric_limits<T>::min()) || v > std::int64_t(std::numeric_limits<T>::max()))
            return false;
        out = static_cast<T>(v);
        return true;
    };
    const auto fail = [&error](std::string what) {
        error = std::move(what);
        return std::nullopt;
    };
    if (!j.is_object())
        return fail("it is not an object");
    if (std::int64_t version = 0; !integer(j, "version", version) || version != 1)
        return fail("its version is not 1, the one this Timesink writes");
    ExportDescription d;
    model::TraceMetadata& m = d.meta;
    if (!text(j, "format", m.format) || m.format.empty() || !text(j, "format_version", m.formatVersion)
        || !text(j, "profiler_level", m.profilerLevel) || !integer(j, "rank", m.rank)
        || !integer(j, "world_size", m.worldSize))
        return fail("format, format_version, profiler_level, rank or world_size is missing or out of range");
    // A description is believed whole or not at all: each of its claims must fit the others.
    if (m.rank < -1 || m.worldSize < -1 || m.worldSize == 0 || (m.worldSize > 0 && m.rank >= m.worldSize))
        return fail("rank " + std::to_string(m.rank) + " does not fit world size " + std::to_string(m.worldSize));
    if (const auto it = j.find("synthetic_timestamps"); it == j.end() || !it->is_boolean())
        return fail("synthetic_timestamps is missing");
    else
        m.syntheticTimestamps = it->get<bool>();
    // Written since the platform became part of the metadata; an export without it gets the one its devices show.
    if (const auto it = j.find("platform"); it != j.end()) {
        if (!it->is_string())
            return fail("platform is not a text");
        m.platform = model::platformFromKey(it->get<std::string>());
    }
    const auto devices = j.find("devices");
    const auto properties = j.find("properties");
    const auto tracks = j.find("tracks");
    const auto steps = j.find("steps");
    if (devices == j.end() || !devices->is_array() || properties == j.end() || !properties->is_array()
        || tracks == j.end() || !tracks->is_array() || steps == j.end() || !steps->is_array())
        return fail("devices, properties, tracks or steps is not an array");
    for (const json& dev : *devices) {
        model::Device out;
        std::string kind;
        if (!dev.is_object() || !text(dev, "kind", kind) || !integer(dev, "index", out.index)
            || !text(dev, "name", out.name))
            return fail("a device lacks kind, index or name");
        const auto k = enumFromKey<model::DeviceKind>(kind, 4, model::deviceKindKey);
        if (!k)
            return fail("unknown device kind \"" + kind + "\"");
        out.kind = *k;
        // An Ascend device's AI-core count and clock, where the source said them (optional: older exports lack them).
        if (const auto c = dev.find("ai_cores"); c != dev.end() && c->is_number_integer())
            out.aiCores = static_cast<std::int32_t>(std::clamp<std::int64_t>(c->get<std::int64_t>(), 0, 1 << 20));
        if (const auto c = dev.find("ai_core_clock_mhz");
            c != dev.end() && c->is_number() && std::isfinite(c->get<double>()) && c->get<double>() > 0.0)
            out.aiCoreClockMHz = c->get<double>();
        if (const auto c = dev.find("compute_source"); c != dev.end() && c->is_string())
            out.computeSource = c->get<std::string>();
        m.devices.push_back(std::move(out));
    }
    for (const json& p : *properties) {
        if (!p.is_array() || p.size() != 2 || !p[0].is_string() || !p[1].is_string())
            return fail("a property is not a [key, value] pair of strings");
        // An export of timesink 0.3 and older kept the rank links as this text.
        if (p[0].get_ref<const std::string&>() == "rank_links")
            model::mergeRankLinks(m.rankLinks, model::parseRankLinks(p[1].get_ref<const std::string&>()));
        else
            m.properties.emplace_back(p[0].get<std::string>(), p[1].get<std::string>());
    }
    // [src, dst, transport, bytes, transit_ns] each (optional: older exports lack it).
    if (const auto links = j.find("rank_links"); links != j.end()) {
        if (!links->is_array())
            return fail("rank_links is not an array");
        std::vector<model::RankLink> read;
        for (const json& l : *links) {
            model::RankLink link;
            if (!l.is_array() || l.size() != 5 || !l[0].is_number_integer() || !l[1].is_number_integer()
                || !l[2].is_string() || !l[3].is_number_integer() || !l[4].is_number_integer())
                return fail("a rank link is not [src, dst, transport, bytes, transit_ns]");
            const auto rank = [](const json& v) {
                return static_cast<std::int32_t>(std::clamp<std::int64_t>(v.get<std::int64_t>(), -1, 1 << 30));
            };
            link
                = {rank(l[0]), rank(l[1]), l[2].get<std::string>(), l[3].get<std::int64_t>(), l[4].get<std::int64_t>()};
            if (!model::isWellFormed(link))
                return fail("a rank link has a negative figure or a bad transport");
            read.push_back(std::move(link));
        }
        model::mergeRankLinks(m.rankLinks, read);
    }
    // The devices listed, for checking each track's device in one lookup (an export may list 100,000s).
    auto deviceKey = [](model::DeviceKind kind, std::int32_t index) {
        return (std::uint64_t(kind) << 32U) | std::uint32_t(index);
    };
    std::unordered_set<std::uint64_t> listed;
    listed.reserve(m.devices.size());
    for (const model::Device& dev : m.devices)
        listed.insert(deviceKey(dev.kind, dev.index));
    for (const json& t : *tracks) {
        DescribedTrack out;
        std::int32_t pid = 0;
        std::int32_t tid = 0;
        std::string kind;
        std::string role;
        if (!t.is_object() || !integer(t, "pid", pid) || !integer(t, "tid", tid) || !text(t, "name", out.name)
            || !text(t, "process", out.process) || !text(t, "thread", out.thread)
            || !text(t, "process_key", out.processKey) || !text(t, "thread_key", out.threadKey)
            || !text(t, "device_kind", kind) || !integer(t, "device", out.device) || !integer(t, "stream", out.stream)
            || !text(t, "role", role) || !integer(t, "sort_index", out.sortIndex))
            return fail("a track lacks one of pid, tid, name, process, thread, process_key, thread_key, "
                        "device_kind, device, stream, role, sort_index");
        const auto k = enumFromKey<model::DeviceKind>(kind, 4, model::deviceKindKey);
        const auto r = enumFromKey<model::TrackRole>(role, 6, model::trackRoleKey);
        if (!k || !r)
            return fail("a track has an unknown device kind or role");
        out.deviceKind = *k;
        out.role = *r;
        if (out.deviceKind != model::DeviceKind::Cpu && out.device >= 0
            && listed.count(deviceKey(out.deviceKind, out.device)) == 0)
            return fail("a track names a device the description does not list");
        out.pid = std::to_string(pid);
        out.tid = std::to_string(tid);
        d.tracks.push_back(std::move(out));
    }
    for (const json& s : *steps) {
        DescribedStep out;
        if (!s.is_object() || !integer(s, "number", out.number) || !text(s, "name", out.name)
            || !integer(s, "start", out.start) || !integer(s, "end", out.end))
            return fail("a step lacks number, name, start or end");
        if (!model::timeInRange(out.start) || !model::timeInRange(out.end) || out.end < out.start)
            return fail("step " + std::to_string(out.number) + " ends before it starts or lies out of range");
        if (const auto marker = s.find("marker"); marker != s.end()) {
            std::uint32_t track = 0;
            if (!marker->is_object() || !integer(*marker, "track", track) || track >= d.tracks.size()
                || !integer(*marker, "ts", out.markerTs))
                return fail("a step marker does not name a described track and a ts");
            out.markerTrack = track;
        }
        d.steps.push_back(std::move(out));
    }
    return d;
}

} // namespace timesink::parsers::chromejson::kineto
