// SPDX-License-Identifier: MIT
#pragma once

#include "model/trace.h"

#include <QString>

#include <vector>

namespace timesink::widgets {

/// The vertical layout of a timeline: tracks grouped by process (host) or device, each group
/// collapsible, each track one row per nesting depth; tracks with no slices and no counter samples are left
/// out. Row positions are computed once per change
/// (the geometry cache) so painting and hit testing only do binary searches.
///
/// Order: devices first (by index), then host processes by name, then counter-only groups (collapsed when
/// they hold more than two counters); inside a group host threads,
/// then compute streams, copy engines, communication planes, counters, by sort index, stream and name.
///
/// Example: one GPU stream with 1 depth and one host thread with 3 depths give rows
///   [header "GPU 0" y=0 h=22] [stream y=22 h=18] [header "process 1" y=42 h=22] [thread y=64 h=3*18].
class TrackLayout
{
public:
    static constexpr int kHeaderHeight = 22;
    static constexpr int kDepthHeight = 18;
    static constexpr int kCounterHeight = 36;
    static constexpr int kTrackGap = 2;

    struct Group
    {
        QString title;
        std::vector<model::TrackId> tracks;
        bool device = false;
        bool collapsed = false;
    };

    struct Row
    {
        int group = 0;
        model::TrackId track; // invalid for a group header
        int y = 0;
        int height = 0;
        [[nodiscard]] bool isHeader() const { return !track.isValid(); }
    };

    TrackLayout() = default;
    explicit TrackLayout(const model::Trace& trace);

    [[nodiscard]] const std::vector<Group>& groups() const { return m_groups; }
    [[nodiscard]] const std::vector<Row>& rows() const { return m_rows; }
    [[nodiscard]] int totalHeight() const { return m_totalHeight; }

    void setCollapsed(int group, bool collapsed);
    void toggleCollapsed(int group) { setCollapsed(group, !m_groups.at(group).collapsed); }

    /// Index into rows() of the row covering content y, or -1.
    [[nodiscard]] int rowAt(int y) const;
    /// Index into rows() of the row of `track`, or -1 when the track is hidden (its group collapsed).
    [[nodiscard]] int rowOfTrack(model::TrackId track) const;
    /// Content y of the top of depth `depth` of `track`, or -1 when hidden.
    [[nodiscard]] int depthY(model::TrackId track, std::size_t depth) const;

    /// Label of a track for people: its name, or its thread/stream key when unnamed.
    static QString trackLabel(const model::Trace& trace, const model::Track& track);
    /// Short role tag shown next to the label ("copy", "comm", "counter"; empty for plain rows).
    static QString roleTag(model::TrackRole role);

private:
    void relayout();

    const model::Trace* m_trace = nullptr;
    std::vector<Group> m_groups;
    std::vector<Row> m_rows;
    std::vector<int> m_rowOfTrack; // by TrackId, -1 when hidden
    int m_totalHeight = 0;
};

} // namespace timesink::widgets
