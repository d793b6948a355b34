// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/job/job.h"
#include "analysis/job/jobcompare.h"
#include "report/analysis/reportmodel.h"
#include "report/compare/comparedocument.h"

#include <ostream>
#include <string>
#include <string_view>

// The CSV writer (RFC 4180: CRLF line ends, text fields quoted, quotes doubled, formula-neutralised): one table of
// every document.
namespace timesink::report {

/// The columns of the findings CSV, in order.
inline constexpr std::string_view kCsvHeader
    = "rank,kind,title,lost_ns,lost_ms,lost_percent,occurrences,steps_affected,platform,first_ts_ns,explanation,"
      "recommendation,saving_ns,saving_ms,saving_percent,saving_method";

/// Writes the findings as CSV (RFC 4180: CRLF line ends, text fields quoted, quotes doubled), one row per
/// finding in rank order under the kCsvHeader header row. Numbers are plain (lost_ns exact in ns,
/// lost_ms with three or six decimals, lost_percent with one decimal); text fields are neutralised against
/// spreadsheet formula injection (see csvText).
void writeCsvFindings(const ReportModel& model, std::ostream& out);

/// One quoted CSV text field: the text is cleaned (cleanText, newlines kept), quotes doubled, and a leading
/// "=", "+", "-" or "@" is prefixed with an apostrophe so that spreadsheets show it
/// as text instead of evaluating a formula.
/// Example: =HYPERLINK("x") → "'=HYPERLINK(""x"")".
std::string csvText(std::string_view text);

/// Columns of the compare CSV, one row per operator (every operator, by |delta| as in CompareResult).
inline constexpr std::string_view kCompareCsvHeader
    = "name,baseline_ns,candidate_ns,delta_ns,ratio,baseline_calls,candidate_calls,baseline_names,candidate_names";

/// The compare document's operator table (csvText for text); `ratio` is empty when the baseline time is 0; the
/// name lists are joined with "; ".
void writeCompareCsv(const analysis::CompareResult& result, std::ostream& out);

/// The job's findings, one row per finding in rank order.
void writeJobCsv(const analysis::JobResult& job, std::ostream& out);

/// The job comparison's rank table.
void writeJobCompareCsv(const analysis::JobCompareResult& result, std::ostream& out);

} // namespace timesink::report
