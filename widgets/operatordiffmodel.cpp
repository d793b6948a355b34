// SPDX-License-Identifier: MIT
#include "widgets/operatordiffmodel.h"

#include "widgets/timeformat.h"

#include <QStringList>

#include <limits>

namespace timesink::widgets {

namespace {

QString signedDuration(model::TimeNs ns)
{
    return ns > 0 ? QStringLiteral("+") + TimeFormat::formatDuration(ns) : TimeFormat::formatDuration(ns);
}

QString nameList(const std::vector<std::string>& names)
{
    QStringList list;
    for (const std::string& n : names)
        list << QString::fromStdString(n);
    return list.isEmpty() ? QStringLiteral("—") : list.join(QStringLiteral(", "));
}

} // namespace

OperatorDiffModel::OperatorDiffModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void OperatorDiffModel::setOperators(std::vector<analysis::CompareOperator> operators)
{
    beginResetModel();
    m_operators = std::move(operators);
    endResetModel();
}

const analysis::CompareOperator* OperatorDiffModel::operatorAt(int row) const
{
    if (row < 0 || row >= static_cast<int>(m_operators.size()))
        return nullptr;
    return &m_operators[static_cast<std::size_t>(row)];
}

int OperatorDiffModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_operators.size());
}

int OperatorDiffModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant OperatorDiffModel::data(const QModelIndex& index, int role) const
{
    const analysis::CompareOperator* op = operatorAt(index.row());
    if (!op || index.column() < 0 || index.column() >= ColumnCount)
        return {};
    const auto column = static_cast<Column>(index.column());
    const auto ratio = op->ratio();
    if (role == kSortRole) {
        switch (column) {
        case Name:
            return QString::fromStdString(op->name);
        case BaselineTime:
            return QVariant::fromValue<qlonglong>(op->baselineNs);
        case BaselineCalls:
            return QVariant::fromValue<qulonglong>(op->baselineCalls);
        case CandidateTime:
            return QVariant::fromValue<qlonglong>(op->candidateNs);
        case CandidateCalls:
            return QVariant::fromValue<qulonglong>(op->candidateCalls);
        case Delta:
            return QVariant::fromValue<qlonglong>(op->deltaNs());
        case Ratio:
            // An operator that is new in the candidate is the largest change of all.
            return ratio ? *ratio : std::numeric_limits<double>::max();
        case ColumnCount:
            break;
        }
        return {};
    }
    if (role == Qt::DisplayRole) {
        switch (column) {
        case Name:
            return QString::fromStdString(op->name);
        case BaselineTime:
            return TimeFormat::formatDuration(op->baselineNs);
        case BaselineCalls:
            return QString::number(op->baselineCalls);
        case CandidateTime:
            return TimeFormat::formatDuration(op->candidateNs);
        case CandidateCalls:
            return QString::number(op->candidateCalls);
        case Delta:
            return signedDuration(op->deltaNs());
        case Ratio:
            return ratio ? QString::number(*ratio, 'f', 2) + QStringLiteral("×") : QStringLiteral("new");
        case ColumnCount:
            break;
        }
        return {};
    }
    if (role == Qt::ToolTipRole) {
        return tr("Baseline names: %1\nCandidate names: %2")
            .arg(nameList(op->baselineNames), nameList(op->candidateNames));
    }
    if (role == Qt::TextAlignmentRole && column != Name)
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant OperatorDiffModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (static_cast<Column>(section)) {
    case Name:
        return tr("Operator");
    case BaselineTime:
        return tr("Baseline");
    case BaselineCalls:
        return tr("Calls");
    case CandidateTime:
        return tr("Candidate");
    case CandidateCalls:
        return tr("Calls");
    case Delta:
        return tr("Delta");
    case Ratio:
        return tr("Ratio");
    case ColumnCount:
        break;
    }
    return {};
}

} // namespace timesink::widgets
