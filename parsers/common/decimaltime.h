// SPDX-License-Identifier: MIT
#pragma once

#include "model/types.h"

#include <optional>
#include <string_view>

namespace timesink::parsers {

/// Parses decimal text (as written by profilers in JSON strings, JSON numbers or CSV cells) into an integer
/// scaled by 10^`scalePow10`, exactly, without going through `double`: 16-digit epoch microseconds plus three
/// decimals do not survive a double round trip.
///
/// Leading/trailing whitespace (spaces, TABs, CR/LF — torch_npu ends absolute times with a TAB so spreadsheets
/// keep them as text) is ignored. An optional sign, a fraction and an exponent (`1.5e3`) are accepted. Digits
/// below the target resolution are rounded half away from zero. Returns nullopt for empty text, anything that is
/// not a number (`N/A`, `abc`, `1.2.3`) and values outside int64.
///
///   parseScaledDecimal("1736408883700059.821", 3)  → 1736408883700059821   (µs → ns)
///   parseScaledDecimal("840.07675", 3)             → 840077
///   parseScaledDecimal("1736413971558972.912\t", 3) → 1736413971558972912
///   parseScaledDecimal("12", 6)                    → 12000000              (ms → ns)
///   parseScaledDecimal("N/A", 3)                   → nullopt
std::optional<std::int64_t> parseScaledDecimal(std::string_view text, int scalePow10);

/// Microseconds text → nanoseconds (`parseScaledDecimal(text, 3)`).
inline std::optional<model::TimeNs> parseMicrosToNs(std::string_view text)
{
    return parseScaledDecimal(text, 3);
}

/// Integer or decimal nanoseconds text → nanoseconds (SQLite exports store some ns columns as TEXT).
inline std::optional<model::TimeNs> parseNanos(std::string_view text)
{
    return parseScaledDecimal(text, 0);
}

} // namespace timesink::parsers
