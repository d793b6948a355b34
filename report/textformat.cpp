// SPDX-License-Identifier: MIT
#include "report/textformat.h"

#include "analysis/textformat.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace timesink::report {

std::string kindLabel(std::string_view kind)
{
    return analysis::kindLabel(cleanText(kind));
}

std::string cleanText(std::string_view text, bool keepNewlines)
{
    static constexpr std::string_view kReplacement = "\xEF\xBF\xBD";
    std::string out;
    out.reserve(text.size());
    const auto* p = reinterpret_cast<const unsigned char*>(text.data());
    const std::size_t n = text.size();
    std::size_t i = 0;
    while (i < n) {
        const unsigned char c = p[i];
        if (c < 0x80) {
            if (c == '\n' || c == '\t' || c == '\r') {
                if (keepNewlines && c == '\n')
                    out += '\n';
                else if (c != '\r' || !keepNewlines)
                    out += ' ';
            } else if (c >= 0x20 && c != 0x7F) {
                out += static_cast<char>(c);
            }
            ++i;
            continue;
        }
        // Decode one UTF-8 sequence, rejecting overlong forms, surrogates and values past U+10FFFF.
        std::size_t len = 0;
        std::uint32_t cp = 0;
        if (c >= 0xC2 && c <= 0xDF) {
            len = 2;
            cp = c & 0x1F;
        } else if (c >= 0xE0 && c <= 0xEF) {
            len = 3;
            cp = c & 0x0F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            len = 4;
            cp = c & 0x07;
        }
        bool valid = len != 0 && i + len <= n;
        for (std::size_t k = 1; valid && k < len; ++k) {
            if ((p[i + k] & 0xC0) != 0x80)
                valid = false;
            else
                cp = (cp << 6) | (p[i + k] & 0x3F);
        }
        if (valid) {
            valid = !(len == 3 && cp < 0x800) && !(len == 4 && (cp < 0x10000 || cp > 0x10FFFF))
                && !(cp >= 0xD800 && cp <= 0xDFFF);
        }
        if (!valid) {
            out += kReplacement;
            ++i;
            continue;
        }
        if (cp >= 0x80 && cp <= 0x9F) { // C1 controls
            i += len;
            continue;
        }
        out.append(text.substr(i, len));
        i += len;
    }
    return out;
}

std::string viewerCommand(std::string_view tracePath, std::size_t rank)
{
    std::string quoted = "'";
    for (const char c : cleanText(tracePath)) {
        if (c == '\'')
            quoted += "'\\''";
        else
            quoted += c;
    }
    quoted += "'";
    return "timesink " + quoted + " --finding " + std::to_string(rank);
}

std::string shortenSignature(std::string_view name, std::size_t maxChars)
{
    if (name.size() <= maxChars)
        return std::string(name);
    std::string_view s = name;
    if (s.substr(0, 5) == "void ")
        s.remove_prefix(5);
    std::string out;
    int depth = 0;
    for (const char c : s) {
        if (c == '<') {
            if (depth++ == 0)
                out += "<…>";
            continue;
        }
        if (c == '>' && depth > 0) {
            --depth;
            continue;
        }
        if (depth > 0)
            continue;
        if (c == '(' && !out.empty())
            break;
        out += c;
    }
    if (out.empty() || depth != 0)
        out = std::string(name);
    return truncateText(out, maxChars);
}

std::string markdownCodeSpan(std::string_view text)
{
    std::size_t longest = 0;
    std::size_t run = 0;
    for (const char c : text) {
        run = c == '`' ? run + 1 : 0;
        longest = std::max(longest, run);
    }
    const std::string fence(longest + 1, '`');
    const bool pad = longest > 0 || text.empty() || text.front() == '`' || text.back() == '`';
    return fence + (pad ? " " : "") + std::string(text) + (pad ? " " : "") + fence;
}

std::string truncateText(std::string_view text, std::size_t maxChars)
{
    std::size_t chars = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if ((static_cast<unsigned char>(text[i]) & 0xC0) == 0x80)
            continue; // continuation byte
        if (chars == maxChars)
            return std::string(text.substr(0, i)) + "…";
        ++chars;
    }
    return std::string(text);
}

} // namespace timesink::report
