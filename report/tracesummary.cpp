// SPDX-License-Identifier: MIT
#include "report/tracesummary.h"

#include "model/importwarning.h"

namespace timesink::report {

std::string unlinkedFlowsMessage(std::size_t unlinked)
{
    return std::to_string(unlinked) + " flow" + (unlinked == 1 ? "" : "s")
        + " could not be linked (no slice at one end, e.g. an \"f\" event without its \"s\"); they are not counted, "
          "drawn or exported";
}

nlohmann::ordered_json traceSummaryJson(const model::Trace& trace)
{
    using nlohmann::ordered_json;
    const model::TraceMetadata& meta = trace.metadata();
    ordered_json j;
    j["format"] = meta.format;
    j["format_version"] = meta.formatVersion;
    j["path"] = meta.sourcePath;
    ordered_json devices = ordered_json::array();
    for (const model::Device& d : meta.devices)
        devices.push_back({{"kind", model::deviceKindKey(d.kind)}, {"index", d.index}, {"name", d.name}});
    j["devices"] = std::move(devices);
    j["start_ns"] = trace.startNs();
    j["span_ns"] = trace.spanNs();
    j["slices"] = trace.sliceCount();
    j["steps"] = trace.steps().size();
    j["tracks"] = trace.tracks().size();
    const std::size_t linked = trace.linkedFlowCount();
    j["flows"] = linked;
    j["unlinked_flows"] = trace.flows().size() - linked;
    ordered_json counts = ordered_json::object();
    for (int c = 0; c < model::kSliceCategoryCount; ++c) {
        const auto cat = static_cast<model::SliceCategory>(c);
        counts[std::string(model::categoryKey(cat))] = trace.categoryCount(cat);
    }
    j["counts"] = std::move(counts);
    ordered_json warnings = ordered_json::array();
    for (const model::ImportWarning& w : trace.warnings())
        warnings.push_back({{"kind", w.kind}, {"count", w.count}, {"message", w.message}});
    if (linked < trace.flows().size())
        warnings.push_back({{"kind", model::key(model::ImportWarningKind::UnlinkedFlows)},
                            {"count", trace.flows().size() - linked},
                            {"message", unlinkedFlowsMessage(trace.flows().size() - linked)}});
    j["warnings"] = std::move(warnings);
    j["rank"] = meta.rank;
    j["world_size"] = meta.worldSize;
    j["profiler_level"] = meta.profilerLevel;
    j["synthetic_timestamps"] = meta.syntheticTimestamps;
    ordered_json props = ordered_json::object();
    for (const auto& [k, v] : meta.properties)
        props[k] = v;
    j["properties"] = std::move(props);
    return j;
}

} // namespace timesink::report
