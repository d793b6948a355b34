// SPDX-License-Identifier: MIT
#pragma once

#include "report/reportmodel.h"

#include <ostream>
#include <string>
#include <string_view>

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

} // namespace timesink::report
