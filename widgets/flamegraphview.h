// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/explore/calltree.h"
#include "model/trace.h"

#include <QWidget>

#include <cstdint>
#include <optional>

namespace timesink::widgets {

/// An icicle graph of the host call stacks in the time selection (or the whole trace): each box is a call path,
/// as wide as its host time, its children below it; a green strip along the bottom of a box shows the share
/// of its host time that its launches kept the device busy, and the tooltip gives both figures.
/// Click a box to zoom into it (it fills the width); click the top bar or press Backspace to go back out;
/// double-click jumps to the slowest call of the box.
class FlameGraphView : public QWidget
{
    Q_OBJECT
public:
    static constexpr int kRowHeight = 20;

    explicit FlameGraphView(QWidget* parent = nullptr);

    void setTrace(model::TracePtr trace);
    /// The range whose stacks are shown (nullopt: the whole trace).
    void setSelection(std::optional<analysis::RangeSelection> selection);
    [[nodiscard]] const analysis::CallTree& tree() const { return m_tree; }
    /// True while the tree of the current trace and range is being built (away from the UI thread in the app;
    /// treeReady() follows).
    [[nodiscard]] bool computing() const { return m_computing; }
    /// The node filling the width (0: the root).
    [[nodiscard]] int zoomNode() const { return m_zoom; }
    void zoomTo(int node);
    /// The node drawn under a widget position, or -1 (the top bar is the zoom node's parent chain: -1 too).
    [[nodiscard]] int nodeAt(QPoint pos) const;
    /// The rectangle of a node at the current zoom (empty when not drawn).
    [[nodiscard]] QRectF nodeRect(int node) const;

    [[nodiscard]] QSize sizeHint() const override { return {600, 240}; }

signals:
    void sliceRequested(timesink::model::SliceRef slice);
    /// The tree of the current trace and range is in tree().
    void treeReady();

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    bool event(QEvent* event) override;
    void showEvent(QShowEvent* event) override;

private:
    void recompute();
    void layoutNodes();

    model::TracePtr m_trace;
    std::optional<analysis::RangeSelection> m_selection;
    analysis::CallTree m_tree;
    bool m_computing = false;
    std::uint64_t m_generation = 0; // of the last recompute(): older results are dropped
    QString m_error;                // why the last tree could not be built (out of memory …)
    std::vector<QRectF> m_rects;    // by node, at the current zoom and width (empty rect: not drawn)
    int m_zoom = 0;
    int m_pressed = -1; // the node under the last press (a double-click's first press may have zoomed)
    bool m_dirty = true;
    int m_laidOutWidth = -1;
};

} // namespace timesink::widgets
