// SPDX-License-Identifier: MIT
#include "widgets/joblinkmap.h"

#include "analysis/job/job.h"

#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>

namespace timesink::widgets {

namespace {

constexpr int kLeft = 70;  // room for "rank 12"
constexpr int kTop = 40;   // the title and the column labels
constexpr int kCellW = 56; // "1234.5" in a default font
constexpr int kCellH = 26;

QColor rgb(std::uint32_t v)
{
    return QColor::fromRgb((v >> 16) & 0xff, (v >> 8) & 0xff, v & 0xff);
}

std::vector<std::int32_t> distinct(std::vector<std::int32_t> v)
{
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    return v;
}

} // namespace

JobLinkMap::JobLinkMap(QWidget* parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("jobLinkMap"));
    setMouseTracking(true);
}

void JobLinkMap::setLinks(std::vector<model::RankLink> links)
{
    m_links = std::move(links);
    std::vector<std::int32_t> src;
    std::vector<std::int32_t> dst;
    for (const model::RankLink& l : m_links) {
        src.push_back(l.src);
        dst.push_back(l.dst);
    }
    m_sources = distinct(std::move(src));
    m_destinations = distinct(std::move(dst));
    m_max = 0;
    for (int r = 0; r < int(m_sources.size()); ++r) {
        for (int c = 0; c < int(m_destinations.size()); ++c) {
            if (m_sources[std::size_t(r)] != m_destinations[std::size_t(c)])
                m_max = std::max(m_max, cellGbPerSecond(r, c));
        }
    }
    updateGeometry();
    resize(sizeHint());
    update();
}

std::vector<std::size_t> JobLinkMap::linksOf(int row, int column) const
{
    std::vector<std::size_t> out;
    if (row < 0 || column < 0 || row >= int(m_sources.size()) || column >= int(m_destinations.size()))
        return out;
    const std::int32_t src = m_sources[std::size_t(row)];
    const std::int32_t dst = m_destinations[std::size_t(column)];
    // m_links is sorted by (src, dst): the pair's transports are one run.
    const auto first = std::lower_bound(m_links.begin(), m_links.end(), std::pair {src, dst},
                                        [](const model::RankLink& l, const std::pair<std::int32_t, std::int32_t>& k) {
                                            return std::pair {l.src, l.dst} < k;
                                        });
    for (auto it = first; it != m_links.end() && it->src == src && it->dst == dst; ++it)
        out.push_back(std::size_t(it - m_links.begin()));
    return out;
}

std::vector<model::RankLink> JobLinkMap::cellLinks(int row, int column) const
{
    std::vector<model::RankLink> out;
    for (const std::size_t i : linksOf(row, column))
        out.push_back(m_links[i]);
    return out;
}

double JobLinkMap::cellGbPerSecond(int row, int column) const
{
    const std::vector<std::size_t> idx = linksOf(row, column);
    if (idx.empty())
        return -1;
    std::int64_t bytes = 0;
    std::int64_t ns = 0;
    for (const std::size_t i : idx) {
        bytes += m_links[i].bytes;
        ns += m_links[i].transitNs;
    }
    return ns > 0 ? double(bytes) / double(ns) : 0.0;
}

QString JobLinkMap::cellText(int row, int column) const
{
    const double v = cellGbPerSecond(row, column);
    return v < 0 ? QString() : QString::number(v, 'f', 1);
}

QRect JobLinkMap::cellRect(int row, int column) const
{
    return {kLeft + column * kCellW, kTop + row * kCellH, kCellW - 1, kCellH - 1};
}

std::pair<int, int> JobLinkMap::cellAt(QPoint pos) const
{
    if (pos.x() < kLeft || pos.y() < kTop)
        return {-1, -1};
    const int c = (pos.x() - kLeft) / kCellW;
    const int r = (pos.y() - kTop) / kCellH;
    if (r >= int(m_sources.size()) || c >= int(m_destinations.size()))
        return {-1, -1};
    return {r, c};
}

QString JobLinkMap::toolTipAt(QPoint pos) const
{
    const auto [r, c] = cellAt(pos);
    const std::vector<model::RankLink> links = cellLinks(r, c);
    if (links.empty())
        return {};
    QString s = tr("rank %1 → rank %2").arg(links.front().src).arg(links.front().dst);
    for (const model::RankLink& l : links)
        s += QStringLiteral("\n")
            + tr("%1: %2 MB in %3 ms = %4 GB/s")
                  .arg(QString::fromStdString(l.transport))
                  .arg(double(l.bytes) / 1e6, 0, 'f', 2)
                  .arg(double(l.transitNs) / 1e6, 0, 'f', 3)
                  .arg(l.gbPerSecond(), 0, 'f', 2);
    return s;
}

QColor JobLinkMap::colorOf(double gbPerSecond) const
{
    return rgb(analysis::jobHeatColor(m_max > 0 ? gbPerSecond / m_max : 0.0));
}

QSize JobLinkMap::sizeHint() const
{
    if (m_links.empty())
        return {320, 60};
    return {kLeft + kCellW * int(m_destinations.size()) + 20, kTop + kCellH * int(m_sources.size()) + 40};
}

void JobLinkMap::paintEvent(QPaintEvent* /*event*/)
{
    QPainter p(this);
    const QColor text = palette().color(QPalette::WindowText);
    p.setPen(text);
    if (m_links.empty()) {
        p.drawText(rect(), Qt::AlignCenter, tr("No link data (Ascend communication_matrix.json only)"));
        return;
    }
    p.drawText(QRect(4, 2, width() - 8, 16), Qt::AlignLeft | Qt::AlignVCenter,
               tr("Link bandwidth, sender (rows) → receiver (columns), GB/s"));
    for (int c = 0; c < int(m_destinations.size()); ++c)
        p.drawText(QRect(kLeft + c * kCellW, kTop - 20, kCellW, 18), Qt::AlignCenter,
                   QString::number(m_destinations[std::size_t(c)]));
    for (int r = 0; r < int(m_sources.size()); ++r) {
        p.setPen(text);
        p.drawText(QRect(4, kTop + r * kCellH, kLeft - 10, kCellH), Qt::AlignRight | Qt::AlignVCenter,
                   tr("rank %1").arg(m_sources[std::size_t(r)]));
        for (int c = 0; c < int(m_destinations.size()); ++c) {
            const QRect cell = cellRect(r, c);
            const double v = cellGbPerSecond(r, c);
            if (v < 0) {
                p.fillRect(cell, palette().color(QPalette::Window));
                continue;
            }
            const bool local = m_sources[std::size_t(r)] == m_destinations[std::size_t(c)];
            const QColor fill = local ? QColor(200, 200, 200) : colorOf(v);
            p.fillRect(cell, fill);
            // Dark text on the light end of the scale, white on the dark end.
            p.setPen(fill.lightness() < 110 ? Qt::white : Qt::black);
            p.drawText(cell, Qt::AlignCenter, cellText(r, c));
        }
    }
    p.setPen(text);
    const int ly = kTop + kCellH * int(m_sources.size()) + 12;
    QLinearGradient g(kLeft, 0, kLeft + 160, 0);
    for (int i = 0; i <= 4; ++i)
        g.setColorAt(i / 4.0, rgb(analysis::jobHeatColor(i / 4.0)));
    p.fillRect(QRect(kLeft, ly, 160, 12), g);
    p.drawRect(QRect(kLeft, ly, 160, 12));
    p.drawText(QRect(4, ly - 2, kLeft - 8, 16), Qt::AlignRight | Qt::AlignVCenter, tr("0"));
    p.drawText(QRect(kLeft + 166, ly - 2, 220, 16), Qt::AlignLeft | Qt::AlignVCenter,
               tr("%1 GB/s; grey: a rank to itself").arg(m_max, 0, 'f', 1));
}

bool JobLinkMap::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QString tip = toolTipAt(help->pos());
        if (tip.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), tip, this);
        return true;
    }
    return QWidget::event(event);
}

} // namespace timesink::widgets
