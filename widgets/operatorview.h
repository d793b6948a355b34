// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/efficiency/efficiencybyname.h"
#include "analysis/explore/calltree.h"
#include "model/trace.h"

#include <QAbstractItemModel>
#include <QWidget>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTreeView;

namespace timesink::widgets {

/// Operators as a flat table (one row per name) or a call tree (top-down or bottom-up), over a CallTree.
/// Columns: name, calls, host time, self time, mean, device time launched, slowest call, and (operators only, over
/// the whole trace) achieved TFLOP/s, share of the roofline and the bound, from the efficiency report.
/// Qt::DisplayRole gives text with adaptive units; kSortRole the raw numbers.
class CallTreeModel : public QAbstractItemModel
{
    Q_OBJECT
public:
    enum class Mode { Operators, TopDown, BottomUp };
    enum Column { Name, Calls, Host, Self, Mean, Device, Max, Tflops, Roofline, Bound, ColumnCount };
    static constexpr int kSortRole = Qt::UserRole + 1;

    explicit CallTreeModel(QObject* parent = nullptr);
    void setTree(const model::Trace* trace, analysis::CallTree tree, Mode mode);
    /// The efficiency of the trace's operators (nullptr: none yet); rows find theirs by name.
    void setEfficiency(const std::shared_ptr<const analysis::efficiency::EfficiencyReport>& report);
    /// The efficiency figures of an operator-table row, or nullptr (not an operator row, or nothing assessed).
    [[nodiscard]] const analysis::efficiency::NameEfficiency* efficiency(const QModelIndex& index) const;
    [[nodiscard]] Mode mode() const { return m_mode; }
    [[nodiscard]] const analysis::CallTree& tree() const { return m_tree; }
    [[nodiscard]] const std::vector<analysis::OperatorRow>& operators() const { return m_operators; }
    /// The slowest instance behind a row (what a double-click jumps to).
    [[nodiscard]] model::SliceRef slowest(const QModelIndex& index) const;

    [[nodiscard]] QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    [[nodiscard]] QModelIndex parent(const QModelIndex& child) const override;
    [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation,
                                      int role = Qt::DisplayRole) const override;

private:
    [[nodiscard]] QVariant efficiencyData(const QModelIndex& index, int role) const;

    const model::Trace* m_trace = nullptr;
    analysis::CallTree m_tree;
    std::vector<analysis::OperatorRow> m_operators;
    Mode m_mode = Mode::Operators;
    std::unordered_map<std::string, analysis::efficiency::NameEfficiency> m_efficiency;
};

/// The operator table of the whole trace, one step or the time selection: framework operators with their host
/// time, the device time they launched (through launch flows), calls and mean, or the same as a top-down or
/// bottom-up call tree. Double-click jumps to a row's slowest call.
class OperatorView : public QWidget
{
    Q_OBJECT
public:
    explicit OperatorView(QWidget* parent = nullptr);

    void setTrace(model::TracePtr trace);
    /// The efficiency report of the trace shown (nullptr while it is computed, or for none): the efficiency columns.
    void setEfficiency(std::shared_ptr<const analysis::efficiency::EfficiencyReport> report);
    /// The time selection offered as a scope (nullopt: none).
    void setTimeSelection(std::optional<analysis::RangeSelection> selection);
    void setMode(CallTreeModel::Mode mode);
    /// Scope: -1 whole trace, -2 the time selection, else index into Trace::steps().
    void setScope(int scope);
    /// Host slices of every category as nodes, not only framework ops (trees only).
    void setAllHostSlices(bool all);

    [[nodiscard]] CallTreeModel* model() const { return m_model; }
    [[nodiscard]] QSortFilterProxyModel* proxy() const { return m_proxy; }
    [[nodiscard]] QTreeView* view() const { return m_view; }
    [[nodiscard]] QLineEdit* filter() const { return m_filter; }
    /// True while the tree of the current trace, scope and mode is being built (away from the UI thread in the
    /// app; treeReady() follows).
    [[nodiscard]] bool computing() const { return m_computing; }
    /// Emits sliceRequested for the slowest call behind a view row; returns it.
    model::SliceRef jumpToSlowest(const QModelIndex& viewIndex);

signals:
    void sliceRequested(timesink::model::SliceRef slice);
    /// The tree of the current trace, scope and mode is in model().
    void treeReady();

protected:
    void showEvent(QShowEvent* event) override;

private:
    void refillScopes();
    void recompute();
    void markDirty();
    void updateEfficiencyColumns();

    model::TracePtr m_trace;
    std::shared_ptr<const analysis::efficiency::EfficiencyReport> m_efficiency;
    std::optional<analysis::RangeSelection> m_selection;
    CallTreeModel* m_model = nullptr;
    QSortFilterProxyModel* m_proxy = nullptr;
    QTreeView* m_view = nullptr;
    QComboBox* m_scope = nullptr;
    QComboBox* m_mode = nullptr;
    QCheckBox* m_allSlices = nullptr;
    QLineEdit* m_filter = nullptr;
    QLabel* m_summary = nullptr;
    bool m_dirty = true;
    bool m_computing = false;
    std::uint64_t m_generation = 0; // of the last recompute(): older results are dropped
};

} // namespace timesink::widgets
