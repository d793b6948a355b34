// SPDX-License-Identifier: MIT
#include "widgets/compareview.h"

#include "widgets/detailspanel.h"
#include "widgets/layercompareview.h"
#include "widgets/operatordiffmodel.h"
#include "widgets/tablecopy.h"
#include "widgets/timeformat.h"
#include "widgets/timelineview.h"
#include "widgets/waterfallchart.h"

#include <QAction>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace timesink::widgets {

namespace {

constexpr int kFindingIndexRole = Qt::UserRole + 1;

QString signedDuration(model::TimeNs ns)
{
    return ns > 0 ? QStringLiteral("+") + TimeFormat::formatDuration(ns) : TimeFormat::formatDuration(ns);
}

QString stepLabel(const model::Trace& trace, std::size_t index)
{
    const model::Step& s = trace.steps()[index];
    return s.synthetic ? QObject::tr("whole trace") : QStringLiteral("#%1").arg(s.number);
}

QString runLabel(const QString& role, const model::Trace& trace)
{
    return QStringLiteral("<b>%1</b> %2 <i>(%3)</i>")
        .arg(role, QString::fromStdString(trace.metadata().sourcePath).toHtmlEscaped(),
             QString::fromStdString(trace.metadata().format).toHtmlEscaped());
}

/// Shows exactly [t0, t1]: TimelineView::showRange() adds a margin, which would make two synchronised
/// views creep apart; a zoom to a (restored) time selection sets the range as given.
void showExactRange(TimelineView* view, model::TimeNs t0, model::TimeNs t1)
{
    const auto saved = view->timeSelection();
    view->setTimeSelection(std::pair(t0, t1));
    view->zoomToSelection();
    view->setTimeSelection(saved);
}

QTreeWidget* makeFindingsList(QWidget* parent)
{
    auto* list = new QTreeWidget(parent);
    list->setColumnCount(3);
    list->setHeaderLabels({QObject::tr("Finding"), QObject::tr("Lost"), QObject::tr("Change")});
    list->headerItem()->setToolTip(1, QObject::tr("Lost time in the compared steps"));
    list->setRootIsDecorated(false);
    list->setUniformRowHeights(true);
    // Titles are sentences ("Device idle while the host runs framework ops …: 29.9 ms in 81 gaps") in the column that
    // gets the width: cut in the middle, they keep their start and their figures ("Device idle whi…ms in 81 gaps"),
    // not "Device …"; the tooltip holds the whole title.
    list->setTextElideMode(Qt::ElideMiddle);
    list->header()->setStretchLastSection(false);
    list->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    list->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    list->header()->setSectionResizeMode(2, QHeaderView::ResizeToContents);
    return list;
}

} // namespace

CompareView::CompareView(QWidget* parent)
    : QWidget(parent)
{
    m_summary = new QLabel(this);
    m_summary->setTextFormat(Qt::RichText);
    m_summary->setWordWrap(true);
    m_stepPairs = new QComboBox(this);
    m_stepPairs->setToolTip(tr("The pair of compared steps the two timelines are aligned on"));

    m_baseTimeline = new TimelineView(this);
    m_candTimeline = new TimelineView(this);
    m_baseLabel = new QLabel(this);
    m_candLabel = new QLabel(this);
    for (QLabel* l : {m_baseLabel, m_candLabel}) {
        l->setTextFormat(Qt::RichText);
        l->setTextInteractionFlags(Qt::TextSelectableByMouse);
    }

    auto* timelines = new QSplitter(Qt::Vertical, this);
    for (auto [label, view] : {std::pair {m_baseLabel, m_baseTimeline}, std::pair {m_candLabel, m_candTimeline}}) {
        auto* box = new QWidget(timelines);
        auto* layout = new QVBoxLayout(box);
        layout->setContentsMargins(0, 0, 0, 0);
        layout->setSpacing(2);
        layout->addWidget(label);
        layout->addWidget(view, 1);
        timelines->addWidget(box);
    }

    m_operators = new OperatorDiffModel(this);
    m_proxy = new QSortFilterProxyModel(this);
    m_proxy->setSourceModel(m_operators);
    m_proxy->setSortRole(OperatorDiffModel::kSortRole);
    m_proxy->setFilterKeyColumn(OperatorDiffModel::Name);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_filter = new QLineEdit(this);
    m_filter->setPlaceholderText(tr("Filter operators"));
    m_filter->setClearButtonEnabled(true);
    connect(m_filter, &QLineEdit::textChanged, m_proxy, &QSortFilterProxyModel::setFilterFixedString);
    m_table = new QTableView(this);
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    // The name takes what is left; every number column (Delta and Ratio included) is as wide as its content.
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(OperatorDiffModel::Name, QHeaderView::Stretch);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    m_table->setMinimumHeight(m_table->horizontalHeader()->sizeHint().height()
                              + 10 * m_table->verticalHeader()->defaultSectionSize());
    TableCopy::install(m_table);
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &CompareView::onOperatorSelectionChanged);

    auto* operatorsBox = new QWidget(this);
    auto* operatorsLayout = new QVBoxLayout(operatorsBox);
    operatorsLayout->setContentsMargins(0, 0, 0, 0);
    operatorsLayout->addWidget(m_filter);
    operatorsLayout->addWidget(m_table, 1);

    m_baseFindings = makeFindingsList(this);
    m_candFindings = makeFindingsList(this);
    TableCopy::install(m_baseFindings);
    TableCopy::install(m_candFindings);
    connect(m_baseFindings, &QTreeWidget::itemSelectionChanged, this, [this] { highlightFinding(true); });
    connect(m_candFindings, &QTreeWidget::itemSelectionChanged, this, [this] { highlightFinding(false); });
    auto* findings = new QSplitter(Qt::Vertical, this);
    for (auto [title, list] :
         {std::pair {tr("Baseline findings"), m_baseFindings}, std::pair {tr("Candidate findings"), m_candFindings}}) {
        auto* box = new QWidget(findings);
        auto* layout = new QVBoxLayout(box);
        layout->setContentsMargins(0, 0, 0, 0);
        layout->addWidget(new QLabel(title, box));
        layout->addWidget(list, 1);
        findings->addWidget(box);
    }

    // The operator table gets the full width of the bottom half and the findings sit beside the details.
    auto* main = new QSplitter(Qt::Vertical, this);
    main->addWidget(timelines);
    // The operators share the bottom half with the waterfall and the kernel classes.
    m_tabs = new QTabWidget(this);
    m_tabs->setObjectName(QStringLiteral("compareTabs"));
    m_tabs->addTab(operatorsBox, tr("Operators"));
    m_waterfall = new WaterfallChart(this);
    auto* waterfallScroll = new QScrollArea(this);
    waterfallScroll->setWidget(m_waterfall);
    waterfallScroll->setWidgetResizable(true);
    m_tabs->addTab(waterfallScroll, tr("Waterfall"));
    m_classes = new QTreeWidget(this);
    m_classes->setObjectName(QStringLiteral("kernelClasses"));
    m_classes->setRootIsDecorated(false);
    m_classes->header()->setStretchLastSection(false);
    m_classes->setHeaderLabels(
        {tr("Class"), tr("Baseline"), tr("Candidate"), tr("Delta"), tr("Baseline calls"), tr("Candidate calls")});
    m_tabs->addTab(m_classes, tr("Kernel classes"));
    auto* efficiencyBox = new QWidget(this);
    auto* efficiencyLayout = new QVBoxLayout(efficiencyBox);
    m_efficiencyHeadline = new QLabel(efficiencyBox);
    m_efficiencyHeadline->setWordWrap(true);
    m_efficiency = new QTreeWidget(efficiencyBox);
    m_efficiency->setObjectName(QStringLiteral("efficiencyClasses"));
    m_efficiency->setRootIsDecorated(false);
    m_efficiency->setWordWrap(true);
    m_efficiency->setHeaderLabels({tr("Class"), tr("Baseline"), tr("Candidate"), tr("Speed"), tr("Limit"), tr("Why")});
    efficiencyLayout->addWidget(m_efficiencyHeadline);
    efficiencyLayout->addWidget(m_efficiency, 1);
    m_tabs->addTab(efficiencyBox, tr("Efficiency"));
    m_layers = new LayerCompareView(this);
    m_layers->hide(); // a tab only for two edge runs (setRuns)
    main->addWidget(m_tabs);
    main->setStretchFactor(0, 1);
    main->setStretchFactor(1, 1);
    main->setCollapsible(1, false);

    m_details = new DetailsPanel(this);
    m_details->setMinimumWidth(260);
    auto* side = new QSplitter(Qt::Vertical, this);
    side->addWidget(m_details);
    side->addWidget(findings);
    findings->setOrientation(Qt::Vertical);
    auto* outer = new QSplitter(Qt::Horizontal, this);
    outer->addWidget(main);
    outer->addWidget(side);
    outer->setStretchFactor(0, 2);
    outer->setStretchFactor(1, 1);
    outer->setCollapsible(0, false);

    m_stepsEdit = new QLineEdit(this);
    m_stepsEdit->setObjectName(QStringLiteral("stepsEdit"));
    m_stepsEdit->setPlaceholderText(tr("all"));
    m_stepsEdit->setToolTip(tr("Steps to compare, baseline:candidate — indices (0, 0-2), numbers (#12, #12-#14) "
                               "or all; e.g. \"#1009-#1011:#50-#52\""));
    m_stepsEdit->setMaximumWidth(220);
    auto* apply = new QPushButton(tr("Compare"), this);
    apply->setObjectName(QStringLiteral("applySteps"));
    m_stepsError = new QLabel(this);
    m_stepsError->setObjectName(QStringLiteral("stepsError"));
    m_stepsError->setStyleSheet(QStringLiteral("color: #c0392b"));
    m_stepsError->setWordWrap(true);
    m_stepsError->hide();
    connect(apply, &QPushButton::clicked, this, &CompareView::applySteps);
    connect(m_stepsEdit, &QLineEdit::returnPressed, this, &CompareView::applySteps);

    auto* header = new QHBoxLayout;
    header->addWidget(m_summary, 1);
    header->addWidget(new QLabel(tr("Steps:"), this));
    header->addWidget(m_stepsEdit);
    header->addWidget(apply);
    header->addWidget(new QLabel(tr("Align on:"), this));
    header->addWidget(m_stepPairs);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(header);
    layout->addWidget(m_stepsError);
    layout->addWidget(outer, 1);

    // The view is shown as a window of its own (beside the main window), so it carries its own menu bar.
    auto* menuBar = new QMenuBar(this);
    m_fileMenu = menuBar->addMenu(tr("&File"));
    auto* close = new QAction(tr("&Close"), this);
    close->setShortcut(QKeySequence::Close);
    connect(close, &QAction::triggered, this, &QWidget::close);
    m_fileMenu->addAction(close);
    close->setObjectName(QStringLiteral("actionClose"));
    layout->setMenuBar(menuBar);

    connect(m_baseTimeline, &TimelineView::viewChanged, this, [this] { syncFrom(m_baseTimeline); });
    connect(m_candTimeline, &TimelineView::viewChanged, this, [this] { syncFrom(m_candTimeline); });
    connect(m_stepPairs, &QComboBox::currentIndexChanged, this, &CompareView::pickStepPair);
    // Details of what is clicked on either timeline; its flow links jump on that timeline.
    for (TimelineView* view : {m_baseTimeline, m_candTimeline}) {
        connect(view, &TimelineView::sliceSelected, this, [this, view](model::SliceRef slice) {
            if (!view->trace() || !slice.isValid())
                return;
            m_detailsTimeline = view;
            m_details->showSlice(*view->trace(), slice);
        });
    }
    connect(m_details, &DetailsPanel::sliceActivated, this, [this](model::SliceRef slice) {
        if (m_detailsTimeline)
            m_detailsTimeline->selectSlice(slice, true);
    });
    connect(m_details, &DetailsPanel::highlightRequested, this, [this](const std::vector<model::SliceRef>& slices) {
        if (m_detailsTimeline)
            m_detailsTimeline->setHighlighted(slices);
    });
    setWindowTitle(tr("Compare runs"));
}

bool CompareView::applySteps()
{
    analysis::CompareOptions options;
    std::string message;
    QString error;
    const bool ok = m_baseline && m_candidate
        && analysis::CompareStepSelection::parsePair(m_stepsEdit->text().trimmed().toStdString(), options.baselineSteps,
                                                     options.candidateSteps, message)
        && setRuns(m_baseline, m_baselineFindingList, m_candidate, m_candidateFindingList, options, error);
    if (!ok) {
        m_stepsError->setText(error.isEmpty() ? QString::fromStdString(message) : error);
        m_stepsError->show();
        return false;
    }
    m_stepsError->hide();
    return true;
}

CompareView::~CompareView() = default;

void CompareView::setSourcePaths(const QString& baseline, const QString& candidate)
{
    m_baselinePath = baseline;
    m_candidatePath = candidate;
}

bool CompareView::setRuns(model::TracePtr baseline, std::vector<analysis::Finding> baselineFindings,
                          model::TracePtr candidate, std::vector<analysis::Finding> candidateFindings,
                          const analysis::CompareOptions& options, QString& error)
{
    if (!baseline || !candidate) {
        error = tr("both runs are needed for a comparison");
        return false;
    }
    analysis::CompareResult result;
    std::string message;
    if (!analysis::compareRuns(*baseline, baselineFindings, *candidate, candidateFindings, options, result, message)) {
        error = QString::fromStdString(message);
        return false;
    }
    m_baseline = std::move(baseline);
    m_candidate = std::move(candidate);
    m_baselineFindingList = std::move(baselineFindings);
    m_candidateFindingList = std::move(candidateFindings);
    m_result = std::move(result);

    m_syncing = true; // the two setTrace() calls each fit their own trace; alignment follows below
    m_baseTimeline->setTrace(m_baseline);
    m_candTimeline->setTrace(m_candidate);
    m_syncing = false;
    m_baseLabel->setText(runLabel(tr("Baseline"), *m_baseline));
    m_candLabel->setText(runLabel(tr("Candidate"), *m_candidate));

    const model::TimeNs baseTotal = m_result.baselineStepsNs();
    const model::TimeNs candTotal = m_result.candidateStepsNs();
    QString summary
        = tr("%n compared step(s): baseline %1, candidate %2 (%3)", nullptr, static_cast<int>(m_result.steps.size()))
              .arg(TimeFormat::formatDuration(baseTotal), TimeFormat::formatDuration(candTotal),
                   signedDuration(candTotal - baseTotal));
    for (const std::string& note : m_result.notes) {
        // The CLI's flag is the Steps box here.
        QString text = QString::fromStdString(note);
        text.replace(QStringLiteral("choose with --steps"), QStringLiteral("choose them in the Steps box"));
        summary += QStringLiteral("<br/><i>%1</i>").arg(text.toHtmlEscaped());
    }
    m_summary->setText(summary);

    m_operators->setOperators(m_result.operators);
    m_waterfall->setResult(m_result);
    m_classes->clear();
    for (const analysis::CompareClass& c : m_result.classes) {
        auto* item = new QTreeWidgetItem(m_classes,
                                         {QString::fromUtf8(analysis::kernelClassLabel(c.cls).data()),
                                          TimeFormat::formatDuration(c.baselineNs),
                                          TimeFormat::formatDuration(c.candidateNs), signedDuration(c.deltaNs()),
                                          QString::number(c.baselineCalls), QString::number(c.candidateCalls)});
        for (int col = 1; col < 6; ++col)
            item->setTextAlignment(col, Qt::AlignRight | Qt::AlignVCenter);
    }
    for (int col = 0; col < 6; ++col)
        m_classes->resizeColumnToContents(col);
    fillEfficiency();
    const int layersTab = m_tabs->indexOf(m_layers);
    if (m_result.layers.present) {
        m_layers->setLayers(m_result.layers, baseTotal, candTotal);
        if (layersTab < 0) {
            m_tabs->insertTab(0, m_layers, tr("Layers (edge runs)"));
            m_tabs->setCurrentIndex(0);
        }
    } else if (layersTab >= 0) {
        m_tabs->removeTab(layersTab);
        m_layers->hide();
    }
    m_table->sortByColumn(-1, Qt::AscendingOrder); // the comparison's own order: largest |delta| first
    fillFindings();

    {
        const QSignalBlocker block(m_stepPairs);
        m_stepPairs->clear();
        for (const analysis::CompareStepPair& p : m_result.steps) {
            m_stepPairs->addItem(tr("%1 ↔ %2 (%3)")
                                     .arg(stepLabel(*m_baseline, p.baselineIndex),
                                          stepLabel(*m_candidate, p.candidateIndex), signedDuration(p.deltaNs())));
        }
    }
    pickStepPair(0);
    error.clear();
    return true;
}

void CompareView::pickStepPair(int pair)
{
    if (!m_baseline || pair < 0 || pair >= static_cast<int>(m_result.steps.size()))
        return;
    const analysis::CompareStepPair& p = m_result.steps[static_cast<std::size_t>(pair)];
    const model::Step& b = m_baseline->steps()[p.baselineIndex];
    const model::Step& c = m_candidate->steps()[p.candidateIndex];
    m_baseAnchor = b.start;
    m_candAnchor = c.start;
    if (m_stepPairs->currentIndex() != pair) {
        const QSignalBlocker block(m_stepPairs);
        m_stepPairs->setCurrentIndex(pair);
    }
    // Show the longer of the two steps on both, so neither is cut off.
    const model::TimeNs length = std::max(b.duration(), c.duration());
    showExactRange(m_baseTimeline, m_baseAnchor, m_baseAnchor + std::max<model::TimeNs>(length, 1));
}

void CompareView::syncFrom(TimelineView* source)
{
    if (m_syncing || !m_baseline || !m_candidate)
        return;
    TimelineView* target = source == m_baseTimeline ? m_candTimeline : m_baseTimeline;
    const model::TimeNs from = source == m_baseTimeline ? m_baseAnchor : m_candAnchor;
    const model::TimeNs to = source == m_baseTimeline ? m_candAnchor : m_baseAnchor;
    m_syncing = true;
    showExactRange(target, source->zoom().start() - from + to, source->zoom().end() - from + to);
    m_syncing = false;
}

void CompareView::onOperatorSelectionChanged()
{
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    const analysis::CompareOperator* op
        = rows.isEmpty() ? nullptr : m_operators->operatorAt(m_proxy->mapToSource(rows.front()).row());
    m_baseTimeline->setHighlighted(op ? op->baselineOccurrences : std::vector<model::SliceRef> {});
    m_candTimeline->setHighlighted(op ? op->candidateOccurrences : std::vector<model::SliceRef> {});
    emit operatorSelected(op ? QString::fromStdString(op->name) : QString());
}

void CompareView::fillEfficiency()
{
    const analysis::efficiency::CompareEfficiency& e = m_result.efficiency;
    m_efficiency->clear();
    m_efficiencyHeadline->setText(
        e.classes.empty() ? tr("Neither run has operators whose work Timesink can tell (shapes not recorded).")
                          : QString::fromStdString(analysis::efficiency::efficiencyHeadline(e)));
    for (const analysis::efficiency::EfficiencyRow& row : analysis::efficiency::efficiencyRows(e)) {
        auto* item = new QTreeWidgetItem(m_efficiency,
                                         {QString::fromStdString(row.cls), QString::fromStdString(row.baseline),
                                          QString::fromStdString(row.candidate), QString::fromStdString(row.speed),
                                          QString::fromUtf8(row.cause.data(), static_cast<qsizetype>(row.cause.size()))
                                              .replace(QLatin1Char('_'), QLatin1Char(' ')),
                                          QString::fromStdString(row.why)});
        item->setTextAlignment(3, Qt::AlignRight | Qt::AlignVCenter);
        // The sentence is the widest cell: the column stretches, and the full text is a tooltip when it is cut.
        item->setToolTip(5, QString::fromStdString(row.why));
    }
    for (int col = 0; col < 5; ++col)
        m_efficiency->resizeColumnToContents(col);
}

void CompareView::fillFindings()
{
    for (bool baseline : {true, false}) {
        QTreeWidget* list = baseline ? m_baseFindings : m_candFindings;
        const auto& findings = baseline ? m_baselineFindingList : m_candidateFindingList;
        const auto& lost = baseline ? m_result.baseline.findingLostNs : m_result.candidate.findingLostNs;
        list->clear();
        for (std::size_t i = 0; i < findings.size(); ++i) {
            QString change = tr("unchanged");
            for (const analysis::CompareExplanation& e : m_result.explanations) {
                const auto& index = baseline ? e.baselineFinding : e.candidateFinding;
                if (!index || *index != i)
                    continue;
                switch (e.status) {
                case analysis::CompareExplanation::Status::CandidateOnly:
                    change = tr("candidate only");
                    break;
                case analysis::CompareExplanation::Status::BaselineOnly:
                    change = tr("baseline only");
                    break;
                case analysis::CompareExplanation::Status::Grew:
                case analysis::CompareExplanation::Status::Shrank:
                    change = signedDuration(e.deltaNs());
                    break;
                }
            }
            auto* item = new QTreeWidgetItem(list);
            item->setText(0, QString::fromStdString(findings[i].title));
            item->setToolTip(0,
                             QString::fromStdString(findings[i].title) + QStringLiteral("\n\n")
                                 + QString::fromStdString(findings[i].recommendation));
            item->setText(1, TimeFormat::formatDuration(i < lost.size() ? lost[i] : findings[i].lostNs));
            item->setText(2, change);
            item->setTextAlignment(1, Qt::AlignRight | Qt::AlignVCenter);
            item->setData(0, kFindingIndexRole, static_cast<qulonglong>(i));
        }
    }
}

void CompareView::highlightFinding(bool baseline)
{
    QTreeWidget* list = baseline ? m_baseFindings : m_candFindings;
    const auto& findings = baseline ? m_baselineFindingList : m_candidateFindingList;
    const QList<QTreeWidgetItem*> items = list->selectedItems();
    if (items.isEmpty())
        return;
    const auto index = items.front()->data(0, kFindingIndexRole).toULongLong();
    if (index >= findings.size())
        return;
    (baseline ? m_baseTimeline : m_candTimeline)->setHighlighted(findings[index].events);
    m_detailsTimeline = baseline ? m_baseTimeline : m_candTimeline;
    m_details->showFinding((baseline ? m_baseline : m_candidate).get(), findings[index]);
}

} // namespace timesink::widgets
