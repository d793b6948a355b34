// SPDX-License-Identifier: MIT
#pragma once

#include "model/types.h"

#include <bit>
#include <cstdint>
#include <cstring>
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

/// The value of the eight ASCII digits at p (eight readable bytes), or false when one of them is not a digit.
/// One load and three multiplications instead of a chain of eight multiply-adds: a timestamp's 16 whole digits
/// were the largest item of parseScaledDecimal() (each digit waited for the one before it).
inline bool eightDigits(const char* p, std::uint64_t& out)
{
    std::uint64_t v = 0;
    std::memcpy(&v, p, sizeof v);
    if constexpr (std::endian::native != std::endian::little)
        v = __builtin_bswap64(v); // the first character in the lowest byte
    // Every byte is 0x30-0x39: its high nibble is 3, and adding 6 keeps it 3 (no byte carries into the next one
    // unless it is 0xFA or more, which the first test already refuses).
    const std::uint64_t high = v & 0xF0F0F0F0F0F0F0F0ULL;
    const std::uint64_t highPlus6 = (v + 0x0606060606060606ULL) & 0xF0F0F0F0F0F0F0F0ULL;
    if (high != 0x3030303030303030ULL || highPlus6 != 0x3030303030303030ULL)
        return false;
    v -= 0x3030303030303030ULL;
    // Pairs of digits, then quadruples, then the eight: each step multiplies the higher-placed (earlier) part.
    v = (v * 10) + (v >> 8);                                               // bytes 0,2,4,6: two-digit values
    v = (((v & 0x000000FF000000FFULL) * (100 + (1000000ULL << 32)))        // digits 0-1 → ×10^6, 4-5 → ×10^2
         + (((v >> 16) & 0x000000FF000000FFULL) * (1 + (10000ULL << 32)))) // digits 2-3 → ×10^4, 6-7 → ×1
        >> 32;
    out = v;
    return true;
}

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
