// SPDX-License-Identifier: MIT
#include "analysis/compare/comparestepselection.h"

#include <algorithm>
#include <charconv>
#include <unordered_set>

namespace timesink::analysis {

namespace {

std::string_view trimmed(std::string_view s)
{
    while (!s.empty() && s.front() == ' ')
        s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ')
        s.remove_suffix(1);
    return s;
}

bool parseNumber(std::string_view s, bool allowNegative, std::int64_t& out)
{
    s = trimmed(s);
    if (s.empty() || (!allowNegative && s.front() == '-'))
        return false;
    const char* end = s.data() + s.size();
    const auto [ptr, ec] = std::from_chars(s.data(), end, out);
    return ec == std::errc() && ptr == end;
}

/// "3" / "#3" / "#-1" (step numbers can in principle be negative; indices cannot).
bool parseBound(std::string_view s, bool byNumber, std::int64_t& out)
{
    s = trimmed(s);
    if (!s.empty() && s.front() == '#')
        s.remove_prefix(1);
    return parseNumber(s, byNumber, out);
}

std::string describeSteps(std::span<const model::Step> steps)
{
    if (steps.empty())
        return "the trace has no steps";
    std::string text = "the trace has " + std::to_string(steps.size()) + " step" + (steps.size() == 1 ? "" : "s")
        + ": indices 0-" + std::to_string(steps.size() - 1);
    if (steps.size() == 1 && steps.front().synthetic)
        return text + " (one synthetic step: no step markers)";
    return text + ", numbers #" + std::to_string(steps.front().number) + "-#" + std::to_string(steps.back().number);
}

} // namespace

bool CompareStepSelection::parse(std::string_view text, CompareStepSelection& out, std::string& error)
{
    out = CompareStepSelection {};
    const std::string_view whole = trimmed(text);
    if (whole.empty() || whole == "all")
        return true;
    std::string_view rest = whole;
    while (true) {
        const std::size_t comma = rest.find(',');
        const std::string_view itemText = trimmed(rest.substr(0, comma));
        Item item;
        item.byNumber = !itemText.empty() && itemText.front() == '#';
        // A '-' after the first character separates a range ("#-3" is a negative step number, not a range).
        const std::size_t dash = itemText.find('-', item.byNumber ? 2 : 1);
        bool ok = !itemText.empty();
        if (ok && dash == std::string_view::npos) {
            ok = parseBound(itemText, item.byNumber, item.first);
            item.last = item.first;
        } else if (ok) {
            ok = parseBound(itemText.substr(0, dash), item.byNumber, item.first)
                && parseBound(itemText.substr(dash + 1), item.byNumber, item.last);
        }
        if (!ok) {
            error = "bad step selection '" + std::string(itemText) + "' in '" + std::string(whole)
                + "': expected an index (2), an index range (0-3), a step number (#1010) or a number range "
                  "(#1010-#1012)";
            return false;
        }
        if (item.last < item.first) {
            error = "step range '" + std::string(itemText) + "' runs backwards";
            return false;
        }
        out.m_items.push_back(item);
        if (comma == std::string_view::npos)
            break;
        rest.remove_prefix(comma + 1);
    }
    out.m_text = std::string(whole);
    return true;
}

bool CompareStepSelection::parsePair(std::string_view text, CompareStepSelection& baseline,
                                     CompareStepSelection& candidate, std::string& error)
{
    const std::size_t colon = text.find(':');
    if (colon == std::string_view::npos) {
        if (!parse(text, baseline, error))
            return false;
        candidate = baseline;
        return true;
    }
    if (text.find(':', colon + 1) != std::string_view::npos) {
        error = "bad --steps '" + std::string(text) + "': expected BASELINE:CANDIDATE with one ':'";
        return false;
    }
    if (!parse(text.substr(0, colon), baseline, error)) {
        error = "baseline " + error;
        return false;
    }
    if (!parse(text.substr(colon + 1), candidate, error)) {
        error = "candidate " + error;
        return false;
    }
    return true;
}

bool CompareStepSelection::resolve(std::span<const model::Step> steps, std::vector<std::size_t>& indices,
                                   std::string& error) const
{
    indices.clear();
    if (m_items.empty()) {
        for (std::size_t i = 0; i < steps.size(); ++i)
            indices.push_back(i);
        return true;
    }
    std::unordered_set<std::size_t> taken;
    auto take = [&](std::size_t i) {
        if (taken.insert(i).second)
            indices.push_back(i);
    };
    for (const Item& item : m_items) {
        if (!item.byNumber) {
            if (item.last >= static_cast<std::int64_t>(steps.size())) {
                error = "step index " + std::to_string(item.last) + " does not exist: " + describeSteps(steps);
                return false;
            }
            for (std::int64_t i = item.first; i <= item.last; ++i)
                take(static_cast<std::size_t>(i));
            continue;
        }
        bool any = false;
        for (std::size_t i = 0; i < steps.size(); ++i) {
            if (!steps[i].synthetic && steps[i].number >= item.first && steps[i].number <= item.last) {
                take(i);
                any = true;
            }
        }
        if (!any) {
            error = "no step numbered #" + std::to_string(item.first)
                + (item.last != item.first ? "-#" + std::to_string(item.last) : std::string {}) + ": "
                + describeSteps(steps);
            return false;
        }
    }
    return true;
}

std::string CompareStepSelection::text() const
{
    return m_items.empty() ? std::string("all") : m_text;
}

} // namespace timesink::analysis
