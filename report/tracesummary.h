// SPDX-License-Identifier: MIT
#pragma once

#include "model/trace.h"

#include <nlohmann/json.hpp>
#include <string>

namespace timesink::report {

/// What `timesink-cli info --format json` prints, and the "trace" object of every report:
/// {format, format_version, path, devices: [{kind, index, name}], span_ns, start_ns, slices, steps, tracks,
///  flows (linked ones, Flow::isLinked()), unlinked_flows, counts: {host_op, python, runtime, kernel, memcpy, memset,
///  sync, communication, dataloader, step, annotation, fallback_op, other}, warnings: [{kind, count, message}], rank,
///  world_size, profiler_level, synthetic_timestamps, properties: {…}}
nlohmann::ordered_json traceSummaryJson(const model::Trace& trace);

/// The warning `info` gives for flows that link nothing.
std::string unlinkedFlowsMessage(std::size_t unlinked);

} // namespace timesink::report
