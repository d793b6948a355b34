// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/explore/rangestats.h"
#include "model/trace.h"

#include <QAbstractTableModel>
#include <QWidget>

#include <optional>

class QComboBox;
class QLabel;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;

namespace timesink::widgets {

/// RangeStats as a table: name (or category, or track), category, count, total, self, mean, max.
/// Qt::DisplayRole gives text with adaptive units; kSortRole the raw number for sorting.
class RangeStatsModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { Key, Category, Count, Total, Self, Mean, Max, ColumnCount };
    static constexpr int kSortRole = Qt::UserRole + 1;

    explicit RangeStatsModel(QObject* parent = nullptr);
    void setStats(const model::Trace* trace, analysis::RangeStats stats);
    [[nodiscard]] const analysis::RangeStats& stats() const { return m_stats; }
    [[nodiscard]] const analysis::RangeStatsRow* row(int r) const;

    [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation,
                                      int role = Qt::DisplayRole) const override;

private:
    const model::Trace* m_trace = nullptr;
    analysis::RangeStats m_stats;
};

/// The statistics dock under the timeline: what ran in the time range selected with Shift+drag (in every
/// track, or only in the tracks picked), per name, category or track, sortable. "Select all of these"
/// outlines every instance of the chosen row on the timeline; "Find next" steps through them.
class RangeStatsView : public QWidget
{
    Q_OBJECT
public:
    explicit RangeStatsView(QWidget* parent = nullptr);

    void setTrace(model::TracePtr trace);
    /// Recomputes for `selection` (nullopt clears the table).
    void setSelection(std::optional<analysis::RangeSelection> selection);
    void setGroupBy(analysis::RangeGroupBy groupBy);
    [[nodiscard]] analysis::RangeGroupBy groupBy() const { return m_groupBy; }

    [[nodiscard]] RangeStatsModel* model() const { return m_model; }
    [[nodiscard]] QSortFilterProxyModel* proxy() const { return m_proxy; }
    [[nodiscard]] QTableView* table() const { return m_table; }
    [[nodiscard]] QLabel* summaryLabel() const { return m_summary; }

    /// The instances of the current row (time order).
    [[nodiscard]] std::vector<model::SliceRef> currentInstances() const;
    /// Outlines every instance of the current row (emits highlightRequested).
    void selectAllOfCurrent();
    /// Selects the next instance of the current row after the last one stepped to (wraps; emits sliceRequested).
    model::SliceRef findNext();

signals:
    void highlightRequested(const std::vector<timesink::model::SliceRef>& slices);
    void sliceRequested(timesink::model::SliceRef slice);

private:
    void recompute();
    void updateButtons();

    model::TracePtr m_trace;
    std::optional<analysis::RangeSelection> m_selection;
    analysis::RangeGroupBy m_groupBy = analysis::RangeGroupBy::Name;
    RangeStatsModel* m_model = nullptr;
    QSortFilterProxyModel* m_proxy = nullptr;
    QTableView* m_table = nullptr;
    QLabel* m_summary = nullptr;
    QComboBox* m_group = nullptr;
    QPushButton* m_selectAll = nullptr;
    QPushButton* m_findNext = nullptr;
    std::string m_stepKey; // the row find-next steps through, and where it is
    std::size_t m_stepPos = 0;
};

} // namespace timesink::widgets
