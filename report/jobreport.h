// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/job/job.h"
#include "report/reportmodel.h"

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>

namespace timesink::report {

/// Schema tag of the job report object (`timesink-cli job --format json`).
inline constexpr const char* kJobSchema = "timesink.job/1";

/// A rank's summary read back from `j`, its `timesink.report/1` object (what `analyze --format json` writes): rank,
/// world size, platform, communication backend, steps with their breakdown, communication wait and collectives,
/// and the ranked findings. False with a message naming `source` when the object is not such a report.
bool rankSummaryFromReportJson(const nlohmann::json& j, const std::string& source, analysis::RankSummary& out,
                               std::string& error);

/// The summary of an analysed trace: the report model goes through the very JSON that `analyze --format json`
/// writes, so a job built from traces equals a job built from their reports.
analysis::RankSummary rankSummaryFromModel(const ReportModel& model);

/// The value of the "schema" key of the top-level JSON object in `path`, when that key comes within the file's first
/// 64 KiB (Timesink writes it first) and holds a string; empty otherwise. Read by structure, not by substring: a trace
/// whose first events merely mention "timesink.job/1" (an event name, an argument, a nested "schema") has none.
/// Example: {"schema": "timesink.job/1", …} → "timesink.job/1"; {"traceEvents": [{"schema": "timesink.job/1"}]} → "".
std::string jsonSchemaTag(const std::filesystem::path& path);

/// True when `path` is a JSON file whose top-level object says "schema": "timesink.report/1" (jsonSchemaTag).
bool looksLikeReportJson(const std::filesystem::path& path);

/// Reads a `timesink.report/1` file. False with a message naming the file when it cannot be read or is not one.
bool readRankReport(const std::filesystem::path& path, analysis::RankSummary& out, std::string& error);

/// The `timesink.job/1` object (docs/report-schema.md).
nlohmann::ordered_json jobJson(const analysis::JobResult& job, const std::string& generator);

enum class JobFormat : std::uint8_t { Text, Json, Markdown, Html, Csv };
/// "text", "json", "md"/"markdown", "html"/"htm", "csv".
std::optional<JobFormat> jobFormatFromName(std::string_view name);
/// By extension of an output file (.txt, .json, .md, .html, .csv).
std::optional<JobFormat> jobFormatFromPath(const std::filesystem::path& path);

using JobHeatMeasure = analysis::JobMeasure;

/// The rank × step heat map of `measure` as a standalone SVG: the metric and unit in its title, step numbers on
/// the axis, rank labels (stragglers marked), a colour scale from 0 to the largest value in ms, each cell's value
/// in its <title> (a tooltip), hatched cells where a rank has no such step, and the missing ranks named.
std::string jobHeatMapSvg(const analysis::JobResult& job, analysis::JobMeasure measure);
/// The aligned rank lanes of `step` (analysis::stepLanes on the common clock) as a standalone SVG: a time axis in
/// ms, per rank the step, its collectives' waiting, transfer and compute-overlapped parts, and the last arrival at
/// each matched collective as a line (the edge the others wait on). Empty when no rank has the step.
std::string jobLanesSvg(const analysis::JobResult& job, std::int64_t step);

/// Writes the job report in `format`: text with a rank × step table of step times; Markdown with that table and
/// the heat maps and the worst step's lanes as SVG pictures (data: URIs); HTML with the same pictures inline; CSV
/// of the job findings.
void writeJobReport(const analysis::JobResult& job, JobFormat format, const std::string& generator, std::ostream& out);

} // namespace timesink::report
