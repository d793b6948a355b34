// SPDX-License-Identifier: MIT
#pragma once

#include "model/trace.h"
#include "widgets/timelinepainter.h"
#include "widgets/timelinesearch.h"
#include "widgets/timelinezoom.h"
#include "widgets/tracklayout.h"

#include <QAbstractScrollArea>
#include <QImage>

#include <optional>
#include <vector>

namespace timesink::widgets {

/// The interactive timeline: owns the zoom, the layout and the search of one trace and paints them with
/// TimelinePainter into a cached image (hovering and tooltips do not repaint).
///
/// Input: wheel zooms around the cursor (over the labels it scrolls); W/S zoom, A/D pan, F fits all,
/// Z zooms to the selection; drag pans, Shift+drag selects a time range; click selects a slice or
/// collapses a group; Esc clears the selection.
class TimelineView : public QAbstractScrollArea
{
    Q_OBJECT
public:
    explicit TimelineView(QWidget* parent = nullptr);

    /// Shows `trace` (fit all, nothing selected). A null trace shows nothing.
    void setTrace(model::TracePtr trace);
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

    /// Selects a slice (invalid ref clears); with `reveal`, scrolls and pans so that it is on screen.
    void selectSlice(model::SliceRef slice, bool reveal = false);
    /// Outlines the events of a finding (empty clears).
    void setHighlighted(std::vector<model::SliceRef> events);
    void setTimeSelection(std::optional<std::pair<model::TimeNs, model::TimeNs>> range);

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

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    bool viewportEvent(QEvent* event) override;
    void scrollContentsBy(int dx, int dy) override;
    void changeEvent(QEvent* event) override;

private:
    void invalidate();
    void updateScrollRange();
    [[nodiscard]] double anchorX() const;
    [[nodiscard]] QString tooltipFor(model::SliceRef slice) const;

    model::TracePtr m_trace;
    TimelineZoom m_zoom;
    TrackLayout m_layout;
    TimelineSearch m_search;
    TimelinePainter m_painter;
    TimelineDecorations m_decorations;
    TimelinePainter::Stats m_stats;
    QImage m_cache;
    bool m_cacheValid = false;

    enum class Drag { None, Pending, Pan, Select };
    Drag m_drag = Drag::None;
    QPoint m_pressPos;
    QPoint m_lastPos;
    model::TimeNs m_selectAnchor = 0;
};

} // namespace timesink::widgets
