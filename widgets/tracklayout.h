// SPDX-License-Identifier: MIT
#pragma once

#include "model/trace.h"

#include <QString>
#include <QStringList>
#include <QVariantMap>

#include <vector>

namespace timesink::widgets {

/// The vertical layout of a timeline: tracks grouped by process (host) or device, each group
/// collapsible, each track one row per nesting depth; tracks with no slices and no counter samples are left
/// out. Row positions are computed once per change
/// (the geometry cache) so painting and hit testing only do binary searches.
///
/// A group is a device group when it holds a device's work (model::isDeviceTrack) or only device rows; a host
/// process holding a device-side counter (Kineto's "GPU memory allocated") stays a host group.
/// Order: devices first (by index), then host processes by name, then counter-only groups (collapsed when
/// they hold more than two counters); inside a group host threads,
/// then compute streams, copy engines, communication planes, counters, by sort index, stream and name.
///
/// Example: one GPU stream with 1 depth and one host thread with 3 depths give rows
///   [header "GPU 0" y=0 h=22] [stream y=22 h=18] [header "process 1" y=42 h=22] [thread y=64 h=3*18].
///
/// What people arrange: pinned tracks come first, above every group, in a band that does not scroll
/// (pinnedHeight()); hidden tracks and groups get no rows; groups can be reordered; a host thread can show
/// only its top `n` stack levels.
///
/// Deep host stacks open at the framework: a host thread whose top kMinTrunkLevels or more levels hold only Python
/// frames (a 20-level `python: main → run → …` trunk above the first framework op) starts with those levels folded
/// away (firstDepth()), so its framework ops and the device rows below stay in view; the label marks the fold and
/// showTrunk() brings the levels back. state()/applyState() carry that arrangement by stable keys (digits in host
/// names, which are process and thread ids, do not count), so a trace of the same kind opens the same way.
class TrackLayout
{
public:
    static constexpr int kHeaderHeight = 22;
    static constexpr int kDepthHeight = 18;
    static constexpr int kCounterHeight = 36;
    static constexpr int kTrackGap = 2;
    /// Fewest Python-only levels at the top of a host thread that are folded away when it opens.
    static constexpr std::size_t kMinTrunkLevels = 3;

    struct Group
    {
        QString title;
        std::vector<model::TrackId> tracks;
        bool device = false;
        bool collapsed = false;
        bool hidden = false;
        QString key; // stable across traces of one kind (see state())
    };

    struct Row
    {
        int group = 0;
        model::TrackId track; // invalid for a group header
        int y = 0;
        int height = 0;
        bool pinned = false; // in the band on top that does not scroll
        [[nodiscard]] bool isHeader() const { return !track.isValid(); }
    };

    /// The arrangement people made, by stable keys (for QSettings, per trace kind).
    struct State
    {
        QStringList pinned;       // track keys, in pin order
        QStringList hidden;       // track keys
        QStringList hiddenGroups; // group keys
        QStringList groupOrder;   // group keys, in the order shown (groups not listed keep their place after)
        int hostDepthLimit = 0;   // 0: every level
        QVariantMap depthLimits;  // track key → levels
        QStringList trunkShown;   // track keys whose folded Python trunk is shown
        [[nodiscard]] QVariantMap toVariant() const;
        static State fromVariant(const QVariantMap& map);
        [[nodiscard]] bool isDefault() const;
    };

    TrackLayout() = default;
    explicit TrackLayout(const model::Trace& trace);

    [[nodiscard]] const std::vector<Group>& groups() const { return m_groups; }
    [[nodiscard]] const std::vector<Row>& rows() const { return m_rows; }
    [[nodiscard]] int totalHeight() const { return m_totalHeight; }

    void setCollapsed(int group, bool collapsed);
    void toggleCollapsed(int group) { setCollapsed(group, !m_groups.at(group).collapsed); }

    /// Pinned tracks are drawn first, in the order pinned, in a band that stays on screen.
    void setPinned(model::TrackId track, bool pinned);
    [[nodiscard]] bool isPinned(model::TrackId track) const;
    [[nodiscard]] const std::vector<model::TrackId>& pinnedTracks() const { return m_pinnedOrder; }
    /// Height of the pinned band (0 when nothing is pinned); scrolled rows start below it.
    [[nodiscard]] int pinnedHeight() const { return m_pinnedHeight; }
    void setTrackHidden(model::TrackId track, bool hidden);
    [[nodiscard]] bool isTrackHidden(model::TrackId track) const;
    void setGroupHidden(int group, bool hidden);
    /// Shows every hidden track and group.
    void showAll();
    /// Moves group `from` to position `to` (indices into groups()).
    void moveGroup(int from, int to);
    /// The group holding `track`, or -1.
    [[nodiscard]] int groupOfTrack(model::TrackId track) const;
    /// Shows only the top `levels` stack levels of `track` (0: all).
    void setDepthLimit(model::TrackId track, int levels);
    /// The same for every host thread that has no limit of its own (0: all).
    void setHostDepthLimit(int levels);
    [[nodiscard]] int hostDepthLimit() const { return m_hostDepthLimit; }
    /// Depth levels of `track` that are drawn, from firstDepth() on (its depth count, or less when folded or
    /// limited; a limit counts from the first level drawn).
    [[nodiscard]] std::size_t visibleDepth(model::TrackId track) const;
    /// The first depth drawn: the number of Python-only levels folded away at the top (0 when none are).
    [[nodiscard]] std::size_t firstDepth(model::TrackId track) const;
    /// The Python-only levels at the top of `track` that fold away (0 when fewer than kMinTrunkLevels), shown or not.
    [[nodiscard]] std::size_t trunkDepth(model::TrackId track) const;
    /// Shows (or folds again) the Python-only levels at the top of `track`.
    void showTrunk(model::TrackId track, bool shown);
    /// Whether `depth` of `track` is drawn (neither folded, below a limit, nor the track hidden).
    [[nodiscard]] bool isDepthShown(model::TrackId track, std::size_t depth) const;

    [[nodiscard]] State state() const;
    void applyState(const State& state);
    /// Stable key of a track: "GPU 0/stream 7"; host names with their ids as "#": "python (#)/thread # (python)".
    [[nodiscard]] QString trackKey(model::TrackId track) const;

    /// Index into rows() of the row covering content y, or -1.
    [[nodiscard]] int rowAt(int y) const;
    /// Index into rows() of the row of `track`, or -1 when the track is hidden (its group collapsed).
    [[nodiscard]] int rowOfTrack(model::TrackId track) const;
    /// Content y of the top of depth `depth` of `track`, or -1 when it is not drawn (isDepthShown()).
    [[nodiscard]] int depthY(model::TrackId track, std::size_t depth) const;

    /// Label of a track for people: its name, or its thread/stream key when unnamed.
    static QString trackLabel(const model::Trace& trace, const model::Track& track);
    /// Short role tag shown next to the label ("copy", "comm", "counter"; empty for plain rows).
    static QString roleTag(model::TrackRole role);

private:
    void relayout();
    [[nodiscard]] int trackHeight(const model::Track& t) const;

    const model::Trace* m_trace = nullptr;
    std::vector<Group> m_groups;
    std::vector<model::TrackId> m_pinnedOrder;
    std::vector<char> m_hidden;         // by TrackId
    std::vector<int> m_depthLimit;      // by TrackId, 0 = none of its own
    std::vector<std::uint16_t> m_trunk; // by TrackId: Python-only levels at the top that fold away
    std::vector<char> m_trunkShown;     // by TrackId
    int m_hostDepthLimit = 0;
    int m_pinnedHeight = 0;
    std::vector<Row> m_rows;
    std::vector<int> m_rowOfTrack; // by TrackId, -1 when hidden
    int m_totalHeight = 0;
};

} // namespace timesink::widgets
