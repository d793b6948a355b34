// SPDX-License-Identifier: MIT
#pragma once

#include "model/tracebuilder.h"

#include <cstdint>
#include <map>
#include <string>
#include <tuple>

namespace timesink::parsers {

/// Creates (once) the tracks of an Ascend trace so the timeline, the CSV and the SQLite readers name them the
/// same way, as the torch_npu/msprof timeline does:
///   deviceStream(0, 2)             → "Stream 2" in process "Ascend Hardware", DeviceCompute, Npu device 0
///   hostThread("Python", 3096504, 3099702) → "Thread 3099702" in process "Python", HostThread
///   communication(0, "Plane 0")    → "Plane 0" in process "HCCL", Communication, Npu device 0
///   overlap(0, "Free")             → "Free" in process "Overlap Analysis", Synthetic
///   counter("AI Core Freq", "MHz") → "AI Core Freq MHz", Counter
class AscendTracks
{
public:
    explicit AscendTracks(model::TraceBuilder& builder)
        : m_builder(builder)
    {
    }

    model::TrackId deviceStream(std::int32_t device, std::int64_t stream);
    model::TrackId hostThread(std::string_view process, std::int64_t pid, std::int64_t tid);
    model::TrackId communication(std::int32_t device, std::string_view lane);
    model::TrackId overlap(std::int32_t device, std::string_view lane);
    model::TrackId counter(std::string_view process, std::string_view series, std::int32_t device = -1);

    /// Any other track, keyed by (process key, thread key); `info` is used the first time only.
    model::TrackId custom(const std::string& processKey, const std::string& threadKey, const model::TrackInfo& info);

private:
    /// An NPU lane named by its thread (HCCL "Plane 0", overlap "Free"), keyed "<process> <device>" / lane.
    model::TrackId namedLane(std::string_view process, std::int32_t device, std::string_view lane,
                             model::TrackRole role, std::int32_t sortIndex);

    model::TraceBuilder& m_builder;
    std::map<std::pair<std::string, std::string>, model::TrackId> m_tracks;
};

} // namespace timesink::parsers
