// SPDX-License-Identifier: MIT
#include "exporters/chromejsonexporter.h"

#include "analysis/core/textformat.h"
#include "exporters/exportlayout.h"
#include "exporters/slicelanes.h"
#include "model/argnames.h"
#include "model/checkedmath.h"
#include "model/trackname.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <vector>

namespace timesink::exporters {

using model::TimeNs;

namespace {

constexpr std::string_view kDeviceMemoryPrefix = "device_memory_bytes.";
// Ids of launch flows without a correlation id start here, above any correlation id a profiler hands out.
constexpr std::uint64_t kUncorrelatedFlowIds = std::uint64_t(1) << 48;

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
        , m_kinetoSource(trace.metadata().format.starts_with("kineto"))
        , m_describe(!m_kinetoSource)
        , m_deviceKey(trace.strings().find("device"))
        , m_streamKey(trace.strings().find("stream"))
        , m_correlationKey(trace.strings().find("correlation"))
        , m_base(timeBase(trace))
    {
    }

    bool run(std::string& error)
    {
        writeHeader();
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
    /// Kineto's time base: the events' "ts" are µs after baseTimeNanoseconds, a whole second of the trace's clock
    /// at or before its first event. HTA and TraceLens read "ts" as a double; an absolute epoch time in µs with
    /// three decimals has 19 significant digits, which a double rounds to 0.25 µs, while times after the base keep
    /// every nanosecond. A trace whose clock starts below one second (laid-out or hand-built times) keeps them
    /// absolute (base 0, not written).
    static TimeNs timeBase(const model::Trace& trace)
    {
        constexpr TimeNs kSecond = 1'000'000'000;
        return trace.startNs() >= kSecond ? trace.startNs() / kSecond * kSecond : 0;
    }

    /// A time as written in "ts": µs after the base.
    [[nodiscard]] std::string micros(TimeNs t) const
    {
        return ChromeJsonExporter::formatMicros(model::saturatingSub(t, m_base));
    }

    /// The top-level keys of a Kineto trace, so that re-importing the file gives the same trace description:
    /// schemaVersion (the format version), deviceProperties (devices, their memory and SM count), distributedInfo
    /// (rank, world size, backend) and the remaining properties as plain keys. `compression` describes the source file,
    /// not this one, and is left out; displayTimeUnit is written only when the source said it.
    void writeHeader()
    {
        const model::TraceMetadata& meta = m_trace.metadata();
        // Ordered: the importer lists the properties in the order it meets the keys, so the keys follow the order
        // of the properties (deviceProperties where the first device memory was, distributedInfo where the
        // backend was).
        nlohmann::ordered_json head = nlohmann::ordered_json::object();
        head["otherData"] = {{"generator", "timesink"}, {"source", meta.sourcePath}, {"format", meta.format}};
        if (!meta.formatVersion.empty())
            head["schemaVersion"] = meta.formatVersion;
        std::string backend;
        std::vector<std::pair<std::string, std::string>> memory;
        for (const auto& [key, value] : meta.properties) {
            if (key == "distributed backend")
                backend = value;
            else if (key.starts_with(kDeviceMemoryPrefix))
                memory.emplace_back(key.substr(kDeviceMemoryPrefix.size()), value);
        }
        const auto writeDevices = [&] {
            if (meta.devices.empty() || head.contains("deviceProperties"))
                return;
            nlohmann::ordered_json devices = nlohmann::ordered_json::array();
            for (const model::Device& d : meta.devices) {
                nlohmann::ordered_json dev = {{"id", d.index}, {"name", d.name}};
                for (const auto& [index, bytes] : memory) {
                    std::int64_t value = 0;
                    const auto [end, ec] = std::from_chars(bytes.data(), bytes.data() + bytes.size(), value);
                    if (index == std::to_string(d.index) && ec == std::errc() && end == bytes.data() + bytes.size())
                        dev["totalGlobalMem"] = value;
                }
                if (d.computeUnits > 0)
                    dev["numSms"] = d.computeUnits;
                devices.push_back(std::move(dev));
            }
            head["deviceProperties"] = std::move(devices);
        };
        const auto writeDistributed = [&] {
            if (head.contains("distributedInfo") || (meta.rank < 0 && meta.worldSize < 0 && backend.empty()))
                return;
            nlohmann::ordered_json info = nlohmann::ordered_json::object();
            if (meta.rank >= 0)
                info["rank"] = meta.rank;
            if (meta.worldSize >= 0)
                info["world_size"] = meta.worldSize;
            if (!backend.empty())
                info["backend"] = backend;
            head["distributedInfo"] = std::move(info);
        };
        for (const auto& [key, value] : meta.properties) {
            if (key == "distributed backend")
                writeDistributed();
            else if (key.starts_with(kDeviceMemoryPrefix))
                writeDevices();
            else if (key != "compression" && !head.contains(key) && key != "traceEvents" && key != "deviceProperties"
                     && key != "distributedInfo" && key != "baseTimeNanoseconds")
                head[key] = value;
        }
        writeDevices();
        writeDistributed();
        // Kineto writes the base after the events; before them, a streaming reader (ours) needs one pass only.
        if (m_base != 0)
            head["baseTimeNanoseconds"] = m_base;
        if (m_describe)
            head["timesink"] = description();
        std::string text = head.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        text.pop_back(); // the closing brace: traceEvents follows
        m_out << text << ",\"traceEvents\":[\n";
    }

    /// What a Kineto trace cannot say about a trace of another source (torch_npu, msprof, RKNN), so that the
    /// importer rebuilds the same model from this file: the metadata as it is (format, profiler level, device
    /// kinds, synthetic timestamps, every property), each track with its exported pid and tid, and the steps that
    /// are not one slice's ProfilerStep. Viewers and other tools ignore the key. Each slice says its model
    /// category and flags in args (see sliceClassArgs()).
    nlohmann::ordered_json description() const
    {
        using nlohmann::ordered_json;
        const model::TraceMetadata& meta = m_trace.metadata();
        ordered_json d = ordered_json::object();
        d["version"] = 1;
        d["format"] = meta.format;
        d["format_version"] = meta.formatVersion;
        d["profiler_level"] = meta.profilerLevel;
        d["synthetic_timestamps"] = meta.syntheticTimestamps;
        d["platform"] = model::platformKey(meta.platform);
        d["rank"] = meta.rank;
        d["world_size"] = meta.worldSize;
        ordered_json devices = ordered_json::array();
        for (const model::Device& dev : meta.devices) {
            ordered_json one {{"kind", model::deviceKindKey(dev.kind)}, {"index", dev.index}, {"name", dev.name}};
            if (dev.aiCores > 0 || dev.aiCoreClockMHz > 0.0) { // what an Ascend trace said about its AI cores
                one["ai_cores"] = dev.aiCores;
                one["ai_core_clock_mhz"] = dev.aiCoreClockMHz;
                one["compute_source"] = dev.computeSource;
            }
            devices.push_back(std::move(one));
        }
        d["devices"] = std::move(devices);
        ordered_json properties = ordered_json::array();
        for (const auto& [key, value] : meta.properties) {
            if (key != "compression") // describes the source file, not this one
                properties.push_back({key, value});
        }
        d["properties"] = std::move(properties);
        ordered_json links = ordered_json::array();
        for (const model::RankLink& l : meta.rankLinks)
            links.push_back({l.src, l.dst, l.transport, l.bytes, l.transitNs});
        d["rank_links"] = std::move(links); // [src, dst, transport, bytes, transit_ns] each
        ordered_json tracks = ordered_json::array();
        for (const model::Track& t : m_trace.tracks()) {
            tracks.push_back({{"pid", m_layout.processes()[m_layout.processOf(t.id)].pid},
                              {"tid", m_layout.tidOf(t.id)},
                              {"name", m_trace.str(t.name)},
                              {"process", m_trace.str(t.processName)},
                              {"thread", m_trace.str(t.threadName)},
                              {"process_key", m_trace.str(t.processKey)},
                              {"thread_key", m_trace.str(t.threadKey)},
                              {"device_kind", model::deviceKindKey(t.deviceKind)},
                              {"device", t.deviceIndex},
                              {"stream", t.streamId},
                              {"role", model::trackRoleKey(t.role)},
                              {"sort_index", t.sortIndex}});
        }
        d["tracks"] = std::move(tracks);
        ordered_json steps = ordered_json::array();
        for (const model::Step& s : m_trace.steps()) {
            if (s.synthetic)
                continue; // the importer makes it again when there are no steps
            ordered_json step
                = {{"number", s.number}, {"name", m_trace.str(s.name)}, {"start", s.start}, {"end", s.end}};
            if (s.marker.isValid()) {
                const model::Track& t = m_trace.track(s.marker.track);
                step["marker"] = {{"track", s.marker.track.value}, {"ts", t.ts(s.marker.index.value)}};
            }
            steps.push_back(std::move(step));
        }
        d["steps"] = std::move(steps);
        return d;
    }

    /// A described slice's model category, its flags when it has any, and the category the source gave it
    /// (`cat` is the Kineto category, for tools).
    std::string sliceClassArgs(const model::Track& track, std::uint32_t i)
    {
        std::string extra = "\"timesink.category\":\"";
        extra += model::categoryKey(track.category(i));
        extra += '"';
        if (const std::uint8_t flags = track.flags(i) & ~model::SliceFlags::kPartialOverlap; flags != 0)
            extra += ",\"timesink.flags\":" + std::to_string(flags);
        if (!track.rawCategory(i).isEmpty())
            extra += ",\"timesink.cat\":" + nameJson(track.rawCategory(i));
        return extra;
    }

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
        const auto tracks = m_trace.tracks();
        // The importer names a host process "<name> (<pid>)" and a device process by its labels: write the name
        // it started from, so that a re-import names the tracks as the original import did.
        std::vector<const model::Track*> firstTrack(m_layout.processes().size(), nullptr);
        for (const model::Track& t : tracks) {
            auto& first = firstTrack[m_layout.processOf(t.id)];
            if (!first)
                first = &t;
        }
        m_memoryCounter.assign(tracks.size(), false);
        std::vector<bool> written(m_layout.processes().size(), false); // holds a track that is not a memory counter
        for (const model::Track& t : tracks) {
            const std::size_t p = m_layout.processOf(t.id);
            m_memoryCounter[t.id.value] = !m_describe && t.role == model::TrackRole::Counter
                && t.deviceKind != model::DeviceKind::Cpu && t.deviceIndex >= 0
                && m_trace.str(t.name) == "GPU " + std::to_string(t.deviceIndex) + " memory allocated";
            written[p] = written[p] || !m_memoryCounter[t.id.value];
            if (t.role == model::TrackRole::HostThread)
                m_hostPid.emplace(std::string(m_trace.str(t.processKey)), m_layout.processes()[p].pid);
        }
        for (std::size_t i = 0; i < m_layout.processes().size(); ++i) {
            const ExportProcess& p = m_layout.processes()[i];
            if (!written[i])
                continue; // its tracks are written into their host process
            const bool device = firstTrack[i] && firstTrack[i]->deviceKind != model::DeviceKind::Cpu
                && firstTrack[i]->role != model::TrackRole::Counter;
            std::string name = p.name;
            const std::string suffix = " (" + std::to_string(p.pid) + ")";
            if (!device && name.size() > suffix.size() && name.ends_with(suffix))
                name.resize(name.size() - suffix.size());
            const bool nameless = name == "process " + std::to_string(p.pid); // the importer's name for it
            if (!device && !nameless && name == p.name) {
                // Not "NAME (PID)" with this file's pid (Kineto's "CPU functions" gets a synthetic pid): the name
                // is the process's whole name, and the importer must not add the pid to it.
                begin('M', p.pid, 0);
                m_out << ",\"name\":\"process_name\",\"args\":{\"name\":" << jsonString(name)
                      << ",\"timesink.full_name\":true}}";
            } else if (device || !nameless) {
                metadata(p.pid, 0, "process_name", "name", jsonString(name));
            }
            if (device)
                metadata(p.pid, 0, "process_labels", "labels", jsonString(name));
            metadata(p.pid, 0, "process_sort_index", "sort_index", std::to_string(p.sortIndex / 1000));
        }
        // The importer orders a track by process sort index × 1000 + thread sort index (-999…999): split each
        // track's order that way, so that a re-import orders the tracks as the original did.
        m_trackRank.resize(tracks.size());
        for (const model::Track& t : tracks) {
            const std::int64_t process = m_layout.processes()[m_layout.processOf(t.id)].sortIndex / 1000;
            m_trackRank[t.id.value] = std::clamp<std::int64_t>(std::int64_t(t.sortIndex) - process * 1000, -999, 999);
        }
    }

    void collectFlows()
    {
        const auto flows = m_trace.flows();
        m_flowIds.assign(flows.size(), 0);
        for (std::size_t i = 0; i < flows.size(); ++i) {
            const model::Flow& f = flows[i];
            if (!f.isLinked())
                continue;
            m_flowIds[i] = flowId(f, i);
            m_flowSources.emplace_back(sliceKey(f.from.track.value, f.from.index.value), i);
            m_flowTargets.emplace_back(sliceKey(f.to.track.value, f.to.index.value), i);
            if (f.kind == model::FlowKind::Launch && m_flowIds[i] < kUncorrelatedFlowIds)
                m_targetCorrelation.emplace_back(sliceKey(f.to.track.value, f.to.index.value), m_flowIds[i]);
        }
        std::sort(m_flowSources.begin(), m_flowSources.end());
        std::sort(m_flowTargets.begin(), m_flowTargets.end());
        std::sort(m_targetCorrelation.begin(), m_targetCorrelation.end());
    }

    /// Kineto's flow ids: a launch flow ("ac2g") is keyed by the correlation id its runtime call carries, which
    /// the device activity then carries as well (the importer joins the two by it, exactly); a launch without
    /// one, and every other flow, gets an id of its own.
    std::uint64_t flowId(const model::Flow& f, std::size_t index) const
    {
        if (m_describe)
            return index + 1; // a described trace links every flow by its own pair, never by correlation
        if (f.kind == model::FlowKind::Launch) {
            const std::optional<model::ArgValue> c = m_trace.arg(f.from, model::argnames::kCorrelation);
            if (c && c->type == model::ArgValue::Type::Int && c->i >= 0
                && static_cast<std::uint64_t>(c->i) < kUncorrelatedFlowIds) {
                const std::optional<model::ArgValue> target = m_trace.arg(f.to, model::argnames::kCorrelation);
                if (!target || (target->type == model::ArgValue::Type::Int && target->i == c->i))
                    return static_cast<std::uint64_t>(c->i);
            }
            return kUncorrelatedFlowIds + index;
        }
        return index + 1;
    }

    static std::string_view flowCategory(model::FlowKind kind)
    {
        return kind == model::FlowKind::Launch ? "ac2g" : model::flowKindKey(kind);
    }

    std::string trackName(const model::Track& track) const { return model::trackName(m_trace, track); }

    /// "GPU 0 / stream 7": the process makes a track name unambiguous in a finding's annotation.
    std::string evidenceTrackName(const model::Track& track) const { return model::trackDisplayName(m_trace, track); }

    std::int32_t laneTid(std::vector<std::int32_t>& lanes, std::size_t lane, std::int32_t pid, std::int32_t firstTid,
                         const std::string& name, std::int64_t rank)
    {
        while (lanes.size() <= lane) {
            const std::size_t n = lanes.size();
            const std::int32_t tid = n == 0 ? firstTid : m_layout.newId();
            lanes.push_back(tid);
            if (n == 0) {
                metadata(pid, tid, "thread_name", "name", jsonString(name));
            } else {
                // An overlap lane is the same track for the importer: "lane_of" names the thread it belongs to.
                begin('M', pid, tid);
                m_out << ",\"name\":\"thread_name\",\"args\":{\"name\":"
                      << jsonString(name + " (overlap " + std::to_string(n) + ")") << ",\"lane_of\":" << lanes.front()
                      << "}}";
            }
            metadata(pid, tid, "thread_sort_index", "sort_index", std::to_string(rank));
        }
        return lanes[lane];
    }

    void writeArgs(model::ArgSetId args, const std::string& extra)
    {
        m_out << ",\"args\":{" << extra;
        bool first = extra.empty();
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

    void writeFlowEnds(std::vector<std::pair<std::uint64_t, std::size_t>>& list, std::size_t& cursor, std::uint64_t key,
                       bool source, std::int32_t pid, std::int32_t tid, TimeNs ts)
    {
        while (cursor < list.size() && list[cursor].first < key)
            ++cursor;
        const std::size_t first = cursor;
        for (; cursor < list.size() && list[cursor].first == key; ++cursor) {
            const model::Flow& flow = m_trace.flows()[list[cursor].second];
            const std::uint64_t id = m_flowIds[list[cursor].second];
            // One start per id: a CUDA-graph launch has one runtime call and many kernels under one correlation.
            bool repeated = false;
            for (std::size_t k = first; source && k < cursor; ++k) {
                const std::size_t other = list[k].second;
                repeated = repeated || (m_flowIds[other] == id && m_trace.flows()[other].kind == flow.kind);
            }
            if (repeated)
                continue;
            begin(source ? 's' : 'f', pid, tid);
            m_out << ",\"ts\":" << micros(ts) << ",\"id\":" << id << ",\"name\":\"flow\",\"cat\":\""
                  << flowCategory(flow.kind) << '"' << (source ? "" : ",\"bp\":\"e\"") << '}';
        }
    }

    // Not model::isDeviceTrack (device work only): a device's synthetic lanes (annotations, overlap rows) are
    // written as Kineto writes a device's rows too, in its process with device categories, so that the trace
    // reads back with them on that device.
    static bool writtenAsDeviceRow(const model::Track& track)
    {
        return track.deviceKind != model::DeviceKind::Cpu && track.role != model::TrackRole::HostThread
            && track.role != model::TrackRole::Counter;
    }

    /// What Kineto writes on a device activity besides its own args: the device, the stream and the correlation
    /// id of its launch. The importer reads the device and the stream from them (the pid and tid of this file are
    /// synthetic) and links the activity to its launch by the correlation id.
    std::string deviceArgs(const model::Track& track, std::uint32_t i)
    {
        std::string extra;
        const model::ArgSetId own = track.args(i);
        const auto add = [&](std::string_view key, std::int64_t value) {
            // A source that kept the key in the slice's args (with whatever value) says it itself.
            const model::StringId id = key == "device" ? m_deviceKey : key == "stream" ? m_streamKey : m_correlationKey;
            if (!id.isEmpty() && own.isValid() && m_trace.argStore().find(own, id))
                return;
            extra += (extra.empty() ? "\"" : ",\"");
            extra += key;
            extra += "\":" + std::to_string(value);
        };
        if (track.deviceIndex >= 0)
            add("device", track.deviceIndex);
        if (track.streamId >= 0 && track.role != model::TrackRole::Synthetic)
            add("stream", track.streamId);
        const std::uint64_t key = sliceKey(track.id.value, i);
        const auto it = std::lower_bound(m_targetCorrelation.begin(), m_targetCorrelation.end(),
                                         std::make_pair(key, std::uint64_t(0)));
        if (it != m_targetCorrelation.end() && it->first == key)
            add("correlation", static_cast<std::int64_t>(it->second));
        return extra;
    }

    /// The Kineto category (`cat`) of a slice, as JSON. A Kineto source keeps the category it was read with; other
    /// sources (and Kineto slices without one) get the Kineto category that the importer classifies like the slice
    /// (names decide steps, the dataloader and communication, as in Kineto's own files).
    const std::string& kinetoCategory(const model::Track& track, std::uint32_t i)
    {
        if (m_kinetoSource && !track.rawCategory(i).isEmpty())
            return nameJson(track.rawCategory(i));
        static const std::array<std::string, 10> cats = {"\"kernel\"",
                                                         "\"gpu_memcpy\"",
                                                         "\"gpu_memset\"",
                                                         "\"cuda_sync\"",
                                                         "\"gpu_user_annotation\"",
                                                         "\"cuda_runtime\"",
                                                         "\"python_function\"",
                                                         "\"user_annotation\"",
                                                         "\"cpu_op\"",
                                                         "\"other\""};
        using C = model::SliceCategory;
        const C c = track.category(i);
        if (writtenAsDeviceRow(track)) {
            switch (c) {
            case C::Memcpy:
                return cats[1];
            case C::Memset:
                return cats[2];
            case C::Sync:
                return cats[3];
            case C::Annotation:
            case C::Step:
                return cats[4];
            default:
                return cats[0];
            }
        }
        switch (c) {
        case C::RuntimeApi:
            return cats[5];
        case C::PythonFrame:
            return cats[6];
        case C::Annotation:
            return cats[7];
        case C::HostOp:
        case C::Step:
        case C::Dataloader:
        case C::Communication:
        case C::Sync:
            return cats[8];
        default:
            return cats[9];
        }
    }

    void writeTrack(const model::Track& track)
    {
        const ExportProcess& process = m_layout.processes()[m_layout.processOf(track.id)];
        const std::int32_t pid = process.pid;
        const std::string name = trackName(track);
        const std::int64_t rank = m_trackRank[track.id.value];
        if (!track.counterTimes().empty() && m_options.includeCounters && m_memoryCounter[track.id.value]) {
            // Kineto's allocator samples: "[memory]" instants in the host process, which the importer turns back
            // into this device's counter (a "C" event would come back as a host counter without a device).
            const auto host = m_hostPid.find(std::string(m_trace.str(track.processKey)));
            const std::int32_t hostPid = host != m_hostPid.end() ? host->second : pid;
            const auto times = track.counterTimes();
            const auto values = track.counterValues();
            for (std::size_t i = 0; i < times.size(); ++i) {
                begin('i', hostPid, m_layout.tidOf(track.id));
                const double v = values[i];
                m_out << ",\"ts\":" << micros(times[i])
                      << ",\"s\":\"t\",\"name\":\"[memory]\",\"cat\":\"cpu_instant_event\",\"args\":{\"Device Id\":"
                      << track.deviceIndex << ",\"Total Allocated\":"
                      << (!std::isfinite(v)                              ? std::string("null")
                              : v == std::trunc(v) && std::abs(v) < 9e15 ? std::to_string(static_cast<std::int64_t>(v))
                                                                         : nlohmann::json(v).dump())
                      << "}}";
            }
        } else if (!track.counterTimes().empty() && m_options.includeCounters) {
            const std::string counterName = jsonString(name);
            const auto times = track.counterTimes();
            const auto values = track.counterValues();
            for (std::size_t i = 0; i < times.size(); ++i) {
                begin('C', pid, m_layout.tidOf(track.id));
                m_out << ",\"ts\":" << micros(times[i]) << ",\"name\":" << counterName << ",\"args\":{\"value\":"
                      << (std::isfinite(values[i]) ? nlohmann::json(values[i]).dump() : std::string("null")) << "}}";
            }
        }
        if (track.empty())
            return;
        std::vector<std::int32_t> lanes;
        laneTid(lanes, 0, pid, m_layout.tidOf(track.id), name, rank);
        const bool device = writtenAsDeviceRow(track);
        SliceLanes stacks;
        const auto ignoreEnd = [](std::size_t, TimeNs) {};
        for (std::uint32_t i = 0; i < track.size(); ++i) {
            const std::size_t lane = stacks.place(track.ts(i), track.end(i), ignoreEnd);
            const std::int32_t tid = laneTid(lanes, lane, pid, lanes.front(), name, rank);
            begin('X', pid, tid);
            m_out << ",\"ts\":" << micros(track.ts(i)) << ",\"dur\":" << ChromeJsonExporter::formatMicros(track.dur(i))
                  << ",\"name\":" << nameJson(track.sliceName(i)) << ",\"cat\":" << kinetoCategory(track, i);
            // A described trace says device, stream and launches exactly (description(), flows): the Kineto args
            // that would say them again are not added, so the slice keeps exactly its own args.
            const std::string extra = m_describe ? sliceClassArgs(track, i)
                : device                         ? deviceArgs(track, i)
                                                 : std::string();
            if (m_options.includeArgs && track.args(i).isValid())
                writeArgs(track.args(i), extra);
            else if (!extra.empty())
                m_out << ",\"args\":{" << extra << '}';
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
            laneTid(lanes, 0, pid, m_layout.newId(), name, static_cast<std::int64_t>(r));
            std::vector<analysis::EvidenceRange> evidence = f.evidence;
            std::sort(evidence.begin(), evidence.end(), [](const auto& a, const auto& b) {
                return a.start != b.start ? a.start < b.start : a.end > b.end;
            });
            nlohmann::json args
                = {{"rank", r + 1},
                   {"kind", f.kind},
                   {"lost_ns", f.lostNs},
                   {"lost", analysis::formatDuration(f.lostNs) + " (" + analysis::formatPercent(f.lostFraction) + ")"}};
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
                begin('X', pid, laneTid(lanes, lane, pid, lanes.front(), name, static_cast<std::int64_t>(r)));
                m_out << ",\"ts\":" << micros(e.start) << ",\"dur\":" << ChromeJsonExporter::formatMicros(end - e.start)
                      << ",\"name\":" << title << ",\"cat\":\"timesink.finding\",\"args\":"
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
    bool m_kinetoSource = false;
    bool m_describe = false;     // writes the "timesink" description: a source that Kineto's vocabulary cannot say
    model::StringId m_deviceKey; // the arg keys deviceArgs() adds, as interned in this trace (empty when absent)
    model::StringId m_streamKey;
    model::StringId m_correlationKey;
    TimeNs m_base = 0;                                                // baseTimeNanoseconds (timeBase())
    std::vector<std::int64_t> m_trackRank;                            // thread sort index of each track
    std::vector<bool> m_memoryCounter;                                // per track: Kineto's "GPU N memory allocated"
    std::map<std::string, std::int32_t> m_hostPid;                    // exported pid of each host process key
    std::vector<std::pair<std::uint64_t, std::size_t>> m_flowSources; // (slice key, flow index)
    std::vector<std::pair<std::uint64_t, std::size_t>> m_flowTargets;
    std::vector<std::uint64_t> m_flowIds; // per flow of the model; 0 for flows that are not written
    std::vector<std::pair<std::uint64_t, std::uint64_t>> m_targetCorrelation; // (device slice key, correlation)
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
    std::snprintf(buf, sizeof buf, "%s%llu.%03llu", negative ? "-" : "",
                  static_cast<unsigned long long>(magnitude / 1000), static_cast<unsigned long long>(magnitude % 1000));
    return buf;
}

} // namespace timesink::exporters
