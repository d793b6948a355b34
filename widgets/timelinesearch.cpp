// SPDX-License-Identifier: MIT
#include "widgets/timelinesearch.h"

#include <algorithm>
#include <span>
#include <tuple>
#include <vector>

namespace timesink::widgets {

void TimelineSearch::setTrace(const model::Trace* trace)
{
    m_trace = trace;
    search(QString());
}

std::size_t TimelineSearch::search(const QString& query)
{
    m_query = query;
    m_matches.clear();
    m_byTrackDepth.clear();
    m_nameMatches.clear();
    m_current = -1;
    if (!m_trace || query.isEmpty())
        return 0;

    const model::StringPool& pool = m_trace->strings();
    m_nameMatches.assign(pool.size(), false);
    bool any = false;
    for (std::size_t id = 1; id < pool.size(); ++id) {
        const std::string_view text = pool.view(model::StringId(static_cast<std::uint32_t>(id)));
        // Names are UTF-8; QString::contains folds case beyond ASCII ("Ü" matches "ü").
        if (QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size())).contains(query, Qt::CaseInsensitive)) {
            m_nameMatches[id] = true;
            any = true;
        }
    }
    if (!any)
        return 0;

    m_byTrackDepth.resize(m_trace->tracks().size());
    std::size_t total = 0;
    for (const model::Track& track : m_trace->tracks()) {
        auto& perDepth = m_byTrackDepth[track.id.value];
        perDepth.resize(track.depthCount());
        // One sequential pass over the name column (a depth's slices are its slices in index order, as
        // slicesAtDepth() lists them), not a walk through the per-depth indexes.
        for (std::uint32_t i = 0; i < track.size(); ++i) {
            if (nameMatches(track.sliceName(i))) {
                perDepth[track.depth(i)].push_back(i);
                ++total;
            }
        }
    }
    // Each (track, depth) list is in time order already: merged, not sorted (a sort of 10^6 matches by their
    // timestamps, a cache miss each, was most of a search at 10 GB). Ties by track, then slice index.
    struct Cursor
    {
        model::TimeNs ts;
        model::SliceRef ref;
        std::span<const std::uint32_t> rest; // after ref
    };
    const auto later = [](const Cursor& a, const Cursor& b) {
        return std::tie(a.ts, a.ref.track, a.ref.index) > std::tie(b.ts, b.ref.track, b.ref.index);
    };
    std::vector<Cursor> heap;
    for (const model::Track& track : m_trace->tracks()) {
        for (const std::vector<std::uint32_t>& list : m_byTrackDepth[track.id.value]) {
            if (!list.empty())
                heap.push_back({track.ts(list.front()),
                                {track.id, model::SliceIndex(list.front())},
                                std::span<const std::uint32_t>(list).subspan(1)});
        }
    }
    std::make_heap(heap.begin(), heap.end(), later);
    m_matches.reserve(total);
    while (!heap.empty()) {
        std::pop_heap(heap.begin(), heap.end(), later);
        Cursor& c = heap.back();
        m_matches.push_back(c.ref);
        if (c.rest.empty()) {
            heap.pop_back();
            continue;
        }
        const model::Track& track = m_trace->track(c.ref.track);
        c.ref.index = model::SliceIndex(c.rest.front());
        c.ts = track.ts(c.rest.front());
        c.rest = c.rest.subspan(1);
        std::push_heap(heap.begin(), heap.end(), later);
    }
    return m_matches.size();
}

std::span<const std::uint32_t> TimelineSearch::matchesAt(model::TrackId track, std::size_t depth) const
{
    if (!track.isValid() || track.value >= m_byTrackDepth.size() || depth >= m_byTrackDepth[track.value].size())
        return {};
    return m_byTrackDepth[track.value][depth];
}

model::SliceRef TimelineSearch::current() const
{
    if (m_current < 0 || static_cast<std::size_t>(m_current) >= m_matches.size())
        return {};
    return m_matches[static_cast<std::size_t>(m_current)];
}

model::SliceRef TimelineSearch::next()
{
    if (m_matches.empty())
        return {};
    m_current = (m_current + 1) % static_cast<int>(m_matches.size());
    return current();
}

model::SliceRef TimelineSearch::previous()
{
    if (m_matches.empty())
        return {};
    m_current = m_current <= 0 ? static_cast<int>(m_matches.size()) - 1 : m_current - 1;
    return current();
}

void TimelineSearch::seek(model::TimeNs t)
{
    if (!m_trace)
        return;
    auto it = std::partition_point(m_matches.begin(), m_matches.end(), [this, t](const model::SliceRef& r) {
        return m_trace->track(r.track).ts(r.index.value) < t;
    });
    m_current = static_cast<int>(it - m_matches.begin()) - 1;
}

} // namespace timesink::widgets
