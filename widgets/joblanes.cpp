// SPDX-License-Identifier: MIT
#include "widgets/joblanes.h"

#include "widgets/timeformat.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHelpEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMouseEvent>
#include <QPainter>
#include <QRegularExpression>
#include <QScrollBar>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace timesink::widgets {

namespace {

const QColor kOutside(0xe4, 0xe4, 0xe4);
const QColor kTransfer(0x21, 0x66, 0xac);
// Idle inside a collective (no plane task running): apart from the transfer blue and every other lane colour.
const QColor kCollectiveIdle(0x76, 0x2a, 0x83);
const QColor kOverlapped(0x92, 0xc5, 0xde);
const QColor kWaitBack(0xf4, 0xa6, 0xa6);
const QColor kWaitLine(0xc0, 0x39, 0x2b);
const QColor kEdge(0xa0, 0x00, 0x26);
// What the device did outside the collectives (StepActivity), apart from the collectives' blues and reds.
const QColor kCompute(0x4d, 0xac, 0x26);
const QColor kCopy(0xe0, 0x82, 0x14);
const QColor kIdle(0xef, 0xd5, 0x95);

/// What a segment is, in the words of the figures beside it; a lane's waiting is the rank's measured wait when it
/// measured one (RankLane::measuredSplit), else the wait alignment found before the last rank arrived.
QString segmentText(analysis::LaneKind kind, bool measured)
{
    switch (kind) {
    case analysis::LaneKind::Wait:
        return measured ? JobLanesView::tr("waiting for peers (the rank's wait tasks)")
                        : JobLanesView::tr("waiting for the last rank");
    case analysis::LaneKind::Transfer:
        return measured ? JobLanesView::tr("moving data in the collective")
                        : JobLanesView::tr("in the collective after all arrived");
    case analysis::LaneKind::CollectiveIdle:
        return JobLanesView::tr("idle inside the collective (no plane task running)");
    case analysis::LaneKind::Overlapped:
        return JobLanesView::tr("collective overlapped by compute");
    case analysis::LaneKind::Compute:
        return JobLanesView::tr("device compute");
    case analysis::LaneKind::Copy:
        return JobLanesView::tr("copy / memset");
    case analysis::LaneKind::Idle:
        return JobLanesView::tr("device idle");
    }
    return {};
}

QBrush waitBrush()
{
    QBrush b(kWaitLine, Qt::BDiagPattern);
    return b;
}

model::TimeNs tickStep(model::TimeNs span, int count)
{
    const double raw = std::max(1.0, double(span) / std::max(1, count));
    const double p = std::pow(10.0, std::floor(std::log10(raw)));
    for (const double m : {1.0, 2.0, 5.0, 10.0}) {
        if (m * p >= raw)
            return std::max<model::TimeNs>(1, static_cast<model::TimeNs>(m * p));
    }
    return std::max<model::TimeNs>(1, static_cast<model::TimeNs>(10 * p));
}

const analysis::JobRankStep* rankStep(const analysis::JobRank& r, std::int64_t step)
{
    const auto it = std::lower_bound(r.steps.begin(), r.steps.end(), step,
                                     [](const analysis::JobRankStep& s, std::int64_t n) { return s.number < n; });
    return it != r.steps.end() && it->number == step ? &*it : nullptr;
}

} // namespace

namespace {

/// The time axis above the lanes, painted by the view.
class LanesAxis : public QWidget
{
public:
    explicit LanesAxis(JobLanesView* view)
        : QWidget(view)
        , m_view(view)
    {
    }

protected:
    void paintEvent(QPaintEvent*) override
    {
        QPainter p(this);
        m_view->paintAxis(p, width());
    }

private:
    JobLanesView* m_view;
};

} // namespace

JobLanesView::JobLanesView(QWidget* parent)
    : QAbstractScrollArea(parent)
    , m_axis(new LanesAxis(this))
{
    setObjectName(QStringLiteral("jobLanes"));
    viewport()->setMouseTracking(true);
    setViewportMargins(0, kAxisHeight, 0, 0);
    verticalScrollBar()->setSingleStep(kLaneHeight);
}

void JobLanesView::setStep(const analysis::JobResult* job, std::int64_t step, analysis::LaneAlign align,
                           std::size_t collective)
{
    m_job = job;
    m_lanes = job ? analysis::stepLanes(*job, step, align, collective) : analysis::StepLanes {};
    rebuildOrder();
}

void JobLanesView::setSort(Sort sort)
{
    m_sort = sort;
    rebuildOrder();
}

bool JobLanesView::setRankFilter(const QString& filter)
{
    std::vector<std::pair<std::int64_t, std::int64_t>> ranges;
    static const QRegularExpression item(QStringLiteral("^\\s*(\\d*)\\s*(-?)\\s*(\\d*)\\s*$"));
    for (const QString& part : filter.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const QRegularExpressionMatch m = item.match(part);
        if (!m.hasMatch() || (m.captured(1).isEmpty() && m.captured(3).isEmpty()))
            return false;
        const bool range = !m.captured(2).isEmpty();
        const std::int64_t a = m.captured(1).isEmpty() ? 0 : m.captured(1).toLongLong();
        const std::int64_t b = m.captured(3).isEmpty() ? (range ? std::numeric_limits<std::int64_t>::max() : a)
                                                       : m.captured(3).toLongLong();
        if (!range && m.captured(1).isEmpty())
            return false;
        ranges.emplace_back(std::min(a, b), std::max(a, b));
    }
    m_filter = std::move(ranges);
    rebuildOrder();
    return true;
}

void JobLanesView::rebuildOrder()
{
    m_order.clear();
    for (std::size_t i = 0; i < m_lanes.lanes.size(); ++i) {
        const std::int64_t rank = m_job->ranks[m_lanes.lanes[i].rankIndex].rank;
        const bool shown = m_filter.empty() || std::any_of(m_filter.begin(), m_filter.end(), [rank](const auto& r) {
                               return rank >= r.first && rank <= r.second;
                           });
        if (shown)
            m_order.push_back(i);
    }
    const auto key = [this](std::size_t i) -> model::TimeNs {
        const analysis::RankLane& l = m_lanes.lanes[i];
        switch (m_sort) {
        case Sort::Rank:
            return 0;
        case Sort::Wait:
            return l.waitNs;
        case Sort::StepTime:
            return l.stepEnd - l.stepStart;
        case Sort::CausedWait:
            if (const auto* s = rankStep(m_job->ranks[l.rankIndex], m_lanes.step))
                return s->causedWaitNs;
            return 0;
        }
        return 0;
    };
    // Largest first; ties (and Sort::Rank) by rank.
    std::stable_sort(m_order.begin(), m_order.end(), [&](std::size_t a, std::size_t b) { return key(a) > key(b); });
    updateScrollBars();
    viewport()->update();
}

void JobLanesView::updateScrollBars()
{
    const int content = int(m_order.size()) * kLaneHeight;
    verticalScrollBar()->setPageStep(viewport()->height());
    verticalScrollBar()->setRange(0, std::max(0, content - viewport()->height()));
}

void JobLanesView::resizeEvent(QResizeEvent* event)
{
    QAbstractScrollArea::resizeEvent(event);
    m_axis->setGeometry(viewport()->x(), viewport()->y() - kAxisHeight, viewport()->width(), kAxisHeight);
    updateScrollBars();
}

double JobLanesView::xOf(model::TimeNs t) const
{
    const double w = std::max(1, viewport()->width() - kLabelWidth - 12);
    const double span = double(std::max<model::TimeNs>(1, m_lanes.axisEnd - m_lanes.axisStart));
    return kLabelWidth + double(t - m_lanes.axisStart) * w / span;
}

int JobLanesView::laneAt(QPoint pos) const
{
    const int row = (pos.y() + verticalScrollBar()->value()) / kLaneHeight;
    if (pos.y() < 0 || row < 0 || row >= int(m_order.size()))
        return -1;
    return int(m_order[std::size_t(row)]);
}

QString JobLanesView::toolTipAt(QPoint pos) const
{
    const int lane = laneAt(pos);
    if (lane < 0 || !m_job)
        return {};
    const analysis::RankLane& l = m_lanes.lanes[std::size_t(lane)];
    const analysis::JobRank& r = m_job->ranks[l.rankIndex];
    QString text = tr("Rank %1, step %2: %3, communication wait %4")
                       .arg(r.rank)
                       .arg(m_lanes.step)
                       .arg(TimeFormat::formatDuration(l.stepEnd - l.stepStart), TimeFormat::formatDuration(l.waitNs));
    if (l.collectiveIdleNs > 0 || l.measuredSplit)
        text += tr(", idle inside the collectives %1").arg(TimeFormat::formatDuration(l.collectiveIdleNs));
    if (const auto* s = rankStep(r, m_lanes.step))
        text += tr("\ndevice compute %1, exposed communication %2, device idle %3")
                    .arg(TimeFormat::formatDuration(s->computeNs), TimeFormat::formatDuration(s->communicationNs),
                         TimeFormat::formatDuration(s->idleNs));
    if (l.straggler)
        text += tr("\nlast to arrive at the collectives: the other ranks wait for it");
    // The segment under the pointer; where several share its pixel, the longest.
    const analysis::LaneSegment* best = nullptr;
    for (const analysis::LaneSegment& seg : l.segments) {
        if (pos.x() >= xOf(seg.start) - 1 && pos.x() <= xOf(seg.end) + 1
            && (!best || seg.end - seg.start > best->end - best->start))
            best = &seg;
    }
    if (best)
        text += QStringLiteral("\n")
            + tr("%1: %2").arg(segmentText(best->kind, l.measuredSplit),
                               TimeFormat::formatDuration(best->end - best->start));
    if (!l.hasActivity)
        text += QStringLiteral("\n") + tr("no device activity in this rank's report: collectives only");
    else if (l.resolutionNs > 1)
        text += QStringLiteral("\n")
            + tr("compute, copies and idle drawn at %1 resolution").arg(TimeFormat::formatDuration(l.resolutionNs));
    return text;
}

void JobLanesView::paintEvent(QPaintEvent*)
{
    QPainter p(viewport());
    p.fillRect(viewport()->rect(), palette().base());
    m_lastPainted = 0;
    if (!m_job || m_lanes.lanes.empty()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(viewport()->rect(), Qt::AlignCenter, tr("No rank has this step"));
        return;
    }
    const int top = verticalScrollBar()->value();
    const int first = top / kLaneHeight;
    const int last = std::min<int>(int(m_order.size()) - 1, (top + viewport()->height()) / kLaneHeight);
    // Grid lines of the time axis.
    const model::TimeNs span = std::max<model::TimeNs>(1, m_lanes.axisEnd - m_lanes.axisStart);
    const model::TimeNs tick = tickStep(span, std::max(2, (viewport()->width() - kLabelWidth) / 90));
    p.setPen(QColor(0xdd, 0xdd, 0xdd));
    for (model::TimeNs t = 0; t <= span; t += tick)
        p.drawLine(QPointF(xOf(m_lanes.axisStart + t), 0), QPointF(xOf(m_lanes.axisStart + t), viewport()->height()));
    for (int row = first; row <= last; ++row) {
        const analysis::RankLane& l = m_lanes.lanes[m_order[std::size_t(row)]];
        const int y = row * kLaneHeight - top;
        const QRectF band(0, y + 2, 0, kLaneHeight - 4);
        QFont f = font();
        f.setBold(l.straggler);
        p.setFont(f);
        p.setPen(l.straggler ? kEdge : palette().color(QPalette::Text));
        p.drawText(QRect(4, y, kLabelWidth - 8, kLaneHeight), Qt::AlignLeft | Qt::AlignVCenter,
                   l.straggler ? tr("rank %1 · last").arg(m_job->ranks[l.rankIndex].rank)
                               : tr("rank %1").arg(m_job->ranks[l.rankIndex].rank));
        p.fillRect(QRectF(xOf(l.stepStart), band.y(), xOf(l.stepEnd) - xOf(l.stepStart), band.height()), kOutside);
        // Thousands of segments can share a few hundred pixels: one fill per pixel column and kind is enough.
        std::array<double, analysis::kLaneKindCount> paintedTo {};
        paintedTo.fill(-1.0);
        for (const analysis::LaneSegment& seg : l.segments) {
            const QRectF r(xOf(seg.start), band.y(), std::max(1.0, xOf(seg.end) - xOf(seg.start)), band.height());
            double& to = paintedTo[static_cast<std::size_t>(seg.kind)];
            if (r.right() <= to)
                continue;
            to = r.right();
            switch (seg.kind) {
            case analysis::LaneKind::Wait:
                p.fillRect(r, kWaitBack);
                p.fillRect(r, waitBrush());
                break;
            case analysis::LaneKind::Transfer:
                p.fillRect(r, kTransfer);
                break;
            case analysis::LaneKind::CollectiveIdle:
                p.fillRect(r, kCollectiveIdle);
                break;
            case analysis::LaneKind::Overlapped:
                p.fillRect(r, kOverlapped);
                break;
            case analysis::LaneKind::Compute:
                p.fillRect(r, kCompute);
                break;
            case analysis::LaneKind::Copy:
                p.fillRect(r, kCopy);
                break;
            case analysis::LaneKind::Idle:
                p.fillRect(r, kIdle);
                break;
            }
        }
        ++m_lastPainted;
    }
    // The last arrival at each matched collective: the edge the others wait on.
    p.setPen(QPen(kEdge, 1.5, Qt::DashLine));
    for (const auto& [t, rankIndex] : m_lanes.lastArrivals) {
        if (t != std::numeric_limits<model::TimeNs>::min())
            p.drawLine(QPointF(xOf(t), 0), QPointF(xOf(t), viewport()->height()));
    }
    m_axis->update();
}

void JobLanesView::paintAxis(QPainter& axis, int width) const
{
    // Above the viewport (its top margin): time from the earliest step start on the axis.
    axis.fillRect(QRect(0, 0, width, kAxisHeight), palette().window());
    axis.setPen(palette().color(QPalette::WindowText));
    axis.drawText(QRect(4, 0, kLabelWidth - 8, kAxisHeight), Qt::AlignLeft | Qt::AlignVCenter, tr("time in step"));
    if (m_lanes.lanes.empty())
        return;
    const model::TimeNs span = std::max<model::TimeNs>(1, m_lanes.axisEnd - m_lanes.axisStart);
    const model::TimeNs tick = tickStep(span, std::max(2, (viewport()->width() - kLabelWidth) / 90));
    for (model::TimeNs t = 0; t <= span; t += tick)
        axis.drawText(QRectF(xOf(m_lanes.axisStart + t) - 45, 0, 90, kAxisHeight), Qt::AlignCenter,
                      TimeFormat::formatDuration(t));
}

void JobLanesView::mouseDoubleClickEvent(QMouseEvent* event)
{
    // Scroll-area mouse events come in viewport coordinates.
    const int lane = laneAt(event->position().toPoint());
    if (lane >= 0)
        emit rankActivated(int(m_lanes.lanes[std::size_t(lane)].rankIndex), m_lanes.step);
}

bool JobLanesView::viewportEvent(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QString text = toolTipAt(help->pos());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, viewport());
        return true;
    }
    return QAbstractScrollArea::viewportEvent(event);
}

JobLanesPanel::JobLanesPanel(QWidget* parent)
    : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Step:"), this));
    m_step = new QComboBox(this);
    m_step->setObjectName(QStringLiteral("jobLanesStep"));
    bar->addWidget(m_step);
    bar->addWidget(new QLabel(tr("Align on:"), this));
    m_align = new QComboBox(this);
    m_align->setObjectName(QStringLiteral("jobLanesAlign"));
    bar->addWidget(m_align);
    bar->addWidget(new QLabel(tr("Sort by:"), this));
    m_sort = new QComboBox(this);
    m_sort->setObjectName(QStringLiteral("jobLanesSort"));
    m_sort->addItems(
        {tr("Rank"), tr("Wait (most first)"), tr("Step time (longest first)"), tr("Wait caused (most first)")});
    bar->addWidget(m_sort);
    m_filter = new QLineEdit(this);
    m_filter->setObjectName(QStringLiteral("jobLanesFilter"));
    m_filter->setPlaceholderText(tr("Ranks, e.g. 0-7, 12, 100-"));
    m_filter->setClearButtonEnabled(true);
    bar->addWidget(m_filter, 1);
    layout->addLayout(bar);
    m_summary = new QLabel(this);
    m_summary->setWordWrap(true);
    layout->addWidget(m_summary);
    m_view = new JobLanesView(this);
    layout->addWidget(m_view, 1);
    auto* legend = new QLabel(
        tr("<span style='background:#4dac26'>&nbsp;&nbsp;&nbsp;&nbsp;</span> compute &nbsp; "
           "<span style='background:#f4a6a6;color:#c0392b'>&nbsp;////&nbsp;</span> communication: waiting (for "
           "peers where the rank measured it, else for the last rank) &nbsp; "
           "<span style='background:#762a83'>&nbsp;&nbsp;&nbsp;&nbsp;</span> idle inside the collective (no plane "
           "task running) &nbsp; "
           "<span style='background:#2166ac'>&nbsp;&nbsp;&nbsp;&nbsp;</span> transfer (the rest of the exposed "
           "collective) &nbsp; "
           "<span style='background:#92c5de'>&nbsp;&nbsp;&nbsp;&nbsp;</span> collective overlapped by compute &nbsp; "
           "<span style='background:#e08214'>&nbsp;&nbsp;&nbsp;&nbsp;</span> copy / memset &nbsp; "
           "<span style='background:#efd595'>&nbsp;&nbsp;&nbsp;&nbsp;</span> device idle &nbsp; "
           "<span style='background:#e4e4e4'>&nbsp;&nbsp;&nbsp;&nbsp;</span> not recorded (a report without device "
           "activity) &nbsp; <span style='color:#a00026'>┆</span> last arrival"),
        this);
    legend->setObjectName(QStringLiteral("jobLanesLegend"));
    legend->setWordWrap(true);
    layout->addWidget(legend);

    connect(m_step, &QComboBox::currentIndexChanged, this, [this] {
        fillAlignBox();
        refresh();
    });
    connect(m_align, &QComboBox::currentIndexChanged, this, &JobLanesPanel::refresh);
    connect(m_sort, &QComboBox::currentIndexChanged, this,
            [this](int i) { m_view->setSort(static_cast<JobLanesView::Sort>(std::clamp(i, 0, 3))); });
    connect(m_filter, &QLineEdit::textChanged, this, [this](const QString& text) {
        const bool ok = m_view->setRankFilter(text);
        m_filter->setStyleSheet(ok ? QString() : QStringLiteral("QLineEdit{color:#a00026}"));
        m_filter->setToolTip(ok ? QString() : tr("Rank numbers and ranges: 0-7, 12, 100-"));
    });
}

void JobLanesPanel::setJob(const analysis::JobResult* job)
{
    m_job = job;
    const QSignalBlocker block(m_step);
    m_step->clear();
    if (job) {
        for (const analysis::JobStep& s : job->steps)
            m_step->addItem(tr("%1").arg(s.number), QVariant::fromValue<qint64>(s.number));
        const std::int64_t worst = analysis::worstStep(*job);
        const int at = m_step->findData(QVariant::fromValue<qint64>(worst));
        m_step->setCurrentIndex(std::max(0, at));
    }
    fillAlignBox();
    refresh();
}

void JobLanesPanel::showStep(std::int64_t step)
{
    const int at = m_step->findData(QVariant::fromValue<qint64>(step));
    if (at >= 0)
        m_step->setCurrentIndex(at);
}

void JobLanesPanel::fillAlignBox()
{
    const QSignalBlocker block(m_align);
    const int was = m_align->currentIndex();
    m_align->clear();
    m_align->addItem(tr("Common clock (collective ends)"));
    m_align->addItem(tr("Step start"));
    if (m_job && m_step->currentIndex() >= 0) {
        const std::int64_t step = m_step->currentData().toLongLong();
        for (const analysis::JobStep& s : m_job->steps) {
            if (s.number != step)
                continue;
            // Name each matched collective by its operation on the first rank that has the step.
            const analysis::JobRankStep* first = nullptr;
            for (const analysis::JobRank& r : m_job->ranks) {
                if ((first = rankStep(r, step)))
                    break;
            }
            for (std::size_t k = 0; k < s.alignedCollectives && k < 256; ++k) {
                QString op;
                if (first) {
                    for (const analysis::JobCollective& c : first->collectives) {
                        if (c.matchIndex == int(k))
                            op = QString::fromStdString(c.opKind);
                    }
                }
                m_align->addItem(tr("Collective %1 (%2) end").arg(k + 1).arg(op));
            }
        }
    }
    m_align->setCurrentIndex(was >= 0 && was < m_align->count() ? was : 0);
}

void JobLanesPanel::refresh()
{
    if (!m_job || m_step->currentIndex() < 0) {
        m_view->setStep(nullptr, 0, analysis::LaneAlign::CommonClock, 0);
        m_summary->clear();
        return;
    }
    const std::int64_t step = m_step->currentData().toLongLong();
    const int a = m_align->currentIndex();
    const analysis::LaneAlign align = a <= 0 ? analysis::LaneAlign::CommonClock
        : a == 1                             ? analysis::LaneAlign::StepStart
                                             : analysis::LaneAlign::Collective;
    m_view->setStep(m_job, step, align, a >= 2 ? std::size_t(a - 2) : 0);
    const analysis::StepLanes& lanes = m_view->lanes();
    QString summary = (lanes.matchedCollectives == 1 ? tr("Step %1: %2 ranks, %3 collective matched across them.")
                                                     : tr("Step %1: %2 ranks, %3 collectives matched across them."))
                          .arg(step)
                          .arg(lanes.lanes.size())
                          .arg(lanes.matchedCollectives);
    for (const analysis::RankLane& l : lanes.lanes) {
        if (l.straggler) {
            summary += QStringLiteral(" ")
                + tr("Rank %1 arrives last; the others wait for it (hatched).").arg(m_job->ranks[l.rankIndex].rank);
            break;
        }
    }
    if (lanes.lanesWithoutActivity > 0) {
        std::vector<std::int64_t> ranks;
        for (const analysis::RankLane& l : lanes.lanes) {
            if (!l.hasActivity)
                ranks.push_back(m_job->ranks[l.rankIndex].rank);
        }
        QString list;
        for (std::size_t i = 0; i < ranks.size() && i < 8; ++i)
            list += (i ? QStringLiteral(", ") : QString()) + QString::number(ranks[i]);
        if (ranks.size() > 8)
            list += tr(", … %1 more").arg(ranks.size() - 8);
        summary += QStringLiteral(" ")
            + (ranks.size() == lanes.lanes.size()
                   ? tr("No rank recorded when its device computed, copied or sat idle in this step (reports written "
                        "before Timesink kept it, or no device work): the lanes show the collectives only; analyze "
                        "the traces again for the full picture.")
                   : ranks.size() == 1
                   ? tr("Rank %1 recorded no device activity for this step (a report written before Timesink kept "
                        "it, or no device work): its lane shows the collectives only.")
                         .arg(list)
                   : tr("Ranks %1 recorded no device activity for this step (reports written before Timesink kept "
                        "it, or no device work): their lanes show the collectives only.")
                         .arg(list));
    }
    if (lanes.matchedCollectives == 0)
        summary += QStringLiteral(" ")
            + tr("No collective is matched across the ranks (point-to-point only, or none), so no waiting is "
                 "known from alignment; lanes are aligned on the step start.");
    m_summary->setText(summary);
}

} // namespace timesink::widgets
