// SPDX-License-Identifier: MIT
#pragma once

#include "model/types.h"

#include <string>
#include <string_view>

namespace timesink::analysis {

/// The one formatter for numbers people read (finding titles, reports, the CLI, the GUI), all locale-independent:
/// the GUI runs with the user's locale, and "12,5 ms" in one view beside "12.5 ms" in a report is one fact told
/// twice. Non-finite inputs print "–".

/// Human-readable duration with three significant digits, the unit chosen by size after rounding:
/// 12 → "12 ns", 2'000 → "2.00 µs", 845'000 → "845 µs", 999'700 → "1.00 ms", 11'725'163'944 → "11.7 s".
/// Negative values keep their sign.
std::string formatDuration(model::TimeNs ns);
/// Byte count with three significant digits in binary units: 512 → "512 B", 140'649'195'952 → "131 GiB".
std::string formatBytes(std::int64_t bytes);
/// A fraction as a percentage with one decimal: 0.4123 → "41.2%".
std::string formatPercent(double fraction);
/// Milliseconds with three decimals, exact for integer ns input (CSV cells): 412'000'123 → "412.000123",
/// 412'000'000 → "412.000".
std::string formatMilliseconds(model::TimeNs ns);
/// Milliseconds rounded to three decimals, for aligned text tables: 412'000'623 → "412.001", 1'500 → "0.002".
std::string formatMillisecondsRounded(model::TimeNs ns);
/// An integer with its thousands grouped by commas, as in English text: 1222645 → "1,222,645", -1000 → "-1,000".
std::string formatGrouped(std::int64_t value);
/// Fixed notation: (12.345, 1) → "12.3".
std::string formatFixed(double value, int decimals);
/// Shortest form with at most `significant` digits: (0.2, 6) → "0.2", (1e-7, 6) → "1e-07"; NaN → "nan".
std::string formatGeneral(double value, int significant = 6);
/// A finding number in the unit its key names, for people: keys "ns" or ending "_ns" are durations, "bytes" or
/// ending "_bytes" byte counts, ending "_share" fractions; else empty (the raw value says it all).
///   ("copy_ns", 11725163944) → "11.7 s"; ("bytes", 140649195952) → "131 GiB"; ("worst_step_share", 0.5) → "50.0%".
std::string formatWithUnit(std::string_view key, double value);

/// Makes text that came from a trace safe to place in any output: ill-formed UTF-8 becomes U+FFFD (as
/// model::toValidUtf8 repairs it), control characters (C0 except tab/newline, DEL, C1) are removed, and newlines and
/// tabs become spaces unless `keepNewlines`. Example: "Cast\x01\xff\n" → "Cast\xEF\xBF\xBD " (the replacement
/// character, then a space).
std::string cleanText(std::string_view text, bool keepNewlines = false);

/// The one escaping rule of every plain-text writer (the CLI's text output of analyze, compare, info, job and job
/// compare, and its messages on stderr): text that came from a trace or a report reaches a terminal with nothing in
/// it the terminal would act on, and nothing removed either, so what the input holds stays visible. Ill-formed UTF-8
/// becomes U+FFFD; newline, carriage return and tab become `\n`, `\r`, `\t`; the other C0 controls and DEL become
/// `\xHH` (ESC is `\x1b`, BEL `\x07`); C1 controls, the line and paragraph separators (U+2028, U+2029) and the
/// bidirectional overrides and isolates (U+202A..U+202E, U+2066..U+2069) become `\uHHHH`. A backslash stays as it
/// is (a Windows path reads as written), so the rule is for people, not meant to be reversed.
/// Example: "Cast\x1b]0;owned\x07\nwarning: fake" → "Cast\\x1b]0;owned\\x07\\nwarning: fake" (one line).
std::string terminalText(std::string_view text);

} // namespace timesink::analysis
