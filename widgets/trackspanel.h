// SPDX-License-Identifier: MIT
#pragma once

#include <QWidget>

class QLineEdit;
class QSpinBox;
class QTreeView;

namespace timesink::widgets {

class TimelineView;
class TrackListModel;

/// The track list of a timeline: every group and track with a check box (shown or hidden) and a pin box,
/// a filter box that narrows the list by name, "Show only matching" to hide every track the filter does not
/// match, and the stack depth host threads show. Groups can be dragged in the list to reorder them. Every
/// change goes through TimelineView::changeLayout, so the timeline and this list always agree.
///
/// The list is a model over the timeline's TrackLayout, not an item per track: it answers for the rows the view
/// shows, so a trace of 1,000,000 tracks costs the same to open and paint as one of ten (a change of the layout
/// repaints; only a change of the groups' order or the filter resets the view). A filter that matches more than
/// kExpandMatchingUpTo groups leaves them collapsed.
class TracksPanel : public QWidget
{
    Q_OBJECT
public:
    enum Column { Name, Pinned, ColumnCount };
    static constexpr int kGroupRole = Qt::UserRole + 1; // group index in TrackLayout::groups(), on group rows
    static constexpr int kTrackRole = Qt::UserRole + 2; // track id, on track rows
    static constexpr int kExpandMatchingUpTo = 2000;

    explicit TracksPanel(TimelineView* timeline, QWidget* parent = nullptr);

    [[nodiscard]] QLineEdit* filter() const { return m_filter; }
    [[nodiscard]] QTreeView* tree() const { return m_tree; }
    [[nodiscard]] QSpinBox* depthLimit() const { return m_depth; }
    /// Hides every track whose name (or group name) the filter does not match; shows those it does.
    void showOnlyMatching();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void onLayoutChanged();
    void onTraceChanged();
    void applyFilter();
    void expandMatching();

    TimelineView* m_timeline;
    TrackListModel* m_model = nullptr;
    QLineEdit* m_filter = nullptr;
    QTreeView* m_tree = nullptr;
    QSpinBox* m_depth = nullptr;
    bool m_updating = false;
};

} // namespace timesink::widgets
