// SPDX-License-Identifier: MIT
#include "widgets/timelinesearch.h"

#include <algorithm>

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
    for (const model::Track& track : m_trace->tracks()) {
        auto& perDepth = m_byTrackDepth[track.id.value];
        perDepth.resize(track.depthCount());
        for (std::size_t d = 0; d < track.depthCount(); ++d) {
            for (std::uint32_t i : track.slicesAtDepth(d)) {
                if (nameMatches(track.sliceName(i))) {
                    perDepth[d].push_back(i);
                    m_matches.push_back(model::SliceRef {track.id, model::SliceIndex(i)});
                }
            }
        }
    }
    std::sort(m_matches.begin(), m_matches.end(), [this](const model::SliceRef& a, const model::SliceRef& b) {
        const model::TimeNs ta = m_trace->track(a.track).ts(a.index.value);
        const model::TimeNs tb = m_trace->track(b.track).ts(b.index.value);
        return std::tie(ta, a.track, a.index) < std::tie(tb, b.track, b.index);
    });
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
