// SPDX-License-Identifier: MIT
#include "widgets/rangestatsview.h"

#include "widgets/tablecopy.h"
#include "widgets/timeformat.h"
#include "widgets/tracklayout.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

namespace timesink::widgets {

namespace {

QString qs(std::string_view s)
{
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

} // namespace

RangeStatsModel::RangeStatsModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void RangeStatsModel::setStats(const model::Trace* trace, analysis::RangeStats stats)
{
    beginResetModel();
    m_trace = trace;
    m_stats = std::move(stats);
    endResetModel();
}

const analysis::RangeStatsRow* RangeStatsModel::row(int r) const
{
    if (r < 0 || static_cast<std::size_t>(r) >= m_stats.rows.size())
        return nullptr;
    return &m_stats.rows[static_cast<std::size_t>(r)];
}

int RangeStatsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_stats.rows.size());
}

int RangeStatsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RangeStatsModel::data(const QModelIndex& index, int role) const
{
    const analysis::RangeStatsRow* r = index.isValid() ? row(index.row()) : nullptr;
    if (!r)
        return {};
    if (role == Qt::DisplayRole || role == Qt::ToolTipRole) {
        switch (index.column()) {
        case Key:
            if (m_stats.groupBy == analysis::RangeGroupBy::Track && m_trace
                && r->track.value < m_trace->tracks().size())
                return TrackLayout::trackLabel(*m_trace, m_trace->track(r->track));
            return qs(r->key);
        case Category:
            if (m_stats.groupBy == analysis::RangeGroupBy::Track)
                return {};
            return qs(model::categoryLabel(r->category));
        case Count:
            return QString::number(r->count);
        case Total:
            return TimeFormat::formatDuration(r->totalNs);
        case Self:
            return TimeFormat::formatDuration(r->selfNs);
        case Mean:
            return TimeFormat::formatDuration(r->meanNs());
        case Max:
            return TimeFormat::formatDuration(r->maxNs);
        default:
            return {};
        }
    }
    if (role == kSortRole) {
        switch (index.column()) {
        case Key:
            return data(index, Qt::DisplayRole);
        case Category:
            return data(index, Qt::DisplayRole);
        case Count:
            return QVariant::fromValue<qulonglong>(r->count);
        case Total:
            return QVariant::fromValue<qlonglong>(r->totalNs);
        case Self:
            return QVariant::fromValue<qlonglong>(r->selfNs);
        case Mean:
            return QVariant::fromValue<qlonglong>(r->meanNs());
        case Max:
            return QVariant::fromValue<qlonglong>(r->maxNs);
        default:
            return {};
        }
    }
    if (role == Qt::TextAlignmentRole && index.column() >= Count)
        return QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
    return {};
}

QVariant RangeStatsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Key:
        switch (m_stats.groupBy) {
        case analysis::RangeGroupBy::Category:
            return tr("Category");
        case analysis::RangeGroupBy::Track:
            return tr("Track");
        case analysis::RangeGroupBy::Name:
            break;
        }
        return tr("Name");
    case Category:
        return tr("Category");
    case Count:
        return tr("Count");
    case Total:
        return tr("Total");
    case Self:
        return tr("Self");
    case Mean:
        return tr("Mean");
    case Max:
        return tr("Max");
    default:
        return {};
    }
}

RangeStatsView::RangeStatsView(QWidget* parent)
    : QWidget(parent)
    , m_model(new RangeStatsModel(this))
    , m_proxy(new QSortFilterProxyModel(this))
{
    setObjectName(QStringLiteral("RangeStatsView"));
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(RangeStatsModel::kSortRole);
    m_table = new QTableView(this);
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(RangeStatsModel::Total, Qt::DescendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_table->verticalHeader()->hide();
    m_table->setWordWrap(false);
    m_table->horizontalHeader()->setSectionResizeMode(RangeStatsModel::Key, QHeaderView::Stretch);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    TableCopy::install(m_table);

    m_summary = new QLabel(tr("Shift+drag on the timeline to select a time range."), this);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_group = new QComboBox(this);
    m_group->addItem(tr("By name"), static_cast<int>(analysis::RangeGroupBy::Name));
    m_group->addItem(tr("By category"), static_cast<int>(analysis::RangeGroupBy::Category));
    m_group->addItem(tr("By track"), static_cast<int>(analysis::RangeGroupBy::Track));
    m_selectAll = new QPushButton(tr("Select All of These"), this);
    m_selectAll->setToolTip(tr("Outline every instance of the chosen row on the timeline"));
    m_findNext = new QPushButton(tr("Find Next"), this);
    m_findNext->setToolTip(tr("Select the next instance of the chosen row on the timeline"));

    auto* bar = new QHBoxLayout;
    bar->addWidget(m_summary, 1);
    bar->addWidget(m_group);
    bar->addWidget(m_selectAll);
    bar->addWidget(m_findNext);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(bar);
    layout->addWidget(m_table, 1);

    connect(m_group, &QComboBox::currentIndexChanged, this,
            [this] { setGroupBy(static_cast<analysis::RangeGroupBy>(m_group->currentData().toInt())); });
    connect(m_selectAll, &QPushButton::clicked, this, &RangeStatsView::selectAllOfCurrent);
    connect(m_findNext, &QPushButton::clicked, this, [this] { findNext(); });
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this] { updateButtons(); });
    connect(m_table, &QTableView::doubleClicked, this, [this] { findNext(); });
    updateButtons();
}

void RangeStatsView::setTrace(model::TracePtr trace)
{
    m_trace = std::move(trace);
    m_selection.reset();
    recompute();
}

void RangeStatsView::setSelection(std::optional<analysis::RangeSelection> selection)
{
    m_selection = std::move(selection);
    recompute();
}

void RangeStatsView::setGroupBy(analysis::RangeGroupBy groupBy)
{
    m_groupBy = groupBy;
    const int i = m_group->findData(static_cast<int>(groupBy));
    if (i != m_group->currentIndex()) {
        const QSignalBlocker block(m_group);
        m_group->setCurrentIndex(i);
    }
    recompute();
}

void RangeStatsView::recompute()
{
    m_stepKey.clear();
    if (!m_trace || !m_selection) {
        m_model->setStats(nullptr, analysis::RangeStats {m_groupBy, {}, 0, 0});
        m_summary->setText(tr("Shift+drag on the timeline to select a time range."));
        updateButtons();
        return;
    }
    m_model->setStats(m_trace.get(), analysis::computeRangeStats(*m_trace, *m_selection, m_groupBy));
    const model::TimeNs span = std::abs(m_selection->end - m_selection->start);
    const auto count = m_model->stats().sliceCount;
    QString text
        = tr("%1 selected at %2: %3 %4")
              .arg(TimeFormat::formatDuration(span),
                   TimeFormat::formatDuration(std::min(m_selection->start, m_selection->end) - m_trace->startNs()))
              .arg(count)
              .arg(count == 1 ? tr("slice") : tr("slices"));
    if (!m_selection->tracks.empty())
        text += m_selection->tracks.size() == 1 ? tr(" in 1 track")
                                                : tr(" in %1 tracks").arg(m_selection->tracks.size());
    m_summary->setText(text);
    if (m_proxy->rowCount() > 0)
        m_table->setCurrentIndex(m_proxy->index(0, 0));
    updateButtons();
}

void RangeStatsView::updateButtons()
{
    const bool any = m_table->currentIndex().isValid();
    m_selectAll->setEnabled(any);
    m_findNext->setEnabled(any);
}

std::vector<model::SliceRef> RangeStatsView::currentInstances() const
{
    const QModelIndex current = m_proxy->mapToSource(m_table->currentIndex());
    const analysis::RangeStatsRow* r = m_model->row(current.row());
    if (!r || !m_trace || !m_selection)
        return {};
    return analysis::rangeStatsInstances(*m_trace, *m_selection, m_groupBy, r->key);
}

void RangeStatsView::selectAllOfCurrent()
{
    emit highlightRequested(currentInstances());
}

model::SliceRef RangeStatsView::findNext()
{
    const QModelIndex current = m_proxy->mapToSource(m_table->currentIndex());
    const analysis::RangeStatsRow* r = m_model->row(current.row());
    if (!r)
        return {};
    const auto instances = currentInstances();
    if (instances.empty())
        return {};
    if (m_stepKey != r->key) {
        m_stepKey = r->key;
        m_stepPos = 0;
    } else {
        m_stepPos = (m_stepPos + 1) % instances.size();
    }
    const model::SliceRef next = instances[std::min(m_stepPos, instances.size() - 1)];
    emit sliceRequested(next);
    return next;
}

} // namespace timesink::widgets
