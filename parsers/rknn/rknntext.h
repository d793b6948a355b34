// SPDX-License-Identifier: MIT
#pragma once

#include "model/types.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

/// Small text helpers shared by the RKNN table reader; all are pure functions over string_view.
namespace timesink::parsers::rknntext {

std::string_view trim(std::string_view s);
std::string_view trimRight(std::string_view s);
std::string toLower(std::string_view s);
std::string toUpper(std::string_view s);
/// Lower case without spaces: "Total Operator Elapsed Time(us)" → "totaloperatorelapsedtime(us)".
std::string squash(std::string_view s);

struct Word
{
    std::string_view text;
    std::size_t start = 0;
};
/// Whitespace-separated words with their offsets.
std::vector<Word> words(std::string_view s);

/// "123" → 123; "-4" → -4; anything else (empty, "12a", "1.5") → nullopt.
std::optional<std::int64_t> parseInt(std::string_view s);
/// "39024.07" → 39024.07; "" / "x" → nullopt.
std::optional<double> parseDouble(std::string_view s);
/// Decimal µs text straight to integer ns, without going through double:
/// "375" → 375000, "12.5" → 12500, "0.0004" → 0 (below 1 ns), "" / "-" / "1e3" → nullopt.
std::optional<model::TimeNs> parseMicros(std::string_view s);
/// The inverse for messages and properties: non-negative integer ns as decimal µs without trailing zeros,
/// so the text matches what the table printed: 375000 → "375", 12500 → "12.5", 1 → "0.001", 0 → "0".
std::string usText(model::TimeNs ns);
/// "121323/921600/921600" → {121323, 921600, 921600}; otherwise nullopt.
std::optional<std::vector<std::int64_t>> parseSlashInts(std::string_view s);
/// A workload cell: "100.0%/0.0%/0.0%" or "33.3%/33.3%/33.3%" or "0.0%/0.0%" (RK3576).
bool isWorkload(std::string_view s);
/// A MAC usage cell: "2.32/0.00/0.00", "64.80", or the "\" placeholder.
bool isMacUsage(std::string_view s);
/// A shape cell: "(1,3,224,224),…" or "\".
bool isShape(std::string_view s);
/// A line made only of '-' or '=' (at least 8 of them): the rules around RKNN tables.
bool isRule(std::string_view s);

/// Removes what runtime logs and programs put in front of table lines:
/// "D RKNN: [05:07:06.566] ID   OpType" → "ID   OpType"; "---> -----" → "-----".
/// Leading indentation is kept (columns are located relative to it).
std::string_view stripLogPrefix(std::string_view line);

/// First Rockchip chip name in `line` as a whole word, upper-cased: "target: rk3588" → "RK3588", else "".
std::string findChipName(std::string_view line);

} // namespace timesink::parsers::rknntext
