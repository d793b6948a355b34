// SPDX-License-Identifier: MIT
#include "parsers/rknn/rknntext.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>

namespace timesink::parsers::rknntext {

namespace {
bool isSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}
bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}
bool isAlnum(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) != 0;
}
/// "12.5" or "12" or "100.0" — digits with at most one dot.
bool isDecimal(std::string_view s)
{
    if (s.empty())
        return false;
    bool digit = false;
    bool dot = false;
    for (char c : s) {
        if (isDigit(c)) {
            digit = true;
        } else if (c == '.' && !dot) {
            dot = true;
        } else {
            return false;
        }
    }
    return digit;
}
} // namespace

std::string_view trim(std::string_view s)
{
    while (!s.empty() && isSpace(s.front()))
        s.remove_prefix(1);
    return trimRight(s);
}

std::string_view trimRight(std::string_view s)
{
    while (!s.empty() && isSpace(s.back()))
        s.remove_suffix(1);
    return s;
}

std::string toLower(std::string_view s)
{
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

std::string toUpper(std::string_view s)
{
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    return out;
}

std::string squash(std::string_view s)
{
    std::string out;
    out.reserve(s.size());
    for (char c : s) {
        if (!isSpace(c))
            out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    }
    return out;
}

std::vector<Word> words(std::string_view s)
{
    std::vector<Word> out;
    std::size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && isSpace(s[i]))
            ++i;
        if (i >= s.size())
            break;
        const std::size_t start = i;
        while (i < s.size() && !isSpace(s[i]))
            ++i;
        out.push_back(Word {s.substr(start, i - start), start});
    }
    return out;
}

std::optional<std::int64_t> parseInt(std::string_view s)
{
    s = trim(s);
    if (s.empty())
        return std::nullopt;
    std::int64_t v = 0;
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || ptr != s.data() + s.size())
        return std::nullopt;
    return v;
}

std::optional<double> parseDouble(std::string_view s)
{
    s = trim(s);
    if (s.empty())
        return std::nullopt;
    double v = 0;
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || ptr != s.data() + s.size())
        return std::nullopt;
    return v;
}

std::optional<model::TimeNs> parseMicros(std::string_view s)
{
    s = trim(s);
    if (!isDecimal(s))
        return std::nullopt;
    const std::size_t dot = s.find('.');
    const std::string_view whole = s.substr(0, dot);
    std::int64_t us = 0;
    if (!whole.empty()) {
        const auto parsed = parseInt(whole);
        if (!parsed || *parsed > std::numeric_limits<model::TimeNs>::max() / 1000)
            return std::nullopt;
        us = *parsed;
    }
    std::int64_t frac = 0;
    if (dot != std::string_view::npos) {
        const std::string_view digits = s.substr(dot + 1);
        for (std::size_t k = 0; k < 3; ++k)
            frac = frac * 10 + (k < digits.size() ? digits[k] - '0' : 0);
    }
    return us * 1000 + frac;
}

std::string usText(model::TimeNs ns)
{
    std::string s = std::to_string(ns / 1000);
    if (const model::TimeNs frac = ns % 1000; frac != 0) {
        std::string f = std::to_string(frac + 1000).substr(1);
        while (!f.empty() && f.back() == '0')
            f.pop_back();
        s += "." + f;
    }
    return s;
}

std::optional<std::vector<std::int64_t>> parseSlashInts(std::string_view s)
{
    s = trim(s);
    std::vector<std::int64_t> out;
    while (true) {
        const std::size_t slash = s.find('/');
        const auto v = parseInt(s.substr(0, slash));
        if (!v)
            return std::nullopt;
        out.push_back(*v);
        if (slash == std::string_view::npos)
            break;
        s.remove_prefix(slash + 1);
    }
    if (out.size() < 2)
        return std::nullopt;
    return out;
}

bool isWorkload(std::string_view s)
{
    s = trim(s);
    if (s.empty())
        return false;
    std::size_t parts = 0;
    while (true) {
        const std::size_t slash = s.find('/');
        std::string_view part = s.substr(0, slash);
        if (part.size() < 2 || part.back() != '%' || !isDecimal(part.substr(0, part.size() - 1)))
            return false;
        ++parts;
        if (slash == std::string_view::npos)
            break;
        s.remove_prefix(slash + 1);
    }
    return parts >= 1;
}

bool isMacUsage(std::string_view s)
{
    s = trim(s);
    if (s == "\\")
        return true;
    if (s.empty())
        return false;
    while (true) {
        const std::size_t slash = s.find('/');
        if (!isDecimal(s.substr(0, slash)))
            return false;
        if (slash == std::string_view::npos)
            return true;
        s.remove_prefix(slash + 1);
    }
}

bool isShape(std::string_view s)
{
    s = trim(s);
    return s == "\\" || (!s.empty() && s.front() == '(');
}

bool isRule(std::string_view s)
{
    s = trim(s);
    if (s.size() < 8)
        return false;
    const char c = s.front();
    if (c != '-' && c != '=')
        return false;
    return std::all_of(s.begin(), s.end(), [c](char x) { return x == c; });
}

std::string_view stripLogPrefix(std::string_view line)
{
    // Runtime verbose logs: "D RKNN: [05:07:06.566] " (level letter, tag, bracketed clock).
    {
        const std::string_view t = line.substr(
            line.find_first_not_of(" \t") == std::string_view::npos ? line.size() : line.find_first_not_of(" \t"));
        if (t.size() >= 8 && std::string_view("DIWEV").find(t[0]) != std::string_view::npos && t[1] == ' '
            && t.substr(2, 6) == "RKNN: ") {
            std::string_view rest = t.substr(8);
            if (!rest.empty() && rest.front() == '[') {
                const std::size_t close = rest.find(']');
                if (close != std::string_view::npos) {
                    rest.remove_prefix(close + 1);
                    if (!rest.empty() && rest.front() == ' ')
                        rest.remove_prefix(1);
                }
            }
            line = rest;
        }
    }
    // A program's own marker glued in front of the table ("---> " + the perf string).
    {
        const std::size_t first = line.find_first_not_of(" \t");
        if (first != std::string_view::npos && line.substr(first, 4) == "--->") {
            std::string_view rest = line.substr(first + 4);
            while (!rest.empty() && rest.front() == ' ')
                rest.remove_prefix(1);
            line = rest;
        }
    }
    return line;
}

std::string findChipName(std::string_view line)
{
    for (std::size_t i = 0; i + 6 <= line.size(); ++i) {
        const char a = static_cast<char>(std::tolower(static_cast<unsigned char>(line[i])));
        const char b = static_cast<char>(std::tolower(static_cast<unsigned char>(line[i + 1])));
        if (a != 'r' || (b != 'k' && b != 'v'))
            continue;
        if (i > 0 && isAlnum(line[i - 1]))
            continue;
        std::size_t j = i + 2;
        while (j < line.size() && isDigit(line[j]))
            ++j;
        if (j - (i + 2) != 4)
            continue;
        // One optional letter suffix (RK3588S), then a non-alphanumeric boundary.
        if (j < line.size() && std::isalpha(static_cast<unsigned char>(line[j]))
            && (j + 1 >= line.size() || !isAlnum(line[j + 1])))
            ++j;
        if (j < line.size() && isAlnum(line[j]))
            continue;
        return toUpper(line.substr(i, j - i));
    }
    return {};
}

} // namespace timesink::parsers::rknntext
