// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/job/job.h"
#include "report/analysis/reportmodel.h"
#include "report/compare/comparedocument.h"
#include "report/jobcompare/jobcomparedocument.h"

#include <ostream>
#include <string>
#include <string_view>

// The Markdown writer (GitHub/GitLab-flavoured): every document for a ticket or a merge request. Every trace-derived
// string is escaped.
namespace timesink::report {

/// Writes the report as GitHub/GitLab-flavoured Markdown: a summary, the ranked findings table
/// (`| rank | kind | finding | lost | % | occurrences | steps |`), lost time by kind, the per-step breakdown,
/// the top operators, then one section per finding with its explanation, numbers and recommendation.
void writeMarkdownReport(const ReportModel& model, std::ostream& out);

/// Escapes text for Markdown inline content and table cells: the text is cleaned (cleanText), then every
/// character Markdown or GFM tables would interpret is backslash-escaped, so a trace-derived name can neither
/// split a table cell, start a link or emphasis, nor inject raw HTML.
/// Example: "a|b<script>*x*" → "a\|b\<script\>\*x\*".
std::string escapeMarkdown(std::string_view text);

/// The comparison of two runs: the runs side by side, the step totals and ratio, the paired steps, the findings
/// that explain the difference, the operators with the largest deltas, notes.
void writeCompareMarkdown(const CompareRun& baseline, const CompareRun& candidate,
                          const analysis::CompareResult& result, std::ostream& out,
                          const CompareReportOptions& options = {});

/// The job: figures, the findings, the rank × step table, the heat maps and the worst step's lanes as SVG pictures
/// (data: URIs), each finding's details, the ranks.
void writeJobMarkdown(const analysis::JobResult& job, const std::string& generator, std::ostream& out);

/// The job comparison: tables of figures, ranks and loss by kind, with both jobs' warnings.
void writeJobCompareMarkdown(const JobCompareInput& in, std::ostream& out);

} // namespace timesink::report
