// SPDX-License-Identifier: MIT
#pragma once

#include "model/trace.h"
#include "widgets/timelinepainter.h"
#include "widgets/timelinesearch.h"
#include "widgets/timelinezoom.h"
#include "widgets/tracklayout.h"

#include <QAbstractScrollArea>
#include <QImage>

#include <functional>
#include <optional>
#include <vector>

class QMenu;

namespace timesink::widgets {

/// The interactive timeline: owns the zoom, the layout and the search of one trace and paints them with
/// TimelinePainter into a cached image (hovering and tooltips do not repaint).
///
/// Input: wheel zooms around the cursor (over the labels it scrolls); W/S zoom, A/D pan, F fits all,
/// Z zooms to the selection; drag pans, Shift+drag selects a time range; click selects a slice or
/// collapses a group; Ctrl+click on a track label picks tracks for the range statistics; dragging a group
/// header up or down moves the group; right-click on a label: pin, hide, limit depth; Esc clears the selection.
class TimelineView : public QAbstractScrollArea
{
    Q_OBJECT
public:
    explicit TimelineView(QWidget* parent = nullptr);

    /// Shows `trace` (fit all, nothing selected). A null trace shows nothing.
    void setTrace(model::TracePtr trace);
    /// The time range the view navigates and Fit All shows: from the trace's start to the end of its last work (a
    /// slice with a duration, or a counter sample). Zero-length marks after all work, such as Kineto's global
    /// "Record Window End" 14 ms after the last kernel, are not stretched into view; a trace of marks only keeps
    /// its own extent.
    [[nodiscard]] static std::pair<model::TimeNs, model::TimeNs> navigableRange(const model::Trace& trace);
    [[nodiscard]] const model::TracePtr& trace() const { return m_trace; }

    [[nodiscard]] const TimelineZoom& zoom() const { return m_zoom; }
    [[nodiscard]] const TrackLayout& layout() const { return m_layout; }
    [[nodiscard]] const TimelineSearch& search() const { return m_search; }
    [[nodiscard]] model::SliceRef selectedSlice() const { return m_decorations.selected; }
    [[nodiscard]] const std::optional<std::pair<model::TimeNs, model::TimeNs>>& timeSelection() const
    {
        return m_decorations.timeSelection;
    }

    /// The slice under a viewport position, or an invalid ref.
    [[nodiscard]] model::SliceRef sliceAt(QPoint pos) const;
    /// The group whose header is under a viewport position, or -1.
    [[nodiscard]] int groupHeaderAt(QPoint pos) const;

    /// Changes the track arrangement (pin, hide, reorder, depth limits) and redraws; emits trackLayoutChanged.
    void changeLayout(const std::function<void(TrackLayout&)>& change);
    /// Tracks picked with Ctrl+click on their labels (the range statistics then cover only them).
    [[nodiscard]] const std::vector<model::TrackId>& selectedTracks() const { return m_decorations.selectedTracks; }
    void setSelectedTracks(std::vector<model::TrackId> tracks);
    /// The group header or track label row under a viewport position (index into layout().rows()), or -1.
    [[nodiscard]] int rowAtPos(QPoint pos) const;
    /// The menu a right-click on the label column shows for `row` (index into layout().rows()); for tests.
    QMenu* labelMenu(int row);

    /// Selects a slice (invalid ref clears); with `reveal`, scrolls and pans so that it is on screen.
    void selectSlice(model::SliceRef slice, bool reveal = false);
    /// Outlines the events of a finding (empty clears).
    void setHighlighted(std::vector<model::SliceRef> events);
    /// The critical path to draw (empty: none): each stretch on its slice's row, host time on its thread's.
    void setCriticalPath(std::vector<analysis::PathSegment> segments);
    /// Its stretches in order of start.
    [[nodiscard]] const std::vector<analysis::PathSegment>& criticalPath() const
    {
        return m_decorations.criticalPath.segments();
    }
    [[nodiscard]] const std::vector<model::SliceRef>& highlighted() const { return m_decorations.highlighted; }
    void setTimeSelection(std::optional<std::pair<model::TimeNs, model::TimeNs>> range);
    /// As a Shift+drag over [range] would: sets the selection and emits timeSelectionChanged.
    void selectTimeRange(std::optional<std::pair<model::TimeNs, model::TimeNs>> range);

    /// Shows [t0, t1] with a small margin.
    void showRange(model::TimeNs t0, model::TimeNs t1);
    /// Scrolls vertically so that `track` is visible (expanding its group).
    void revealTrack(model::TrackId track);
    void fitAll();
    /// Zooms to the time selection, or else to the selected slice.
    void zoomToSelection();
    void zoomBy(double factor);
    void panBy(double fractionOfWidth);

    /// Runs a search; returns the number of matches (all are outlined).
    std::size_t setSearchQuery(const QString& query);
    /// Selects and reveals the next (previous) match; returns it.
    model::SliceRef nextMatch();
    model::SliceRef previousMatch();

    /// Renders the current view into an image of the viewport size (for screenshots and tests).
    [[nodiscard]] QImage renderImage() const;
    [[nodiscard]] const TimelinePainter::Stats& lastPaintStats() const { return m_stats; }

signals:
    void sliceSelected(timesink::model::SliceRef slice);
    void viewChanged();
    /// setTrace() showed another trace (with the default track arrangement).
    void traceChanged();
    /// A Shift+drag finished, the selection was cleared or set (nullopt: none).
    void timeSelectionChanged(const std::optional<std::pair<timesink::model::TimeNs, timesink::model::TimeNs>>& range);
    /// Ctrl+click picked or dropped a track.
    void selectedTracksChanged();
    /// Pins, hidden tracks, group order or depth limits changed (the window remembers them per trace kind).
    void trackLayoutChanged();

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;
    bool viewportEvent(QEvent* event) override;
    void scrollContentsBy(int dx, int dy) override;
    void changeEvent(QEvent* event) override;

private:
    void invalidate();
    void updateScrollRange();
    [[nodiscard]] double anchorX() const;
    [[nodiscard]] QString tooltipFor(model::SliceRef slice) const;
    /// The tooltip of a track label: its full name, and which of its levels are drawn when not all are.
    [[nodiscard]] QString labelTooltip(int row) const;

    model::TracePtr m_trace;
    TimelineZoom m_zoom;
    TrackLayout m_layout;
    TimelineSearch m_search;
    TimelinePainter m_painter;
    TimelineDecorations m_decorations;
    TimelinePainter::Stats m_stats;
    QImage m_cache;
    bool m_cacheValid = false;

    [[nodiscard]] int contentY(int viewportY) const;

    enum class Drag { None, Pending, Pan, Select, MoveGroup };
    Drag m_drag = Drag::None;
    int m_pressGroup = -1; // a group header pressed in the label column: dragging moves the group
    QPoint m_pressPos;
    QPoint m_lastPos;
    model::TimeNs m_selectAnchor = 0;
};

} // namespace timesink::widgets
