// SPDX-License-Identifier: MIT
#include "widgets/joboverview.h"

#include "analysis/core/textformat.h"
#include "widgets/detailspanel.h"
#include "widgets/joblanes.h"
#include "widgets/joblinkmap.h"
#include "widgets/tablecopy.h"
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
#include <QTabWidget>
#include <QTableWidget>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <iterator>

namespace timesink::widgets {

namespace {

constexpr int kLeft = 150;  // rank labels
constexpr int kTitle = 20;  // the map's title
constexpr int kTop = 40;    // title + step numbers
constexpr int kLegend = 56; // colour scale and missing ranks under the map

QColor rgb(std::uint32_t c)
{
    return QColor(int((c >> 16) & 0xff), int((c >> 8) & 0xff), int(c & 0xff));
}

QString ms(model::TimeNs ns)
{
    return QString::fromStdString(analysis::formatMillisecondsRounded(ns)) + QStringLiteral(" ms");
}

/// A table item that sorts by a number (UserRole), not by its text.
class NumberItem : public QTableWidgetItem
{
public:
    NumberItem(const QString& text, double key)
        : QTableWidgetItem(text)
    {
        setData(Qt::UserRole, key);
        setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    }
    bool operator<(const QTableWidgetItem& other) const override
    {
        return data(Qt::UserRole).toDouble() < other.data(Qt::UserRole).toDouble();
    }
};

std::vector<bool> stragglerFlags(const analysis::JobResult& job)
{
    std::vector<bool> out(job.ranks.size(), false);
    for (const analysis::Finding& f : job.findings) {
        if (f.kind != "straggler")
            continue;
        for (const analysis::Detail& d : f.details) {
            const auto* r = std::get_if<std::int64_t>(&d.value);
            if (d.key != "rank" || !r)
                continue;
            for (std::size_t i = 0; i < job.ranks.size(); ++i)
                if (job.ranks[i].rank == *r)
                    out[i] = true;
        }
    }
    return out;
}

QString foldedRanks(const std::vector<std::int32_t>& ranks)
{
    QStringList items;
    for (std::size_t i = 0; i < ranks.size();) {
        std::size_t j = i;
        while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1)
            ++j;
        if (items.size() == 12) {
            items << QStringLiteral("…");
            break;
        }
        items << (j > i ? QStringLiteral("%1–%2").arg(ranks[i]).arg(ranks[j]) : QString::number(ranks[i]));
        i = j + 1;
    }
    return items.join(QStringLiteral(", "));
}

} // namespace

JobHeatMap::JobHeatMap(QWidget* parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("jobHeatMap"));
    setMouseTracking(true);
    setMinimumHeight(60);
}

void JobHeatMap::setJob(const analysis::JobResult* job)
{
    m_job = job;
    m_stragglers = job ? stragglerFlags(*job) : std::vector<bool> {};
    recompute();
    updateGeometry();
    update();
}

void JobHeatMap::setMeasure(analysis::JobMeasure measure)
{
    m_measure = measure;
    recompute();
    update();
}

QString JobHeatMap::title() const
{
    return QString::fromStdString(analysis::jobMeasureLabel(m_measure)) + tr(" per rank and step (ms)");
}

bool JobHeatMap::isStraggler(std::size_t rankIndex) const
{
    return rankIndex < m_stragglers.size() && m_stragglers[rankIndex];
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
                row[s] = analysis::jobMeasureValue(rs, m_measure);
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

QColor JobHeatMap::colorOf(model::TimeNs v) const
{
    return rgb(analysis::jobHeatColor(m_max > 0 ? double(v) / double(m_max) : 0.0));
}

int JobHeatMap::cellW() const
{
    return std::clamp(900 / std::max<int>(1, int(m_job ? m_job->steps.size() : 1)), 12, 64);
}

int JobHeatMap::cellH() const
{
    const std::size_t n = m_job ? m_job->ranks.size() : 0;
    return n > 256 ? 4 : (n > 48 ? 8 : 20);
}

QRect JobHeatMap::cellRect(int rankIndex, int stepIndex) const
{
    if (!m_job)
        return {};
    return {kLeft + stepIndex * cellW(), kTop + rankIndex * cellH(), cellW() - 1, std::max(1, cellH() - 1)};
}

std::pair<int, int> JobHeatMap::cellAt(QPoint pos) const
{
    if (!m_job || pos.x() < kLeft || pos.y() < kTop)
        return {-1, -1};
    const int step = (pos.x() - kLeft) / cellW();
    const int rank = (pos.y() - kTop) / cellH();
    if (rank >= int(m_job->ranks.size()) || step >= int(m_job->steps.size()))
        return {-1, -1};
    return {rank, step};
}

QSize JobHeatMap::sizeHint() const
{
    if (!m_job)
        return {400, 80};
    return {std::max(kLeft + cellW() * int(m_job->steps.size()) + 8, 560),
            kTop + cellH() * int(m_job->ranks.size()) + kLegend};
}

QString JobHeatMap::toolTipAt(QPoint pos) const
{
    const auto [rank, step] = cellAt(pos);
    if (rank < 0)
        return {};
    const analysis::JobRank& r = m_job->ranks[std::size_t(rank)];
    const std::int64_t number = m_job->steps[std::size_t(step)].number;
    const model::TimeNs v = m_values[std::size_t(rank)][std::size_t(step)];
    const QString who
        = isStraggler(std::size_t(rank)) ? tr("Rank %1 (straggler)").arg(r.rank) : tr("Rank %1").arg(r.rank);
    if (v < 0)
        return tr("%1 has no step %2").arg(who).arg(number);
    return tr("%1, step %2: %3 %4")
        .arg(who)
        .arg(number)
        .arg(QString::fromStdString(analysis::jobMeasureLabel(m_measure)).toLower(), ms(v));
}

void JobHeatMap::paintEvent(QPaintEvent* event)
{
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    if (!m_job)
        return;
    const QColor text = palette().color(QPalette::Text);
    const QColor edge(0xa0, 0x00, 0x26);
    QFont bold = font();
    bold.setBold(true);
    p.setFont(bold);
    p.setPen(text);
    p.drawText(QRect(4, 0, width() - 8, kTitle), Qt::AlignLeft | Qt::AlignVCenter, title());
    p.setFont(font());
    const int w = cellW();
    const int h = cellH();
    p.drawText(QRect(4, kTitle, kLeft - 8, kTop - kTitle), Qt::AlignRight | Qt::AlignVCenter, tr("step →"));
    const int labelEvery = std::max(1, 40 / w);
    for (std::size_t s = 0; s < m_job->steps.size(); s += std::size_t(labelEvery))
        p.drawText(QRect(kLeft + int(s) * w, kTitle, w * labelEvery, kTop - kTitle - 2),
                   Qt::AlignLeft | Qt::AlignBottom, QString::number(m_job->steps[s].number));
    // Only the rows inside the exposed rectangle (a 1,024-rank map in a scroll area paints a screenful).
    const QRect dirty = event->rect();
    const int firstRow = std::max(0, (dirty.top() - kTop) / h);
    const int lastRow = std::min(int(m_job->ranks.size()) - 1, (dirty.bottom() - kTop) / h + 1);
    const int rankEvery = h >= 14 ? 1 : (h >= 8 ? 2 : 4);
    const QBrush missing(palette().color(QPalette::Mid), Qt::BDiagPattern);
    for (int r = firstRow; r <= lastRow; ++r) {
        const bool straggler = isStraggler(std::size_t(r));
        if (r % rankEvery == 0 || straggler) {
            QFont f = font();
            f.setBold(straggler);
            if (h < 12)
                f.setPointSizeF(std::max(6.0, f.pointSizeF() * 0.8));
            p.setFont(f);
            p.setPen(straggler ? edge : text);
            const int lh = std::max(h * rankEvery, 12);
            p.drawText(QRect(2, kTop + r * h + h / 2 - lh / 2, kLeft - 8, lh), Qt::AlignLeft | Qt::AlignVCenter,
                       straggler ? tr("rank %1 · straggler").arg(m_job->ranks[std::size_t(r)].rank)
                                 : tr("rank %1").arg(m_job->ranks[std::size_t(r)].rank));
        }
        for (std::size_t s = 0; s < m_job->steps.size(); ++s) {
            const model::TimeNs v = m_values[std::size_t(r)][s];
            const QRect cell = cellRect(r, int(s));
            if (v < 0) {
                p.fillRect(cell, palette().color(QPalette::Window));
                p.fillRect(cell, missing);
                continue;
            }
            p.fillRect(cell, colorOf(v));
        }
        if (straggler) {
            p.setPen(QPen(edge, 2));
            p.drawRect(QRect(kLeft - 1, kTop + r * h - 1, w * int(m_job->steps.size()) + 1, h));
        }
    }
    p.setFont(font());
    p.setPen(text);
    // The colour scale: 0 … the largest value, in ms.
    const int ly = kTop + h * int(m_job->ranks.size()) + 10;
    QLinearGradient g(kLeft, 0, kLeft + 200, 0);
    for (int i = 0; i <= 4; ++i)
        g.setColorAt(i / 4.0, rgb(analysis::jobHeatColor(i / 4.0)));
    p.fillRect(QRect(kLeft, ly, 200, 12), g);
    p.drawRect(QRect(kLeft, ly, 200, 12));
    p.drawText(QRect(4, ly - 2, kLeft - 8, 16), Qt::AlignRight | Qt::AlignVCenter, tr("0 ms"));
    p.drawText(QRect(kLeft + 206, ly - 2, 120, 16), Qt::AlignLeft | Qt::AlignVCenter, ms(m_max));
    const QRect hatch(kLeft + 300, ly, 12, 12);
    p.fillRect(hatch, missing);
    p.drawRect(hatch);
    p.drawText(QRect(hatch.right() + 6, ly - 2, 160, 16), Qt::AlignLeft | Qt::AlignVCenter, tr("no such step"));
    if (!m_job->missingRanks.empty()) {
        p.setPen(edge);
        p.drawText(
            QRect(4, ly + 18, width() - 8, 18), Qt::AlignLeft | Qt::AlignVCenter,
            tr("Missing: %1 %2 (world size %3; no input gave them)")
                .arg(m_job->missingRanks.size() == 1 ? tr("rank") : tr("ranks"), foldedRanks(m_job->missingRanks))
                .arg(m_job->worldSize));
    }
}

void JobHeatMap::mouseDoubleClickEvent(QMouseEvent* event)
{
    const auto [rank, step] = cellAt(event->position().toPoint());
    if (rank >= 0)
        emit cellActivated(rank, m_job->steps[std::size_t(step)].number);
}

void JobHeatMap::mousePressEvent(QMouseEvent* event)
{
    const auto [rank, step] = cellAt(event->position().toPoint());
    if (rank >= 0)
        emit stepClicked(m_job->steps[std::size_t(step)].number);
    QWidget::mousePressEvent(event);
}

bool JobHeatMap::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip && m_job) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QString text = toolTipAt(help->pos());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, this);
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
    m_headline->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_headline);

    auto* mapBar = new QHBoxLayout;
    mapBar->addWidget(new QLabel(tr("Heat map:"), this));
    m_measure = new QComboBox(this);
    m_measure->setObjectName(QStringLiteral("jobMeasure"));
    for (const analysis::JobMeasure m : analysis::kJobMeasures)
        m_measure->addItem(QString::fromStdString(analysis::jobMeasureLabel(m)));
    mapBar->addWidget(m_measure);
    m_measureNote = new QLabel(this);
    m_measureNote->setObjectName(QStringLiteral("jobMeasureNote"));
    mapBar->addWidget(m_measureNote);
    mapBar->addStretch();
    m_compare = new QPushButton(tr("Compare Ranks"), this);
    m_compare->setObjectName(QStringLiteral("jobCompare"));
    m_compare->setToolTip(tr("Select two ranks in the table to open them side by side"));
    mapBar->addWidget(m_compare);
    layout->addLayout(mapBar);

    auto* splitter = new QSplitter(Qt::Vertical, this);
    m_tabs = new QTabWidget(splitter);
    m_tabs->setObjectName(QStringLiteral("jobTabs"));
    auto* scroll = new QScrollArea(m_tabs);
    m_heatMap = new JobHeatMap;
    scroll->setWidget(m_heatMap);
    scroll->setWidgetResizable(false);
    m_tabs->addTab(scroll, tr("Heat map"));
    m_values = new QTableWidget(m_tabs);
    m_values->setObjectName(QStringLiteral("jobHeatValues"));
    m_values->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_values->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_values->verticalHeader()->hide();
    TableCopy::install(m_values);
    m_tabs->addTab(m_values, tr("Values"));
    m_lanes = new JobLanesPanel(m_tabs);
    m_tabs->addTab(m_lanes, tr("Rank lanes"));
    auto* linkScroll = new QScrollArea(m_tabs);
    m_linkMap = new JobLinkMap;
    linkScroll->setWidget(m_linkMap);
    linkScroll->setWidgetResizable(false);
    m_tabs->addTab(linkScroll, tr("Links"));
    splitter->addWidget(m_tabs);

    auto* findingsSplit = new QSplitter(Qt::Horizontal, splitter);
    m_findings = new QTableWidget(0, 4, findingsSplit);
    m_findings->setObjectName(QStringLiteral("jobFindings"));
    m_findings->setHorizontalHeaderLabels({tr("Kind"), tr("Finding"), tr("Lost rank-time"), tr("% rank-time")});
    m_findings->horizontalHeaderItem(2)->setToolTip(
        tr("Summed over the ranks: one millisecond lost on each of 4 ranks is 4 ms of rank-time"));
    m_findings->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
    m_findings->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_findings->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_findings->setSelectionMode(QAbstractItemView::SingleSelection);
    m_findings->verticalHeader()->hide();
    TableCopy::install(m_findings);
    m_details = new DetailsPanel(findingsSplit);
    m_details->setStepsSumRanks(true);
    m_details->setObjectName(QStringLiteral("jobFindingDetails"));
    findingsSplit->addWidget(m_findings);
    findingsSplit->addWidget(m_details);
    findingsSplit->setSizes({600, 400});
    splitter->addWidget(findingsSplit);

    m_ranks = new QTableWidget(0, 9, splitter);
    m_ranks->setObjectName(QStringLiteral("jobRanks"));
    m_ranks->setHorizontalHeaderLabels({tr("Rank"), tr("Steps"), tr("Mean step"), tr("Communication"), tr("Wait"),
                                        tr("Idle in collectives"), tr("Wait caused"), tr("Top finding"), tr("Trace")});
    // The rank's own figures over its steps: what `analyze` and its own window say of it.
    m_ranks->horizontalHeaderItem(3)->setToolTip(tr("Exposed communication: collective time no compute overlaps"));
    m_ranks->horizontalHeaderItem(4)->setToolTip(
        tr("Exposed communication waiting for peers: the rank's measured wait (HCCL wait tasks, communication.json) "
           "where it has one, else the time before the last rank arrived (from alignment)"));
    m_ranks->horizontalHeaderItem(5)->setToolTip(
        tr("Exposed communication inside the collectives while no plane task runs (HCCL plane tasks; 0 without)"));
    m_ranks->horizontalHeaderItem(6)->setToolTip(tr("The other ranks' waiting for this rank's late arrival"));
    m_ranks->horizontalHeader()->setSectionResizeMode(7, QHeaderView::Stretch);
    m_ranks->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_ranks->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_ranks->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_ranks->verticalHeader()->hide();
    m_ranks->setWordWrap(false);
    m_ranks->setTextElideMode(Qt::ElideMiddle); // a trace path keeps its file name
    TableCopy::install(m_ranks);
    splitter->addWidget(m_ranks);
    layout->addWidget(splitter, 1);

    connect(m_measure, &QComboBox::currentIndexChanged, this, [this](int i) {
        m_heatMap->setMeasure(analysis::kJobMeasures[std::clamp(i, 0, int(std::size(analysis::kJobMeasures)) - 1)]);
        fillValues();
    });
    connect(m_heatMap, &JobHeatMap::cellActivated, this, &JobOverview::rankActivated);
    connect(m_heatMap, &JobHeatMap::stepClicked, m_lanes, &JobLanesPanel::showStep);
    connect(m_lanes->view(), &JobLanesView::rankActivated, this, &JobOverview::rankActivated);
    connect(m_ranks, &QTableWidget::cellDoubleClicked, this,
            [this](int row, int) { emit rankActivated(rankIndexOfRow(row), -1); });
    connect(m_values, &QTableWidget::cellDoubleClicked, this, [this](int row, int column) {
        const int rank = m_values->item(row, 0) ? m_values->item(row, 0)->data(Qt::UserRole + 1).toInt() : -1;
        if (rank >= 0)
            emit rankActivated(rank,
                               column >= 1 && std::size_t(column - 1) < m_job.steps.size()
                                   ? m_job.steps[std::size_t(column - 1)].number
                                   : -1);
    });
    connect(m_findings, &QTableWidget::itemSelectionChanged, this, [this] {
        const QList<QTableWidgetItem*> items = m_findings->selectedItems();
        showFinding(items.isEmpty() ? -1 : items.front()->row());
    });
    connect(m_ranks, &QTableWidget::itemSelectionChanged, this, &JobOverview::updateCompareButton);
    connect(m_compare, &QPushButton::clicked, this, [this] {
        QList<int> ranks;
        for (const QModelIndex& i : m_ranks->selectionModel()->selectedRows())
            ranks << rankIndexOfRow(i.row());
        std::sort(ranks.begin(), ranks.end());
        if (ranks.size() == 2)
            emit compareRequested(ranks[0], ranks[1]);
    });
    updateCompareButton();
}

int JobOverview::rankIndexOfRow(int row) const
{
    const QTableWidgetItem* item = m_ranks->item(row, 0);
    return item ? item->data(Qt::UserRole + 1).toInt() : -1;
}

void JobOverview::showFinding(int row)
{
    const int index
        = row >= 0 && m_findings->item(row, 0) ? m_findings->item(row, 0)->data(Qt::UserRole + 1).toInt() : -1;
    if (index < 0 || std::size_t(index) >= m_job.findings.size()) {
        m_details->showNothing();
        return;
    }
    m_details->showFinding(nullptr, m_job.findings[std::size_t(index)]);
}

void JobOverview::fillValues()
{
    // The heat map's numbers: one row per rank, one column per step, in ms (what the colours stand for).
    m_values->setSortingEnabled(false);
    m_values->clear();
    m_values->setColumnCount(int(m_job.steps.size()) + 1);
    m_values->setRowCount(int(m_job.ranks.size()));
    QStringList header {tr("Rank")};
    for (const analysis::JobStep& s : m_job.steps)
        header << tr("Step %1 (ms)").arg(s.number);
    m_values->setHorizontalHeaderLabels(header);
    m_tabs->setTabText(1, tr("Values: %1").arg(m_heatMap->title()));
    for (int r = 0; r < int(m_job.ranks.size()); ++r) {
        auto* rank = new NumberItem(m_heatMap->isStraggler(std::size_t(r))
                                        ? tr("%1 (straggler)").arg(m_job.ranks[std::size_t(r)].rank)
                                        : QString::number(m_job.ranks[std::size_t(r)].rank),
                                    m_job.ranks[std::size_t(r)].rank);
        rank->setData(Qt::UserRole + 1, r);
        m_values->setItem(r, 0, rank);
        for (int s = 0; s < int(m_job.steps.size()); ++s) {
            const model::TimeNs v = m_heatMap->value(std::size_t(r), std::size_t(s));
            m_values->setItem(
                r, s + 1,
                new NumberItem(v < 0 ? tr("no step") : QString::fromStdString(analysis::formatMillisecondsRounded(v)),
                               double(v)));
        }
    }
    m_values->setSortingEnabled(true);
    m_values->resizeColumnsToContents();
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
    // The widest spread between ranks, in words, only when ranks differ.
    const analysis::JobStep* widest = nullptr;
    for (const analysis::JobStep& s : m_job.steps) {
        if (s.spreadNs > 0 && (!widest || s.spreadNs > widest->spreadNs))
            widest = &s;
    }
    if (widest)
        headline += QStringLiteral("\n")
            + tr("In step %1, rank %2 is %3 slower than rank %4 (the widest spread between ranks).")
                  .arg(widest->number)
                  .arg(widest->slowestRank)
                  .arg(TimeFormat::formatDuration(widest->spreadNs))
                  .arg(widest->fastestRank);
    // The step whose last arriver started latest: ranks that start late and end together have the shortest steps.
    const analysis::JobStep* late = nullptr;
    for (const analysis::JobStep& s : m_job.steps) {
        if (s.lateStartNs > 0 && s.lateRank >= 0 && (!late || s.lateStartNs > late->lateStartNs))
            late = &s;
    }
    if (late)
        headline += QStringLiteral("\n")
            + tr("In step %1, rank %2 starts %3 late and the others wait for it (the latest start).")
                  .arg(late->number)
                  .arg(late->lateRank)
                  .arg(TimeFormat::formatDuration(late->lateStartNs));
    for (const std::string& w : m_job.warnings)
        headline += QStringLiteral("\n") + tr("Warning: %1").arg(QString::fromStdString(w));
    m_headline->setText(headline);
    m_heatMap->setJob(&m_job);
    // Open on the measure that tells the ranks apart; a synchronous job's step time is one flat colour.
    const std::optional<analysis::JobMeasure> varying = analysis::mostVaryingMeasure(m_job);
    const auto measures = std::begin(analysis::kJobMeasures);
    const auto found
        = std::find(measures, std::end(analysis::kJobMeasures), varying.value_or(analysis::JobMeasure::StepTime));
    m_measure->setCurrentIndex(static_cast<int>(found - measures));
    m_heatMap->setMeasure(*found);
    m_measureNote->setText(varying ? QString() : tr("every measure is the same on every rank"));
    m_heatMap->resize(m_heatMap->sizeHint());
    m_lanes->setJob(&m_job);
    m_linkMap->setLinks(m_job.links);
    fillValues();
    // Room for the whole map up to 50 % of the window; longer jobs scroll.
    if (auto* splitter = qobject_cast<QSplitter*>(m_tabs->parentWidget())) {
        const int total = std::max(300, splitter->height());
        const int map = std::min(m_heatMap->sizeHint().height() + 40, total / 2);
        const int rest = std::max(100, total - map);
        splitter->setSizes({map, rest / 2, rest / 2});
    }

    m_findings->setSortingEnabled(false);
    m_findings->setRowCount(int(m_job.findings.size()));
    for (int i = 0; i < int(m_job.findings.size()); ++i) {
        const analysis::Finding& f = m_job.findings[std::size_t(i)];
        auto* kind = new QTableWidgetItem(QString::fromStdString(analysis::kindLabel(f.kind)));
        kind->setData(Qt::UserRole + 1, i);
        kind->setToolTip(QString::fromStdString(f.kind));
        m_findings->setItem(i, 0, kind);
        auto* title = new QTableWidgetItem(QString::fromStdString(f.title));
        title->setToolTip(QString::fromStdString(f.explanation));
        m_findings->setItem(i, 1, title);
        m_findings->setItem(i, 2, new NumberItem(TimeFormat::formatDuration(f.lostNs), double(f.lostNs)));
        m_findings->setItem(i, 3, new NumberItem(QString::number(f.lostFraction * 100.0, 'f', 1), f.lostFraction));
    }
    m_findings->setSortingEnabled(true);
    m_findings->sortByColumn(2, Qt::DescendingOrder); // ranked by lost time, as the reports list them
    m_findings->resizeColumnToContents(0);
    m_findings->resizeColumnToContents(2); // "Lost rank-time" whole
    if (!m_job.findings.empty())
        m_findings->selectRow(0);
    else
        m_details->showNothing();

    m_ranks->setSortingEnabled(false);
    m_ranks->setRowCount(int(m_job.ranks.size()));
    for (int i = 0; i < int(m_job.ranks.size()); ++i) {
        const analysis::JobRank& r = m_job.ranks[std::size_t(i)];
        model::TimeNs total = 0;
        model::TimeNs comm = 0;
        model::TimeNs wait = 0;
        model::TimeNs idle = 0;
        model::TimeNs caused = 0;
        for (const analysis::JobRankStep& s : r.steps) {
            total += s.durationNs;
            comm += s.communicationNs;
            wait += s.communicationWaitNs;
            idle += s.communicationIdleNs;
            caused += s.causedWaitNs;
        }
        const model::TimeNs mean = r.steps.empty() ? 0 : total / model::TimeNs(r.steps.size());
        auto* rank = new NumberItem(m_heatMap->isStraggler(std::size_t(i)) ? tr("%1 (straggler)").arg(r.rank)
                                                                           : QString::number(r.rank),
                                    r.rank);
        rank->setData(Qt::UserRole + 1, i);
        rank->setToolTip(QString::fromStdString(r.source));
        m_ranks->setItem(i, 0, rank);
        m_ranks->setItem(i, 1, new NumberItem(QString::number(r.steps.size()), double(r.steps.size())));
        m_ranks->setItem(i, 2, new NumberItem(TimeFormat::formatDuration(mean), double(mean)));
        m_ranks->setItem(i, 3, new NumberItem(TimeFormat::formatDuration(comm), double(comm)));
        m_ranks->setItem(i, 4, new NumberItem(TimeFormat::formatDuration(wait), double(wait)));
        m_ranks->setItem(i, 5, new NumberItem(TimeFormat::formatDuration(idle), double(idle)));
        m_ranks->setItem(i, 6, new NumberItem(TimeFormat::formatDuration(caused), double(caused)));
        m_ranks->setItem(i, 7,
                         new QTableWidgetItem(r.findings.empty() ? tr("No findings")
                                                                 : QString::fromStdString(r.findings.front().title)));
        const bool fromReport = r.tracePath != r.source;
        auto* trace = new QTableWidgetItem(r.tracePath.empty() ? tr("unknown") : QString::fromStdString(r.tracePath));
        trace->setToolTip(fromReport ? tr("From the report %1").arg(QString::fromStdString(r.source))
                                     : tr("Analysed from this trace"));
        m_ranks->setItem(i, 8, trace);
    }
    m_ranks->setSortingEnabled(true);
    m_ranks->sortByColumn(0, Qt::AscendingOrder);
    for (int c = 0; c <= 6; ++c) // the figures and their headers whole; the finding and the trace take the rest
        m_ranks->resizeColumnToContents(c);
    updateCompareButton();
}

void JobOverview::updateCompareButton()
{
    m_compare->setEnabled(m_ranks->selectionModel() && m_ranks->selectionModel()->selectedRows().size() == 2);
}

} // namespace timesink::widgets
