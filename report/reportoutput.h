// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/pass.h"
#include "analysis/job/job.h"
#include "model/trace.h"
#include "report/analysis/reportmodel.h"
#include "report/compare/comparedocument.h"
#include "report/core/reportformat.h"
#include "report/jobcompare/jobcomparedocument.h"

#include <filesystem>
#include <ostream>
#include <span>
#include <string>
#include <vector>

namespace timesink::report {

// Every document (analysis, compare, job, job compare) in every format (ReportFormat): the one place that pairs a
// document with a format's writer (report/writers/<format>/).

/// Writes the analysis report to a stream in `format`.
void writeReport(const ReportModel& model, ReportFormat format, std::ostream& out);

/// Writes the report to `path` atomically (AtomicFile): the file is either complete or untouched. Refuses to
/// overwrite any of `inputs` (checkOutputPath). Returns false with a message naming the file on any failure.
/// Example (GUI, File → Export report…):
///   ReportModel model = buildReportModel(*trace, result);
///   std::string error;
///   if (!writeReportFile(model, *reportFileFormatFromPath(path), path, {traceInputPath}, error))
///       QMessageBox::warning(this, tr("Export failed"), QString::fromStdString(error));
bool writeReportFile(const ReportModel& model, ReportFormat format, const std::filesystem::path& path,
                     std::span<const std::filesystem::path> inputs, std::string& error);

/// One call for File → Export report…: builds the report model of an analysed trace and writes it to `path`
/// in the format its extension names (.json, .md, .html, .csv), atomically, never over one of `inputs`.
/// False with a message naming the file on any failure (unknown extension included).
/// Example (GUI, MainWindow::exportReportTo, with the result analyze() returned for the loaded trace):
///   std::string error;
///   const std::filesystem::path inputs[] = {loaded.path.toStdString()};
///   if (!report::exportReport(*loaded.trace, loaded.analysis, fileName.toStdString(), inputs, error))
///       QMessageBox::warning(this, tr("Export report"), QString::fromStdString(error));
bool exportReport(const model::Trace& trace, const analysis::AnalysisResult& result, const std::filesystem::path& path,
                  std::span<const std::filesystem::path> inputs, std::string& error, const ReportOptions& options = {});

/// Save-dialog name filters, one per report file format, HTML first: "HTML report (*.html)",
/// "Markdown report (*.md)", "JSON report (*.json)", "CSV of findings (*.csv)". Join with ";;" for QFileDialog.
std::vector<std::string> reportFileFilters();

/// The comparison of two runs in `format` (Json: compareJson, indented by two spaces).
void writeCompareReport(const CompareRun& baseline, const CompareRun& candidate, const analysis::CompareResult& result,
                        ReportFormat format, std::ostream& out, const CompareReportOptions& options = {});

/// Writes the comparison to `path` atomically, never over one of `inputs`; false with a message on failure.
bool writeCompareReportFile(const CompareRun& baseline, const CompareRun& candidate,
                            const analysis::CompareResult& result, ReportFormat format,
                            const std::filesystem::path& path, std::span<const std::filesystem::path> inputs,
                            std::string& error, const CompareReportOptions& options = {});

/// Writes the job report in `format`: text with a rank × step table of step times; Markdown with that table and
/// the heat maps and the worst step's lanes as SVG pictures (data: URIs); HTML with the same pictures inline; CSV
/// of the job findings.
void writeJobReport(const analysis::JobResult& job, ReportFormat format, const std::string& generator,
                    std::ostream& out);

/// Text, JSON, Markdown, HTML (tables, self-contained, escaped; each with both jobs' warnings) or CSV (the rank
/// table alone).
void writeJobCompareReport(const JobCompareInput& in, ReportFormat format, std::ostream& out);

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
