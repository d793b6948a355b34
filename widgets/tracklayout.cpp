// SPDX-License-Identifier: MIT
#include "widgets/tracklayout.h"

#include "model/trackname.h"

#include <QRegularExpression>

#include <algorithm>
#include <cstdint>
#include <map>
#include <span>
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

/// Process and thread ids change from run to run; the rest of a host name does not.
QString withoutIds(QString s)
{
    static const QRegularExpression digits(QStringLiteral("\\d+"));
    return s.replace(digits, QStringLiteral("#"));
}

/// The number of levels at the top of a host thread that hold only Python frames, when there are at least
/// TrackLayout::kMinTrunkLevels of them and a level below holds something else (a thread of Python frames alone keeps
/// every level). Reads the levels from the top and stops at the first slice that is not a Python frame, so a
/// framework-heavy thread costs a few slices.
std::uint16_t pythonTrunk(const model::Track& t)
{
    if (t.role != model::TrackRole::HostThread || t.depthCount() <= TrackLayout::kMinTrunkLevels)
        return 0;
    for (std::size_t d = 0; d < t.depthCount(); ++d) {
        const std::span<const std::uint32_t> level = t.slicesAtDepth(d);
        const bool pythonOnly = std::all_of(level.begin(), level.end(), [&t](std::uint32_t i) {
            return t.category(i) == model::SliceCategory::PythonFrame;
        });
        if (!pythonOnly)
            return d >= TrackLayout::kMinTrunkLevels ? static_cast<std::uint16_t>(std::min<std::size_t>(d, 0xffff)) : 0;
    }
    return 0;
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
        bool hasDeviceWork = false;
        bool anyHost = false;
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
            // Kineto puts CUPTI's own overhead (buffer requests, lazy loading) under pid -1.
            if (p.group.title == QStringLiteral("process -1"))
                p.group.title = QStringLiteral("Profiler overhead (pid -1)");
            p.order = {device ? 0 : 1, device ? t.deviceIndex : 0, name};
            pending.push_back(std::move(p));
        }
        Pending& p = pending[it->second];
        // A device's work makes its group a device group; a device-side counter in a host process (Kineto's
        // "GPU memory allocated" under the Python process) does not pull that process, with its 40-level Python
        // stack, above the GPU.
        if (model::isDeviceTrack(t)) {
            std::get<1>(p.order) = p.hasDeviceWork ? std::max(std::get<1>(p.order), t.deviceIndex) : t.deviceIndex;
            std::get<0>(p.order) = 0;
            p.hasDeviceWork = true;
            p.group.device = true;
        }
        if (!device)
            p.anyHost = true;
        p.group.tracks.push_back(t.id);
    }
    // A group of a device's rows without work (its annotation lane and counters only) stays a device group; a host
    // process that merely holds a device-side counter is a host group.
    for (Pending& p : pending) {
        if (!p.hasDeviceWork && p.anyHost) {
            p.group.device = false;
            p.order = {1, 0, std::get<2>(p.order)};
        }
    }
    // Counter-only groups (frequencies, PMU samples) go last and start collapsed: they are context, and an
    // Ascend bundle has dozens of them above the streams otherwise.
    for (Pending& p : pending) {
        const bool countersOnly
            = std::all_of(p.group.tracks.begin(), p.group.tracks.end(),
                          [&trace](model::TrackId id) { return trace.track(id).role == model::TrackRole::Counter; });
        if (countersOnly) {
            std::get<0>(p.order) = 2;
            p.group.collapsed = p.group.tracks.size() > 2;
        }
    }
    std::stable_sort(pending.begin(), pending.end(),
                     [](const Pending& a, const Pending& b) { return a.order < b.order; });
    for (Pending& p : pending) {
        p.group.key = p.group.device ? p.group.title : withoutIds(p.group.title);
        m_groups.push_back(std::move(p.group));
    }
    m_hidden.assign(trace.tracks().size(), 0);
    m_depthLimit.assign(trace.tracks().size(), 0);
    m_trunkShown.assign(trace.tracks().size(), 0);
    m_trunk.assign(trace.tracks().size(), 0);
    for (const Group& g : m_groups) {
        for (model::TrackId id : g.tracks)
            m_trunk[id.value] = pythonTrunk(trace.track(id));
    }

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

int TrackLayout::trackHeight(const model::Track& t) const
{
    if (t.role == model::TrackRole::Counter && t.empty())
        return TrackLayout::kCounterHeight;
    return static_cast<int>(std::max<std::size_t>(1, visibleDepth(t.id))) * TrackLayout::kDepthHeight;
}

void TrackLayout::relayout()
{
    m_rows.clear();
    m_rowOfTrack.assign(m_trace ? m_trace->tracks().size() : 0, -1);
    int y = 0;
    for (model::TrackId id : m_pinnedOrder) {
        const int h = trackHeight(m_trace->track(id));
        m_rowOfTrack[id.value] = static_cast<int>(m_rows.size());
        m_rows.push_back(Row {groupOfTrack(id), id, y, h, true});
        y += h + kTrackGap;
    }
    m_pinnedHeight = y;
    for (std::size_t g = 0; g < m_groups.size(); ++g) {
        if (m_groups[g].hidden)
            continue;
        m_rows.push_back(Row {static_cast<int>(g), {}, y, kHeaderHeight});
        y += kHeaderHeight;
        if (m_groups[g].collapsed)
            continue;
        for (model::TrackId id : m_groups[g].tracks) {
            if (m_hidden[id.value] || isPinned(id))
                continue;
            const int h = trackHeight(m_trace->track(id));
            m_rowOfTrack[id.value] = static_cast<int>(m_rows.size());
            m_rows.push_back(Row {static_cast<int>(g), id, y, h});
            y += h + kTrackGap;
        }
    }
    m_totalHeight = y;
}

void TrackLayout::setPinned(model::TrackId track, bool pinned)
{
    if (!m_trace || !track.isValid() || track.value >= m_hidden.size() || isPinned(track) == pinned)
        return;
    if (pinned) {
        m_pinnedOrder.push_back(track);
        m_hidden[track.value] = 0;
    } else {
        m_pinnedOrder.erase(std::find(m_pinnedOrder.begin(), m_pinnedOrder.end(), track));
    }
    relayout();
}

bool TrackLayout::isPinned(model::TrackId track) const
{
    return std::find(m_pinnedOrder.begin(), m_pinnedOrder.end(), track) != m_pinnedOrder.end();
}

void TrackLayout::setTrackHidden(model::TrackId track, bool hidden)
{
    if (!track.isValid() || track.value >= m_hidden.size())
        return;
    m_hidden[track.value] = hidden ? 1 : 0;
    if (hidden && isPinned(track))
        m_pinnedOrder.erase(std::find(m_pinnedOrder.begin(), m_pinnedOrder.end(), track));
    relayout();
}

bool TrackLayout::isTrackHidden(model::TrackId track) const
{
    return track.isValid() && track.value < m_hidden.size() && m_hidden[track.value];
}

void TrackLayout::setGroupHidden(int group, bool hidden)
{
    m_groups.at(static_cast<std::size_t>(group)).hidden = hidden;
    relayout();
}

void TrackLayout::showAll()
{
    std::fill(m_hidden.begin(), m_hidden.end(), 0);
    for (Group& g : m_groups)
        g.hidden = false;
    relayout();
}

void TrackLayout::moveGroup(int from, int to)
{
    const int n = static_cast<int>(m_groups.size());
    if (from < 0 || from >= n || to < 0 || to >= n || from == to)
        return;
    Group moved = std::move(m_groups[static_cast<std::size_t>(from)]);
    m_groups.erase(m_groups.begin() + from);
    m_groups.insert(m_groups.begin() + to, std::move(moved));
    relayout();
}

int TrackLayout::groupOfTrack(model::TrackId track) const
{
    for (std::size_t g = 0; g < m_groups.size(); ++g) {
        if (std::find(m_groups[g].tracks.begin(), m_groups[g].tracks.end(), track) != m_groups[g].tracks.end())
            return static_cast<int>(g);
    }
    return -1;
}

void TrackLayout::setDepthLimit(model::TrackId track, int levels)
{
    if (!track.isValid() || track.value >= m_depthLimit.size())
        return;
    m_depthLimit[track.value] = std::max(0, levels);
    relayout();
}

void TrackLayout::setHostDepthLimit(int levels)
{
    m_hostDepthLimit = std::max(0, levels);
    relayout();
}

std::size_t TrackLayout::visibleDepth(model::TrackId track) const
{
    if (!m_trace || !track.isValid() || track.value >= m_trace->tracks().size())
        return 0;
    const model::Track& t = m_trace->track(track);
    int limit = track.value < m_depthLimit.size() ? m_depthLimit[track.value] : 0;
    if (limit == 0 && !isDeviceTrack(t))
        limit = m_hostDepthLimit;
    const std::size_t below = t.depthCount() - std::min(t.depthCount(), firstDepth(track));
    return limit > 0 ? std::min(below, static_cast<std::size_t>(limit)) : below;
}

std::size_t TrackLayout::trunkDepth(model::TrackId track) const
{
    return track.isValid() && track.value < m_trunk.size() ? m_trunk[track.value] : 0;
}

std::size_t TrackLayout::firstDepth(model::TrackId track) const
{
    return track.isValid() && track.value < m_trunkShown.size() && !m_trunkShown[track.value] ? trunkDepth(track) : 0;
}

void TrackLayout::showTrunk(model::TrackId track, bool shown)
{
    if (!track.isValid() || track.value >= m_trunkShown.size())
        return;
    m_trunkShown[track.value] = shown ? 1 : 0;
    relayout();
}

bool TrackLayout::isDepthShown(model::TrackId track, std::size_t depth) const
{
    const std::size_t first = firstDepth(track);
    return rowOfTrack(track) >= 0 && depth >= first && depth - first < visibleDepth(track);
}

QString TrackLayout::trackKey(model::TrackId track) const
{
    const int g = groupOfTrack(track);
    if (g < 0 || !m_trace)
        return {};
    const model::Track& t = m_trace->track(track);
    const QString label = trackLabel(*m_trace, t);
    return m_groups[static_cast<std::size_t>(g)].key + QLatin1Char('/')
        + (isDeviceTrack(t) ? label : withoutIds(label));
}

TrackLayout::State TrackLayout::state() const
{
    State s;
    for (model::TrackId id : m_pinnedOrder)
        s.pinned << trackKey(id);
    for (const Group& g : m_groups) {
        s.groupOrder << g.key;
        if (g.hidden)
            s.hiddenGroups << g.key;
        for (model::TrackId id : g.tracks) {
            if (m_hidden[id.value])
                s.hidden << trackKey(id);
            if (m_depthLimit[id.value] > 0)
                s.depthLimits.insert(trackKey(id), m_depthLimit[id.value]);
            if (m_trunkShown[id.value] && m_trunk[id.value] > 0)
                s.trunkShown << trackKey(id);
        }
    }
    s.hostDepthLimit = m_hostDepthLimit;
    return s;
}

void TrackLayout::applyState(const State& state)
{
    if (!m_trace)
        return;
    // Group order: the listed groups first in their saved order, the others after them as they were. A saved order
    // that names none of this trace's devices comes from a trace with other devices ("GPU 0" saved, "GPU 2" here): it
    // says nothing of where they go, so they stay first, above the listed host groups.
    const bool devicesListed = std::any_of(m_groups.begin(), m_groups.end(), [&state](const Group& g) {
        return g.device && state.groupOrder.contains(g.key);
    });
    const auto rank = [&state, devicesListed](const Group& g) {
        const qsizetype i = state.groupOrder.indexOf(g.key);
        if (i >= 0)
            return i;
        return g.device && !devicesListed ? qsizetype {-1} : state.groupOrder.size();
    };
    std::stable_sort(m_groups.begin(), m_groups.end(),
                     [&rank](const Group& a, const Group& b) { return rank(a) < rank(b); });
    m_pinnedOrder.clear();
    std::fill(m_hidden.begin(), m_hidden.end(), 0);
    std::fill(m_depthLimit.begin(), m_depthLimit.end(), 0);
    std::vector<std::pair<qsizetype, model::TrackId>> pins;
    for (Group& g : m_groups) {
        g.hidden = state.hiddenGroups.contains(g.key);
        for (model::TrackId id : g.tracks) {
            const QString key = trackKey(id);
            if (const qsizetype p = state.pinned.indexOf(key); p >= 0)
                pins.emplace_back(p, id);
            else if (state.hidden.contains(key))
                m_hidden[id.value] = 1;
            m_depthLimit[id.value] = state.depthLimits.value(key, 0).toInt();
            m_trunkShown[id.value] = state.trunkShown.contains(key) ? 1 : 0;
        }
    }
    std::stable_sort(pins.begin(), pins.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [order, id] : pins)
        m_pinnedOrder.push_back(id);
    m_hostDepthLimit = std::max(0, state.hostDepthLimit);
    relayout();
}

QVariantMap TrackLayout::State::toVariant() const
{
    return {{QStringLiteral("pinned"), pinned},
            {QStringLiteral("hidden"), hidden},
            {QStringLiteral("hiddenGroups"), hiddenGroups},
            {QStringLiteral("groupOrder"), groupOrder},
            {QStringLiteral("hostDepthLimit"), hostDepthLimit},
            {QStringLiteral("depthLimits"), depthLimits},
            {QStringLiteral("trunkShown"), trunkShown}};
}

TrackLayout::State TrackLayout::State::fromVariant(const QVariantMap& map)
{
    State s;
    s.pinned = map.value(QStringLiteral("pinned")).toStringList();
    s.hidden = map.value(QStringLiteral("hidden")).toStringList();
    s.hiddenGroups = map.value(QStringLiteral("hiddenGroups")).toStringList();
    s.groupOrder = map.value(QStringLiteral("groupOrder")).toStringList();
    s.hostDepthLimit = map.value(QStringLiteral("hostDepthLimit")).toInt();
    s.depthLimits = map.value(QStringLiteral("depthLimits")).toMap();
    s.trunkShown = map.value(QStringLiteral("trunkShown")).toStringList();
    return s;
}

bool TrackLayout::State::isDefault() const
{
    return pinned.isEmpty() && hidden.isEmpty() && hiddenGroups.isEmpty() && hostDepthLimit == 0
        && depthLimits.isEmpty() && trunkShown.isEmpty();
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
    if (!isDepthShown(track, depth))
        return -1;
    const int row = rowOfTrack(track);
    return m_rows[static_cast<std::size_t>(row)].y + static_cast<int>(depth - firstDepth(track)) * kDepthHeight;
}

QString TrackLayout::trackLabel(const model::Trace& trace, const model::Track& track)
{
    return qs(model::trackName(trace, track));
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
