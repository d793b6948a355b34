// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/job/job.h"

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

// The rank-report reader: a `timesink.report/1` file (what `analyze --format json` wrote for one rank) read back
// into the summary a job merges.
namespace timesink::report {

/// A rank's summary read back from `j`, its `timesink.report/1` object (what `analyze --format json` writes): rank,
/// world size, platform, communication backend, steps with their breakdown, communication wait and collectives,
/// and the ranked findings. False with a message naming `source` when the object is not such a report.
bool rankSummaryFromReportJson(const nlohmann::json& j, const std::string& source, analysis::RankSummary& out,
                               std::string& error);

/// The value of the "schema" key of the top-level JSON object in `path`, when that key comes within the file's first
/// 64 KiB (Timesink writes it first) and holds a string; empty otherwise. Read by structure, not by substring: a trace
/// whose first events merely mention "timesink.job/1" (an event name, an argument, a nested "schema") has none.
/// Example: {"schema": "timesink.job/1", …} → "timesink.job/1"; {"traceEvents": [{"schema": "timesink.job/1"}]} → "".
std::string jsonSchemaTag(const std::filesystem::path& path);

/// True when `path` is a JSON file whose top-level object says "schema": "timesink.report/1" (jsonSchemaTag).
bool looksLikeReportJson(const std::filesystem::path& path);

/// Reads a `timesink.report/1` file. False with a message naming the file when it cannot be read or is not one.
bool readRankReport(const std::filesystem::path& path, analysis::RankSummary& out, std::string& error);

} // namespace timesink::report
