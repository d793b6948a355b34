// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/job/job.h"
#include "report/analysis/reportmodel.h"
#include "report/compare/comparedocument.h"
#include "report/jobcompare/jobcomparedocument.h"

#include <ostream>
#include <string>
#include <string_view>

// The HTML writer: every document as one self-contained page (inline CSS and SVG, no script, nothing fetched), every
// trace-derived string escaped.
namespace timesink::report {

/// Writes the report as one self-contained HTML file: inline CSS (with a print stylesheet) and inline SVG
/// charts (per-step breakdown, lost time by kind, top operators). Nothing is fetched from the network and
/// no script is included; a Content-Security-Policy forbids both. Every trace-derived string is escaped.
void writeHtmlReport(const ReportModel& model, std::ostream& out);

/// The inline stylesheet of Timesink's HTML reports (screen and print), shared by the analysis and compare
/// reports so they look alike.
std::string_view htmlReportStyle();

/// Escapes text for HTML element content and quoted attribute values (also inside inline SVG): the text is
/// cleaned (cleanText), then & < > " ' become character references.
/// Example: "</style><b a='x'>" → "&lt;/style&gt;&lt;b a=&#39;x&#39;&gt;".
std::string escapeHtml(std::string_view text);

/// The comparison of two runs as one page: the Markdown report's content with inline SVG charts (per-step baseline
/// vs candidate, the waterfall, operator deltas).
void writeCompareHtml(const CompareRun& baseline, const CompareRun& candidate, const analysis::CompareResult& result,
                      std::ostream& out, const CompareReportOptions& options = {});

/// The job as one page: figures, findings, the heat maps and the worst step's lanes inline (jobcharts.h), the step
/// spreads, each finding's details, the ranks.
void writeJobHtml(const analysis::JobResult& job, const std::string& generator, std::ostream& out);

/// The job comparison as one page: tables of figures, ranks and loss by kind, with both jobs' warnings.
void writeJobCompareHtml(const JobCompareInput& in, std::ostream& out);

} // namespace timesink::report
