// SPDX-License-Identifier: MIT
#include "widgets/timelineview.h"

#include "widgets/timeformat.h"

#include <QContextMenuEvent>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

namespace timesink::widgets {

namespace {

constexpr int kDragThresholdPx = 4;
constexpr double kKeyZoomFactor = 1.5;
constexpr double kKeyPanFraction = 0.15;

QString qs(std::string_view s)
{
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

} // namespace

TimelineView::TimelineView(QWidget* parent)
    : QAbstractScrollArea(parent)
{
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);
    viewport()->setMouseTracking(true);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    setMinimumSize(TimelinePainter::kLabelWidth + 200, 120);
    verticalScrollBar()->setSingleStep(TrackLayout::kDepthHeight);
}

void TimelineView::setTrace(model::TracePtr trace)
{
    m_trace = std::move(trace);
    m_decorations = TimelineDecorations {};
    m_decorations.search = &m_search;
    if (m_trace) {
        m_layout = TrackLayout(*m_trace);
        const auto [start, end] = navigableRange(*m_trace);
        m_zoom.setTraceRange(start, end);
    } else {
        m_layout = TrackLayout();
        m_zoom.setTraceRange(0, 1);
    }
    m_zoom.setWidth(viewport()->width() - TimelinePainter::kLabelWidth);
    m_search.setTrace(m_trace.get());
    verticalScrollBar()->setValue(0);
    updateScrollRange();
    invalidate();
    emit traceChanged();
    emit viewChanged();
}

std::pair<model::TimeNs, model::TimeNs> TimelineView::navigableRange(const model::Trace& trace)
{
    std::optional<model::TimeNs> workEnd;
    for (const model::Track& t : trace.tracks()) {
        if (t.empty() && t.counterTimes().empty())
            continue;
        const auto durations = t.durations();
        const bool work = !t.counterTimes().empty()
            || std::any_of(durations.begin(), durations.end(), [](model::TimeNs d) { return d > 0; });
        if (work)
            workEnd = std::max(workEnd.value_or(t.endNs()), t.endNs());
    }
    const model::TimeNs end = std::clamp(workEnd.value_or(trace.endNs()), trace.startNs(), trace.endNs());
    return {trace.startNs(), std::max(end, trace.startNs() + 1)};
}

model::SliceRef TimelineView::sliceAt(QPoint pos) const
{
    if (!m_trace || pos.x() < TimelinePainter::kLabelWidth || pos.y() < TimelinePainter::kRulerHeight)
        return {};
    const int y = contentY(pos.y());
    const int rowIndex = m_layout.rowAt(y);
    if (rowIndex < 0)
        return {};
    const TrackLayout::Row& row = m_layout.rows()[static_cast<std::size_t>(rowIndex)];
    if (row.isHeader())
        return {};
    const model::Track& track = m_trace->track(row.track);
    const auto depth
        = m_layout.firstDepth(row.track) + static_cast<std::size_t>((y - row.y) / TrackLayout::kDepthHeight);
    if (!m_layout.isDepthShown(row.track, depth))
        return {};
    const double x = pos.x() - TimelinePainter::kLabelWidth;
    const model::TimeNs t = m_zoom.timeAt(x);
    // Two pixels of slack so that events narrower than a pixel can still be picked.
    const auto slack = static_cast<model::TimeNs>(std::ceil(2 * m_zoom.nsPerPixel()));
    const auto [first, last] = track.rangeAtDepth(depth, t - slack, t + slack);
    const auto indices = track.slicesAtDepth(depth);
    std::uint32_t best = 0;
    model::TimeNs bestDistance = std::numeric_limits<model::TimeNs>::max();
    for (std::size_t k = first; k < last; ++k) {
        const std::uint32_t i = indices[k];
        const model::TimeNs distance = t < track.ts(i) ? track.ts(i) - t : (t >= track.end(i) ? t - track.end(i) : 0);
        if (distance < bestDistance) {
            bestDistance = distance;
            best = i;
        }
    }
    if (bestDistance == std::numeric_limits<model::TimeNs>::max())
        return {};
    return model::SliceRef {row.track, model::SliceIndex(best)};
}

int TimelineView::contentY(int viewportY) const
{
    // The pinned band under the ruler does not scroll; everything below it does.
    const int y = viewportY - TimelinePainter::kRulerHeight;
    return y < m_layout.pinnedHeight() ? y : y + verticalScrollBar()->value();
}

int TimelineView::rowAtPos(QPoint pos) const
{
    if (!m_trace || pos.y() < TimelinePainter::kRulerHeight)
        return -1;
    return m_layout.rowAt(contentY(pos.y()));
}

int TimelineView::groupHeaderAt(QPoint pos) const
{
    const int rowIndex = rowAtPos(pos);
    if (rowIndex < 0)
        return -1;
    const TrackLayout::Row& row = m_layout.rows()[static_cast<std::size_t>(rowIndex)];
    return row.isHeader() ? row.group : -1;
}

void TimelineView::changeLayout(const std::function<void(TrackLayout&)>& change)
{
    if (!m_trace)
        return;
    change(m_layout);
    updateScrollRange();
    invalidate();
    emit trackLayoutChanged();
}

void TimelineView::setSelectedTracks(std::vector<model::TrackId> tracks)
{
    m_decorations.selectedTracks = std::move(tracks);
    invalidate();
    emit selectedTracksChanged();
}

QMenu* TimelineView::labelMenu(int rowIndex)
{
    if (!m_trace || rowIndex < 0 || static_cast<std::size_t>(rowIndex) >= m_layout.rows().size())
        return nullptr;
    const TrackLayout::Row row = m_layout.rows()[static_cast<std::size_t>(rowIndex)];
    auto* menu = new QMenu(this);
    menu->setAttribute(Qt::WA_DeleteOnClose);
    if (!row.isHeader()) {
        const model::TrackId track = row.track;
        const bool pinned = m_layout.isPinned(track);
        QAction* pin
            = menu->addAction(pinned ? tr("Unpin Track") : tr("Pin Track to Top"), this, [this, track, pinned] {
                  changeLayout([&](TrackLayout& l) { l.setPinned(track, !pinned); });
              });
        pin->setObjectName(QStringLiteral("pinTrack"));
        QAction* hide = menu->addAction(tr("Hide Track"), this, [this, track] {
            changeLayout([&](TrackLayout& l) { l.setTrackHidden(track, true); });
        });
        hide->setObjectName(QStringLiteral("hideTrack"));
        const model::Track& t = m_trace->track(track);
        if (t.depthCount() > 1) {
            QMenu* depth = menu->addMenu(tr("Stack Depth"));
            depth->setObjectName(QStringLiteral("stackDepth"));
            const std::size_t shown = m_layout.visibleDepth(track);
            const std::size_t below = t.depthCount() - m_layout.firstDepth(track);
            for (int levels : {0, 1, 2, 3, 5, 8, 12}) {
                if (levels != 0 && static_cast<std::size_t>(levels) >= below)
                    continue;
                QAction* a = depth->addAction(
                    levels == 0 ? tr("All %1 levels").arg(below)
                                : (levels == 1 ? tr("Top level only") : tr("Top %1 levels").arg(levels)),
                    this,
                    [this, track, levels] { changeLayout([&](TrackLayout& l) { l.setDepthLimit(track, levels); }); });
                a->setCheckable(true);
                a->setChecked(levels == 0 ? shown == below : shown == static_cast<std::size_t>(levels));
            }
            if (const std::size_t trunk = m_layout.trunkDepth(track); trunk > 0) {
                // The Python-only levels above the first framework op, folded when the trace opened.
                depth->addSeparator();
                QAction* fold = depth->addAction(tr("Fold the %1 Python-Only Levels at the Top").arg(trunk), this,
                                                 [this, track, folded = m_layout.firstDepth(track) > 0] {
                                                     changeLayout([&](TrackLayout& l) { l.showTrunk(track, folded); });
                                                 });
                fold->setObjectName(QStringLiteral("foldTrunk"));
                fold->setCheckable(true);
                fold->setChecked(m_layout.firstDepth(track) > 0);
            }
        }
        const bool picked
            = std::find(selectedTracks().begin(), selectedTracks().end(), track) != selectedTracks().end();
        menu->addAction(picked ? tr("Drop from Statistics Selection") : tr("Add to Statistics Selection (Ctrl+Click)"),
                        this, [this, track, picked] {
                            std::vector<model::TrackId> tracks = selectedTracks();
                            if (picked)
                                tracks.erase(std::find(tracks.begin(), tracks.end(), track));
                            else
                                tracks.push_back(track);
                            setSelectedTracks(std::move(tracks));
                        });
    }
    if (!row.pinned && row.group >= 0) {
        const int group = row.group;
        QAction* hideGroup
            = menu->addAction(tr("Hide Group “%1”").arg(m_layout.groups()[static_cast<std::size_t>(group)].title), this,
                              [this, group] { changeLayout([&](TrackLayout& l) { l.setGroupHidden(group, true); }); });
        hideGroup->setObjectName(QStringLiteral("hideGroup"));
    }
    menu->addSeparator();
    QAction* showAll
        = menu->addAction(tr("Show All Tracks"), this, [this] { changeLayout([](TrackLayout& l) { l.showAll(); }); });
    showAll->setObjectName(QStringLiteral("showAllTracks"));
    return menu;
}

void TimelineView::contextMenuEvent(QContextMenuEvent* event)
{
    if (event->pos().x() >= TimelinePainter::kLabelWidth) {
        event->ignore();
        return;
    }
    if (QMenu* menu = labelMenu(rowAtPos(viewport()->mapFrom(this, event->pos()))))
        menu->popup(event->globalPos());
}

void TimelineView::selectSlice(model::SliceRef slice, bool reveal)
{
    if (m_trace && slice.isValid()
        && (slice.track.value >= m_trace->tracks().size() || slice.index.value >= m_trace->track(slice.track).size()))
        slice = {};
    if (reveal && slice.isValid()) {
        const model::Track& track = m_trace->track(slice.track);
        const model::TimeNs ts = track.ts(slice.index.value);
        const model::TimeNs end = track.end(slice.index.value);
        if (end - ts > m_zoom.span()) {
            showRange(ts, end);
        } else if (ts < m_zoom.start() || end > m_zoom.end()) {
            // Keep the zoom level; centre the slice.
            const model::TimeNs half = m_zoom.span() / 2;
            const model::TimeNs centre = ts + (end - ts) / 2;
            m_zoom.setRange(centre - half, centre - half + m_zoom.span());
        }
        // A slice in the folded Python levels at the top of its thread: unfold them to show it.
        if (track.depth(slice.index.value) < m_layout.firstDepth(slice.track))
            changeLayout([&](TrackLayout& l) { l.showTrunk(slice.track, true); });
        revealTrack(slice.track);
    }
    const bool changed = slice != m_decorations.selected;
    m_decorations.selected = slice;
    invalidate();
    if (changed)
        emit sliceSelected(slice);
    if (reveal)
        emit viewChanged();
}

void TimelineView::setHighlighted(std::vector<model::SliceRef> events)
{
    m_decorations.highlighted = std::move(events);
    invalidate();
}

void TimelineView::setCriticalPath(std::vector<analysis::PathSegment> segments)
{
    m_decorations.criticalPath.assign(std::move(segments));
    invalidate();
}

void TimelineView::setTimeSelection(std::optional<std::pair<model::TimeNs, model::TimeNs>> range)
{
    m_decorations.timeSelection = range;
    invalidate();
}

void TimelineView::selectTimeRange(std::optional<std::pair<model::TimeNs, model::TimeNs>> range)
{
    setTimeSelection(range);
    emit timeSelectionChanged(m_decorations.timeSelection);
}

void TimelineView::showRange(model::TimeNs t0, model::TimeNs t1)
{
    m_zoom.showRange(t0, t1);
    invalidate();
    emit viewChanged();
}

void TimelineView::revealTrack(model::TrackId track)
{
    if (!m_trace || !track.isValid() || track.value >= m_trace->tracks().size())
        return;
    if (m_layout.rowOfTrack(track) < 0) {
        // Asked to go there: open its group, and show it if it was hidden.
        const int g = m_layout.groupOfTrack(track);
        if (g >= 0) {
            m_layout.setCollapsed(g, false);
            if (m_layout.groups()[static_cast<std::size_t>(g)].hidden)
                m_layout.setGroupHidden(g, false);
        }
        if (m_layout.isTrackHidden(track))
            m_layout.setTrackHidden(track, false);
        updateScrollRange();
    }
    const int row = m_layout.rowOfTrack(track);
    if (row < 0)
        return;
    const TrackLayout::Row& r = m_layout.rows()[static_cast<std::size_t>(row)];
    if (r.pinned) {
        invalidate();
        return;
    }
    const int pinned = m_layout.pinnedHeight();
    const int visible = viewport()->height() - TimelinePainter::kRulerHeight - pinned;
    const int top = verticalScrollBar()->value() + pinned;
    if (r.y < top || r.y + std::min(r.height, visible) > top + visible)
        verticalScrollBar()->setValue(std::max(0, r.y - pinned - visible / 3));
    invalidate();
}

void TimelineView::fitAll()
{
    m_zoom.fitAll();
    invalidate();
    emit viewChanged();
}

void TimelineView::zoomToSelection()
{
    if (m_decorations.timeSelection) {
        const auto [a, b] = *m_decorations.timeSelection;
        m_zoom.setRange(std::min(a, b), std::max(a, b));
        // The range now fills the view: a tint over everything would only hide the colours. Its statistics
        // stay where they are shown (no timeSelectionChanged).
        m_decorations.timeSelection.reset();
    } else if (m_trace && m_decorations.selected.isValid()) {
        const model::Track& track = m_trace->track(m_decorations.selected.track);
        const std::uint32_t i = m_decorations.selected.index.value;
        m_zoom.showRange(track.ts(i), track.end(i));
    } else {
        return;
    }
    invalidate();
    emit viewChanged();
}

void TimelineView::zoomBy(double factor)
{
    m_zoom.zoomAround(factor, anchorX());
    invalidate();
    emit viewChanged();
}

void TimelineView::panBy(double fractionOfWidth)
{
    m_zoom.panPixels(fractionOfWidth * m_zoom.width());
    invalidate();
    emit viewChanged();
}

std::size_t TimelineView::setSearchQuery(const QString& query)
{
    const std::size_t n = m_search.search(query);
    // Start stepping from what is on screen, not from the beginning of the trace.
    m_search.seek(m_zoom.start());
    m_decorations.currentMatch = {};
    invalidate();
    return n;
}

model::SliceRef TimelineView::nextMatch()
{
    const model::SliceRef r = m_search.next();
    m_decorations.currentMatch = r;
    selectSlice(r, true);
    return r;
}

model::SliceRef TimelineView::previousMatch()
{
    const model::SliceRef r = m_search.previous();
    m_decorations.currentMatch = r;
    selectSlice(r, true);
    return r;
}

QImage TimelineView::renderImage() const
{
    const qreal dpr = devicePixelRatioF();
    QImage image(viewport()->size() * dpr, QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(dpr);
    QPainter p(&image);
    p.setFont(font());
    if (m_trace) {
        m_painter.paint(p, viewport()->size(), *m_trace, m_zoom, m_layout, verticalScrollBar()->value(), m_decorations,
                        palette());
    } else {
        p.fillRect(QRect(QPoint(0, 0), viewport()->size()), palette().color(QPalette::Base));
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(QRect(QPoint(0, 0), viewport()->size()), Qt::AlignCenter,
                   tr("Open a trace (File → Open, or drop a file here)"));
    }
    return image;
}

void TimelineView::paintEvent(QPaintEvent*)
{
    if (!m_cacheValid || m_cache.size() != viewport()->size() * devicePixelRatioF()) {
        const qreal dpr = devicePixelRatioF();
        m_cache = QImage(viewport()->size() * dpr, QImage::Format_ARGB32_Premultiplied);
        m_cache.setDevicePixelRatio(dpr);
        QPainter p(&m_cache);
        p.setFont(font());
        if (m_trace) {
            m_stats = m_painter.paint(p, viewport()->size(), *m_trace, m_zoom, m_layout, verticalScrollBar()->value(),
                                      m_decorations, palette());
        } else {
            p.fillRect(QRect(QPoint(0, 0), viewport()->size()), palette().color(QPalette::Base));
            p.setPen(palette().color(QPalette::PlaceholderText));
            p.drawText(QRect(QPoint(0, 0), viewport()->size()), Qt::AlignCenter,
                       tr("Open a trace (File → Open, or drop a file here)"));
        }
        m_cacheValid = true;
    }
    QPainter p(viewport());
    p.drawImage(QPoint(0, 0), m_cache);
}

void TimelineView::resizeEvent(QResizeEvent* event)
{
    QAbstractScrollArea::resizeEvent(event);
    m_zoom.setWidth(viewport()->width() - TimelinePainter::kLabelWidth);
    updateScrollRange();
    invalidate();
}

void TimelineView::wheelEvent(QWheelEvent* event)
{
    const QPointF pos = event->position();
    const int delta = event->angleDelta().y();
    if (delta == 0 || !m_trace) {
        event->ignore();
        return;
    }
    if (pos.x() < TimelinePainter::kLabelWidth || (event->modifiers() & Qt::ShiftModifier)) {
        verticalScrollBar()->setValue(verticalScrollBar()->value() - delta / 120 * 3 * TrackLayout::kDepthHeight);
        event->accept();
        return;
    }
    // 120 units = one notch = 1.25×, so trackpads with small deltas zoom smoothly.
    m_zoom.zoomAround(std::pow(1.25, delta / 120.0), pos.x() - TimelinePainter::kLabelWidth);
    invalidate();
    emit viewChanged();
    event->accept();
}

void TimelineView::mousePressEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton) {
        QAbstractScrollArea::mousePressEvent(event);
        return;
    }
    m_pressPos = event->position().toPoint();
    m_lastPos = m_pressPos;
    m_pressGroup = m_pressPos.x() < TimelinePainter::kLabelWidth ? groupHeaderAt(m_pressPos) : -1;
    if ((event->modifiers() & Qt::ShiftModifier) && m_pressPos.x() >= TimelinePainter::kLabelWidth) {
        m_drag = Drag::Select;
        m_selectAnchor = m_zoom.timeAt(m_pressPos.x() - TimelinePainter::kLabelWidth);
        setTimeSelection(std::pair(m_selectAnchor, m_selectAnchor));
    } else {
        m_drag = Drag::Pending;
    }
    event->accept();
}

void TimelineView::mouseMoveEvent(QMouseEvent* event)
{
    const QPoint pos = event->position().toPoint();
    if (m_drag == Drag::Pending && (pos - m_pressPos).manhattanLength() >= kDragThresholdPx) {
        m_drag = m_pressGroup >= 0 ? Drag::MoveGroup : Drag::Pan;
        viewport()->setCursor(m_drag == Drag::MoveGroup ? Qt::SizeVerCursor : Qt::ClosedHandCursor);
    }
    if (m_drag == Drag::Pan) {
        const QPoint d = pos - m_lastPos;
        m_zoom.panPixels(-d.x());
        verticalScrollBar()->setValue(verticalScrollBar()->value() - d.y());
        invalidate();
        emit viewChanged();
    } else if (m_drag == Drag::Select) {
        const model::TimeNs t = m_zoom.timeAt(std::max(0, pos.x() - TimelinePainter::kLabelWidth));
        setTimeSelection(std::pair(std::min(m_selectAnchor, t), std::max(m_selectAnchor, t)));
        QToolTip::showText(event->globalPosition().toPoint(), TimeFormat::formatDuration(std::abs(t - m_selectAnchor)),
                           this);
    }
    m_lastPos = pos;
    event->accept();
}

void TimelineView::mouseReleaseEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton) {
        QAbstractScrollArea::mouseReleaseEvent(event);
        return;
    }
    const QPoint pos = event->position().toPoint();
    if (m_drag == Drag::MoveGroup) {
        // Dropped on a group (its header or one of its tracks): the dragged group takes its place.
        const int rowIndex = rowAtPos(pos);
        int target = -1;
        if (rowIndex >= 0 && !m_layout.rows()[static_cast<std::size_t>(rowIndex)].pinned)
            target = m_layout.rows()[static_cast<std::size_t>(rowIndex)].group;
        else if (pos.y() >= TimelinePainter::kRulerHeight + m_layout.pinnedHeight() && rowIndex < 0
                 && contentY(pos.y()) >= m_layout.totalHeight())
            target = static_cast<int>(m_layout.groups().size()) - 1; // below the last group
        const int from = m_pressGroup;
        if (target >= 0 && target != from)
            changeLayout([from, target](TrackLayout& l) { l.moveGroup(from, target); });
    } else if (m_drag == Drag::Pending && (event->modifiers() & Qt::ControlModifier)
               && pos.x() < TimelinePainter::kLabelWidth) {
        // Ctrl+click on a track label picks (or drops) it for the range statistics.
        const int rowIndex = rowAtPos(pos);
        if (rowIndex >= 0 && !m_layout.rows()[static_cast<std::size_t>(rowIndex)].isHeader()) {
            const model::TrackId track = m_layout.rows()[static_cast<std::size_t>(rowIndex)].track;
            std::vector<model::TrackId> tracks = selectedTracks();
            if (auto it = std::find(tracks.begin(), tracks.end(), track); it != tracks.end())
                tracks.erase(it);
            else
                tracks.push_back(track);
            setSelectedTracks(std::move(tracks));
        }
    } else if (m_drag == Drag::Pending) {
        if (const int group = groupHeaderAt(pos); group >= 0) {
            m_layout.toggleCollapsed(group);
            updateScrollRange();
            invalidate();
        } else {
            if (m_decorations.timeSelection) {
                setTimeSelection(std::nullopt);
                emit timeSelectionChanged(std::nullopt);
            }
            selectSlice(sliceAt(pos));
        }
    } else if (m_drag == Drag::Select) {
        // The release point ends the range, even when no move was reported for it.
        const model::TimeNs t = m_zoom.timeAt(std::max(0, pos.x() - TimelinePainter::kLabelWidth));
        setTimeSelection(std::pair(std::min(m_selectAnchor, t), std::max(m_selectAnchor, t)));
        if (m_decorations.timeSelection && m_decorations.timeSelection->first == m_decorations.timeSelection->second)
            setTimeSelection(std::nullopt);
        emit timeSelectionChanged(m_decorations.timeSelection);
    }
    m_drag = Drag::None;
    m_pressGroup = -1;
    viewport()->unsetCursor();
    event->accept();
}

void TimelineView::keyPressEvent(QKeyEvent* event)
{
    switch (event->key()) {
    case Qt::Key_W:
        zoomBy(kKeyZoomFactor);
        break;
    case Qt::Key_S:
        zoomBy(1.0 / kKeyZoomFactor);
        break;
    case Qt::Key_A:
        panBy(-kKeyPanFraction);
        break;
    case Qt::Key_D:
        panBy(kKeyPanFraction);
        break;
    case Qt::Key_F:
        fitAll();
        break;
    case Qt::Key_Z:
        zoomToSelection();
        break;
    case Qt::Key_Escape:
        setTimeSelection(std::nullopt);
        emit timeSelectionChanged(std::nullopt);
        selectSlice({});
        break;
    default:
        QAbstractScrollArea::keyPressEvent(event);
        return;
    }
    event->accept();
}

bool TimelineView::viewportEvent(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QString text = help->pos().x() < TimelinePainter::kLabelWidth ? labelTooltip(rowAtPos(help->pos()))
                                                                            : tooltipFor(sliceAt(help->pos()));
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, viewport());
        return true;
    }
    return QAbstractScrollArea::viewportEvent(event);
}

QString TimelineView::labelTooltip(int rowIndex) const
{
    if (!m_trace || rowIndex < 0 || static_cast<std::size_t>(rowIndex) >= m_layout.rows().size())
        return {};
    const TrackLayout::Row& row = m_layout.rows()[static_cast<std::size_t>(rowIndex)];
    if (row.isHeader())
        return m_layout.groups()[static_cast<std::size_t>(row.group)].title;
    const model::Track& t = m_trace->track(row.track);
    QString text = TrackLayout::trackLabel(*m_trace, t);
    const std::size_t first = m_layout.firstDepth(row.track);
    const std::size_t shown = m_layout.visibleDepth(row.track);
    if (first > 0)
        text += tr("\nThe top %1 levels hold only Python frames and are folded: levels %2–%3 of %4 are shown.")
                    .arg(first)
                    .arg(first + 1)
                    .arg(first + shown)
                    .arg(t.depthCount());
    else if (shown < t.depthCount())
        text += tr("\nThe top %1 of %2 levels are shown.").arg(shown).arg(t.depthCount());
    if (shown < t.depthCount())
        text += tr("\nRight-click → Stack Depth to change.");
    return text;
}

void TimelineView::scrollContentsBy(int, int)
{
    invalidate();
}

void TimelineView::changeEvent(QEvent* event)
{
    // A palette switch (light ↔ dark) changes every colour.
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange)
        invalidate();
    QAbstractScrollArea::changeEvent(event);
}

void TimelineView::invalidate()
{
    m_cacheValid = false;
    viewport()->update();
}

void TimelineView::updateScrollRange()
{
    // The pinned band takes part of the height and scrolled rows start below it: the range is the same.
    const int visible = viewport()->height() - TimelinePainter::kRulerHeight;
    verticalScrollBar()->setPageStep(std::max(1, visible));
    verticalScrollBar()->setRange(0, std::max(0, m_layout.totalHeight() - visible));
}

double TimelineView::anchorX() const
{
    // Keyboard zoom keeps the time under the mouse fixed when the mouse is over the time area.
    const QPoint pos = viewport()->mapFromGlobal(QCursor::pos());
    if (viewport()->rect().contains(pos) && pos.x() >= TimelinePainter::kLabelWidth)
        return pos.x() - TimelinePainter::kLabelWidth;
    return m_zoom.width() / 2.0;
}

QString TimelineView::tooltipFor(model::SliceRef slice) const
{
    if (!m_trace || !slice.isValid())
        return {};
    const model::Track& track = m_trace->track(slice.track);
    const std::uint32_t i = slice.index.value;
    QString text = QStringLiteral("<b>") + qs(m_trace->str(track.sliceName(i))).toHtmlEscaped()
        + QStringLiteral("</b><br>") + TimeFormat::formatDuration(track.dur(i)) + QStringLiteral(" · ")
        + qs(model::categoryLabel(track.category(i)));
    if (!track.rawCategory(i).isEmpty())
        text += QStringLiteral(" (") + qs(m_trace->str(track.rawCategory(i))).toHtmlEscaped() + QLatin1Char(')');
    text += QStringLiteral("<br>at ") + TimeFormat::formatDuration(track.ts(i) - m_trace->startNs())
        + QStringLiteral(" on ") + TrackLayout::trackLabel(*m_trace, track).toHtmlEscaped();
    return text;
}

} // namespace timesink::widgets
