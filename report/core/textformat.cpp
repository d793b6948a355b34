// SPDX-License-Identifier: MIT
#include "report/core/textformat.h"

#include "analysis/core/textformat.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace timesink::report {

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

std::string bandwidthLines(const std::vector<analysis::BandwidthSummary>& summaries, std::string_view indent)
{
    std::string out;
    for (const analysis::BandwidthSummary& b : summaries) {
        out += std::string(indent) + terminalText(b.opKind) + ": " + std::to_string(b.collectives)
            + (b.collectives == 1 ? " collective, " : " collectives, ") + formatFixed(double(b.bytes) / 1e6, 1)
            + " MB in " + formatDuration(b.transferNs) + ": algbw " + formatFixed(b.algbwGBps, 2) + " GB/s";
        if (b.busbwGBps > 0)
            out += ", busbw " + formatFixed(b.busbwGBps, 2) + " GB/s";
        if (!b.link.empty())
            out += " on " + terminalText(b.link);
        if (b.peakGBps > 0)
            out += " (peak " + formatFixed(b.peakGBps, 0) + " GB/s)";
        out += " [" + std::string(analysis::transferSourceKey(b.source)) + "]\n";
    }
    return out;
}

} // namespace timesink::report
