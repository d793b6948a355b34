// SPDX-License-Identifier: MIT
#include "analysis/compare/compareopmap.h"

#include "analysis/compare/compareopmapdefault.h" // generated from resources/opmap/default.tsv (analysis/CMakeLists.txt)

#include <utility>
#include <vector>

namespace timesink::analysis {

namespace {

std::string lowerAscii(std::string_view s)
{
    std::string out(s);
    for (char& c : out) {
        if (c >= 'A' && c <= 'Z')
            c = static_cast<char>(c - 'A' + 'a');
    }
    return out;
}

std::string_view trimmed(std::string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\r'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}

/// "conv2d1" → "conv2d", "trans_transdata_12" → "trans_transdata"; names that are only digits stay.
std::string_view withoutInstanceNumber(std::string_view s)
{
    std::size_t end = s.size();
    while (end > 0 && s[end - 1] >= '0' && s[end - 1] <= '9')
        --end;
    if (end == s.size() || end == 0)
        return s;
    if (s[end - 1] == '_' && end > 1)
        --end;
    return s.substr(0, end);
}

} // namespace

const CompareOpMap& CompareOpMap::builtIn()
{
    static const CompareOpMap map = [] {
        CompareOpMap m;
        std::string error;
        // The embedded table is validated by tst_compareopmap; a broken edit fails that test, not the app.
        m.addTsv(kDefaultOpMapTsv, "resources/opmap/default.tsv", error);
        return m;
    }();
    return map;
}

bool CompareOpMap::addTsv(std::string_view text, std::string_view sourceName, std::string& error)
{
    std::vector<std::pair<std::string, std::string>> rows;                     // alias, canonical
    std::unordered_map<std::string, std::pair<std::string, std::size_t>> seen; // alias → canonical, line
    std::size_t lineNumber = 0;
    // A file saved by a Windows editor starts with a UTF-8 byte-order mark, which is no part of its first name.
    if (constexpr std::string_view kBom = "\xEF\xBB\xBF"; text.starts_with(kBom))
        text.remove_prefix(kBom.size());
    while (!text.empty()) {
        const std::size_t nl = text.find('\n');
        std::string_view line = text.substr(0, nl);
        text = nl == std::string_view::npos ? std::string_view {} : text.substr(nl + 1);
        ++lineNumber;
        if (trimmed(line).empty() || trimmed(line).front() == '#')
            continue;
        std::vector<std::string_view> fields;
        while (true) {
            const std::size_t tab = line.find('\t');
            fields.push_back(trimmed(line.substr(0, tab)));
            if (tab == std::string_view::npos)
                break;
            line.remove_prefix(tab + 1);
        }
        while (!fields.empty() && fields.back().empty())
            fields.pop_back();
        auto fail = [&](const std::string& what) {
            error = std::string(sourceName) + ":" + std::to_string(lineNumber) + ": " + what;
            return false;
        };
        if (fields.size() < 2)
            return fail("expected a canonical name and at least one other name, separated by tabs");
        const std::string canonical(fields.front());
        for (std::size_t i = 0; i < fields.size(); ++i) {
            if (fields[i].empty())
                return fail("empty name in field " + std::to_string(i + 1));
            std::string alias(fields[i]);
            auto [it, inserted] = seen.try_emplace(alias, canonical, lineNumber);
            if (!inserted && it->second.first != canonical) {
                return fail("'" + alias + "' already maps to '" + it->second.first + "' on line "
                            + std::to_string(it->second.second));
            }
            rows.emplace_back(std::move(alias), canonical);
        }
    }
    for (auto& [alias, canonical] : rows) {
        m_folded[lowerAscii(alias)] = canonical;
        m_exact[std::move(alias)] = std::move(canonical);
    }
    error.clear();
    return true;
}

std::string CompareOpMap::canonical(std::string_view name) const
{
    if (auto it = m_exact.find(std::string(name)); it != m_exact.end())
        return it->second;
    const std::string folded = lowerAscii(name);
    if (auto it = m_folded.find(folded); it != m_folded.end())
        return it->second;
    const std::string_view stripped = withoutInstanceNumber(folded);
    if (stripped.size() != folded.size()) {
        if (auto it = m_folded.find(std::string(stripped)); it != m_folded.end())
            return it->second;
    }
    return std::string(name);
}

} // namespace timesink::analysis
