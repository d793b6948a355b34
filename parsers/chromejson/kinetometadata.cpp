// SPDX-License-Identifier: MIT
// KinetoSink (kinetosink.h): top-level keys (time base, schema, devices, distributed info), the export description,
// metadata events (M).
#include "model/argnames.h"
#include "model/checkedmath.h"
#include "model/tracebuilder.h"
#include "parsers/chromejson/kinetosink.h"

#include <algorithm>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace timesink::parsers::chromejson::kineto {

using model::SliceCategory;
using model::TimeNs;

void KinetoSink::onTopLevel(std::string_view key, std::string_view raw)
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
            // The device's memory, for judging how close the allocator's peak comes to it (memory_pressure) and for
            // telling chips that share a generic name apart (efficiency's peak table).
            if (auto it = d.find("totalGlobalMem");
                it != d.end() && it->is_number_integer() && it->get<std::int64_t>() > 0) {
                dev.memoryBytes = it->get<std::int64_t>();
                meta.properties.emplace_back("device_memory_bytes." + std::to_string(dev.index),
                                             std::to_string(dev.memoryBytes));
            }
            // Its SMs (NVIDIA) or CUs (ROCm), which tell chips apart that share a name (efficiency's peak table).
            if (auto it = d.find("numSms"); it != d.end() && it->is_number_integer()) {
                const std::int64_t sms = it->get<std::int64_t>();
                if (sms > 0 && sms <= (1 << 20))
                    dev.computeUnits = static_cast<std::int32_t>(sms);
            }
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

/// Takes the "timesink" description of an export: creates its tracks in their order, so that events find
/// them by pid and tid, and keeps the metadata and steps for finish().
void KinetoSink::describe(const nlohmann::json& j)
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

void KinetoSink::metadataEvent(const ChromeEvent& e)
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

} // namespace timesink::parsers::chromejson::kineto
