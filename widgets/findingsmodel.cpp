// SPDX-License-Identifier: MIT
#include "widgets/findingsmodel.h"

#include "widgets/timeformat.h"

namespace timesink::widgets {

namespace {

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

} // namespace

FindingsModel::FindingsModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void FindingsModel::setFindings(std::vector<analysis::Finding> findings)
{
    beginResetModel();
    m_findings = std::move(findings);
    endResetModel();
}

const analysis::Finding* FindingsModel::finding(int row) const
{
    if (row < 0 || static_cast<std::size_t>(row) >= m_findings.size())
        return nullptr;
    return &m_findings[static_cast<std::size_t>(row)];
}

int FindingsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_findings.size());
}

int FindingsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant FindingsModel::data(const QModelIndex& index, int role) const
{
    const analysis::Finding* f = index.isValid() ? finding(index.row()) : nullptr;
    if (!f)
        return {};
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case Kind:
            return qs(analysis::kindLabel(f->kind));
        case Title:
            return qs(f->title);
        case Saving:
            return TimeFormat::formatDuration(f->savingNs);
        case LostMs:
            return TimeFormat::formatDuration(f->lostNs);
        case Percent:
            return TimeFormat::formatPercent(f->lostFraction);
        case Occurrences:
            return QString::number(f->occurrences);
        default:
            return {};
        }
    }
    if (role == kSortRole) {
        switch (index.column()) {
        case Kind:
            return qs(analysis::kindLabel(f->kind));
        case Title:
            return qs(f->title);
        case Saving:
            return QVariant::fromValue<qlonglong>(f->savingNs);
        case LostMs:
            return QVariant::fromValue<qlonglong>(f->lostNs);
        case Percent:
            return f->lostFraction;
        case Occurrences:
            return QVariant::fromValue<qulonglong>(f->occurrences);
        default:
            return {};
        }
    }
    if (role == Qt::TextAlignmentRole && index.column() >= Saving)
        return QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
    if (role == Qt::ToolTipRole)
        return index.column() == Kind  ? qs(f->kind)
            : index.column() == Saving ? qs(f->savingMethod + ": " + f->savingRule)
                                       : qs(f->explanation);
    return {};
}

QVariant FindingsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Kind:
        return tr("Kind");
    case Title:
        return tr("Finding");
    case Saving:
        return tr("Saving");
    case LostMs:
        return tr("Lost");
    case Percent:
        return tr("% of time");
    case Occurrences:
        return tr("Occurrences");
    default:
        return {};
    }
}

} // namespace timesink::widgets
