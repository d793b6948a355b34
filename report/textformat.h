// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/finding.h"
#include "analysis/textformat.h"
#include "model/types.h"

#include <string>
#include <string_view>

namespace timesink::report {

// Numbers are formatted in one place, analysis/textformat.h; the report writers name them as their own.
using analysis::formatDuration;
using analysis::formatFixed;
using analysis::formatGeneral;
using analysis::formatMilliseconds;
using analysis::formatPercent;

/// Label for a finding kind: "dataloader_starvation" → "Dataloader starvation"; unknown kinds are
/// shown with underscores turned into spaces and the first letter capitalised.
std::string kindLabel(std::string_view kind);

/// Makes text that came from a trace safe to place in any output: invalid UTF-8 sequences become U+FFFD,
/// control characters (C0 except tab/newline, DEL, C1) are removed, and newlines/tabs become spaces unless
/// `keepNewlines`. Example: "Cast\x01\xff\n" → "Cast\xEF\xBF\xBD " (the replacement character, then a space).
std::string cleanText(std::string_view text, bool keepNewlines = false);

/// The command that opens a finding in the desktop viewer, the path quoted for POSIX shells:
/// ("/runs/a b.json", 2) → "timesink '/runs/a b.json' --finding 2"; a quote in the path becomes '\''.
std::string viewerCommand(std::string_view tracePath, std::size_t rank);

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
