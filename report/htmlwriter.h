// SPDX-License-Identifier: MIT
#pragma once

#include "report/reportmodel.h"

#include <ostream>
#include <string>
#include <string_view>

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

} // namespace timesink::report
