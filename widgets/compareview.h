// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/compare/compare.h"
#include "model/trace.h"

#include <QWidget>

#include <vector>

class QComboBox;
class QLabel;
class QLineEdit;
class QMenu;
class QSortFilterProxyModel;
class QTabWidget;
class QTableView;
class QTreeWidget;

namespace timesink::widgets {

class DetailsPanel;
class LayerCompareView;
class OperatorDiffModel;
class TimelineView;
class WaterfallChart;

/// Two runs side by side (docs/compare.md): the baseline timeline above the candidate timeline on a
/// synchronised, step-aligned time axis, the operator diff table, the step-time waterfall with the device breakdown,
/// the kernel classes, and both findings lists with deltas.
///
/// **Alignment**: time t of a run is shown at t − (start of its anchor step); the anchor is the chosen
/// pair of compared steps (first pair by default, or pickStepPair()). Zooming or panning either timeline
/// moves the other to the same aligned range.
///   baseline step #1009 starts at 1'661'203'462'598'772'000 ns, candidate step #50 at
///   1'736'408'883'686'740'800 ns: the baseline at #1009 + 2 ms sits above the candidate at #50 + 2 ms.
///
/// Selecting an operator row outlines its occurrences (the operator slices and the device work
/// attributed to them) on both timelines; selecting a finding outlines its events on its own timeline.
class CompareView : public QWidget
{
    Q_OBJECT
public:
    explicit CompareView(QWidget* parent = nullptr);
    ~CompareView() override;

    /// Compares the two runs and shows them. Returns false, with `error`, when `options` select steps a
    /// trace does not have (the view then keeps what it showed).
    bool setRuns(model::TracePtr baseline, std::vector<analysis::Finding> baselineFindings, model::TracePtr candidate,
                 std::vector<analysis::Finding> candidateFindings, const analysis::CompareOptions& options,
                 QString& error);

    [[nodiscard]] const analysis::CompareResult& result() const { return m_result; }
    [[nodiscard]] const model::TracePtr& baseline() const { return m_baseline; }
    [[nodiscard]] const model::TracePtr& candidate() const { return m_candidate; }
    [[nodiscard]] const std::vector<analysis::Finding>& baselineFindingList() const { return m_baselineFindingList; }
    [[nodiscard]] const std::vector<analysis::Finding>& candidateFindingList() const { return m_candidateFindingList; }

    /// The files the two runs were loaded from (a file or a bundle folder each), so that what the window
    /// writes never replaces one of them. Empty until set.
    void setSourcePaths(const QString& baseline, const QString& candidate);
    [[nodiscard]] const QString& baselinePath() const { return m_baselinePath; }
    [[nodiscard]] const QString& candidatePath() const { return m_candidatePath; }

    /// The File menu of the view's menu bar; it holds Close (Ctrl+W). The application inserts what needs
    /// layers the widgets do not link (File → Export Comparison… writes through the report layer):
    ///   view->fileMenu()->insertAction(view->fileMenu()->actions().value(0), exportAction);
    [[nodiscard]] QMenu* fileMenu() const { return m_fileMenu; }
    [[nodiscard]] TimelineView* baselineTimeline() const { return m_baseTimeline; }
    [[nodiscard]] TimelineView* candidateTimeline() const { return m_candTimeline; }
    [[nodiscard]] OperatorDiffModel* operatorModel() const { return m_operators; }
    [[nodiscard]] QSortFilterProxyModel* operatorProxy() const { return m_proxy; }
    [[nodiscard]] QTableView* operatorTable() const { return m_table; }
    [[nodiscard]] QLineEdit* operatorFilter() const { return m_filter; }
    [[nodiscard]] QTreeWidget* baselineFindings() const { return m_baseFindings; }
    [[nodiscard]] QTreeWidget* candidateFindings() const { return m_candFindings; }
    [[nodiscard]] QComboBox* stepPairs() const { return m_stepPairs; }
    /// The bottom tabs: [Layers (edge runs),] Operators, Waterfall (the step-time waterfall and the device breakdown),
    /// Kernel classes.
    [[nodiscard]] QTabWidget* bottomTabs() const { return m_tabs; }
    [[nodiscard]] WaterfallChart* waterfall() const { return m_waterfall; }
    [[nodiscard]] QTreeWidget* kernelClasses() const { return m_classes; }
    /// "Efficiency" tab: per work class, each run against its own chip, and the limit of a class that got slower.
    [[nodiscard]] QTreeWidget* efficiencyClasses() const { return m_efficiency; }
    [[nodiscard]] QLabel* efficiencyHeadline() const { return m_efficiencyHeadline; }
    /// The layer comparison of two edge (RKNN) runs (result().layers). It is a tab, "Layers (edge runs)", shown
    /// first and selected only when both runs are RKNN layer tables.
    [[nodiscard]] LayerCompareView* layerCompare() const { return m_layers; }
    /// The step selection of the comparison ("B:C", the CLI's --steps syntax) and its Apply.
    [[nodiscard]] QLineEdit* stepsEdit() const { return m_stepsEdit; }
    [[nodiscard]] DetailsPanel* details() const { return m_details; }
    /// Compares again with the steps in stepsEdit(); false, with the reason shown beside the box, when they
    /// do not parse or a run lacks them.
    bool applySteps();

    /// Aligns the timelines on compared step pair `pair` (index into result().steps) and shows it.
    void pickStepPair(int pair);
    /// The aligned time axis: run time − anchor step start.
    [[nodiscard]] model::TimeNs baselineAnchor() const { return m_baseAnchor; }
    [[nodiscard]] model::TimeNs candidateAnchor() const { return m_candAnchor; }

signals:
    /// The operator whose occurrences are outlined changed (empty name: none).
    void operatorSelected(const QString& name);

private:
    void syncFrom(TimelineView* source);
    void onOperatorSelectionChanged();
    void fillFindings();
    void fillEfficiency();
    void highlightFinding(bool baseline);

    TimelineView* m_baseTimeline = nullptr;
    TimelineView* m_candTimeline = nullptr;
    QLabel* m_baseLabel = nullptr;
    QLabel* m_candLabel = nullptr;
    QLabel* m_summary = nullptr;
    QComboBox* m_stepPairs = nullptr;
    OperatorDiffModel* m_operators = nullptr;
    QSortFilterProxyModel* m_proxy = nullptr;
    QTableView* m_table = nullptr;
    QLineEdit* m_filter = nullptr;
    QTreeWidget* m_baseFindings = nullptr;
    QTreeWidget* m_candFindings = nullptr;
    QMenu* m_fileMenu = nullptr;
    QTabWidget* m_tabs = nullptr;
    WaterfallChart* m_waterfall = nullptr;
    QTreeWidget* m_classes = nullptr;
    QTreeWidget* m_efficiency = nullptr;
    QLabel* m_efficiencyHeadline = nullptr;
    LayerCompareView* m_layers = nullptr;
    QLineEdit* m_stepsEdit = nullptr;
    QLabel* m_stepsError = nullptr;
    DetailsPanel* m_details = nullptr;
    TimelineView* m_detailsTimeline = nullptr; // the timeline whose slice the details show

    model::TracePtr m_baseline;
    model::TracePtr m_candidate;
    QString m_baselinePath;
    QString m_candidatePath;
    std::vector<analysis::Finding> m_baselineFindingList;
    std::vector<analysis::Finding> m_candidateFindingList;
    analysis::CompareResult m_result;
    model::TimeNs m_baseAnchor = 0;
    model::TimeNs m_candAnchor = 0;
    bool m_syncing = false;
};

} // namespace timesink::widgets
