// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/collectivebandwidth.h"
#include "analysis/core/finding.h"
#include "analysis/core/textformat.h"
#include "model/types.h"

#include <string>
#include <string_view>
#include <vector>

namespace timesink::report {

// Numbers are formatted in one place, analysis/core/textformat.h; the report writers name them as their own.
using analysis::cleanText;
using analysis::formatDuration;
using analysis::formatFixed;
using analysis::formatGeneral;
using analysis::formatMilliseconds;
using analysis::formatMillisecondsRounded;
using analysis::formatPercent;
using analysis::kindLabel;
using analysis::terminalText;

/// The command that opens a finding in the desktop viewer, the path quoted for POSIX shells:
/// ("/runs/a b.json", 2) → "timesink '/runs/a b.json' --finding 2"; a quote in the path becomes '\''.
std::string viewerCommand(std::string_view tracePath, std::size_t rank);

/// The collective bandwidth per kind, one line each after `indent`:
/// "  allreduce: 15 collectives, 307 MB in 46.8 ms: algbw 6.56 GB/s, busbw 6.56 GB/s of NVLink3 300 GB/s (kernel
/// duration)\n"; "" for an empty list.
std::string bandwidthLines(const std::vector<analysis::BandwidthSummary>& summaries, std::string_view indent);

/// At most `maxChars` code points of `text` (already clean UTF-8), with "…" appended when cut.
std::string truncateText(std::string_view text, std::size_t maxChars);

/// A kernel or operator name short enough for a table cell (clean UTF-8 in, unchanged when it fits): a C++
/// signature loses its return type, template arguments and parameter list, then what is still longer than
/// `maxChars` is cut with "…".
/// Example: "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, …>(int, …)"
///   → "at::native::vectorized_elementwise_kernel<…>".
std::string shortenSignature(std::string_view name, std::size_t maxChars = 80);

/// `text` as a Markdown code span, fenced with enough backticks that none inside ends it.
/// Example: "timesink 'a.json' --finding 1" → "`timesink 'a.json' --finding 1`".
std::string markdownCodeSpan(std::string_view text);

} // namespace timesink::report
