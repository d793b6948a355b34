// SPDX-License-Identifier: MIT
#include "parsers/chromejson/kinetoimporter.h"

#include "model/argnames.h"
#include "model/checkedmath.h"
#include "model/tracebuilder.h"
#include "parsers/chromejson/chromeeventreader.h"
#include "parsers/chromejson/kinetoclassify.h"
#include "parsers/common/beginend.h"
#include "parsers/common/correlationjoin.h"
#include "parsers/common/flowpairing.h"
#include "parsers/common/interncache.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace timesink::parsers::chromejson {

using model::SliceCategory;
using model::TimeNs;

namespace {

// The category of the findings' evidence slices in a trace written by timesink-cli export
// (exporters/chromejsonexporter).
constexpr std::string_view kExportedFindingCategory = "timesink.finding";

bool startsWith(std::string_view s, std::string_view p)
{
    return s.substr(0, p.size()) == p;
}

bool contains(std::string_view s, std::string_view p)
{
    return s.find(p) != std::string_view::npos;
}

std::optional<std::int64_t> toInt(std::string_view t)
{
    std::int64_t v = 0;
    auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc() || p != t.data() + t.size())
        return std::nullopt;
    return v;
}

// The tail of an uncompressed file, where Kineto writes baseTimeNanoseconds after the events. Reading it first
// saves a second pass; compressed files cannot seek, so they get the second pass when the key comes late.
std::optional<TimeNs> peekBaseTimeAtTail(const std::filesystem::path& path)
{
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f)
        return std::nullopt;
    std::string tail(4096, '\0');
    std::optional<TimeNs> result;
    if (std::fseek(f, -static_cast<long>(tail.size()), SEEK_END) != 0)
        std::fseek(f, 0, SEEK_SET);
    tail.resize(std::fread(tail.data(), 1, tail.size(), f));
    std::fclose(f);
    const std::string_view key = "\"baseTimeNanoseconds\"";
    const auto at = tail.rfind(key);
    if (at == std::string::npos)
        return std::nullopt;
    std::size_t i = at + key.size();
    while (i < tail.size() && (tail[i] == ' ' || tail[i] == ':' || tail[i] == '\n' || tail[i] == '\t'))
        ++i;
    std::size_t j = i;
    while (j < tail.size() && tail[j] >= '0' && tail[j] <= '9')
        ++j;
    if (j < tail.size() && (tail[j] == ',' || tail[j] == '}' || tail[j] == ' ' || tail[j] == '\n'))
        result = toInt(std::string_view(tail).substr(i, j - i));
    return result;
}

// ---- A Timesink export of a source that Kineto's vocabulary cannot say (torch_npu, msprof, RKNN) ----
// exporters/chromejsonexporter writes a top-level "timesink" object before traceEvents with the trace's metadata, its
// tracks (keyed by the exported pid and tid) and its steps, and on each slice the args "timesink.category",
// "timesink.flags" and "timesink.cat" (model category, flags, the source's own category). With them the import
// rebuilds the model the export was written from; without them the file is read as any Kineto trace.

constexpr std::string_view kDescribedArgPrefix = "timesink.";

struct DescribedTrack
{
    std::string pid;
    std::string tid;
    std::string name;
    std::string process;
    std::string thread;
    std::string processKey;
    std::string threadKey;
    model::DeviceKind deviceKind = model::DeviceKind::Cpu;
    model::TrackRole role = model::TrackRole::HostThread;
    std::int32_t device = -1;
    std::int64_t stream = -1;
    std::int32_t sortIndex = 0;
};

struct DescribedStep
{
    std::int64_t number = 0;
    std::string name;
    TimeNs start = 0;
    TimeNs end = 0;
    std::int64_t markerTrack = -1; // index into the described tracks, or -1
    TimeNs markerTs = 0;
    model::SliceRef marker;
};

struct ExportDescription
{
    model::TraceMetadata meta;
    std::vector<DescribedTrack> tracks;
    std::vector<DescribedStep> steps;
};

/// The enum value whose key is `key` (keys from model/types.h), or nullopt.
template <typename E> std::optional<E> enumFromKey(std::string_view key, int count, std::string_view (*keyOf)(E))
{
    for (int i = 0; i < count; ++i) {
        if (keyOf(static_cast<E>(i)) == key)
            return static_cast<E>(i);
    }
    return std::nullopt;
}

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
        m.devices.push_back(std::move(out));
    }
    for (const json& p : *properties) {
        if (!p.is_array() || p.size() != 2 || !p[0].is_string() || !p[1].is_string())
            return fail("a property is not a [key, value] pair of strings");
        m.properties.emplace_back(p[0].get<std::string>(), p[1].get<std::string>());
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

struct OpenSlice
{
    TimeNs ts = 0;
    model::SliceInput input;
    std::int64_t correlation = -1;
    bool host = true;
};

class KinetoSink final : public ChromeEventSink
{
public:
    KinetoSink(model::TraceBuilder& builder, std::optional<TimeNs> knownBase, ProgressSink& progress)
        : m_b(builder)
        , m_progress(progress)
        , m_base(knownBase.value_or(0))
        , m_baseKnown(knownBase.has_value())
        , m_intern(builder)
    {
    }

    bool needsSecondPass() const { return m_lateBase; }
    std::optional<TimeNs> lateBase() const { return m_lateBaseValue; }
    bool anyCategory() const { return m_anyCategory; }
    std::uint64_t usefulEvents() const { return m_useful; }
    /// The file is a Timesink export with a description (see ExportDescription): its metadata is the source's.
    bool described() const { return m_described.has_value(); }
    /// otherData says the file is timesink-cli's export of a legacy (bare array, category-less) Kineto trace.
    bool legacyExport() const { return m_legacyExport; }

    [[nodiscard]] bool cancelled() const override { return m_progress.cancelled() || m_lateBase; }

    void onContainer(bool wrapper) override { m_wrapper = wrapper; }

    void onTopLevel(std::string_view key, std::string_view raw) override
    {
        if (key == "baseTimeNanoseconds") {
            const auto v = toInt(raw);
            if (!v) {
                m_b.warn(model::ImportWarningKind::BadField,
                         "baseTimeNanoseconds is not an integer; times are kept as written");
                return;
            }
            if (m_baseKnown) {
                if (*v != m_base)
                    m_b.warn(model::ImportWarningKind::BadField,
                             "baseTimeNanoseconds differs from the value found at the end of the file");
                return;
            }
            if (m_eventsSeen > 0) {
                // The events already built used another time base: ask for a second pass with this one.
                m_lateBase = true;
                m_lateBaseValue = *v;
                return;
            }
            m_base = *v;
            m_baseKnown = true;
            return;
        }
        nlohmann::json j = nlohmann::json::parse(raw, nullptr, false);
        if (j.is_discarded()) {
            m_b.warn(model::ImportWarningKind::BadField,
                     "the top-level value \"" + std::string(key) + "\" is not valid JSON; it was ignored");
            return;
        }
        if (key == "timesink") {
            describe(j);
            return;
        }
        if (key == "otherData" && j.is_object() && j.value("generator", nlohmann::json()) == "timesink"
            && j.value("format", nlohmann::json()) == "kineto-legacy") {
            m_legacyExport = true; // the export has to be a wrapper with categories; the source was not
            return;
        }
        auto& meta = m_b.metadata();
        if (key == "schemaVersion") {
            meta.formatVersion = j.is_string() ? j.get<std::string>() : j.dump();
        } else if (key == "deviceProperties" && j.is_array()) {
            for (const auto& d : j) {
                if (!d.is_object())
                    continue;
                model::Device dev;
                dev.kind = model::DeviceKind::Gpu;
                if (auto it = d.find("id"); it != d.end() && it->is_number_integer())
                    dev.index = it->get<std::int32_t>();
                if (auto it = d.find("name"); it != d.end() && it->is_string())
                    dev.name = it->get<std::string>();
                // The device's memory, for judging how close the allocator's peak comes to it (memory_pressure).
                if (auto it = d.find("totalGlobalMem");
                    it != d.end() && it->is_number_integer() && it->get<std::int64_t>() > 0)
                    meta.properties.emplace_back("device_memory_bytes." + std::to_string(dev.index),
                                                 std::to_string(it->get<std::int64_t>()));
                meta.devices.push_back(std::move(dev));
            }
        } else if (key == "distributedInfo" && j.is_object()) {
            if (auto it = j.find("rank"); it != j.end() && it->is_number_integer())
                meta.rank = it->get<std::int32_t>();
            if (auto it = j.find("world_size"); it != j.end() && it->is_number_integer())
                meta.worldSize = it->get<std::int32_t>();
            if (auto it = j.find("backend"); it != j.end() && it->is_string())
                meta.properties.emplace_back("distributed backend", it->get<std::string>());
        } else if (j.is_string() || j.is_number() || j.is_boolean()) {
            if (key == "traceName" || key == "displayTimeUnit" || contains(key, "version") || startsWith(key, "with_")
                || key == "record_shapes" || key == "profile_memory")
                meta.properties.emplace_back(std::string(key), j.is_string() ? j.get<std::string>() : j.dump());
        }
    }

    void onWarning(model::ImportWarningKind kind, std::string_view message, std::uint64_t count) override
    {
        m_b.warn(kind, message, count);
    }

    void onEvent(const ChromeEvent& e) override
    {
        ++m_eventsSeen;
        if (e.cat == kExportedFindingCategory) {
            // The findings of an earlier analysis, written by timesink-cli export: results, not trace events.
            // Analysing them again would count their spans as host work, so they are left out.
            m_b.warn(model::ImportWarningKind::ExportedFindingsSkipped,
                     "the \"Timesink findings\" track of an exported trace was left out (findings are recomputed)");
            return;
        }
        if (!e.cat.empty())
            m_anyCategory = true;
        switch (e.ph) {
        case 'X':
            addComplete(e);
            break;
        case 'B':
            begin(e);
            break;
        case 'E':
            end(e);
            break;
        case 'i':
        case 'I':
            instant(e);
            break;
        case 's':
        case 'f':
        case 't':
            flowEvent(e);
            m_prevCorrelation = -1;
            return;
        case 'M':
            metadataEvent(e);
            break;
        case 'C':
            counter(e);
            break;
        default:
            m_b.warn(model::ImportWarningKind::UnsupportedEvent,
                     "events of phase '" + std::string(1, e.ph ? e.ph : '?') + "' are not supported and were skipped");
            break;
        }
        m_prevCorrelation = -1;
        if (const ChromeArg* a = e.arg("correlation");
            a && a->kind == ChromeArg::Kind::Int && e.ph == 'X' && !m_described)
            m_prevCorrelation = a->i;
    }

    void finish()
    {
        // B without E: close at the end of the trace so the time is not lost, and flag it.
        m_open.drainOpen([this](std::uint64_t track, OpenSlice& o) {
            o.input.dur = std::max<TimeNs>(0, model::saturatingSub(m_maxTs, o.ts));
            o.input.flags |= model::SliceFlags::kUnmatched;
            commit(model::TrackId(static_cast<std::uint32_t>(track)), o.input, o.correlation, o.host);
            m_b.warn(model::ImportWarningKind::UnmatchedBegin,
                     "a 'B' event has no matching 'E'; it was closed at the end of the trace");
        });
        linkCorrelations();
        resolveFlows();
        nameTracks();
        if (m_described) {
            for (const DescribedStep& s : m_described->steps)
                m_b.addStep(s.number, m_b.intern(s.name), s.start, s.end, s.marker);
            m_b.metadata() = std::move(m_described->meta);
            return;
        }
        if (m_b.metadata().devices.empty()) {
            for (int index : m_deviceIndices) {
                model::Device d;
                d.kind = model::DeviceKind::Gpu;
                d.index = index;
                d.name = "GPU " + std::to_string(index);
                m_b.metadata().devices.push_back(std::move(d));
            }
        }
    }

private:
    /// Takes the "timesink" description of an export: creates its tracks in their order, so that events find
    /// them by pid and tid, and keeps the metadata and steps for finish().
    void describe(const nlohmann::json& j)
    {
        if (m_eventsSeen > 0 || m_described) {
            m_b.warn(model::ImportWarningKind::BadField,
                     "the \"timesink\" description comes after events (or twice); it was ignored");
            return;
        }
        std::string error;
        std::optional<ExportDescription> d = parseDescription(j, error);
        if (!d) {
            m_b.warn(model::ImportWarningKind::BadField,
                     "the \"timesink\" description was ignored (" + error + "); the file is read as a Kineto trace");
            return;
        }
        for (const DescribedTrack& t : d->tracks) {
            model::TrackInfo info;
            info.name = t.name;
            info.processName = t.process;
            info.threadName = t.thread;
            info.processKey = t.processKey;
            info.threadKey = t.threadKey;
            info.deviceKind = t.deviceKind;
            info.role = t.role;
            info.deviceIndex = t.device;
            info.streamId = t.stream;
            info.sortIndex = t.sortIndex;
            const model::TrackId id = m_b.addTrack(info);
            TrackMeta meta {t.pid, t.tid, Placement::Host};
            meta.described = true;
            m_trackMeta.push_back(std::move(meta));
            // Two tracks with one pid and tid: the exporter never writes that; the first keeps it.
            m_describedTracks.emplace(t.pid + '\x1f' + t.tid, id);
        }
        for (std::size_t i = 0; i < d->steps.size(); ++i) {
            if (d->steps[i].markerTrack >= 0)
                m_stepMarkers[{std::uint32_t(d->steps[i].markerTrack), d->steps[i].markerTs}].push_back(i);
        }
        m_described = std::move(d);
    }

    /// The described track of an event's thread (an overlap lane counts as its thread), or an invalid id.
    model::TrackId describedTrack(std::string_view pid, std::string_view tid)
    {
        const std::string_view thread = threadOf(pid, tid);
        m_describedKey.assign(pid);
        m_describedKey.push_back('\x1f');
        m_describedKey.append(thread);
        const auto it = m_describedTracks.find(m_describedKey);
        return it == m_describedTracks.end() ? model::TrackId() : it->second;
    }

    struct TrackKeyHash
    {
        std::size_t operator()(const std::string& s) const { return std::hash<std::string>()(s); }
    };

    /// The thread an event belongs to: its own, or for an overlap lane of an exported trace the lane's thread.
    std::string_view threadOf(std::string_view pid, std::string_view tid)
    {
        if (m_laneOf.empty())
            return tid;
        m_laneKey.assign(pid);
        m_laneKey.push_back('\x1f');
        m_laneKey.append(tid);
        const auto it = m_laneOf.find(m_laneKey);
        return it == m_laneOf.end() ? tid : std::string_view(it->second);
    }

    model::TrackId trackFor(const ChromeEvent& e, Placement placement)
    {
        // Events of one thread come in runs: remember the last lookup.
        if (placement == m_lastPlacement && e.pid == m_lastPid && e.tid == m_lastTid && m_lastTrack.isValid())
            return m_lastTrack;
        if (m_described) {
            if (const model::TrackId described = describedTrack(e.pid, e.tid); described.isValid())
                return rememberTrack(e, placement, described);
        }
        const std::string_view tid = threadOf(e.pid, e.tid);
        std::string key;
        key.reserve(e.pid.size() + tid.size() + 3);
        key.push_back(static_cast<char>('0' + static_cast<int>(placement)));
        key.append(e.pid);
        key.push_back('\x1f');
        if (placement == Placement::Host || placement == Placement::DeviceStream)
            key.append(tid);
        auto it = m_tracks.find(key);
        model::TrackId id;
        if (it != m_tracks.end()) {
            id = it->second;
        } else {
            model::TrackInfo info;
            info.processKey = e.pid;
            info.threadKey = tid;
            if (placement == Placement::Host) {
                info.deviceKind = model::DeviceKind::Cpu;
                info.role = model::TrackRole::HostThread;
            } else {
                // Kineto writes the device as the pid and again as args.device, the stream as the tid and again as
                // args.stream; the args win, as a file whose pids and tids are not device and stream numbers (an
                // exported trace) still says them there.
                int device = e.pidIsNumber ? static_cast<int>(e.pidNumber) : -1;
                if (const ChromeArg* a = e.arg("device"); a && a->kind == ChromeArg::Kind::Int)
                    device = static_cast<int>(a->i);
                info.deviceKind = model::DeviceKind::Gpu;
                info.deviceIndex = device;
                info.role = placement == Placement::DeviceStream ? model::TrackRole::DeviceCompute
                                                                 : model::TrackRole::Synthetic;
                info.streamId = placement == Placement::DeviceStream && e.tidIsNumber ? e.tidNumber : -1;
                if (const ChromeArg* a = e.arg("stream");
                    placement == Placement::DeviceStream && a && a->kind == ChromeArg::Kind::Int)
                    info.streamId = a->i;
                if (device >= 0 && m_deviceSeen.insert(device).second)
                    m_deviceIndices.push_back(device);
            }
            id = m_b.addTrack(info);
            m_tracks.emplace(std::move(key), id);
            m_trackMeta.push_back(TrackMeta {std::string(e.pid), std::string(tid), placement});
        }
        return rememberTrack(e, placement, id);
    }

    /// Keeps the answer of trackFor for the next event of the same thread and placement.
    model::TrackId rememberTrack(const ChromeEvent& e, Placement placement, model::TrackId id)
    {
        m_lastPlacement = placement;
        m_lastPidStore.assign(e.pid);
        m_lastTidStore.assign(e.tid);
        m_lastPid = m_lastPidStore;
        m_lastTid = m_lastTidStore;
        m_lastTrack = id;
        return id;
    }

    // Args that repeat what the model already says are not stored (5 M unique arg sets would cost more memory
    // than all slices together): on device activities `device`, `context` and `stream` (the track says them), and
    // `correlation` / `External id` once the activity is linked to its launch by a flow (the launch keeps them);
    // on host events the writer's running `Ev Idx`, the profiler-internal `Record function id` handle, and CUPTI's
    // `cbid` (a constant per runtime function, so the name says it). Everything else is kept.
    static bool redundantArg(std::string_view key, bool device, bool linked)
    {
        if (device) {
            if (key == "device" || key == "context" || key == "stream")
                return true;
            if (linked && (key == "correlation" || key == "External id"))
                return true;
            return false;
        }
        return key == "Ev Idx" || key == "Record function id" || key == "cbid";
    }

    static constexpr std::size_t kKeyCacheSlots = 16;
    static constexpr std::size_t kClassCacheSlots = 1024;
    struct ClassifiedSlot
    {
        model::StringId name;
        model::StringId cat;
        Classified classified;
        bool valid = false;
    };

    // classify() of an interned name and category: the same few names repeat millions of times, and classify()
    // searches long kernel names for the collective patterns. A direct-mapped cache keyed by the pool ids.
    Classified classifyCached(model::StringId name, model::StringId cat, std::string_view catText,
                              std::string_view nameText)
    {
        const std::size_t slot = (std::size_t {name.value} * 0x9e3779b1U + cat.value) % kClassCacheSlots;
        ClassifiedSlot& entry = m_classCache[slot];
        if (!entry.valid || entry.name != name || entry.cat != cat) {
            entry.classified = classify(catText, nameText);
            entry.name = name;
            entry.cat = cat;
            entry.valid = true;
        }
        return entry.classified;
    }

    model::ArgSetId convertArgs(const ChromeEvent& e, bool device = false, bool linked = false)
    {
        if (e.args.empty())
            return {};
        m_argScratch.clear();
        std::size_t slot = 0;
        bool carriesEventId = false;
        for (const ChromeArg& a : e.args) {
            // A described export holds exactly the slice's own args, plus its class (see buildInput).
            if (m_described ? startsWith(a.key, kDescribedArgPrefix) : redundantArg(a.key, device, linked))
                continue;
            carriesEventId = carriesEventId || a.key == "External id" || a.key == "correlation" || a.key == "Python id";
            model::Arg out;
            out.key = m_argKeyCache[std::min<std::size_t>(slot++, kKeyCacheSlots - 1)](m_b, a.key);
            switch (a.kind) {
            case ChromeArg::Kind::Int:
                out.value = model::ArgValue::fromInt(a.i);
                break;
            case ChromeArg::Kind::Double:
                out.value = model::ArgValue::fromDouble(a.d);
                break;
            case ChromeArg::Kind::Bool:
                out.value = model::ArgValue::fromBool(a.i != 0);
                break;
            case ChromeArg::Kind::String:
            case ChromeArg::Kind::Json:
                out.value = model::ArgValue::fromString(m_intern(a.text));
                break;
            case ChromeArg::Kind::Null:
                continue;
            }
            m_argScratch.push_back(out);
        }
        // A set with a per-event id never repeats; looking it up in the dedupe index would only cost a cache miss.
        return carriesEventId ? m_b.addUniqueArgs(m_argScratch) : m_b.addArgs(m_argScratch);
    }

    /// The launch with this correlation when it was already seen (Kineto writes host events first and
    /// correlations grow, so the join's launches stay sorted and need no index of their own), else nullptr.
    const model::SliceRef* hostLaunch(std::int64_t correlation) const { return m_corr.launchSoFar(correlation); }

    bool buildInput(const ChromeEvent& e, model::SliceInput& in, Classified& c, std::int64_t& correlation)
    {
        if (m_described && describedInput(e, in, c)) {
            correlation = -1; // launches come as s/f pairs of their own
            return true;
        }
        in.name = m_intern(e.name);
        in.rawCategory = m_catCache(m_b, e.cat);
        c = classifyCached(in.name, in.rawCategory, e.cat, e.name);
        in.category = c.category;
        correlation = -1;
        if (const ChromeArg* a = e.arg("correlation"); a && a->kind == ChromeArg::Kind::Int)
            correlation = a->i;
        const bool device = c.placement != Placement::Host;
        in.args = convertArgs(e, device, device && correlation >= 0 && hostLaunch(correlation) != nullptr);
        if (c.category == SliceCategory::Memcpy) {
            const ChromeArg* kind = e.arg("kind");
            const MemcpyKind k
                = memcpyKind(e.name, kind && kind->kind == ChromeArg::Kind::String ? kind->text : std::string_view());
            in.setMemcpy(k.direction, k.memory);
        }
        return true;
    }

    /// A slice of a described export: its category, flags and source category as the args say them, its track
    /// from the description. False when the slice lacks "timesink.category" (then it is read like Kineto's).
    bool describedInput(const ChromeEvent& e, model::SliceInput& in, Classified& c)
    {
        const ChromeArg* category = e.arg("timesink.category");
        const auto known
            = category && category->kind == ChromeArg::Kind::String ? categoryFromKey(category->text) : std::nullopt;
        if (!known)
            return false;
        c = Classified {*known, Placement::Host};
        in.name = m_intern(e.name);
        in.category = *known;
        in.rawCategory = {};
        if (const ChromeArg* raw = e.arg("timesink.cat"); raw && raw->kind == ChromeArg::Kind::String)
            in.rawCategory = m_catCache(m_b, raw->text);
        in.flags = 0;
        if (const ChromeArg* flags = e.arg("timesink.flags");
            flags && flags->kind == ChromeArg::Kind::Int && flags->i > 0 && flags->i <= 0xff)
            in.flags = static_cast<std::uint8_t>(flags->i & ~model::SliceFlags::kPartialOverlap); // finalize sets it
        in.args = convertArgs(e);
        return true;
    }

    void commit(model::TrackId track, const model::SliceInput& in, std::int64_t correlation, bool host)
    {
        const model::SliceRef ref = m_b.addSlice(track, in);
        if (!ref.isValid())
            return; // outside the representable time range: counted by the builder
        ++m_useful;
        m_maxTs = std::max(m_maxTs, in.ts + in.dur);
        if (correlation >= 0) {
            if (host && in.category == SliceCategory::RuntimeApi) {
                m_corr.addLaunch(correlation, ref);
            } else if (!host) {
                if (const model::SliceRef* launch = hostLaunch(correlation)) {
                    m_b.addFlow(*launch, ref, model::FlowKind::Launch);
                    m_corr.link(correlation);
                } else {
                    m_corr.addActivity(correlation, ref);
                }
            }
        }
        if (m_described) {
            // Steps come from the description; its markers are found by track and start.
            if (const auto it = m_stepMarkers.find({track.value, in.ts}); it != m_stepMarkers.end()) {
                for (std::size_t s : it->second) {
                    DescribedStep& step = m_described->steps[s];
                    if (!step.marker.isValid() && m_b.str(in.name) == step.name) {
                        step.marker = ref;
                        break;
                    }
                }
            }
            return;
        }
        if (host && in.category == SliceCategory::Step) {
            const std::string_view name = m_b.str(in.name);
            std::int64_t number = static_cast<std::int64_t>(m_stepsSeen);
            if (auto n = toInt(name.substr(std::string_view("ProfilerStep#").size())))
                number = *n;
            ++m_stepsSeen;
            m_b.addStep(number, in.name, in.ts, in.ts + in.dur, ref);
        }
    }

    void addComplete(const ChromeEvent& e)
    {
        if (!e.hasTs) {
            m_b.warn(model::ImportWarningKind::MissingTs, "an 'X' event without a usable ts was skipped");
            return;
        }
        model::SliceInput in;
        Classified c;
        std::int64_t correlation = -1;
        buildInput(e, in, c, correlation);
        in.ts = model::saturatingAdd(e.ts, m_base);
        if (!e.hasDur)
            m_b.warn(model::ImportWarningKind::MissingDur,
                     "an 'X' event without a usable dur was kept with zero duration");
        in.dur = e.hasDur ? e.dur : 0;
        if (in.dur < 0) {
            m_b.warn(model::ImportWarningKind::NegativeDur,
                     "an event with a negative duration was kept with zero duration");
            in.dur = 0;
        }
        const model::TrackId track = trackFor(e, c.placement);
        commit(track, in, correlation, c.placement == Placement::Host);
    }

    void begin(const ChromeEvent& e)
    {
        if (!e.hasTs) {
            m_b.warn(model::ImportWarningKind::MissingTs, "a 'B' event without a usable ts was skipped");
            return;
        }
        OpenSlice o;
        Classified c;
        buildInput(e, o.input, c, o.correlation);
        o.ts = model::saturatingAdd(e.ts, m_base);
        o.input.ts = o.ts;
        o.host = c.placement == Placement::Host;
        m_open.begin(trackFor(e, c.placement).value, o);
    }

    void end(const ChromeEvent& e)
    {
        // An E closes the innermost open B of its thread (host or device placement alike).
        const Classified c = classify(e.cat, e.name);
        const model::TrackId track = trackFor(e, c.placement);
        std::optional<OpenSlice> open = e.hasTs ? m_open.end(track.value) : std::nullopt;
        if (!open) {
            m_b.warn(model::ImportWarningKind::UnmatchedEnd,
                     "an 'E' event has no open 'B' on its thread and was skipped");
            return;
        }
        OpenSlice& o = *open;
        o.input.dur = std::max<TimeNs>(0, model::saturatingSub(model::saturatingAdd(e.ts, m_base), o.ts));
        if (o.input.args == model::ArgSetId() && !e.args.empty())
            o.input.args = convertArgs(e);
        commit(track, o.input, o.correlation, o.host);
    }

    void instant(const ChromeEvent& e)
    {
        if (!e.hasTs) {
            m_b.warn(model::ImportWarningKind::MissingTs, "an instant event without a usable ts was skipped");
            return;
        }
        if (e.name == "[memory]") {
            // Allocator samples become a per-device "allocated" counter rather than thousands of markers.
            const ChromeArg* total = e.arg("Total Allocated");
            const ChromeArg* dev = e.arg("Device Id");
            if (total && (total->kind == ChromeArg::Kind::Int || total->kind == ChromeArg::Kind::Double)) {
                const std::int64_t device = dev && dev->kind == ChromeArg::Kind::Int ? dev->i : -1;
                const std::string name = model::allocatedMemoryCounterName(device);
                const model::TrackId t = counterTrack(e.pid, name, device);
                m_b.addCounterSample(t, model::saturatingAdd(e.ts, m_base),
                                     total->kind == ChromeArg::Kind::Int ? double(total->i) : total->d);
                ++m_useful;
                return;
            }
        }
        model::SliceInput in;
        Classified c;
        std::int64_t correlation = -1;
        buildInput(e, in, c, correlation);
        in.category = c.category == SliceCategory::Step ? SliceCategory::Other : c.category;
        in.ts = model::saturatingAdd(e.ts, m_base);
        in.dur = 0;
        const model::TrackId track = trackFor(e, c.placement);
        m_b.addSlice(track, in);
        ++m_useful;
    }

    model::TrackId counterTrack(std::string_view pid, const std::string& name, std::int64_t device)
    {
        std::string key = "c";
        key.append(pid);
        key.push_back('\x1f');
        key.append(name);
        auto it = m_tracks.find(key);
        if (it != m_tracks.end())
            return it->second;
        model::TrackInfo info;
        info.name = name;
        info.processKey = pid;
        info.threadKey = name;
        info.threadName = name;
        info.role = model::TrackRole::Counter;
        info.deviceKind = device >= 0 ? model::DeviceKind::Gpu : model::DeviceKind::Cpu;
        info.deviceIndex = static_cast<std::int32_t>(device);
        const model::TrackId id = m_b.addTrack(info);
        m_tracks.emplace(std::move(key), id);
        m_trackMeta.push_back(TrackMeta {std::string(pid), name, Placement::Host, true});
        return id;
    }

    void counter(const ChromeEvent& e)
    {
        if (!e.hasTs) {
            m_b.warn(model::ImportWarningKind::MissingTs, "a counter event without a usable ts was skipped");
            return;
        }
        const model::TrackId described = m_described ? describedTrack(e.pid, e.tid) : model::TrackId();
        for (const ChromeArg& a : e.args) {
            if (a.kind != ChromeArg::Kind::Int && a.kind != ChromeArg::Kind::Double)
                continue;
            if (described.isValid()) {
                m_b.addCounterSample(described, model::saturatingAdd(e.ts, m_base),
                                     a.kind == ChromeArg::Kind::Int ? double(a.i) : a.d);
                ++m_useful;
                continue;
            }
            const std::string name
                = e.args.size() == 1 ? std::string(e.name) : std::string(e.name) + " " + std::string(a.key);
            const model::TrackId t = counterTrack(e.pid, name, -1);
            m_b.addCounterSample(t, model::saturatingAdd(e.ts, m_base),
                                 a.kind == ChromeArg::Kind::Int ? double(a.i) : a.d);
            ++m_useful;
        }
    }

    void flowEvent(const ChromeEvent& e)
    {
        if (!m_flows.keeps(e.ph))
            return; // flow steps add nothing the two ends do not already say
        if (!e.hasTs || !e.hasId) {
            m_b.warn(model::ImportWarningKind::BadFlow, "a flow event without ts or id was skipped");
            return;
        }
        const bool launchCat = isLaunchFlowCategory(e.cat);
        if (launchCat && m_prevCorrelation >= 0 && toInt(e.id) == m_prevCorrelation
            && (e.ph == 's' || hostLaunch(m_prevCorrelation) != nullptr)) {
            // Kineto writes each flow end right after the runtime call or device activity it belongs to; when
            // that event carries the same correlation (and, for an end, its launch is known) the args.correlation
            // join links them, so the flow end adds nothing and is not kept (saves memory on big traces).
            return;
        }
        const std::uint32_t cat = m_flows.category(e.cat);
        const FlowId id = FlowId::parse(e.id, m_flowTexts);
        const std::uint32_t endpoint = flowEndpoint(m_b.intern(e.pid), m_b.intern(threadOf(e.pid, e.tid)));
        m_flows.add(cat, e.ph, id, model::saturatingAdd(e.ts, m_base), endpoint, e.bp == "e");
    }

    static bool isLaunchFlowCategory(std::string_view cat)
    {
        return cat == "ac2g" || cat == "async_gpu" || cat == "async_cpu_to_gpu";
    }

    /// The dense number of a flow event's (interned pid, interned tid), for the pairing's compact records.
    std::uint32_t flowEndpoint(model::StringId pid, model::StringId tid)
    {
        const std::uint64_t key = (std::uint64_t(pid.value) << 32) | tid.value;
        if (m_lastEndpoint != kNoEndpoint && m_endpoints[m_lastEndpoint] == key)
            return m_lastEndpoint;
        auto [it, inserted] = m_endpointIndex.try_emplace(key, static_cast<std::uint32_t>(m_endpoints.size()));
        if (inserted)
            m_endpoints.push_back(key);
        m_lastEndpoint = it->second;
        return it->second;
    }

    /// A launch flow's id as the correlation it names, or -1 (the id read as one signed 64-bit number).
    std::int64_t flowCorrelation(const FlowId& id) const
    {
        const std::optional<std::int64_t> v
            = id.isText() ? toInt(m_flowTexts.text(static_cast<std::uint32_t>(id.lo))) : id.numericValue();
        return v.value_or(-1);
    }

    void metadataEvent(const ChromeEvent& e)
    {
        const ChromeArg* nameArg = e.arg("name");
        std::string pidKey(e.pid);
        if (e.name == "process_name" && nameArg && nameArg->kind == ChromeArg::Kind::String) {
            std::string name(nameArg->text);
            if (const ChromeArg* full = e.arg("timesink.full_name");
                !full || full->kind != ChromeArg::Kind::Bool || full->i == 0)
                name += " (" + pidKey + ")"; // a timesink-cli export says when the name is already whole
            m_processNames[pidKey] = std::move(name);
        } else if (e.name == "process_labels") {
            if (const ChromeArg* l = e.arg("labels"); l && l->kind == ChromeArg::Kind::String)
                m_processLabels[pidKey] = std::string(l->text);
        } else if (const ChromeArg* lane = e.arg("lane_of");
                   e.name == "thread_name" && lane && lane->kind == ChromeArg::Kind::Int) {
            // timesink-cli export draws slices that partially overlap on one track on extra threads, so that
            // viewers nest them properly; "lane_of" names the thread whose track they belong to.
            m_laneOf[pidKey + '\x1f' + std::string(e.tid)] = std::to_string(lane->i);
        } else if (e.name == "thread_name" && nameArg && nameArg->kind == ChromeArg::Kind::String) {
            m_threadNames[pidKey + '\x1f' + std::string(e.tid)] = std::string(nameArg->text);
        } else if (e.name == "process_sort_index" || e.name == "thread_sort_index") {
            const ChromeArg* s = e.arg("sort_index");
            if (!s || s->kind != ChromeArg::Kind::Int)
                return;
            if (e.name == "process_sort_index")
                m_processSort[pidKey] = s->i;
            else
                m_threadSort[pidKey + '\x1f' + std::string(e.tid)] = s->i;
        }
    }

    void linkCorrelations()
    {
        // Runtime call with correlation X → device activity with correlation X (the activities whose launch was
        // not yet seen when they were read; the others were linked in commit()).
        m_corr.join([this](model::SliceRef launch, model::SliceRef activity) {
            m_b.addFlow(launch, activity, model::FlowKind::Launch);
        });
    }

    void resolveFlows()
    {
        // Track of a flow end: a device stream when there is one for (pid, tid), else the host thread. Keyed by
        // the interned pid and tid (a track's processKey/threadKey are the same pool strings as a flow end's), so
        // a trace with a million threads pays no string building here.
        if (m_flows.empty()) {
            m_flows.clear();
            m_corr.clear();
            return;
        }
        const auto pairKey
            = [](model::StringId pid, model::StringId tid) { return (std::uint64_t(pid.value) << 32) | tid.value; };
        std::unordered_map<std::uint64_t, model::TrackId> byPidTid;
        byPidTid.reserve(m_trackMeta.size());
        for (std::size_t i = 0; i < m_trackMeta.size(); ++i) {
            const TrackMeta& m = m_trackMeta[i];
            if (m.counter || m.placement == Placement::DeviceAnnotation || m.placement == Placement::DeviceSync)
                continue;
            const model::TrackId id(static_cast<std::uint32_t>(i));
            const model::Track& t = m_b.track(id);
            // A described track keeps the source's keys; its flow ends name the exported pid and tid.
            const std::uint64_t k
                = m.described ? pairKey(m_b.intern(m.pid), m_b.intern(m.tid)) : pairKey(t.processKey, t.threadKey);
            auto [it, inserted] = byPidTid.emplace(k, id);
            if (!inserted && m.placement == Placement::DeviceStream)
                it->second = id;
        }
        std::vector<model::TrackId> trackOf(m_endpoints.size());
        for (std::size_t i = 0; i < m_endpoints.size(); ++i) {
            if (auto it = byPidTid.find(m_endpoints[i]); it != byPidTid.end())
                trackOf[i] = it->second;
        }
        m_flows.sort();
        if (const std::uint64_t duplicates = m_flows.duplicateStarts(); duplicates > 0)
            m_b.warn(model::ImportWarningKind::FlowDuplicate,
                     "a flow id has more than one start; the first one was kept", duplicates);
        std::vector<model::FlowKind> kindOf(m_flows.categoryCount());
        for (std::uint32_t c = 0; c < kindOf.size(); ++c) {
            const std::string_view cat = m_flows.categoryText(c);
            kindOf[c] = cat == "fwdbwd"     ? model::FlowKind::ForwardBackward
                : isLaunchFlowCategory(cat) ? model::FlowKind::Launch
                                            : model::FlowKind::Other;
        }
        std::uint64_t unresolved = 0;
        std::uint64_t unpaired = 0;
        m_flows.forEachGroup(
            [&](const FlowGroup& g) {
                const model::FlowKind kind = kindOf[g.category];
                const bool launch = kind == model::FlowKind::Launch;
                const std::int64_t correlation = launch ? flowCorrelation(g.id) : 0;
                // A launch flow names its correlation: when args.correlation already linked the call to its device
                // activities, the flow's ends say nothing more. Bound by time they can say something wrong: the
                // end of a cudaStreamSynchronize's flow lies on the stream's "Stream Sync" event, which is not a
                // track of its own, so "bp":"e" would bind it to the memcpy running at that moment.
                if (launch && correlation >= 0 && m_corr.linked(correlation))
                    return;
                if (!g.start && launch && !g.ends.empty()) {
                    // The start was folded into its launch (see flowEvent) or is missing: start from the launch.
                    if (const model::SliceRef* launcher = m_corr.launch(correlation)) {
                        const model::Track& host = m_b.track(launcher->track);
                        for (const FlowRecord& to : g.ends) {
                            if (const model::TrackId toTrack = trackOf[to.endpoint]; toTrack.isValid())
                                m_b.addFlowAt(launcher->track, host.ts(launcher->index.value), toTrack, to.ts, kind,
                                              to.bindEnclosing);
                            else
                                ++unresolved;
                        }
                        return;
                    }
                }
                if (!g.start || g.ends.empty()) {
                    ++unpaired;
                    return;
                }
                const model::TrackId from = trackOf[g.start->endpoint];
                for (const FlowRecord& to : g.ends) {
                    const model::TrackId toTrack = trackOf[to.endpoint];
                    if (!from.isValid() || !toTrack.isValid()) {
                        ++unresolved;
                        continue;
                    }
                    m_b.addFlowAt(from, g.start->ts, toTrack, to.ts, kind, to.bindEnclosing);
                }
            },
            true);
        if (unresolved > 0)
            m_b.warn(model::ImportWarningKind::FlowUnresolved, "flow events on threads without any slice were dropped",
                     unresolved);
        if (unpaired > 0) {
            m_b.warn(model::ImportWarningKind::FlowUnpaired,
                     "flow ids with only a start or only ends (normal for sampled traces; launches are still "
                     "linked through args.correlation)",
                     unpaired);
        }
        m_flows.clear();
        m_flowTexts = FlowTextIds();
        m_endpoints = {};
        m_endpointIndex = {};
        m_corr.clear();
    }

    void nameTracks()
    {
        for (std::size_t i = 0; i < m_trackMeta.size(); ++i) {
            const TrackMeta& m = m_trackMeta[i];
            const model::TrackId id(static_cast<std::uint32_t>(i));
            const model::Track& t = m_b.track(id);
            if (m.described)
                continue; // named and ordered by the description
            if (m.counter) {
                auto pn = m_processNames.find(m.pid);
                const std::string process = pn != m_processNames.end() ? pn->second
                    : m.pid.empty()                                    ? std::string("process")
                                                                       : "process " + m.pid;
                const std::string name(m_b.str(t.name));
                m_b.setTrackNames(id, name, process, name);
                continue;
            }
            std::string process;
            std::string thread;
            const std::string threadKey = m.pid + '\x1f' + m.tid;
            if (m.placement == Placement::Host) {
                auto pn = m_processNames.find(m.pid);
                process = pn != m_processNames.end() ? pn->second
                    : m.pid.empty()                  ? std::string("process")
                                                     : "process " + m.pid;
                auto tn = m_threadNames.find(threadKey);
                thread = tn != m_threadNames.end() ? tn->second : m.tid.empty() ? "thread" : "thread " + m.tid;
            } else {
                auto labels = m_processLabels.find(m.pid);
                process = labels != m_processLabels.end() ? labels->second
                    : t.deviceIndex >= 0                  ? "GPU " + std::to_string(t.deviceIndex)
                                                          : "GPU " + m.pid;
                if (m.placement == Placement::DeviceStream) {
                    auto tn = m_threadNames.find(threadKey);
                    thread = tn != m_threadNames.end() ? tn->second
                        : t.streamId >= 0              ? "stream " + std::to_string(t.streamId)
                                                       : "stream " + m.tid;
                } else {
                    thread = m.placement == Placement::DeviceAnnotation ? "annotations" : "sync";
                }
            }
            m_b.setTrackNames(id, thread, process, thread);
            // Process order first, thread order within it; Kineto uses the pid as process sort index, so the
            // combination may not fit an int32, and then the process order alone is kept.
            std::int64_t processOrder = 0;
            std::int64_t threadOrder = 0;
            if (auto ps = m_processSort.find(m.pid); ps != m_processSort.end())
                processOrder = ps->second;
            if (auto ts = m_threadSort.find(threadKey); ts != m_threadSort.end())
                threadOrder = ts->second;
            constexpr std::int64_t kMin = std::numeric_limits<std::int32_t>::min();
            constexpr std::int64_t kMax = std::numeric_limits<std::int32_t>::max();
            processOrder = std::clamp(processOrder, kMin, kMax);
            threadOrder = std::clamp(threadOrder, std::int64_t(-999), std::int64_t(999));
            std::int64_t sort = processOrder * 1000 + threadOrder;
            if (sort > kMax || sort < kMin)
                sort = processOrder;
            if (sort != 0)
                m_b.setTrackSortIndex(id, static_cast<std::int32_t>(sort));
        }
    }

    struct TrackMeta
    {
        std::string pid;
        std::string tid;
        Placement placement = Placement::Host;
        bool counter = false;
        bool described = false; // created from an export's description: pid and tid are the exported ones
    };

    model::TraceBuilder& m_b;
    ProgressSink& m_progress;
    TimeNs m_base = 0;
    bool m_baseKnown = false;
    bool m_lateBase = false;
    std::optional<TimeNs> m_lateBaseValue;
    bool m_wrapper = false;
    bool m_anyCategory = false;
    std::uint64_t m_eventsSeen = 0;
    std::uint64_t m_useful = 0;
    std::uint64_t m_stepsSeen = 0;
    TimeNs m_maxTs = 0;

    std::unordered_map<std::string, model::TrackId, TrackKeyHash> m_tracks;
    std::vector<TrackMeta> m_trackMeta;   // indexed by TrackId
    std::vector<int> m_deviceIndices;     // in order of first appearance
    std::unordered_set<int> m_deviceSeen; // the same, for the membership test (a trace may have 100,000s)
    Placement m_lastPlacement = Placement::Host;
    std::string m_lastPidStore;
    std::string m_lastTidStore;
    std::string_view m_lastPid;
    std::string_view m_lastTid;
    model::TrackId m_lastTrack;

    std::vector<model::Arg> m_argScratch;
    // Names and string values through the shared cache; arg keys come in the same order event after event and
    // categories repeat, so each of those is compared with the one before at its position.
    InternCache m_intern;
    std::array<InternedLast, kKeyCacheSlots> m_argKeyCache;
    InternedLast m_catCache;
    std::array<ClassifiedSlot, kClassCacheSlots> m_classCache {};
    BeginEndMatcher<OpenSlice> m_open; // by track
    // Runtime calls (launches) ↔ device activities by args.correlation.
    CorrelationJoin m_corr;
    std::int64_t m_prevCorrelation = -1; // args.correlation of the event just before, for ac2g flows
    // Flow events in Kineto's dialect: the first `s` of an id starts the flow (the others are warned about),
    // `t` is ignored. Endpoints number the (interned pid, interned tid) pairs the events name.
    FlowPairing m_flows {FlowDialect {FlowDialect::Start::First, false}};
    FlowTextIds m_flowTexts;
    static constexpr std::uint32_t kNoEndpoint = std::numeric_limits<std::uint32_t>::max();
    std::vector<std::uint64_t> m_endpoints;
    std::unordered_map<std::uint64_t, std::uint32_t> m_endpointIndex;
    std::uint32_t m_lastEndpoint = kNoEndpoint;

    std::unordered_map<std::string, std::string> m_processNames;
    std::unordered_map<std::string, std::string> m_processLabels;
    std::unordered_map<std::string, std::string> m_threadNames;
    std::unordered_map<std::string, std::string> m_laneOf; // "pid\x1ftid" of an overlap lane → its thread's tid
    std::string m_laneKey;
    std::unordered_map<std::string, std::int64_t> m_processSort;
    std::unordered_map<std::string, std::int64_t> m_threadSort;

    std::optional<ExportDescription> m_described;
    bool m_legacyExport = false;
    std::unordered_map<std::string, model::TrackId> m_describedTracks; // "pid\x1ftid" (exported) → track
    std::string m_describedKey;
    std::map<std::pair<std::uint32_t, TimeNs>, std::vector<std::size_t>> m_stepMarkers; // (track, ts) → steps
};

} // namespace

FormatDescription KinetoImporter::describe() const
{
    return {"torch.profiler / Kineto Chrome-trace JSON (or the legacy autograd-profiler array)",
            {"*.json", "*.json.gz", "*.json.zst", "*.gz", "*.zst"},
            {},
            {"kineto", "kineto-legacy"}};
}

int KinetoImporter::probe(const SourceProbe& source) const
{
    if (source.isDirectory)
        return 0;
    std::string_view head = source.head;
    if (head.substr(0, 3) == "\xef\xbb\xbf")
        head.remove_prefix(3);
    const auto first = head.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos || (head[first] != '{' && head[first] != '['))
        return 0;
    const bool hasTraceEvents = contains(head, "\"traceEvents\"");
    const bool hasPhase = contains(head, "\"ph\"");
    if (!hasTraceEvents && !hasPhase)
        return 0;
    // Kineto's own marks make it certain; other Chrome traces are accepted with less confidence so a dialect
    // importer that recognises them (torch_npu, msprof) wins.
    // timesink-cli export writes the Kineto dialect, and describes other sources so that this importer rebuilds
    // them: it must win over a dialect importer that recognises the source's process names.
    if (contains(head, "\"otherData\":{\"generator\":\"timesink\""))
        return 96;
    const bool kineto = contains(head, "\"schemaVersion\"") || contains(head, "\"deviceProperties\"")
        || contains(head, "\"cpu_op\"") || contains(head, "\"ac2g\"") || contains(head, "\"CPU functions\"")
        || contains(head, "\"python_function\"") || contains(head, "\"cuda_runtime\"")
        || contains(head, "\"user_annotation\"") || contains(head, "ProfilerStep#")
        || contains(head, "\"distributedInfo\"");
    return kineto ? 80 : 30;
}

ImportResult KinetoImporter::import(const SourceProbe& source, const ImportOptions& options, ProgressSink& progress)
{
    std::optional<TimeNs> base;
    if (source.compression.empty())
        base = peekBaseTimeAtTail(source.path);
    for (int pass = 0; pass < 2; ++pass) {
        model::TraceBuilder builder;
        KinetoSink sink(builder, base, progress);
        ChromeEventReader reader(source.path, options, progress);
        const ChromeReadResult r = reader.read(sink);
        if (sink.needsSecondPass() && pass == 0) {
            base = sink.lateBase();
            continue;
        }
        if (!r.ok())
            return ImportResult::failure(r.errorKind, r.error);
        if (sink.usefulEvents() == 0) {
            return ImportResult::failure(ImportErrorKind::Malformed,
                                         source.path.string() + ": the trace holds no usable events"
                                             + (r.truncated ? " before it is cut off" : "")
                                             + "; expected X/B/E/i/C events with a ts"
                                             + describeSkipped(builder.warnings()));
        }
        sink.finish();
        auto& meta = builder.metadata();
        if (!sink.described())
            meta.format = (!r.wrapperObject && !sink.anyCategory()) || sink.legacyExport() ? "kineto-legacy" : "kineto";
        meta.sourcePath = source.path.string();
        if (!source.compression.empty())
            meta.properties.emplace_back("compression", source.compression);
        model::TracePtr trace = builder.finalize();
        if (options.phases) {
            const auto& times = builder.lastFinalizeTimes();
            options.phases->finalizeNs += times.totalNs - times.flowBindingNs;
            options.phases->flowBindingNs += times.flowBindingNs;
        }
        return ImportResult::success(std::move(trace));
    }
    return ImportResult::failure(ImportErrorKind::Malformed, source.path.string() + ": could not settle the time base");
}

} // namespace timesink::parsers::chromejson
