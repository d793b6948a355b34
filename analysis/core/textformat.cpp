// SPDX-License-Identifier: MIT
#include "analysis/core/textformat.h"

#include "model/utf8.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace timesink::analysis {

namespace {

bool endsWith(std::string_view s, std::string_view suffix)
{
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

} // namespace

std::string formatDuration(model::TimeNs ns)
{
    const char* sign = ns < 0 ? "-" : "";
    // Unsigned magnitude: -INT64_MIN does not fit an int64.
    const auto magnitude = ns < 0 ? static_cast<std::uint64_t>(-(ns + 1)) + 1 : static_cast<std::uint64_t>(ns);
    if (magnitude < 1000)
        return sign + std::to_string(magnitude) + " ns";
    struct Unit
    {
        double scale;
        const char* name;
    };
    static constexpr Unit kUnits[] = {{1e3, "µs"}, {1e6, "ms"}, {1e9, "s"}};
    std::size_t u = 0;
    while (u + 1 < std::size(kUnits) && static_cast<double>(magnitude) >= kUnits[u + 1].scale)
        ++u;
    double value = static_cast<double>(magnitude) / kUnits[u].scale;
    // 999'700 ns is 999.7 µs, which three digits round to 1000 µs: say "1.00 ms" instead.
    if (value >= 999.5 && u + 1 < std::size(kUnits)) {
        ++u;
        value = static_cast<double>(magnitude) / kUnits[u].scale;
    }
    const int decimals = value >= 99.95 ? 0 : value >= 9.995 ? 1 : 2;
    return sign + formatFixed(value, decimals) + " " + kUnits[u].name;
}

std::string formatBytes(std::int64_t bytes)
{
    const char* sign = bytes < 0 ? "-" : "";
    const auto magnitude = bytes < 0 ? static_cast<std::uint64_t>(-(bytes + 1)) + 1 : static_cast<std::uint64_t>(bytes);
    if (magnitude < 1024)
        return sign + std::to_string(magnitude) + " B";
    static constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double value = static_cast<double>(magnitude) / 1024.0;
    std::size_t u = 0;
    while (u + 1 < std::size(kUnits) && value >= 1024.0) {
        value /= 1024.0;
        ++u;
    }
    const int decimals = value >= 100 ? 0 : value >= 10 ? 1 : 2;
    return sign + formatFixed(value, decimals) + " " + kUnits[u];
}

std::string formatWithUnit(std::string_view key, double value)
{
    if (!std::isfinite(value))
        return {};
    if (key == "ns" || endsWith(key, "_ns"))
        return formatDuration(static_cast<model::TimeNs>(std::llround(value)));
    if (key == "bytes" || endsWith(key, "_bytes"))
        return formatBytes(static_cast<std::int64_t>(std::llround(value)));
    if (endsWith(key, "_share"))
        return formatPercent(value);
    return {};
}

std::string formatGrouped(std::int64_t value)
{
    const auto magnitude = value < 0 ? static_cast<std::uint64_t>(-(value + 1)) + 1 : static_cast<std::uint64_t>(value);
    const std::string digits = std::to_string(magnitude);
    std::string out = value < 0 ? "-" : "";
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0)
            out += ',';
        out += digits[i];
    }
    return out;
}

std::string formatPercent(double fraction)
{
    if (!std::isfinite(fraction))
        return "–";
    return formatFixed(fraction * 100.0, 1) + "%";
}

std::string formatFixed(double value, int decimals)
{
    if (!std::isfinite(value))
        return "–";
    char buf[64];
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::fixed, decimals);
    return ec == std::errc() ? std::string(buf, end) : std::string("–");
}

std::string formatGeneral(double value, int significant)
{
    if (!std::isfinite(value))
        return std::isnan(value) ? "nan" : (value > 0 ? "inf" : "-inf");
    char buf[64];
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::general, significant);
    return ec == std::errc() ? std::string(buf, end) : std::string("–");
}

std::string formatMilliseconds(model::TimeNs ns)
{
    const bool negative = ns < 0;
    const auto magnitude = negative ? static_cast<std::uint64_t>(-(ns + 1)) + 1 : static_cast<std::uint64_t>(ns);
    std::string text = (negative ? "-" : "") + std::to_string(magnitude / 1'000'000) + ".";
    const std::string micro = std::to_string(magnitude % 1'000'000);
    text.append(6 - micro.size(), '0').append(micro);
    // Three decimals are what spreadsheets show; keep all six only when the sub-µs digits matter.
    if (text.compare(text.size() - 3, 3, "000") == 0)
        text.resize(text.size() - 3);
    return text;
}

std::string formatMillisecondsRounded(model::TimeNs ns)
{
    return formatFixed(static_cast<double>(ns) / 1e6, 3);
}

std::string cleanText(std::string_view text, bool keepNewlines)
{
    const std::string valid = model::toValidUtf8(text);
    std::string out;
    out.reserve(valid.size());
    for (std::size_t i = 0; i < valid.size(); ++i) {
        const auto c = static_cast<unsigned char>(valid[i]);
        if (c == '\n' || c == '\t' || c == '\r') {
            if (keepNewlines && c == '\n')
                out += '\n';
            else if (c != '\r' || !keepNewlines)
                out += ' ';
        } else if (c == 0xC2 && i + 1 < valid.size() && static_cast<unsigned char>(valid[i + 1]) <= 0x9F) {
            ++i; // a C1 control (U+0080..U+009F), valid UTF-8 by now: both bytes go
        } else if (c >= 0x20 && c != 0x7F) {
            out += static_cast<char>(c);
        }
    }
    return out;
}

std::string terminalText(std::string_view text)
{
    static constexpr char kHex[] = "0123456789abcdef";
    const std::string valid = model::toValidUtf8(text);
    std::string out;
    out.reserve(valid.size());
    const auto byteAt
        = [&valid](std::size_t i) { return i < valid.size() ? static_cast<unsigned char>(valid[i]) : 0U; };
    const auto codePoint = [&out](unsigned cp) {
        out += "\\u";
        for (int shift = 12; shift >= 0; shift -= 4)
            out += kHex[(cp >> static_cast<unsigned>(shift)) & 0xFU];
    };
    for (std::size_t i = 0; i < valid.size(); ++i) {
        const unsigned c = byteAt(i);
        if (c == '\n') {
            out += "\\n";
        } else if (c == '\r') {
            out += "\\r";
        } else if (c == '\t') {
            out += "\\t";
        } else if (c < 0x20 || c == 0x7F) {
            out += "\\x";
            out += kHex[c >> 4U];
            out += kHex[c & 0xFU];
        } else if (c == 0xC2 && byteAt(i + 1) >= 0x80 && byteAt(i + 1) <= 0x9F) {
            codePoint(byteAt(i + 1)); // a C1 control, U+0080..U+009F (valid UTF-8 by now)
            ++i;
        } else if (c == 0xE2
                   && ((byteAt(i + 1) == 0x80 && byteAt(i + 2) >= 0xA8 && byteAt(i + 2) <= 0xAE)
                       || (byteAt(i + 1) == 0x81 && byteAt(i + 2) >= 0xA6 && byteAt(i + 2) <= 0xA9))) {
            // U+2028..U+202E (separators, bidi embeddings and overrides), U+2066..U+2069 (bidi isolates)
            codePoint(0x2000U + ((byteAt(i + 1) & 0x3FU) << 6U) + (byteAt(i + 2) & 0x3FU));
            i += 2;
        } else {
            out += static_cast<char>(c);
        }
    }
    return out;
}

} // namespace timesink::analysis
