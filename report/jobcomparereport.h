// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/job/jobcompare.h"
#include "report/jobreport.h"

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <ostream>
#include <span>
#include <string>

namespace timesink::report {

enum class ReportFormat : std::uint8_t; // report/reportoutput.h

/// Schema tag of the job comparison (`timesink-cli compare JOB_A JOB_B --format json`).
inline constexpr const char* kJobCompareSchema = "timesink.jobcompare/1";

/// What the writers need of the comparison: the two jobs' paths as given, the result, the generator.
struct JobCompareInput
{
    std::string baselinePath;
    std::string candidatePath;
    const analysis::JobCompareResult& result;
    std::string generator = "timesink";
};

/// The `timesink.jobcompare/1` object (docs/compare.md "Job vs job"):
/// {"schema", "generator", "baseline": {"path", "world_size", "ranks", "steps", "stragglers": [ranks], "warnings"},
///  "candidate": {…}, "figures": [{"figure", "label", "baseline_ns", "candidate_ns", "delta_ns"}],
///  "ranks": [{"rank", "baseline_steps", "candidate_steps", "baseline_step_ns", "candidate_step_ns", "delta_ns",
///             "baseline_wait_ns", "candidate_wait_ns", "baseline_communication_ns", "candidate_communication_ns",
///             "baseline_caused_wait_ns", "candidate_caused_wait_ns", "baseline_straggler", "candidate_straggler"}],
///  "lost_by_kind": [{"kind", "baseline_lost_ns", "candidate_lost_ns", "delta_ns"}], "notes": [...]}
nlohmann::ordered_json jobCompareJson(const JobCompareInput& in);

/// Text, JSON, Markdown, HTML (tables, self-contained, escaped; each with both jobs' warnings) or CSV (the rank
/// table alone).
void writeJobCompareReport(const JobCompareInput& in, JobFormat format, std::ostream& out);

/// The job-compare document for a report file format, as `compare JOB_A JOB_B -o FILE` picks it from the file's
/// extension: Json → Json, Markdown → Markdown, Html → Html, Csv → Csv (the rank table).
JobFormat jobCompareFormat(ReportFormat format);

/// Writes the comparison to `path` in the format its extension names (.json, .md, .html, .csv — the same documents
/// as `timesink-cli compare JOB_A JOB_B -o FILE`), atomically (the file is either complete or untouched), never
/// over one of `inputs` nor inside an input folder (output::checkOutputPath). False with a message naming the file
/// on any failure, an unknown extension included.
/// Example (GUI, the job compare window's File → Export…):
///   const std::filesystem::path inputs[] = {"runs/job_a", "runs/job_b"};
///   writeJobCompareReportFile({"runs/job_a", "runs/job_b", result, "Timesink 1.0"}, "a-vs-b.md", inputs, error);
bool writeJobCompareReportFile(const JobCompareInput& in, const std::filesystem::path& path,
                               std::span<const std::filesystem::path> inputs, std::string& error);

} // namespace timesink::report
