// SPDX-License-Identifier: MIT
#include "widgets/waterfallchart.h"

#include "widgets/timeformat.h"

#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>

namespace timesink::widgets {

namespace {

constexpr int kRow = 22;
constexpr int kTop = 8;
constexpr int kLabelWidth = 220;
constexpr int kValueWidth = 90;

QString signedDuration(model::TimeNs d)
{
    return d > 0 ? QStringLiteral("+") + TimeFormat::formatDuration(d) : TimeFormat::formatDuration(d);
}

QColor toneColor(WaterfallChart::Bar::Tone t)
{
    switch (t) {
    case WaterfallChart::Bar::Tone::Baseline:
        return QColor(0x4c, 0x78, 0xa8);
    case WaterfallChart::Bar::Tone::Candidate:
        return QColor(0xf5, 0x85, 0x18);
    case WaterfallChart::Bar::Tone::Worse:
        return QColor(0xe4, 0x57, 0x56);
    case WaterfallChart::Bar::Tone::Better:
        break;
    }
    return QColor(0x54, 0xa2, 0x4b);
}

} // namespace

WaterfallChart::WaterfallChart(QWidget* parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("waterfallChart"));
    setMouseTracking(true);
}

void WaterfallChart::setResult(const analysis::CompareResult& r)
{
    m_bars.clear();
    m_deviceLines.clear();
    const model::TimeNs base = r.baselineStepsNs();
    const model::TimeNs cand = r.candidateStepsNs();
    m_bars.push_back(Bar {tr("baseline step time"), 0, base,
                          tr("Baseline step time: %1").arg(TimeFormat::formatDuration(base)), Bar::Tone::Baseline});
    model::TimeNs running = base;
    m_lo = 0;
    m_hi = std::max(base, cand);
    for (const analysis::WaterfallPart& p : r.waterfall) {
        const model::TimeNs next = running + p.deltaNs();
        m_bars.push_back(
            Bar {QString::fromStdString(p.label), running, next,
                 tr("%1 (%2)\nbaseline %3, candidate %4: %5")
                     .arg(QString::fromStdString(p.label), QString::fromUtf8(analysis::waterfallKindKey(p.kind).data()),
                          TimeFormat::formatDuration(p.baselineNs), TimeFormat::formatDuration(p.candidateNs),
                          signedDuration(p.deltaNs())),
                 p.deltaNs() > 0 ? Bar::Tone::Worse : Bar::Tone::Better});
        running = next;
        m_lo = std::min(m_lo, running);
        m_hi = std::max(m_hi, running);
    }
    m_bars.push_back(
        Bar {tr("candidate step time"), 0, cand,
             tr("Candidate step time: %1 (%2)").arg(TimeFormat::formatDuration(cand), signedDuration(cand - base)),
             Bar::Tone::Candidate});
    if (r.baseline.device.hasDeviceWork || r.candidate.device.hasDeviceWork) {
        const analysis::DeviceBreakdown& b = r.baseline.device;
        const analysis::DeviceBreakdown& c = r.candidate.device;
        auto line = [&](const QString& label, model::TimeNs bns, model::TimeNs cns) {
            m_deviceLines << tr("%1: %2 → %3 (%4)")
                                 .arg(label, TimeFormat::formatDuration(bns), TimeFormat::formatDuration(cns),
                                      signedDuration(cns - bns));
        };
        line(tr("Device window"), b.windowNs, c.windowNs);
        line(tr("compute"), b.computeNs, c.computeNs);
        line(tr("exposed communication"), b.exposedCommunicationNs, c.exposedCommunicationNs);
        line(tr("exposed copies"), b.exposedCopyNs, c.exposedCopyNs);
        line(tr("idle"), b.idleNs, c.idleNs);
    }
    updateGeometry();
    update();
}

QSize WaterfallChart::sizeHint() const
{
    return {760,
            kTop * 2 + static_cast<int>(m_bars.size()) * kRow + static_cast<int>((m_deviceLines.size() + 1) / 2) * 18
                + 16};
}

QSize WaterfallChart::minimumSizeHint() const
{
    return {kLabelWidth + kValueWidth + 120, kTop * 2 + 3 * kRow};
}

int WaterfallChart::barAt(QPoint pos) const
{
    const int row = (pos.y() - kTop) / kRow;
    if (pos.y() < kTop || row < 0 || row >= static_cast<int>(m_bars.size()))
        return -1;
    return row;
}

bool WaterfallChart::event(QEvent* e)
{
    if (e->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(e);
        const int i = barAt(help->pos());
        if (i >= 0)
            QToolTip::showText(help->globalPos(), m_bars[static_cast<std::size_t>(i)].tooltip, this);
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(e);
}

void WaterfallChart::paintEvent(QPaintEvent* /*event*/)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing, false);
    p.fillRect(rect(), palette().base());
    if (m_bars.empty())
        return;
    const int area = std::max(40, width() - kLabelWidth - kValueWidth - 16);
    const double span = m_hi > m_lo ? double(m_hi - m_lo) : 1.0;
    auto xOf = [&](model::TimeNs t) { return kLabelWidth + double(t - m_lo) / span * area; };
    const QFontMetrics fm(font());
    model::TimeNs previousEnd = 0;
    for (std::size_t i = 0; i < m_bars.size(); ++i) {
        const Bar& b = m_bars[i];
        const int y = kTop + static_cast<int>(i) * kRow;
        p.setPen(palette().text().color());
        p.drawText(QRect(4, y, kLabelWidth - 10, kRow), Qt::AlignRight | Qt::AlignVCenter,
                   fm.elidedText(b.label, Qt::ElideRight, kLabelWidth - 14));
        const double x0 = xOf(std::min(b.from, b.to));
        const double w = std::max(xOf(std::max(b.from, b.to)) - x0, 1.0);
        p.fillRect(QRectF(x0, y + 3, w, kRow - 6), toneColor(b.tone));
        // The connector from the previous bar's end, as waterfalls draw it.
        if (i > 0) {
            p.setPen(QPen(palette().mid().color(), 1, Qt::DashLine));
            const double cx = xOf(previousEnd);
            p.drawLine(QPointF(cx, y - kRow + kRow - 3), QPointF(cx, y + 3));
        }
        previousEnd = b.to;
        p.setPen(palette().text().color());
        const bool part = i > 0 && i + 1 < m_bars.size();
        const QString value = part ? signedDuration(b.to - b.from) : TimeFormat::formatDuration(b.to - b.from);
        p.drawText(QRectF(x0 + w + 6, y, kValueWidth + 40, kRow), Qt::AlignLeft | Qt::AlignVCenter, value);
    }
    // The device breakdown under the bars, in two columns so that it fits beside a short chart.
    const int top = kTop + static_cast<int>(m_bars.size()) * kRow + 10;
    const int perColumn = std::max(1, static_cast<int>((m_deviceLines.size() + 1) / 2));
    const int columnWidth = std::max(200, (width() - 40) / 2);
    for (int i = 0; i < m_deviceLines.size(); ++i) {
        p.drawText(QRect(20 + (i / perColumn) * columnWidth, top + (i % perColumn) * 18, columnWidth - 10, 18),
                   Qt::AlignLeft | Qt::AlignVCenter, m_deviceLines[i]);
    }
}

} // namespace timesink::widgets
