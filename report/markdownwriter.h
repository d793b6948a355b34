// SPDX-License-Identifier: MIT
#pragma once

#include "report/reportmodel.h"

#include <ostream>
#include <string>
#include <string_view>

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

} // namespace timesink::report
