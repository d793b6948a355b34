// SPDX-License-Identifier: MIT
#include "widgets/flamegraphview.h"

#include "widgets/backgroundrunner.h"
#include "widgets/timeformat.h"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <functional>
#include <memory>
#include <new>

namespace timesink::widgets {

namespace {

QString qs(std::string_view s)
{
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

/// A stable warm colour per name, so one operator looks the same everywhere in the graph.
QColor colorFor(std::string_view name, bool dark)
{
    const std::size_t h = std::hash<std::string_view> {}(name);
    const int hue = 10 + static_cast<int>(h % 40); // red … orange … yellow
    const int sat = 120 + static_cast<int>((h >> 8) % 80);
    return QColor::fromHsv(hue, sat, dark ? 170 : 235);
}

} // namespace

FlameGraphView::FlameGraphView(QWidget* parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("FlameGraphView"));
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setMinimumSize(200, 3 * kRowHeight);
}

void FlameGraphView::setTrace(model::TracePtr trace)
{
    m_trace = std::move(trace);
    m_selection.reset();
    m_dirty = true;
    if (isVisible())
        recompute();
}

void FlameGraphView::setSelection(std::optional<analysis::RangeSelection> selection)
{
    m_selection = std::move(selection);
    m_dirty = true;
    if (isVisible())
        recompute();
}

void FlameGraphView::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (m_dirty)
        recompute();
}

void FlameGraphView::recompute()
{
    m_dirty = false;
    m_tree = {};
    m_zoom = 0;
    m_pressed = -1;
    m_error.clear();
    const std::uint64_t generation = ++m_generation;
    if (!m_trace) {
        m_computing = false;
        m_laidOutWidth = -1;
        layoutNodes();
        update();
        return;
    }
    analysis::CallTreeOptions options;
    options.selection = m_selection.value_or(analysis::RangeSelection {m_trace->startNs(), m_trace->endNs(), {}});
    m_computing = true;
    update();
    // Built away from the UI thread: every host slice of the range is visited (seconds at 10 GB).
    runInBackground(this, [this, trace = m_trace, options, generation]() -> std::function<void()> {
        auto tree = std::make_shared<analysis::CallTree>();
        QString error;
        try {
            *tree = analysis::buildCallTree(*trace, options);
        } catch (const std::bad_alloc&) {
            error = tr("Out of memory building the call stacks of this range");
        }
        return [this, tree, error, generation] {
            if (generation != m_generation)
                return; // a newer trace or range took over meanwhile
            m_tree = std::move(*tree);
            m_error = error;
            m_computing = false;
            m_laidOutWidth = -1;
            layoutNodes();
            update();
            emit treeReady();
        };
    });
}

void FlameGraphView::zoomTo(int node)
{
    if (node < 0 || static_cast<std::size_t>(node) >= m_tree.nodes.size())
        node = 0;
    m_zoom = node;
    m_laidOutWidth = -1;
    layoutNodes();
    update();
}

void FlameGraphView::layoutNodes()
{
    if (m_laidOutWidth == width() && m_rects.size() == m_tree.nodes.size())
        return;
    m_laidOutWidth = width();
    m_rects.assign(m_tree.nodes.size(), QRectF());
    if (m_tree.nodes.empty())
        return;
    // Row 0 is the bar naming the zoom node (or the whole range); the zoom node's children start on row 1.
    const double w = width();
    const analysis::CallTreeNode& top = m_tree.nodes[static_cast<std::size_t>(m_zoom)];
    if (top.totalNs <= 0)
        return;
    m_rects[static_cast<std::size_t>(m_zoom)] = QRectF(0, 0, w, kRowHeight);
    const double pxPerNs = w / static_cast<double>(top.totalNs);
    int deepest = 1;
    // Children are laid out left to right in order of first appearance, each as wide as its host time.
    std::vector<std::pair<int, double>> stack {{m_zoom, 0.0}};
    while (!stack.empty()) {
        const auto [node, x0] = stack.back();
        stack.pop_back();
        const analysis::CallTreeNode& n = m_tree.nodes[static_cast<std::size_t>(node)];
        const int row = n.depth - top.depth + 1;
        double x = x0;
        for (int c : n.children) {
            const analysis::CallTreeNode& child = m_tree.nodes[static_cast<std::size_t>(c)];
            const double cw = static_cast<double>(child.totalNs) * pxPerNs;
            if (cw >= 1.0) { // narrower than a pixel: neither it nor its children can be seen
                m_rects[static_cast<std::size_t>(c)] = QRectF(x, row * kRowHeight, cw, kRowHeight);
                stack.push_back({c, x});
                deepest = std::max(deepest, row + 1);
            }
            x += cw;
        }
    }
    // Tall enough for the deepest visible row, so a scroll area around the graph can reach it.
    setMinimumHeight((deepest + 1) * kRowHeight);
}

QRectF FlameGraphView::nodeRect(int node) const
{
    if (node < 0 || static_cast<std::size_t>(node) >= m_rects.size())
        return {};
    return m_rects[static_cast<std::size_t>(node)];
}

int FlameGraphView::nodeAt(QPoint pos) const
{
    for (std::size_t n = 0; n < m_rects.size(); ++n) {
        if (!m_rects[n].isEmpty() && m_rects[n].contains(pos))
            return static_cast<int>(n);
    }
    return -1;
}

void FlameGraphView::paintEvent(QPaintEvent*)
{
    layoutNodes();
    QPainter p(this);
    const QPalette pal = palette();
    const bool dark = pal.color(QPalette::Base).lightness() < 128;
    p.fillRect(rect(), pal.color(QPalette::Base));
    if (!m_trace || m_computing || m_tree.nodes.size() <= 1) {
        p.setPen(pal.color(QPalette::PlaceholderText));
        const QString text = !m_trace ? tr("Open a trace to see its call stacks")
            : m_computing             ? tr("Adding up the host call stacks…")
            : !m_error.isEmpty()      ? m_error
                                      : tr("No host call stacks in this range");
        p.drawText(rect(), Qt::AlignCenter, text);
        return;
    }
    const QFontMetrics fm = fontMetrics();
    const QColor deviceColor = dark ? QColor(90, 200, 110) : QColor(30, 150, 60);
    for (std::size_t n = 0; n < m_rects.size(); ++n) {
        const QRectF& r = m_rects[n];
        if (r.isEmpty() || r.bottom() < 0 || r.top() > height())
            continue;
        const analysis::CallTreeNode& node = m_tree.nodes[n];
        const QRectF box = r.adjusted(0, 0, -1, -1);
        QString name;
        if (static_cast<int>(n) == m_zoom) {
            p.fillRect(box, pal.color(QPalette::Button));
            name = m_zoom == 0 ? tr("All host stacks: %1").arg(TimeFormat::formatDuration(node.totalNs))
                               : tr("◂ %1: %2 (click to zoom out)")
                                     .arg(qs(m_trace->str(node.name)), TimeFormat::formatDuration(node.totalNs));
            p.setPen(pal.color(QPalette::ButtonText));
        } else {
            const std::string_view nm = m_trace->str(node.name);
            p.fillRect(box, colorFor(nm, dark));
            if (node.deviceNs > 0 && node.totalNs > 0) {
                const double share
                    = std::min(1.0, static_cast<double>(node.deviceNs) / static_cast<double>(node.totalNs));
                p.fillRect(QRectF(box.left(), box.bottom() - 3, box.width() * share, 3), deviceColor);
            }
            name = qs(nm);
            p.setPen(Qt::black);
        }
        if (box.width() > 24)
            p.drawText(box.adjusted(3, 0, -2, -2), Qt::AlignVCenter | Qt::AlignLeft,
                       fm.elidedText(name, Qt::ElideRight, static_cast<int>(box.width()) - 5));
    }
}

void FlameGraphView::mousePressEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton)
        return;
    const int node = nodeAt(event->position().toPoint());
    m_pressed = node;
    if (node == m_zoom && m_zoom != 0)
        zoomTo(m_tree.nodes[static_cast<std::size_t>(m_zoom)].parent);
    else if (node > 0)
        zoomTo(node);
}

void FlameGraphView::mouseDoubleClickEvent(QMouseEvent*)
{
    const int node = m_pressed;
    if (node > 0 && static_cast<std::size_t>(node) < m_tree.nodes.size()
        && m_tree.nodes[static_cast<std::size_t>(node)].maxSlice.isValid())
        emit sliceRequested(m_tree.nodes[static_cast<std::size_t>(node)].maxSlice);
}

void FlameGraphView::keyPressEvent(QKeyEvent* event)
{
    if ((event->key() == Qt::Key_Backspace || event->key() == Qt::Key_Escape) && m_zoom != 0) {
        zoomTo(m_tree.nodes[static_cast<std::size_t>(m_zoom)].parent);
        return;
    }
    QWidget::keyPressEvent(event);
}

bool FlameGraphView::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip && m_trace) {
        auto* help = static_cast<QHelpEvent*>(event);
        const int node = nodeAt(help->pos());
        if (node <= 0) {
            QToolTip::hideText();
            return true;
        }
        const analysis::CallTreeNode& n = m_tree.nodes[static_cast<std::size_t>(node)];
        const analysis::CallTreeNode& top = m_tree.nodes[0];
        const double share
            = top.totalNs > 0 ? 100.0 * static_cast<double>(n.totalNs) / static_cast<double>(top.totalNs) : 0;
        QToolTip::showText(help->globalPos(),
                           QStringLiteral("<b>%1</b><br>").arg(qs(m_trace->str(n.name)).toHtmlEscaped())
                               + tr("host %1 (%2 % of the range), self %3<br>%4 %5, slowest %6<br>"
                                    "device time launched: %7")
                                     .arg(TimeFormat::formatDuration(n.totalNs))
                                     .arg(share, 0, 'f', 1)
                                     .arg(TimeFormat::formatDuration(n.selfNs))
                                     .arg(n.calls)
                                     .arg(n.calls == 1 ? tr("call") : tr("calls"))
                                     .arg(TimeFormat::formatDuration(n.maxNs), TimeFormat::formatDuration(n.deviceNs)),
                           this);
        return true;
    }
    return QWidget::event(event);
}

} // namespace timesink::widgets
