// SPDX-License-Identifier: MIT
#include "widgets/joboverview.h"

#include "widgets/timeformat.h"

#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QHelpEvent>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QTableWidget>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>

namespace timesink::widgets {

namespace {

constexpr int kLeft = 64; // rank labels
constexpr int kTop = 20;  // step labels

int cellWidth(std::size_t steps)
{
    return std::clamp(720 / std::max<int>(1, int(steps)), 10, 64);
}

int cellHeight(std::size_t ranks)
{
    return ranks > 48 ? 8 : 20;
}

QColor heat(double t)
{
    t = std::clamp(t, 0.0, 1.0);
    return QColor(255, int(245 - t * 190), int(240 - t * 215));
}

} // namespace

JobHeatMap::JobHeatMap(QWidget* parent)
    : QWidget(parent)
{
    setMouseTracking(true);
    setMinimumHeight(60);
}

void JobHeatMap::setJob(const analysis::JobResult* job)
{
    m_job = job;
    recompute();
    updateGeometry();
    update();
}

void JobHeatMap::setMeasure(Measure measure)
{
    m_measure = measure;
    recompute();
    update();
}

void JobHeatMap::recompute()
{
    m_values.clear();
    m_max = 0;
    if (!m_job)
        return;
    for (const analysis::JobRank& r : m_job->ranks) {
        std::vector<model::TimeNs> row(m_job->steps.size(), -1);
        std::size_t s = 0;
        for (const analysis::JobRankStep& rs : r.steps) {
            // Both lists are sorted by step number.
            while (s < m_job->steps.size() && m_job->steps[s].number < rs.number)
                ++s;
            if (s < m_job->steps.size() && m_job->steps[s].number == rs.number) {
                row[s] = m_measure == Measure::StepTime ? rs.durationNs : rs.communicationWaitNs;
                m_max = std::max(m_max, row[s]);
            }
        }
        m_values.push_back(std::move(row));
    }
}

model::TimeNs JobHeatMap::value(std::size_t rankIndex, std::size_t stepIndex) const
{
    if (rankIndex >= m_values.size() || stepIndex >= m_values[rankIndex].size())
        return -1;
    return m_values[rankIndex][stepIndex];
}

QRect JobHeatMap::cellRect(int rankIndex, int stepIndex) const
{
    if (!m_job)
        return {};
    const int w = cellWidth(m_job->steps.size());
    const int h = cellHeight(m_job->ranks.size());
    return {kLeft + stepIndex * w, kTop + rankIndex * h, w - 1, h - 1};
}

std::pair<int, int> JobHeatMap::cellAt(QPoint pos) const
{
    if (!m_job || pos.x() < kLeft || pos.y() < kTop)
        return {-1, -1};
    const int step = (pos.x() - kLeft) / cellWidth(m_job->steps.size());
    const int rank = (pos.y() - kTop) / cellHeight(m_job->ranks.size());
    if (rank >= int(m_job->ranks.size()) || step >= int(m_job->steps.size()))
        return {-1, -1};
    return {rank, step};
}

QSize JobHeatMap::sizeHint() const
{
    if (!m_job)
        return {400, 80};
    return {kLeft + cellWidth(m_job->steps.size()) * int(m_job->steps.size()) + 8,
            kTop + cellHeight(m_job->ranks.size()) * int(m_job->ranks.size()) + 8};
}

void JobHeatMap::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    if (!m_job)
        return;
    p.setPen(palette().color(QPalette::Text));
    const int w = cellWidth(m_job->steps.size());
    const int h = cellHeight(m_job->ranks.size());
    const int labelEvery = std::max(1, 48 / w);
    for (std::size_t s = 0; s < m_job->steps.size(); s += std::size_t(labelEvery))
        p.drawText(QRect(kLeft + int(s) * w, 0, w * labelEvery, kTop - 2), Qt::AlignLeft | Qt::AlignBottom,
                   QString::number(m_job->steps[s].number));
    const int rankEvery = h >= 14 ? 1 : 8;
    for (std::size_t r = 0; r < m_job->ranks.size(); ++r) {
        if (r % std::size_t(rankEvery) == 0)
            p.drawText(QRect(2, kTop + int(r) * h, kLeft - 6, std::max(h, 12)), Qt::AlignLeft | Qt::AlignVCenter,
                       tr("rank %1").arg(m_job->ranks[r].rank));
        for (std::size_t s = 0; s < m_job->steps.size(); ++s) {
            const model::TimeNs v = m_values[r][s];
            const QRect cell = cellRect(int(r), int(s));
            if (v < 0) {
                p.fillRect(cell, palette().color(QPalette::Window));
                continue;
            }
            p.fillRect(cell, heat(m_max > 0 ? double(v) / double(m_max) : 0.0));
        }
    }
}

void JobHeatMap::mouseDoubleClickEvent(QMouseEvent* event)
{
    const auto [rank, step] = cellAt(event->position().toPoint());
    if (rank >= 0)
        emit rankActivated(rank);
}

bool JobHeatMap::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip && m_job) {
        auto* help = static_cast<QHelpEvent*>(event);
        const auto [rank, step] = cellAt(help->pos());
        if (rank >= 0 && m_values[std::size_t(rank)][std::size_t(step)] >= 0) {
            const QString what = m_measure == Measure::StepTime ? tr("step time") : tr("communication wait");
            QToolTip::showText(
                help->globalPos(),
                tr("Rank %1, step %2: %3 %4")
                    .arg(m_job->ranks[std::size_t(rank)].rank)
                    .arg(m_job->steps[std::size_t(step)].number)
                    .arg(what, TimeFormat::formatDuration(m_values[std::size_t(rank)][std::size_t(step)])),
                this);
        } else {
            QToolTip::hideText();
        }
        return true;
    }
    return QWidget::event(event);
}

JobOverview::JobOverview(QWidget* parent)
    : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    m_headline = new QLabel(this);
    m_headline->setWordWrap(true);
    layout->addWidget(m_headline);

    auto* mapBar = new QHBoxLayout;
    mapBar->addWidget(new QLabel(tr("Heat map:"), this));
    m_measure = new QComboBox(this);
    m_measure->setObjectName(QStringLiteral("jobMeasure"));
    m_measure->addItem(tr("Step time"));
    m_measure->addItem(tr("Communication wait"));
    mapBar->addWidget(m_measure);
    mapBar->addStretch();
    m_compare = new QPushButton(tr("Compare Ranks"), this);
    m_compare->setObjectName(QStringLiteral("jobCompare"));
    m_compare->setToolTip(tr("Select two ranks in the table to open them side by side"));
    mapBar->addWidget(m_compare);
    layout->addLayout(mapBar);

    auto* splitter = new QSplitter(Qt::Vertical, this);
    auto* scroll = new QScrollArea(splitter);
    m_heatMap = new JobHeatMap;
    scroll->setWidget(m_heatMap);
    scroll->setWidgetResizable(false);
    splitter->addWidget(scroll);

    m_findings = new QTableWidget(0, 4, splitter);
    m_findings->setObjectName(QStringLiteral("jobFindings"));
    m_findings->setHorizontalHeaderLabels({tr("Kind"), tr("Finding"), tr("Lost"), tr("% rank-time")});
    m_findings->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
    m_findings->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_findings->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_findings->verticalHeader()->hide();
    splitter->addWidget(m_findings);

    m_ranks = new QTableWidget(0, 6, splitter);
    m_ranks->setObjectName(QStringLiteral("jobRanks"));
    m_ranks->setHorizontalHeaderLabels(
        {tr("Rank"), tr("Steps"), tr("Mean step"), tr("Communication"), tr("Wait"), tr("Top finding")});
    m_ranks->horizontalHeader()->setSectionResizeMode(5, QHeaderView::Stretch);
    m_ranks->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_ranks->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_ranks->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_ranks->verticalHeader()->hide();
    splitter->addWidget(m_ranks);
    layout->addWidget(splitter, 1);

    connect(m_measure, &QComboBox::currentIndexChanged, this, [this](int i) {
        m_heatMap->setMeasure(i == 1 ? JobHeatMap::Measure::CommunicationWait : JobHeatMap::Measure::StepTime);
    });
    connect(m_heatMap, &JobHeatMap::rankActivated, this, &JobOverview::rankActivated);
    connect(m_ranks, &QTableWidget::cellDoubleClicked, this, [this](int row, int) { emit rankActivated(row); });
    connect(m_ranks, &QTableWidget::itemSelectionChanged, this, &JobOverview::updateCompareButton);
    connect(m_compare, &QPushButton::clicked, this, [this] {
        QList<int> rows;
        for (const QModelIndex& i : m_ranks->selectionModel()->selectedRows())
            rows << i.row();
        std::sort(rows.begin(), rows.end());
        if (rows.size() == 2)
            emit compareRequested(rows[0], rows[1]);
    });
    updateCompareButton();
}

void JobOverview::setJob(analysis::JobResult job)
{
    m_job = std::move(job);
    const double lost = m_job.rankTimeNs > 0 ? double(m_job.lostNs) / double(m_job.rankTimeNs) : 0.0;
    QString headline = m_job.ranks.size() == 1 ? tr("1 rank") : tr("%1 ranks").arg(m_job.ranks.size());
    if (m_job.worldSize > 0)
        headline += tr(" of %1").arg(m_job.worldSize);
    headline += (m_job.steps.size() == 1 ? tr(", 1 step") : tr(", %1 steps").arg(m_job.steps.size()))
        + tr("; lost %1 of %2 rank-time (%3%)")
              .arg(TimeFormat::formatDuration(m_job.lostNs), TimeFormat::formatDuration(m_job.rankTimeNs))
              .arg(lost * 100.0, 0, 'f', 1);
    for (const std::string& w : m_job.warnings)
        headline += QStringLiteral("\n") + tr("Warning: %1").arg(QString::fromStdString(w));
    m_headline->setText(headline);
    m_heatMap->setJob(&m_job);
    m_heatMap->resize(m_heatMap->sizeHint());
    // Room for the whole map up to 60 % of the window; longer jobs scroll.
    if (auto* splitter = qobject_cast<QSplitter*>(m_findings->parentWidget())) {
        const int total = std::max(300, splitter->height());
        const int map = std::min(m_heatMap->sizeHint().height() + 6, total * 3 / 5);
        const int rest = std::max(100, total - map);
        splitter->setSizes({map, rest * 2 / 5, rest * 3 / 5});
    }

    m_findings->setRowCount(int(m_job.findings.size()));
    for (int i = 0; i < int(m_job.findings.size()); ++i) {
        const analysis::Finding& f = m_job.findings[std::size_t(i)];
        m_findings->setItem(i, 0, new QTableWidgetItem(QString::fromStdString(f.kind)));
        auto* title = new QTableWidgetItem(QString::fromStdString(f.title));
        title->setToolTip(QString::fromStdString(f.recommendation));
        m_findings->setItem(i, 1, title);
        m_findings->setItem(i, 2, new QTableWidgetItem(TimeFormat::formatDuration(f.lostNs)));
        m_findings->setItem(i, 3, new QTableWidgetItem(QString::number(f.lostFraction * 100.0, 'f', 1)));
    }
    m_findings->resizeColumnToContents(0);

    m_ranks->setRowCount(int(m_job.ranks.size()));
    for (int i = 0; i < int(m_job.ranks.size()); ++i) {
        const analysis::JobRank& r = m_job.ranks[std::size_t(i)];
        model::TimeNs total = 0;
        model::TimeNs comm = 0;
        model::TimeNs wait = 0;
        for (const analysis::JobRankStep& s : r.steps) {
            total += s.durationNs;
            comm += s.communicationNs;
            wait += s.communicationWaitNs;
        }
        auto* rank = new QTableWidgetItem(QString::number(r.rank));
        rank->setToolTip(QString::fromStdString(r.source));
        m_ranks->setItem(i, 0, rank);
        m_ranks->setItem(i, 1, new QTableWidgetItem(QString::number(r.steps.size())));
        m_ranks->setItem(i, 2,
                         new QTableWidgetItem(
                             TimeFormat::formatDuration(r.steps.empty() ? 0 : total / model::TimeNs(r.steps.size()))));
        m_ranks->setItem(i, 3, new QTableWidgetItem(TimeFormat::formatDuration(comm)));
        m_ranks->setItem(i, 4, new QTableWidgetItem(TimeFormat::formatDuration(wait)));
        m_ranks->setItem(i, 5,
                         new QTableWidgetItem(r.findings.empty() ? tr("No findings")
                                                                 : QString::fromStdString(r.findings.front().title)));
    }
    updateCompareButton();
}

void JobOverview::updateCompareButton()
{
    m_compare->setEnabled(m_ranks->selectionModel() && m_ranks->selectionModel()->selectedRows().size() == 2);
}

} // namespace timesink::widgets
