// SPDX-License-Identifier: MIT
#pragma once

// Independent readers for the report formats, so the tests check structure and values, not whitespace.

#include <string>
#include <string_view>
#include <vector>

namespace timesink::testing {

/// RFC 4180 reader: quoted fields with "" escapes and embedded line breaks; records end at CRLF (or LF).
/// Returns false on a malformed quote.
inline bool parseCsv(std::string_view text, std::vector<std::vector<std::string>>& rows)
{
    rows.clear();
    std::vector<std::string> row;
    std::string field;
    bool inQuotes = false;
    bool fieldStarted = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inQuotes) {
            if (c == '"') {
                if (i + 1 < text.size() && text[i + 1] == '"') {
                    field += '"';
                    ++i;
                } else {
                    inQuotes = false;
                }
            } else {
                field += c;
            }
            continue;
        }
        if (c == '"') {
            if (!field.empty())
                return false; // a quote in the middle of an unquoted field
            inQuotes = true;
            fieldStarted = true;
        } else if (c == ',') {
            row.push_back(field);
            field.clear();
            fieldStarted = false;
        } else if (c == '\r' || c == '\n') {
            if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n')
                ++i;
            row.push_back(field);
            rows.push_back(row);
            row.clear();
            field.clear();
            fieldStarted = false;
        } else {
            field += c;
            fieldStarted = true;
        }
    }
    if (inQuotes)
        return false;
    if (fieldStarted || !row.empty()) {
        row.push_back(field);
        rows.push_back(row);
    }
    return true;
}

/// Splits a GFM table row "| a | b\|c |" into trimmed cells {"a", "b\|c"}; escaped pipes do not split.
inline std::vector<std::string> markdownCells(std::string_view line)
{
    std::vector<std::string> cells;
    std::string cell;
    std::size_t i = 0;
    if (!line.empty() && line[0] == '|')
        i = 1;
    for (; i < line.size(); ++i) {
        if (line[i] == '\\' && i + 1 < line.size()) {
            cell += line[i];
            cell += line[++i];
        } else if (line[i] == '|') {
            cells.push_back(cell);
            cell.clear();
        } else {
            cell += line[i];
        }
    }
    if (!cell.empty() && cell.find_first_not_of(' ') != std::string::npos)
        cells.push_back(cell);
    for (std::string& c : cells) {
        const auto b = c.find_first_not_of(' ');
        const auto e = c.find_last_not_of(' ');
        c = b == std::string::npos ? std::string() : c.substr(b, e - b + 1);
    }
    return cells;
}

inline std::vector<std::string> lines(const std::string& text)
{
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t end = text.find('\n', start);
        out.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
        if (end == std::string::npos)
            break;
        start = end + 1;
    }
    return out;
}

/// The table rows that follow the header line `header` (exact match), up to the first non-row line;
/// the alignment row is skipped.
inline std::vector<std::vector<std::string>> markdownTable(const std::string& text, const std::string& header)
{
    std::vector<std::vector<std::string>> rows;
    const auto all = lines(text);
    for (std::size_t i = 0; i < all.size(); ++i) {
        if (all[i] != header)
            continue;
        for (std::size_t k = i + 2; k < all.size() && !all[k].empty() && all[k][0] == '|'; ++k)
            rows.push_back(markdownCells(all[k]));
        break;
    }
    return rows;
}

inline std::size_t countOf(const std::string& text, std::string_view needle)
{
    std::size_t n = 0;
    for (std::size_t pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + needle.size()))
        ++n;
    return n;
}

/// Every `<svg …>…</svg>` fragment of an HTML page, in order.
inline std::vector<std::string> svgFragments(const std::string& html)
{
    std::vector<std::string> out;
    for (std::size_t pos = html.find("<svg "); pos != std::string::npos; pos = html.find("<svg ", pos + 1)) {
        const std::size_t end = html.find("</svg>", pos);
        if (end == std::string::npos)
            break;
        out.push_back(html.substr(pos, end + 6 - pos));
    }
    return out;
}

inline std::string lowerAscii(std::string s)
{
    for (char& c : s) {
        if (c >= 'A' && c <= 'Z')
            c = static_cast<char>(c - 'A' + 'a');
    }
    return s;
}

} // namespace timesink::testing
