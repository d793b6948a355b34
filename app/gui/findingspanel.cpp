// SPDX-License-Identifier: MIT
#include "app/gui/findingspanel.h"

#include "widgets/findingsmodel.h"
#include "widgets/tablecopy.h"

#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

namespace timesink::gui {

namespace {

/// "pipeline_bubble — no device work in this trace …", one line per kind.
QString notAssessedText(const std::vector<analysis::NotAssessed>& notAssessed)
{
    QStringList lines;
    for (const analysis::NotAssessed& n : notAssessed)
        lines << FindingsPanel::tr("Not assessed: %1 — %2")
                     .arg(QString::fromStdString(n.kind), QString::fromStdString(n.reason));
    return lines.join(QLatin1Char('\n'));
}

} // namespace

FindingsPanel::FindingsPanel(QWidget* parent)
    : QWidget(parent)
    , m_model(new widgets::FindingsModel(this))
    , m_proxy(new QSortFilterProxyModel(this))
    , m_view(new QTableView(this))
    , m_notAssessedLabel(new QLabel(this))
{
    m_view->setObjectName(QStringLiteral("FindingsView"));
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(widgets::FindingsModel::kSortRole);
    m_view->setModel(m_proxy);
    // Sorted by projected saving as the analysis ranks them (the sort is stable, so ties keep the ranking: lost time).
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(widgets::FindingsModel::Saving, Qt::DescendingOrder);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->verticalHeader()->hide();
    m_view->horizontalHeader()->setSectionResizeMode(widgets::FindingsModel::Title, QHeaderView::Stretch);
    m_view->horizontalHeader()->setSectionResizeMode(widgets::FindingsModel::Kind, QHeaderView::ResizeToContents);
    m_view->setWordWrap(false);
    // Never squeezed to a row or two: a header and four findings stay readable.
    m_view->setMinimumHeight(m_view->horizontalHeader()->sizeHint().height()
                             + 4 * m_view->verticalHeader()->defaultSectionSize() + 4);
    widgets::TableCopy::install(m_view);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) { emit findingActivated(m_proxy->mapToSource(current).row()); });

    // Kinds that could not be assessed are not "no problem found": say so under the table.
    m_notAssessedLabel->setObjectName(QStringLiteral("NotAssessedLabel"));
    m_notAssessedLabel->setWordWrap(true);
    m_notAssessedLabel->setContentsMargins(4, 2, 4, 2);
    m_notAssessedLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_notAssessedLabel->setToolTip(tr("These analyses need data this trace does not have: they found nothing "
                                      "because they could not look, not because all is well."));
    m_notAssessedLabel->hide();
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(m_view, 1);
    layout->addWidget(m_notAssessedLabel);
}

void FindingsPanel::showAnalysis(const LoadedTrace& current, bool analysing)
{
    m_model->setFindings(current.analysis.findings);
    if (analysing) {
        m_notAssessedLabel->setText(tr("Analysing… the findings appear here when the analyses are done."));
        m_notAssessedLabel->setVisible(true);
    } else if (current.analysis.cancelled) {
        m_notAssessedLabel->setText(tr("The analysis was cancelled: no findings."));
        m_notAssessedLabel->setVisible(true);
    } else {
        m_notAssessedLabel->setText(notAssessedText(current.analysis.notAssessed));
        m_notAssessedLabel->setVisible(!current.analysis.notAssessed.empty());
    }
}

void FindingsPanel::selectFinding(int row)
{
    if (row >= 0 && row < m_model->rowCount())
        m_view->setCurrentIndex(m_proxy->mapFromSource(m_model->index(row, 0)));
}

} // namespace timesink::gui
