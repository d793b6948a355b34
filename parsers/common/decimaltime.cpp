// SPDX-License-Identifier: MIT
#include "parsers/common/decimaltime.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>

namespace timesink::parsers {

namespace {

bool isSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

constexpr int kMaxMantissaDigits = 19; // every 19-digit number fits in uint64

std::uint64_t pow10(int n)
{
    std::uint64_t p = 1;
    for (int i = 0; i < n; ++i)
        p *= 10;
    return p;
}

} // namespace

std::optional<std::int64_t> parseScaledDecimal(std::string_view text, int scalePow10)
{
    // Fast path for what profilers write almost always: plain digits with at most `scalePow10` decimals
    // ("1736408883700059.821", "12.5", "4"). Exact: no rounding is needed and overflow is checked; anything else
    // (signs, exponents, spaces, more decimals, more than 19 whole digits) takes the general path below. Epoch
    // microseconds with three decimals ("1736408883700059.821", every Kineto and torch_npu ts) are 20 characters.
    if (!text.empty() && text.size() <= 29 && scalePow10 >= 0 && scalePow10 <= 9) {
        std::uint64_t whole = 0; // 19 digits fit
        std::size_t i = 0;
        std::uint64_t eight = 0;
        while (i + 8 <= std::min<std::size_t>(text.size(), 19) && eightDigits(text.data() + i, eight)) {
            whole = whole * 100000000 + eight;
            i += 8;
        }
        for (; i < text.size() && i < 19 && text[i] >= '0' && text[i] <= '9'; ++i)
            whole = whole * 10 + static_cast<std::uint64_t>(text[i] - '0');
        const bool wholeOk = i > 0 && (i == text.size() || text[i] == '.');
        std::uint64_t fraction = 0;
        int fractionDigits = 0;
        bool plain = wholeOk;
        if (plain && i < text.size()) {
            for (++i; i < text.size(); ++i) {
                if (text[i] < '0' || text[i] > '9' || fractionDigits == scalePow10) {
                    plain = false;
                    break;
                }
                fraction = fraction * 10 + static_cast<std::uint64_t>(text[i] - '0');
                ++fractionDigits;
            }
        }
        if (plain) {
            std::uint64_t scale = 1;
            for (int k = 0; k < scalePow10; ++k)
                scale *= 10;
            std::uint64_t fractionScale = 1;
            for (int k = fractionDigits; k < scalePow10; ++k)
                fractionScale *= 10;
            std::uint64_t scaled = 0;
            if (!__builtin_mul_overflow(whole, scale, &scaled)
                && !__builtin_add_overflow(scaled, fraction * fractionScale, &scaled)
                && scaled <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
                return static_cast<std::int64_t>(scaled);
        }
    }
    while (!text.empty() && isSpace(text.front()))
        text.remove_prefix(1);
    while (!text.empty() && isSpace(text.back()))
        text.remove_suffix(1);
    if (text.empty())
        return std::nullopt;

    std::size_t i = 0;
    bool negative = false;
    if (text[i] == '+' || text[i] == '-') {
        negative = text[i] == '-';
        ++i;
    }
    std::uint64_t mantissa = 0;
    int mantissaDigits = 0;
    int exponent = 0;      // value = mantissa * 10^exponent (before the scale)
    int firstDropped = -1; // first digit that did not fit, for rounding
    bool sawDigit = false;
    bool sawPoint = false;
    for (; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '.') {
            if (sawPoint)
                return std::nullopt;
            sawPoint = true;
            continue;
        }
        if (c < '0' || c > '9')
            break;
        sawDigit = true;
        const int digit = c - '0';
        if (mantissaDigits == 0 && digit == 0) {
            // Leading zeros carry no precision, but zeros after the point still shift the value.
            if (sawPoint)
                --exponent;
            continue;
        }
        if (mantissaDigits < kMaxMantissaDigits) {
            mantissa = mantissa * 10 + static_cast<std::uint64_t>(digit);
            ++mantissaDigits;
            if (sawPoint)
                --exponent;
        } else {
            if (firstDropped < 0)
                firstDropped = digit;
            if (!sawPoint)
                ++exponent;
        }
    }
    if (!sawDigit)
        return std::nullopt;
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
        ++i;
        bool expNegative = false;
        if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
            expNegative = text[i] == '-';
            ++i;
        }
        int e = 0;
        bool expDigit = false;
        for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
            expDigit = true;
            if (e < 10000)
                e = e * 10 + (text[i] - '0');
        }
        if (!expDigit)
            return std::nullopt;
        exponent += expNegative ? -e : e;
    }
    if (i != text.size())
        return std::nullopt;
    if (firstDropped >= 5 && mantissa < std::numeric_limits<std::uint64_t>::max())
        ++mantissa; // rounding carried by a digit beyond uint64 precision; far below 1 ns for real inputs

    const int power = exponent + scalePow10;
    std::uint64_t magnitude = 0;
    // A zero mantissa, or a value so far below 1 ns that it rounds to 0, leaves magnitude 0.
    if (mantissa != 0 && power >= 0) {
        if (power > kMaxMantissaDigits)
            return std::nullopt;
        const std::uint64_t p = pow10(power);
        if (mantissa > std::numeric_limits<std::uint64_t>::max() / p)
            return std::nullopt;
        magnitude = mantissa * p;
    } else if (mantissa != 0 && -power <= kMaxMantissaDigits) {
        const std::uint64_t q = pow10(-power);
        magnitude = mantissa / q;
        const std::uint64_t rem = mantissa % q;
        if (rem >= q - rem)
            ++magnitude;
    }
    constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    if (magnitude > kMax)
        return std::nullopt;
    const auto value = static_cast<std::int64_t>(magnitude);
    return negative ? -value : value;
}

} // namespace timesink::parsers
