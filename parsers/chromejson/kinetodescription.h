// SPDX-License-Identifier: MIT
// Internal to the Kineto importer: the description a Timesink export writes of a source Kineto's vocabulary cannot
// say, and its parsing (kinetodescription.cpp).
#pragma once

#include "model/trace.h"
#include "model/types.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace timesink::parsers::chromejson::kineto {

using model::SliceCategory;
using model::TimeNs;

// ---- A Timesink export of a source that Kineto's vocabulary cannot say (torch_npu, msprof, RKNN) ----
// exporters/chromejsonexporter writes a top-level "timesink" object before traceEvents with the trace's metadata, its
// tracks (keyed by the exported pid and tid) and its steps, and on each slice the args "timesink.category",
// "timesink.flags" and "timesink.cat" (model category, flags, the source's own category). With them the import
// rebuilds the model the export was written from; without them the file is read as any Kineto trace.

inline constexpr std::string_view kDescribedArgPrefix = "timesink.";

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

/// The model category whose key (model/types.h) is `key`, or nullopt.
std::optional<model::SliceCategory> categoryFromKey(std::string_view key);

/// The description of a top-level "timesink" value, or nullopt with `error` saying what does not fit.
std::optional<ExportDescription> parseDescription(const nlohmann::json& j, std::string& error);

} // namespace timesink::parsers::chromejson::kineto
