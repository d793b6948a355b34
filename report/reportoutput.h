// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/pass.h"
#include "model/trace.h"
#include "report/reportmodel.h"

#include <filesystem>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace timesink::report {

/// The file formats of a bottleneck report.
enum class ReportFormat : std::uint8_t { Json, Markdown, Html, Csv };

/// "json" → Json, "md"/"markdown" → Markdown, "html"/"htm" → Html, "csv" → Csv; anything else → nullopt.
std::optional<ReportFormat> reportFormatFromName(std::string_view name);
/// By extension, case-insensitively: "out/run.MD" → Markdown; no or unknown extension → nullopt.
std::optional<ReportFormat> reportFormatFromPath(const std::filesystem::path& path);
/// "json", "md", "html", "csv".
std::string_view reportFormatName(ReportFormat format);

/// Writes the report to a stream in `format` (the writers of jsonreportwriter.h, markdownwriter.h, htmlwriter.h,
/// csvwriter.h).
void writeReport(const ReportModel& model, ReportFormat format, std::ostream& out);

/// Writes the report to `path` atomically (AtomicFile): the file is either complete or untouched. Refuses to
/// overwrite any of `inputs` (checkOutputPath). Returns false with a message naming the file on any failure.
/// Example (GUI, File → Export report…):
///   ReportModel model = buildReportModel(*trace, result);
///   std::string error;
///   if (!writeReportFile(model, *reportFormatFromPath(path), path, {traceInputPath}, error))
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

/// Save-dialog name filters, one per report format, HTML first: "HTML report (*.html)", "Markdown report (*.md)",
/// "JSON report (*.json)", "CSV of findings (*.csv)". Join with ";;" for QFileDialog.
std::vector<std::string> reportFileFilters();

} // namespace timesink::report
