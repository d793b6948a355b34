// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/compare/compare.h"

#include <QAbstractTableModel>

#include <vector>

namespace timesink::widgets {

/// The per-operator table of a comparison (analysis::compareRuns): one row per canonical operator.
/// Columns: operator, baseline time, baseline calls, candidate time, candidate calls, delta, ratio.
/// Qt::DisplayRole gives text; kSortRole gives the raw number (ns, calls, ratio; the name for the first
/// column) so a QSortFilterProxyModel sorts numerically; Qt::ToolTipRole lists the names each side used.
///
/// Example: {name "aten::conv2d", baseline 110 ns (2 calls), candidate 420 ns (2 calls)} shows as
/// ["aten::conv2d", "110 ns", "2", "420 ns", "2", "+310 ns", "3.82×"]; a ratio with no baseline time
/// shows "new" and sorts above every finite ratio.
class OperatorDiffModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { Name, BaselineTime, BaselineCalls, CandidateTime, CandidateCalls, Delta, Ratio, ColumnCount };
    static constexpr int kSortRole = Qt::UserRole + 1;

    explicit OperatorDiffModel(QObject* parent = nullptr);

    /// Replaces the rows (a model reset).
    void setOperators(std::vector<analysis::CompareOperator> operators);
    [[nodiscard]] const analysis::CompareOperator* operatorAt(int row) const;
    [[nodiscard]] const std::vector<analysis::CompareOperator>& operators() const { return m_operators; }

    [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation,
                                      int role = Qt::DisplayRole) const override;

private:
    std::vector<analysis::CompareOperator> m_operators;
};

} // namespace timesink::widgets
