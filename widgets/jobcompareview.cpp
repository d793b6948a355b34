// SPDX-License-Identifier: MIT
#include "widgets/jobcompareview.h"

#include "analysis/core/finding.h"
#include "widgets/sortableitem.h"
#include "widgets/tableheight.h"
#include "widgets/timeformat.h"

#include <QAction>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QScrollBar>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <utility>

namespace timesink::widgets {

namespace {

QString signedDuration(model::TimeNs ns)
{
    return ns > 0 ? QStringLiteral("+") + TimeFormat::formatDuration(ns) : TimeFormat::formatDuration(ns);
}

QStandardItem* textItem(const QString& text)
{
    return sortableTextItem(text, JobCompareView::kSortRole);
}

QStandardItem* durationItem(model::TimeNs ns, bool signedText = false)
{
    return sortableNumberItem(signedText ? signedDuration(ns) : TimeFormat::formatDuration(ns),
                              QVariant::fromValue<qlonglong>(ns), JobCompareView::kSortRole);
}

/// A rank's figure on a side where the rank has no step: "—", sorted below every time.
QStandardItem* sideItem(std::size_t steps, model::TimeNs ns)
{
    if (steps > 0)
        return durationItem(ns);
    auto* item = new QStandardItem(QStringLiteral("—"));
    item->setData(QVariant::fromValue<qlonglong>(-1), JobCompareView::kSortRole);
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    item->setEditable(false);
    return item;
}

QTableView* makeTable(QWidget* parent, QStandardItemModel* model, QSortFilterProxyModel* proxy, const char* name)
{
    QTableView* table = makeResultTable(parent, model, proxy, JobCompareView::kSortRole);
    table->setObjectName(QString::fromLatin1(name));
    table->horizontalHeader()->setStretchLastSection(true);
    return table;
}

QWidget* titled(QWidget* parent, const QString& title, QWidget* content)
{
    auto* box = new QWidget(parent);
    auto* layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(new QLabel(title, box));
    layout->addWidget(content, 1);
    return box;
}

QString stragglerText(const std::vector<std::int64_t>& ranks)
{
    if (ranks.empty())
        return QObject::tr("none");
    QStringList names;
    for (std::int64_t r : ranks)
        names << QString::number(r);
    return names.join(QStringLiteral(", "));
}

QString worldText(std::int32_t world)
{
    return world > 0 ? QString::number(world) : QObject::tr("unknown");
}

} // namespace

JobCompareView::JobCompareView(QWidget* parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("jobCompare"));
    m_header = new QLabel(this);
    m_header->setTextFormat(Qt::RichText);
    m_header->setWordWrap(true);
    m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_notes = new QLabel(this);
    m_notes->setWordWrap(true);
    m_notes->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_figures = new QStandardItemModel(this);
    m_figures->setHorizontalHeaderLabels({tr("Job figure"), tr("Baseline"), tr("Candidate"), tr("Delta")});
    m_ranks = new QStandardItemModel(this);
    m_ranks->setHorizontalHeaderLabels({tr("Rank"), tr("Steps"), tr("Baseline step"), tr("Candidate step"), tr("Delta"),
                                        tr("Baseline wait"), tr("Candidate wait"), tr("Wait delta"),
                                        tr("Baseline exposed comm."), tr("Candidate exposed comm."),
                                        tr("Baseline waiting caused"), tr("Candidate waiting caused")});
    m_kinds = new QStandardItemModel(this);
    m_kinds->setHorizontalHeaderLabels({tr("Finding kind"), tr("Baseline lost"), tr("Candidate lost"), tr("Delta")});
    m_figuresProxy = new QSortFilterProxyModel(this);
    m_ranksProxy = new QSortFilterProxyModel(this);
    m_kindsProxy = new QSortFilterProxyModel(this);
    m_figuresTable = makeTable(this, m_figures, m_figuresProxy, "jobFigures");
    m_ranksTable = makeTable(this, m_ranks, m_ranksProxy, "jobRanks");
    m_kindsTable = makeTable(this, m_kinds, m_kindsProxy, "jobKinds");
    m_ranksTable->setToolTip(tr("Means over each rank's own steps in its job: step time, communication wait and "
                                "exposed communication per step; the waiting a rank caused on the others is summed "
                                "over its steps"));

    // The upper pane holds the two short tables side by side; a plain widget around their splitter, since a
    // QSplitter caps its own height at its shortest child's maximum.
    m_upper = new QWidget(this);
    auto* top = new QSplitter(Qt::Horizontal, m_upper);
    m_figuresBox = titled(top, tr("<b>Job</b> (baseline vs candidate)"), m_figuresTable);
    m_kindsBox = titled(top, tr("<b>Lost rank-time by finding kind</b>"), m_kindsTable);
    for (QWidget* box : {m_figuresBox, m_kindsBox}) {
        static_cast<QVBoxLayout*>(box->layout())->addStretch(); // the shorter table ends at its last row
        top->addWidget(box);
    }
    top->setStretchFactor(0, 3);
    top->setStretchFactor(1, 2);
    top->setChildrenCollapsible(false);
    auto* upperLayout = new QVBoxLayout(m_upper);
    upperLayout->setContentsMargins(0, 0, 0, 0);
    upperLayout->addWidget(top);
    m_splitter = new QSplitter(Qt::Vertical, this);
    m_splitter->setObjectName(QStringLiteral("jobCompareSplitter"));
    m_splitter->addWidget(m_upper);
    m_splitter->addWidget(titled(m_splitter, tr("<b>Ranks</b> (per step means; ★ straggler)"), m_ranksTable));
    // The upper tables keep the height of their rows (fitUpperTables caps them); what is left goes to the ranks.
    m_splitter->setStretchFactor(0, 0);
    m_splitter->setStretchFactor(1, 1);
    m_splitter->setChildrenCollapsible(false);
    for (QTableView* table : {m_figuresTable, m_kindsTable}) {
        // A horizontal scroll bar appears when the window is narrower than the columns: it takes a row's height.
        connect(table->horizontalScrollBar(), &QScrollBar::rangeChanged, this, [this] { fitUpperTables(); });
    }

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_header);
    layout->addWidget(m_splitter, 1);
    layout->addWidget(m_notes);

    auto* menuBar = new QMenuBar(this);
    m_fileMenu = menuBar->addMenu(tr("&File"));
    auto* close = new QAction(tr("&Close"), this);
    close->setObjectName(QStringLiteral("actionClose"));
    close->setShortcut(QKeySequence::Close);
    connect(close, &QAction::triggered, this, &QWidget::close);
    m_fileMenu->addAction(close);
    layout->setMenuBar(menuBar);
    setWindowTitle(tr("Compare jobs"));
}

void JobCompareView::fitUpperTables()
{
    int pane = 0;
    for (auto [table, box] : {std::pair {m_figuresTable, m_figuresBox}, std::pair {m_kindsTable, m_kindsBox}}) {
        const int rows = tableHeightForRows(table);
        // On a small screen the splitter may squeeze a table down to its header and three rows, then it scrolls.
        table->setMinimumHeight(tableHeightForRows(table, 3));
        table->setMaximumHeight(rows);
        // The title above the table and the spacing under it.
        const int title = box->layout()->itemAt(0)->widget()->sizeHint().height() + box->layout()->spacing();
        pane = std::max(pane, title + rows);
    }
    m_upper->setMaximumHeight(pane);
    // QSplitter does not give back what a pane loses to a lower maximum: hand it to the rank table.
    if (const QList<int> sizes = m_splitter->sizes(); sizes.size() == 2 && sizes[0] > pane)
        m_splitter->setSizes({pane, sizes[0] + sizes[1] - pane});
    // Nor is the rank table squeezed below four rows.
    m_ranksTable->setMinimumHeight(tableHeightForRows(m_ranksTable, 4));
}

void JobCompareView::setResult(const analysis::JobCompareResult& result, const QString& baselinePath,
                               const QString& candidatePath)
{
    m_result = result;
    m_baselinePath = baselinePath;
    m_candidatePath = candidatePath;
    m_inputPaths = {baselinePath, candidatePath};
    auto side = [](const QString& role, const QString& path, std::int32_t world, std::size_t ranks, std::size_t steps,
                   const std::vector<std::int64_t>& stragglers) {
        return tr("<b>%1</b> %2 — world size %3, %4 rank(s), %5 step(s), stragglers: %6")
            .arg(role, path.toHtmlEscaped(), worldText(world))
            .arg(ranks)
            .arg(steps)
            .arg(stragglerText(stragglers));
    };
    m_header->setText(side(tr("Baseline"), baselinePath, result.baselineWorldSize, result.baselineRanks,
                           result.baselineSteps, result.baselineStragglers)
                      + QStringLiteral("<br/>")
                      + side(tr("Candidate"), candidatePath, result.candidateWorldSize, result.candidateRanks,
                             result.candidateSteps, result.candidateStragglers));

    m_figures->removeRows(0, m_figures->rowCount());
    for (const analysis::JobCompareFigure& f : result.figures) {
        QList<QStandardItem*> row {textItem(QString::fromStdString(f.label)), durationItem(f.baselineNs),
                                   durationItem(f.candidateNs), durationItem(f.deltaNs(), true)};
        row.front()->setToolTip(QString::fromStdString(f.key));
        m_figures->appendRow(row);
    }

    m_ranks->removeRows(0, m_ranks->rowCount());
    for (const analysis::JobCompareRank& r : result.ranks) {
        QList<QStandardItem*> row(RankColumnCount);
        QString rank = QString::number(r.rank);
        if (r.baselineStraggler || r.candidateStraggler)
            rank += r.baselineStraggler && r.candidateStraggler ? tr(" ★ both")
                : r.baselineStraggler                           ? tr(" ★ baseline")
                                                                : tr(" ★ candidate");
        row[Rank] = textItem(rank);
        row[Rank]->setData(r.rank, kSortRole);
        row[Steps] = textItem(QStringLiteral("%1 / %2").arg(r.baselineSteps).arg(r.candidateSteps));
        const bool both = r.baselineSteps > 0 && r.candidateSteps > 0;
        row[BaselineStep] = sideItem(r.baselineSteps, r.baselineStepNs);
        row[CandidateStep] = sideItem(r.candidateSteps, r.candidateStepNs);
        row[StepDelta] = both ? durationItem(r.deltaNs(), true) : sideItem(0, 0);
        row[BaselineWait] = sideItem(r.baselineSteps, r.baselineWaitNs);
        row[CandidateWait] = sideItem(r.candidateSteps, r.candidateWaitNs);
        row[WaitDelta] = both ? durationItem(r.candidateWaitNs - r.baselineWaitNs, true) : sideItem(0, 0);
        row[BaselineCommunication] = sideItem(r.baselineSteps, r.baselineCommunicationNs);
        row[CandidateCommunication] = sideItem(r.candidateSteps, r.candidateCommunicationNs);
        row[BaselineCausedWait] = sideItem(r.baselineSteps, r.baselineCausedWaitNs);
        row[CandidateCausedWait] = sideItem(r.candidateSteps, r.candidateCausedWaitNs);
        m_ranks->appendRow(row);
    }

    m_kinds->removeRows(0, m_kinds->rowCount());
    for (const analysis::JobCompareKind& k : result.lostByKind) {
        QList<QStandardItem*> row {textItem(QString::fromStdString(analysis::kindLabel(k.kind))),
                                   durationItem(k.baselineLostNs), durationItem(k.candidateLostNs),
                                   durationItem(k.deltaNs(), true)};
        row.front()->setToolTip(QString::fromStdString(k.kind));
        m_kinds->appendRow(row);
    }

    QStringList notes;
    for (const std::string& n : result.notes)
        notes << QStringLiteral("• ") + QString::fromStdString(n);
    m_notes->setText(notes.join(QLatin1Char('\n')));
    for (QTableView* table : {m_figuresTable, m_ranksTable, m_kindsTable})
        table->sortByColumn(-1, Qt::AscendingOrder); // the analysis' order
    fitUpperTables();
}

} // namespace timesink::widgets
