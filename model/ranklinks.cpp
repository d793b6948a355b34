// SPDX-License-Identifier: MIT
#include "model/ranklinks.h"

#include <algorithm>
#include <charconv>
#include <tuple>

namespace timesink::model {

namespace {

constexpr std::size_t kMaxLinks = 65536;

template <typename T> bool parseNumber(std::string_view t, T& out)
{
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), out);
    return ec == std::errc() && end == t.data() + t.size() && out >= 0;
}

// The next space-separated word of `rest` (and `rest` moved past it).
std::string_view nextWord(std::string_view& rest)
{
    const std::size_t start = rest.find_first_not_of(' ');
    if (start == std::string_view::npos) {
        rest = {};
        return {};
    }
    rest.remove_prefix(start);
    const std::size_t end = std::min(rest.find(' '), rest.size());
    const std::string_view w = rest.substr(0, end);
    rest.remove_prefix(end);
    return w;
}

bool parseLink(std::string_view item, RankLink& link)
{
    const std::string_view pair = nextWord(item);
    const std::string_view transport = nextWord(item);
    const std::string_view bytes = nextWord(item);
    const std::string_view transit = nextWord(item);
    const std::size_t dash = pair.find('-');
    if (dash == std::string_view::npos || transport.empty() || transport.size() > 32 || !nextWord(item).empty())
        return false;
    link.transport = std::string(transport);
    return parseNumber(pair.substr(0, dash), link.src) && parseNumber(pair.substr(dash + 1), link.dst)
        && parseNumber(bytes, link.bytes) && parseNumber(transit, link.transitNs);
}

bool keyLess(const RankLink& a, const RankLink& b)
{
    return std::tie(a.src, a.dst, a.transport) < std::tie(b.src, b.dst, b.transport);
}

bool sameKey(const RankLink& a, const RankLink& b)
{
    return !keyLess(a, b) && !keyLess(b, a);
}

} // namespace

std::vector<RankLink> parseRankLinks(std::string_view property, std::size_t* skipped)
{
    std::vector<RankLink> out;
    std::size_t bad = 0;
    while (!property.empty()) {
        const std::size_t semi = std::min(property.find(';'), property.size());
        const std::string_view item = property.substr(0, semi);
        property.remove_prefix(std::min(semi + 1, property.size()));
        if (item.find_first_not_of(' ') == std::string_view::npos)
            continue;
        RankLink link;
        if (out.size() < kMaxLinks && parseLink(item, link))
            out.push_back(std::move(link));
        else
            ++bad;
    }
    std::stable_sort(out.begin(), out.end(), keyLess);
    out.erase(std::unique(out.begin(), out.end(), sameKey), out.end());
    if (skipped)
        *skipped = bad;
    return out;
}

bool isWellFormed(const RankLink& link)
{
    return link.src >= 0 && link.dst >= 0 && link.bytes >= 0 && link.transitNs >= 0 && !link.transport.empty()
        && link.transport.size() <= 32;
}

void mergeRankLinks(std::vector<RankLink>& into, const std::vector<RankLink>& more)
{
    into.insert(into.end(), more.begin(), more.end());
    std::stable_sort(into.begin(), into.end(), keyLess);
    into.erase(std::unique(into.begin(), into.end(), sameKey), into.end());
    if (into.size() > kMaxLinks)
        into.resize(kMaxLinks);
}

} // namespace timesink::model
