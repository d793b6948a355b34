// SPDX-License-Identifier: MIT
#include "analysis/explore/rangestats.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>

namespace timesink::analysis {

namespace {

bool selected(const RangeSelection& s, model::TrackId id)
{
    return s.tracks.empty() || std::find(s.tracks.begin(), s.tracks.end(), id) != s.tracks.end();
}

model::TimeNs clipped(const model::Track& t, std::uint32_t i, model::TimeNs a, model::TimeNs b)
{
    return std::max<model::TimeNs>(0, std::min(t.end(i), b) - std::max(t.ts(i), a));
}

std::string keyOf(const model::Trace& trace, const model::Track& t, std::uint32_t i, RangeGroupBy by)
{
    switch (by) {
    case RangeGroupBy::Category:
        return std::string(model::categoryLabel(t.category(i)));
    case RangeGroupBy::Track:
        return std::to_string(t.id.value);
    case RangeGroupBy::Name:
        break;
    }
    return std::string(trace.str(t.sliceName(i)));
}

/// The row a slice belongs to, as a number: interned names compare by id.
std::uint32_t keyId(const model::Track& t, std::uint32_t i, RangeGroupBy by)
{
    switch (by) {
    case RangeGroupBy::Category:
        return static_cast<std::uint32_t>(t.category(i));
    case RangeGroupBy::Track:
        return t.id.value;
    case RangeGroupBy::Name:
        break;
    }
    return t.sliceName(i).value;
}

} // namespace

RangeStats computeRangeStats(const model::Trace& trace, const RangeSelection& selection, RangeGroupBy groupBy)
{
    RangeStats out;
    out.groupBy = groupBy;
    const model::TimeNs a = std::min(selection.start, selection.end);
    const model::TimeNs b = std::max(selection.start, selection.end);
    std::unordered_map<std::uint32_t, std::size_t> rowOf;
    std::unordered_map<std::uint32_t, model::TimeNs> childTime; // per track: slice index → children's time
    for (const model::Track& t : trace.tracks()) {
        if (t.empty() || !selected(selection, t.id))
            continue;
        childTime.clear();
        t.forEachInside(a, b, [&](std::uint32_t i) {
            if (t.parent(i).isValid())
                childTime[t.parent(i).value] += clipped(t, i, a, b);
        });
        t.forEachInside(a, b, [&](std::uint32_t i) {
            const model::TimeNs c = clipped(t, i, a, b);
            const auto child = childTime.find(i);
            const model::TimeNs self = c - (child == childTime.end() ? 0 : child->second);
            auto [it, inserted] = rowOf.try_emplace(keyId(t, i, groupBy), out.rows.size());
            if (inserted) {
                RangeStatsRow row;
                row.key = keyOf(trace, t, i, groupBy);
                row.category = t.category(i);
                row.track = t.id;
                out.rows.push_back(std::move(row));
            }
            RangeStatsRow& row = out.rows[it->second];
            ++row.count;
            row.totalNs += c;
            row.selfNs += std::max<model::TimeNs>(0, self);
            if (!row.maxSlice.isValid() || c > row.maxNs) {
                row.maxNs = c;
                row.maxSlice = {t.id, model::SliceIndex(i)};
                if (groupBy != RangeGroupBy::Track)
                    row.track = t.id;
            }
            ++out.sliceCount;
            out.totalNs += c;
        });
    }
    std::sort(out.rows.begin(), out.rows.end(), [](const RangeStatsRow& x, const RangeStatsRow& y) {
        return x.totalNs != y.totalNs ? x.totalNs > y.totalNs : x.key < y.key;
    });
    return out;
}

std::vector<model::SliceRef> rangeStatsInstances(const model::Trace& trace, const RangeSelection& selection,
                                                 RangeGroupBy groupBy, const std::string& key)
{
    std::vector<model::SliceRef> out;
    const model::TimeNs a = std::min(selection.start, selection.end);
    const model::TimeNs b = std::max(selection.start, selection.end);
    for (const model::Track& t : trace.tracks()) {
        if (t.empty() || !selected(selection, t.id))
            continue;
        if (groupBy == RangeGroupBy::Track && std::to_string(t.id.value) != key)
            continue;
        t.forEachInside(a, b, [&](std::uint32_t i) {
            const bool match = groupBy == RangeGroupBy::Track
                || (groupBy == RangeGroupBy::Name ? trace.str(t.sliceName(i)) == key
                                                  : model::categoryLabel(t.category(i)) == key);
            if (match)
                out.push_back({t.id, model::SliceIndex(i)});
        });
    }
    std::sort(out.begin(), out.end(), [&trace](const model::SliceRef& x, const model::SliceRef& y) {
        const model::TimeNs tx = trace.track(x.track).ts(x.index.value);
        const model::TimeNs ty = trace.track(y.track).ts(y.index.value);
        return tx != ty ? tx < ty : x < y;
    });
    return out;
}

} // namespace timesink::analysis
