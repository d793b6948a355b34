// SPDX-License-Identifier: MIT
#include "widgets/tracklayout.h"

#include <algorithm>
#include <map>
#include <string>
#include <tuple>

namespace timesink::widgets {

namespace {

QString qs(std::string_view s)
{
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

// Rows drawn in a device group: every row a device owns, its work (model::isDeviceTrack) and also its
// annotation lanes and counters; a CPU's counters stay with the host.
bool isDeviceSide(const model::Track& t)
{
    return t.deviceKind != model::DeviceKind::Cpu;
}

int trackHeight(const model::Track& t)
{
    if (t.role == model::TrackRole::Counter && t.empty())
        return TrackLayout::kCounterHeight;
    return static_cast<int>(std::max<std::size_t>(1, t.depthCount())) * TrackLayout::kDepthHeight;
}

} // namespace

TrackLayout::TrackLayout(const model::Trace& trace)
    : m_trace(&trace)
{
    // Groups are keyed by process name: an RKNN table's NPU rows and its CPU-fallback thread share their
    // "process" and belong together; an Ascend bundle's "Ascend Hardware" and "HCCL" planes stay apart.
    // Devices come first (most findings are about device time; host threads can be many rows deep), then
    // by device index, then by name.
    struct Pending
    {
        std::tuple<int, int, std::string> order;
        Group group;
    };
    std::map<std::string, std::size_t, std::less<>> index;
    std::vector<Pending> pending;
    for (const model::Track& t : trace.tracks()) {
        // Tracks with nothing to draw (metadata-only processes, threads named but never used) are left out.
        if (t.empty() && t.counterTimes().empty())
            continue;
        const bool device = isDeviceSide(t);
        std::string name(trace.str(t.processName.isEmpty() ? t.processKey : t.processName));
        auto [it, inserted] = index.try_emplace(name, pending.size());
        if (inserted) {
            Pending p;
            p.group.device = device;
            p.group.title = qs(name);
            if (p.group.title.isEmpty())
                p.group.title = device ? QStringLiteral("device %1").arg(t.deviceIndex) : QStringLiteral("process");
            p.order = {device ? 0 : 1, device ? t.deviceIndex : 0, name};
            pending.push_back(std::move(p));
        }
        Pending& p = pending[it->second];
        if (device) {
            p.group.device = true;
            std::get<0>(p.order) = 0;
            std::get<1>(p.order) = std::max(std::get<1>(p.order), t.deviceIndex);
        }
        p.group.tracks.push_back(t.id);
    }
    // Counter-only groups (frequencies, PMU samples) go last and start collapsed: they are context, and an
    // Ascend bundle has dozens of them above the streams otherwise.
    for (Pending& p : pending) {
        const bool countersOnly = std::all_of(p.group.tracks.begin(), p.group.tracks.end(), [&trace](model::TrackId id) {
            return trace.track(id).role == model::TrackRole::Counter;
        });
        if (countersOnly) {
            std::get<0>(p.order) = 2;
            p.group.collapsed = p.group.tracks.size() > 2;
        }
    }
    std::stable_sort(pending.begin(), pending.end(),
                     [](const Pending& a, const Pending& b) { return a.order < b.order; });
    for (Pending& p : pending)
        m_groups.push_back(std::move(p.group));

    for (Group& g : m_groups) {
        std::stable_sort(g.tracks.begin(), g.tracks.end(), [&trace](model::TrackId a, model::TrackId b) {
            const model::Track& ta = trace.track(a);
            const model::Track& tb = trace.track(b);
            return std::tuple(static_cast<int>(ta.role), ta.sortIndex, ta.streamId, trace.str(ta.name))
                < std::tuple(static_cast<int>(tb.role), tb.sortIndex, tb.streamId, trace.str(tb.name));
        });
    }
    relayout();
}

void TrackLayout::setCollapsed(int group, bool collapsed)
{
    m_groups.at(group).collapsed = collapsed;
    relayout();
}

void TrackLayout::relayout()
{
    m_rows.clear();
    m_rowOfTrack.assign(m_trace ? m_trace->tracks().size() : 0, -1);
    int y = 0;
    for (std::size_t g = 0; g < m_groups.size(); ++g) {
        m_rows.push_back(Row {static_cast<int>(g), {}, y, kHeaderHeight});
        y += kHeaderHeight;
        if (m_groups[g].collapsed)
            continue;
        for (model::TrackId id : m_groups[g].tracks) {
            const int h = trackHeight(m_trace->track(id));
            m_rowOfTrack[id.value] = static_cast<int>(m_rows.size());
            m_rows.push_back(Row {static_cast<int>(g), id, y, h});
            y += h + kTrackGap;
        }
    }
    m_totalHeight = y;
}

int TrackLayout::rowAt(int y) const
{
    if (m_rows.empty() || y < 0)
        return -1;
    auto it = std::upper_bound(m_rows.begin(), m_rows.end(), y, [](int v, const Row& r) { return v < r.y; });
    if (it == m_rows.begin())
        return -1;
    --it;
    if (y >= it->y + it->height)
        return -1; // in the gap between tracks
    return static_cast<int>(it - m_rows.begin());
}

int TrackLayout::rowOfTrack(model::TrackId track) const
{
    if (!track.isValid() || track.value >= m_rowOfTrack.size())
        return -1;
    return m_rowOfTrack[track.value];
}

int TrackLayout::depthY(model::TrackId track, std::size_t depth) const
{
    const int row = rowOfTrack(track);
    if (row < 0)
        return -1;
    return m_rows[static_cast<std::size_t>(row)].y + static_cast<int>(depth) * kDepthHeight;
}

QString TrackLayout::trackLabel(const model::Trace& trace, const model::Track& track)
{
    if (!track.name.isEmpty())
        return qs(trace.str(track.name));
    if (!track.threadName.isEmpty())
        return qs(trace.str(track.threadName));
    if (!track.threadKey.isEmpty())
        return QStringLiteral("thread ") + qs(trace.str(track.threadKey));
    return QStringLiteral("track %1").arg(track.id.value);
}

QString TrackLayout::roleTag(model::TrackRole role)
{
    switch (role) {
    case model::TrackRole::DeviceCopy:
        return QStringLiteral("copy");
    case model::TrackRole::Communication:
        return QStringLiteral("comm");
    case model::TrackRole::Counter:
        return QStringLiteral("counter");
    case model::TrackRole::Synthetic:
        return QStringLiteral("derived");
    case model::TrackRole::HostThread:
    case model::TrackRole::DeviceCompute:
        break;
    }
    return {};
}

} // namespace timesink::widgets
