// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/compare/compare.h"
#include "report/comparejson.h"
#include "report/reportoutput.h"

#include <filesystem>
#include <ostream>
#include <span>
#include <string>

namespace timesink::report {

/// Options of the compare report writers.
struct CompareReportOptions
{
    std::size_t topOperators = 30; // Markdown/HTML operator table rows (CSV lists every operator)
    std::string generator = "timesink";
};

/// Under the findings that explain the difference, when their shares of the step-time difference add up to more
/// than 100 %: says so and why (kinds overlap: one idle stretch can be a bubble and a wait) and points to the
/// waterfall, whose parts add up exactly. Empty otherwise.
std::string explanationSharesNote(const analysis::CompareResult& result);

/// The comparison of two runs as GitHub/GitLab Markdown: the runs side by side, the step totals and ratio,
/// the paired steps, the findings that explain the difference, the operators with the largest deltas, notes.
void writeCompareMarkdown(const CompareRun& baseline, const CompareRun& candidate,
                          const analysis::CompareResult& result, std::ostream& out,
                          const CompareReportOptions& options = {});

/// The same as one self-contained HTML page (inline CSS, inline SVG: per-step baseline vs candidate, operator
/// deltas), every trace-derived string escaped, no script, nothing fetched.
void writeCompareHtml(const CompareRun& baseline, const CompareRun& candidate, const analysis::CompareResult& result,
                      std::ostream& out, const CompareReportOptions& options = {});

/// Columns of the compare CSV, one row per operator (every operator, by |delta| as in CompareResult).
inline constexpr std::string_view kCompareCsvHeader
    = "name,baseline_ns,candidate_ns,delta_ns,ratio,baseline_calls,candidate_calls,baseline_names,candidate_names";

/// The operator table as CSV (RFC 4180, formula-neutralised text, see csvText); `ratio` is empty when the
/// baseline time is 0; the name lists are joined with "; ".
void writeCompareCsv(const analysis::CompareResult& result, std::ostream& out);

/// Dispatches on `format` (Json: compareJson, indented by two spaces).
void writeCompareReport(const CompareRun& baseline, const CompareRun& candidate, const analysis::CompareResult& result,
                        ReportFormat format, std::ostream& out, const CompareReportOptions& options = {});

/// Writes the comparison to `path` atomically, never over one of `inputs`; false with a message on failure.
bool writeCompareReportFile(const CompareRun& baseline, const CompareRun& candidate,
                            const analysis::CompareResult& result, ReportFormat format,
                            const std::filesystem::path& path, std::span<const std::filesystem::path> inputs,
                            std::string& error, const CompareReportOptions& options = {});

} // namespace timesink::report
