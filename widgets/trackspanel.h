// SPDX-License-Identifier: MIT
#pragma once

#include <QWidget>

class QLineEdit;
class QSpinBox;
class QTreeWidget;
class QTreeWidgetItem;

namespace timesink::widgets {

class TimelineView;

/// The track list of a timeline: every group and track with a check box (shown or hidden) and a pin box,
/// a filter box that narrows the list by name, "Show only matching" to hide every track the filter does not
/// match, and the stack depth host threads show. Groups can be dragged in the list to reorder them. Every
/// change goes through TimelineView::changeLayout, so the timeline and this list always agree.
class TracksPanel : public QWidget
{
    Q_OBJECT
public:
    enum Column { Name, Pinned, ColumnCount };

    explicit TracksPanel(TimelineView* timeline, QWidget* parent = nullptr);

    [[nodiscard]] QLineEdit* filter() const { return m_filter; }
    [[nodiscard]] QTreeWidget* tree() const { return m_tree; }
    [[nodiscard]] QSpinBox* depthLimit() const { return m_depth; }
    /// Hides every track whose name (or group name) the filter does not match; shows those it does.
    void showOnlyMatching();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void rebuild();
    void applyFilter();
    void onItemChanged(QTreeWidgetItem* item, int column);

    TimelineView* m_timeline;
    QLineEdit* m_filter = nullptr;
    QTreeWidget* m_tree = nullptr;
    QSpinBox* m_depth = nullptr;
    bool m_updating = false;
};

} // namespace timesink::widgets
