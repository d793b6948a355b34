// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/finding.h"
#include "analysis/explore/rangestats.h"
#include "app/gui/traceloadjob.h"
#include "model/trace.h"

#include <QObject>

#include <optional>
#include <vector>

namespace timesink::widgets {
class TimelineView;
} // namespace timesink::widgets

namespace timesink::gui {

/// The one interface between the main window and the views docked in it. The window announces what is shown and
/// selected here and answers what the views ask for here; it names no view. A view hears what it needs by
/// connecting to the announcements when its dock is registered (dockregistry.h) and asks by emitting (or forwarding
/// its own signals to) the requests. Direct connections only: the window and every view live on the UI thread.
///
///     connect(&hub, &ViewHub::traceChanged, view, &widgets::RangeStatsView::setTrace);
///     connect(view, &widgets::RangeStatsView::sliceRequested, &hub, &ViewHub::sliceRequested);
class ViewHub : public QObject
{
    Q_OBJECT
public:
    /// `timeline` is the window's central timeline, for views that work on it directly (the tracks panel).
    ViewHub(widgets::TimelineView* timeline, QObject* parent);

    [[nodiscard]] widgets::TimelineView* timeline() const { return m_timeline; }

signals:
    // Announced by the window, in this order for a new trace: analysisChanged, traceChanged, (the window paints the
    // new timeline), traceShown. The analysis of the trace on screen arriving later repeats analysisChanged alone.

    /// The analysis of the trace on screen (`current.analysis`: findings, kinds not assessed) changed; `analysing`
    /// while it still runs (the timeline is shown before the analyses finish), `current.analysis.cancelled` when it
    /// was stopped.
    void analysisChanged(const timesink::gui::LoadedTrace& current, bool analysing);
    /// Another trace is on screen (nullptr: none): forget everything about the previous one. Cheap work only: the
    /// window paints the new timeline right after.
    void traceChanged(const timesink::model::TracePtr& trace);
    /// The new trace's timeline has been painted: the place for work that aggregates the whole trace (an operator
    /// table, a flame graph), so the user sees the trace first.
    void traceShown(const timesink::model::TracePtr& trace);
    /// The explorer's selection (a Shift+drag range with the tracks picked by Ctrl+click) changed; nullopt: none.
    void rangeSelectionChanged(const std::optional<timesink::analysis::RangeSelection>& selection);
    /// The user selected a slice of `trace` on the timeline.
    void sliceSelected(const timesink::model::Trace& trace, timesink::model::SliceRef slice);
    /// The window selected `finding` (of `trace`, nullptr when none is shown) and zoomed the timeline to it.
    void findingSelected(const timesink::model::Trace* trace, const timesink::analysis::Finding& finding);
    /// Finding `row` of `analysisChanged`'s findings is to be the current one (command line `--finding`): the view
    /// that lists findings selects it, and asks for it with findingRequested.
    void findingPicked(int row);

    // Asked by the views; the window answers.

    /// Select, scroll and zoom the timeline to `slice` ("go there").
    void sliceRequested(timesink::model::SliceRef slice);
    /// Outline `slices` on the timeline (empty: none).
    void highlightRequested(const std::vector<timesink::model::SliceRef>& slices);
    /// Show [start, end] of `track` on the timeline.
    void rangeRequested(timesink::model::TrackId track, timesink::model::TimeNs start, timesink::model::TimeNs end);
    /// Make finding `row` of the current analysis the selected one (-1: none): the window zooms to it and announces
    /// findingSelected.
    void findingRequested(int row);

private:
    widgets::TimelineView* m_timeline;
};

} // namespace timesink::gui
