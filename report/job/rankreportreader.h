// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/job/job.h"
#include "model/expected.h"

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

// The rank-report reader: a `timesink.report/1` file (what `analyze --format json` wrote for one rank) read back
// into the summary a job merges.
namespace timesink::report {

/// A rank's summary read back from `j`, its `timesink.report/1` object (what `analyze --format json` writes): rank,
/// world size, platform, communication backend, steps with their breakdown, communication wait and collectives,
/// and the ranked findings. NotRecognised naming `source` when the object is no such report (no "schema":
/// "timesink.report/1"), Malformed when it says it is one but a field cannot be read.
model::Expected<analysis::RankSummary> rankSummaryFromReportJson(const nlohmann::json& j, const std::string& source);

/// The value of the "schema" key of the top-level JSON object in `path`, when that key comes within the file's first
/// 64 KiB (Timesink writes it first) and holds a string; empty otherwise. Read by structure, not by substring: a trace
/// whose first events merely mention "timesink.job/1" (an event name, an argument, a nested "schema") has none.
/// Example: {"schema": "timesink.job/1", …} → "timesink.job/1"; {"traceEvents": [{"schema": "timesink.job/1"}]} → "".
std::string jsonSchemaTag(const std::filesystem::path& path);

/// True when `path` is a JSON file whose top-level object says "schema": "timesink.report/1" (jsonSchemaTag).
bool looksLikeReportJson(const std::filesystem::path& path);

/// Reads a `timesink.report/1` file; the failure names the file: CannotRead, NotRecognised (not a report, or over
/// 256 MiB) or Malformed (not JSON, or a field that cannot be read).
model::Expected<analysis::RankSummary> readRankReport(const std::filesystem::path& path);

} // namespace timesink::report
