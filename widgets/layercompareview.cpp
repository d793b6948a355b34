// SPDX-License-Identifier: MIT
#include "widgets/layercompareview.h"

#include "widgets/sortableitem.h"
#include "widgets/tableheight.h"
#include "widgets/timeformat.h"

#include <QEvent>
#include <QHeaderView>
#include <QLabel>
#include <QScrollBar>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <limits>

namespace timesink::widgets {

namespace {

QString signedDuration(model::TimeNs ns)
{
    return ns > 0 ? QStringLiteral("+") + TimeFormat::formatDuration(ns) : TimeFormat::formatDuration(ns);
}

QString ratioText(std::optional<double> ratio)
{
    return ratio ? QStringLiteral("%1×").arg(*ratio, 0, 'f', 2) : QObject::tr("new");
}

/// A ratio with no baseline time sorts above every finite ratio, as in the operator table.
double ratioSortKey(std::optional<double> ratio)
{
    return ratio ? *ratio : std::numeric_limits<double>::max();
}

QStandardItem* textItem(const QString& text)
{
    return sortableTextItem(text, LayerCompareView::kSortRole);
}

QStandardItem* numberItem(const QString& text, const QVariant& sortKey)
{
    return sortableNumberItem(text, sortKey, LayerCompareView::kSortRole);
}

QStandardItem* durationItem(model::TimeNs ns, bool signedText = false)
{
    return numberItem(signedText ? signedDuration(ns) : TimeFormat::formatDuration(ns),
                      QVariant::fromValue<qlonglong>(ns));
}

QStandardItem* idItem(const std::optional<std::int64_t>& id)
{
    // A side without the layer sorts before every ID.
    return numberItem(id ? QString::number(*id) : QStringLiteral("—"), QVariant::fromValue<qlonglong>(id.value_or(-1)));
}

QString shapeText(const analysis::CompareLayer& l)
{
    if (!l.baselineId || !l.candidateId)
        return QStringLiteral("—");
    return l.inputShapeChanged() ? QObject::tr("changed") : QObject::tr("same");
}

void fillLayerRow(QStandardItemModel* model, const analysis::CompareLayer& l)
{
    QList<QStandardItem*> row(LayerCompareView::LayerColumnCount);
    row[LayerCompareView::BaselineId] = idItem(l.baselineId);
    row[LayerCompareView::CandidateId] = idItem(l.candidateId);
    row[LayerCompareView::LayerOpType] = textItem(QString::fromStdString(l.opType));
    if (!l.baselineOpType.empty() && l.baselineOpType != l.opType)
        row[LayerCompareView::LayerOpType]->setToolTip(
            QObject::tr("baseline op type: %1").arg(QString::fromStdString(l.baselineOpType)));
    row[LayerCompareView::Placement] = textItem(QString::fromStdString(analysis::layerPlacementChange(l)));
    if (!l.baselineWorkload.empty() || !l.candidateWorkload.empty())
        row[LayerCompareView::Placement]->setToolTip(
            QObject::tr("WorkLoad: %1 → %2")
                .arg(QString::fromStdString(l.baselineWorkload), QString::fromStdString(l.candidateWorkload)));
    row[LayerCompareView::LayerBaseline] = durationItem(l.baselineNs);
    row[LayerCompareView::LayerCandidate] = durationItem(l.candidateNs);
    row[LayerCompareView::LayerDelta] = durationItem(l.deltaNs(), true);
    row[LayerCompareView::LayerRatio] = numberItem(ratioText(l.ratio()), ratioSortKey(l.ratio()));
    row[LayerCompareView::MatchedBy] = textItem(QString::fromUtf8(analysis::layerMatchKey(l.match).data()));
    row[LayerCompareView::InputShape] = textItem(shapeText(l));
    row[LayerCompareView::InputShape]->setToolTip(
        QObject::tr("baseline %1\ncandidate %2")
            .arg(QString::fromStdString(l.baselineInputShape), QString::fromStdString(l.candidateInputShape)));
    row[LayerCompareView::Name] = textItem(QString::fromStdString(l.name));
    if (!l.baselineName.empty() && l.baselineName != l.name)
        row[LayerCompareView::Name]->setToolTip(
            QObject::tr("baseline: %1").arg(QString::fromStdString(l.baselineName)));
    model->appendRow(row);
}

QStringList layerHeaders()
{
    return {QObject::tr("Base ID"),    QObject::tr("Cand ID"),     QObject::tr("Op type"), QObject::tr("Placement"),
            QObject::tr("Baseline"),   QObject::tr("Candidate"),   QObject::tr("Delta"),   QObject::tr("Ratio"),
            QObject::tr("Matched by"), QObject::tr("Input shape"), QObject::tr("Layer")};
}

QTableView* makeTable(QWidget* parent, QStandardItemModel* model, QSortFilterProxyModel* proxy, int stretchColumn)
{
    QTableView* table = makeResultTable(parent, model, proxy, LayerCompareView::kSortRole);
    table->horizontalHeader()->setSectionResizeMode(stretchColumn, QHeaderView::Stretch);
    return table;
}

/// The height of a titled() box's title and the spacing under it.
int titleHeight(const QWidget* box)
{
    const QLayout* layout = box->layout();
    return layout->itemAt(0)->widget()->sizeHint().height() + layout->spacing();
}

QWidget* titled(QWidget* parent, QLabel* title, QWidget* content)
{
    auto* box = new QWidget(parent);
    auto* layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(title);
    layout->addWidget(content, 1);
    return box;
}

} // namespace

LayerCompareView::LayerCompareView(QWidget* parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("layerCompare"));
    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("layerSummary"));
    m_summary->setTextFormat(Qt::RichText);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_opModel = new QStandardItemModel(this);
    m_opModel->setHorizontalHeaderLabels({tr("Op type"), tr("Layers"), tr("Baseline"), tr("Candidate"), tr("Delta"),
                                          tr("Ratio"), tr("Split over cores"), tr("Placement changed")});
    m_movedModel = new QStandardItemModel(this);
    m_movedModel->setHorizontalHeaderLabels(layerHeaders());
    m_layerModel = new QStandardItemModel(this);
    m_layerModel->setHorizontalHeaderLabels(layerHeaders());
    m_opProxy = new QSortFilterProxyModel(this);
    m_movedProxy = new QSortFilterProxyModel(this);
    m_layerProxy = new QSortFilterProxyModel(this);
    m_opTable = makeTable(this, m_opModel, m_opProxy, OpType);
    m_opTable->setObjectName(QStringLiteral("layerOpTypes"));
    m_movedTable = makeTable(this, m_movedModel, m_movedProxy, Name);
    m_movedTable->setObjectName(QStringLiteral("layersMoved"));
    m_layerTable = makeTable(this, m_layerModel, m_layerProxy, Name);
    m_layerTable->setObjectName(QStringLiteral("layersByDelta"));

    m_movedTitle = new QLabel(this);
    m_layersTitle = new QLabel(this);
    m_splitter = new QSplitter(Qt::Vertical, this);
    m_splitter->setObjectName(QStringLiteral("layerSplitter"));
    m_opBox = titled(m_splitter, new QLabel(tr("<b>Op types</b> (by delta, slower first)"), this), m_opTable);
    m_movedBox = titled(m_splitter, m_movedTitle, m_movedTable);
    m_layerBox = titled(m_splitter, m_layersTitle, m_layerTable);
    for (QWidget* box : {m_opBox, m_movedBox, m_layerBox})
        m_splitter->addWidget(box);
    m_splitter->setStretchFactor(0, 0);
    m_splitter->setStretchFactor(1, 0);
    m_splitter->setStretchFactor(2, 1);
    m_splitter->setChildrenCollapsible(false);
    m_splitter->installEventFilter(this);
    // Once the user has placed the handles, a resize keeps their split (QSplitter's own stretch) instead.
    connect(m_splitter, &QSplitter::splitterMoved, this, [this] { m_userSized = true; });
    for (QTableView* table : {m_opTable, m_movedTable}) {
        // A horizontal scroll bar appears when the tab is narrower than the columns: it takes a row's height.
        connect(table->horizontalScrollBar(), &QScrollBar::rangeChanged, this, [this] {
            fitPanes();
            distribute();
        });
    }
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_summary);
    layout->addWidget(m_splitter, 1);
}

bool LayerCompareView::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_splitter && event->type() == QEvent::Resize)
        distribute();
    return QWidget::eventFilter(watched, event);
}

void LayerCompareView::fitPanes()
{
    for (auto [table, box] : {std::pair {m_opTable, m_opBox}, std::pair {m_movedTable, m_movedBox}}) {
        table->setMinimumHeight(tableHeightForRows(table, 2));
        box->setMaximumHeight(titleHeight(box) + tableHeightForRows(table));
    }
    m_layerTable->setMinimumHeight(tableHeightForRows(m_layerTable, 2));
}

void LayerCompareView::distribute()
{
    const int total = m_splitter->height() - 2 * m_splitter->handleWidth();
    if (m_userSized || total <= 0)
        return;
    const int opAll = titleHeight(m_opBox) + tableHeightForRows(m_opTable);
    const int movedAll = titleHeight(m_movedBox) + tableHeightForRows(m_movedTable);
    const int movedFour = titleHeight(m_movedBox) + tableHeightForRows(m_movedTable, 4);
    const int layersFour = titleHeight(m_layerBox) + tableHeightForRows(m_layerTable, 4);
    // Every op type when the layer tables keep four rows each; else the op types get what is left over them.
    const int opMin = titleHeight(m_opBox) + tableHeightForRows(m_opTable, 4);
    const int op = std::max(std::min(opAll, total - movedFour - layersFour), std::min(opAll, opMin));
    const int rest = total - op;
    const int moved = std::min(movedAll, std::max(movedFour, rest / 3));
    m_splitter->setSizes({op, moved, std::max(0, rest - moved)});
}

void LayerCompareView::setLayers(const analysis::CompareLayers& layers, model::TimeNs baselineTotalNs,
                                 model::TimeNs candidateTotalNs)
{
    const std::uint64_t matched = layers.byName + layers.byPath + layers.byOpOrder;
    QString summary
        = tr("<b>Edge runs, layer by layer.</b> Total %1 → %2 (%3)")
              .arg(TimeFormat::formatDuration(baselineTotalNs), TimeFormat::formatDuration(candidateTotalNs),
                   baselineTotalNs > 0 ? ratioText(double(candidateTotalNs) / double(baselineTotalNs))
                                       : tr("no baseline time"));
    summary += QStringLiteral(". ") + QString::fromStdString(analysis::layerSummaryText(layers)).toHtmlEscaped();
    if (layers.shapeChanged > 0)
        summary += QStringLiteral("<br/><span style=\"color:#c0392b\">")
            + tr("Input sizes differ: %1 of %2 matched layers have other input shapes, so their times are not like "
                 "for like.")
                  .arg(layers.shapeChanged)
                  .arg(matched)
            + QStringLiteral("</span>");
    m_summary->setText(summary);

    m_opModel->removeRows(0, m_opModel->rowCount());
    for (const analysis::CompareLayerOpType& t : layers.opTypes) {
        QList<QStandardItem*> row(OpColumnCount);
        row[OpType] = textItem(QString::fromStdString(t.opType));
        row[OpLayers] = numberItem(QStringLiteral("%1 → %2").arg(t.baselineLayers).arg(t.candidateLayers),
                                   QVariant::fromValue<qulonglong>(t.candidateLayers));
        row[OpBaseline] = durationItem(t.baselineNs);
        row[OpCandidate] = durationItem(t.candidateNs);
        row[OpDelta] = durationItem(t.deltaNs(), true);
        row[OpRatio] = numberItem(ratioText(t.ratio()), ratioSortKey(t.ratio()));
        row[OpSplit] = numberItem(QStringLiteral("%1 → %2").arg(t.baselineSplitLayers).arg(t.candidateSplitLayers),
                                  QVariant::fromValue<qulonglong>(t.candidateSplitLayers));
        row[OpMoved]
            = numberItem(QString::number(t.placementChanged), QVariant::fromValue<qulonglong>(t.placementChanged));
        m_opModel->appendRow(row);
    }
    m_movedModel->removeRows(0, m_movedModel->rowCount());
    m_layerModel->removeRows(0, m_layerModel->rowCount());
    for (const analysis::CompareLayer& l : layers.layers) {
        if (l.placementChanged())
            fillLayerRow(m_movedModel, l);
        fillLayerRow(m_layerModel, l);
    }
    m_movedTitle->setText(
        tr("<b>Layers whose placement changed</b> (target or NPU core split): %1").arg(m_movedModel->rowCount()));
    m_layersTitle->setText(tr("<b>All layers by delta</b> (slower first): %1").arg(m_layerModel->rowCount()));
    for (QTableView* table : {m_opTable, m_movedTable, m_layerTable})
        table->sortByColumn(-1, Qt::AscendingOrder); // the analysis' order
    fitPanes();
    distribute();
}

} // namespace timesink::widgets
