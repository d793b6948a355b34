// SPDX-License-Identifier: MIT
#include "model/importwarning.h"
#include "report/writers/json/jsonwriter.h"

#include <algorithm>
#include <map>

namespace timesink::report {

nlohmann::ordered_json traceSummaryJson(const TraceSummary& s)
{
    using nlohmann::ordered_json;
    const model::TraceMetadata& meta = s.metadata;
    ordered_json j;
    j["format"] = meta.format;
    j["format_version"] = meta.formatVersion;
    j["path"] = meta.sourcePath;
    ordered_json devices = ordered_json::array();
    for (const model::Device& d : meta.devices)
        devices.push_back({{"kind", model::deviceKindKey(d.kind)}, {"index", d.index}, {"name", d.name}});
    j["devices"] = std::move(devices);
    j["start_ns"] = s.startNs;
    j["span_ns"] = s.spanNs;
    j["slices"] = s.slices;
    j["steps"] = s.steps;
    j["tracks"] = s.tracks;
    j["flows"] = s.flows;
    j["unlinked_flows"] = s.unlinkedFlows;
    ordered_json counts = ordered_json::object();
    for (int c = 0; c < model::kSliceCategoryCount; ++c)
        counts[std::string(model::categoryKey(static_cast<model::SliceCategory>(c)))]
            = s.counts[static_cast<std::size_t>(c)];
    j["counts"] = std::move(counts);
    ordered_json warnings = ordered_json::array();
    for (const model::ImportWarning& w : s.warnings)
        warnings.push_back({{"kind", w.kind}, {"count", w.count}, {"message", w.message}});
    j["warnings"] = std::move(warnings);
    j["rank"] = meta.rank;
    j["world_size"] = meta.worldSize;
    j["profiler_level"] = meta.profilerLevel;
    j["synthetic_timestamps"] = meta.syntheticTimestamps;
    ordered_json props = ordered_json::object();
    for (const auto& [k, v] : meta.properties)
        props[k] = v;
    j["properties"] = std::move(props);
    ordered_json links = ordered_json::array();
    for (const model::RankLink& l : meta.rankLinks)
        links.push_back({{"src_rank", l.src},
                         {"dst_rank", l.dst},
                         {"transport", l.transport},
                         {"bytes", l.bytes},
                         {"transit_ns", l.transitNs}});
    j["rank_links"] = std::move(links);
    return j;
}

nlohmann::ordered_json traceSummaryJson(const model::Trace& trace)
{
    return traceSummaryJson(summarizeTrace(trace));
}

} // namespace timesink::report
