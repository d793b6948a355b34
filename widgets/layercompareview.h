// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/compare/comparelayers.h"
#include "model/types.h"

#include <QWidget>

class QLabel;
class QSortFilterProxyModel;
class QSplitter;
class QStandardItemModel;
class QTableView;

namespace timesink::widgets {

/// The layer comparison of two edge (RKNN) runs in the compare window (docs/compare.md "Edge runs"): a view over
/// analysis::CompareLayers as compareRuns() computed it, the same result the CLI and the report writers print.
///   * the summary: analysis::layerSummaryText, the two runs' totals and their ratio, and a warning when matched
///     layers have other input shapes (their times are not like for like);
///   * the op types (by delta, slower first), the layers whose placement (target or NPU core split) changed, and
///     every layer by delta (slower first).
/// Each table sorts by any column on the raw number (kSortRole) and copies through TableCopy; a click on a column
/// header sorts, and setLayers() restores the analysis' own order. The three tables share a splitter: the op-type
/// and placement tables never grow past their rows, and until the user drags the splitter the op types get every
/// row when the other two keep four rows each (else what is left over them), the placement table up to a third
/// of the rest, and every layer what remains.
class LayerCompareView : public QWidget
{
    Q_OBJECT
public:
    /// The raw value a column sorts on (ns, counts, ratios; the text for text columns).
    static constexpr int kSortRole = Qt::UserRole + 1;

    /// Op-type columns: op type, layers (baseline → candidate), baseline, candidate, delta, ratio, split layers
    /// (baseline → candidate), layers whose placement changed.
    enum OpTypeColumn { OpType, OpLayers, OpBaseline, OpCandidate, OpDelta, OpRatio, OpSplit, OpMoved, OpColumnCount };
    /// Layer columns (both layer tables): baseline ID, candidate ID, op type, placement ("core 0 → cores 0+1+2"),
    /// baseline, candidate, delta, ratio, matched by, input shape (same / changed / one side), name.
    enum LayerColumn {
        BaselineId,
        CandidateId,
        LayerOpType,
        Placement,
        LayerBaseline,
        LayerCandidate,
        LayerDelta,
        LayerRatio,
        MatchedBy,
        InputShape,
        Name,
        LayerColumnCount
    };

    explicit LayerCompareView(QWidget* parent = nullptr);

    /// Shows `layers`; `baselineTotalNs` and `candidateTotalNs` are the compared steps' totals of each run
    /// (CompareResult::baselineStepsNs(), candidateStepsNs()).
    void setLayers(const analysis::CompareLayers& layers, model::TimeNs baselineTotalNs,
                   model::TimeNs candidateTotalNs);

    [[nodiscard]] QLabel* summary() const { return m_summary; }
    [[nodiscard]] QTableView* opTypeTable() const { return m_opTable; }
    [[nodiscard]] QTableView* movedTable() const { return m_movedTable; }
    [[nodiscard]] QTableView* layerTable() const { return m_layerTable; }
    /// The titles above the two layer tables, with their row counts.
    [[nodiscard]] QLabel* movedTitle() const { return m_movedTitle; }
    [[nodiscard]] QLabel* layersTitle() const { return m_layersTitle; }
    /// The splitter of the op-type (0), placement (1) and all-layers (2) tables.
    [[nodiscard]] QSplitter* splitter() const { return m_splitter; }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    /// Caps the op-type and placement panes at the height of their rows.
    void fitPanes();
    /// Shares the splitter's height between the three tables as the class comment says (not once the user moved
    /// the splitter).
    void distribute();

    QSplitter* m_splitter = nullptr;
    QWidget* m_opBox = nullptr;
    QWidget* m_movedBox = nullptr;
    QWidget* m_layerBox = nullptr;
    bool m_userSized = false;
    QLabel* m_summary = nullptr;
    QLabel* m_movedTitle = nullptr;
    QLabel* m_layersTitle = nullptr;
    QStandardItemModel* m_opModel = nullptr;
    QStandardItemModel* m_movedModel = nullptr;
    QStandardItemModel* m_layerModel = nullptr;
    QSortFilterProxyModel* m_opProxy = nullptr;
    QSortFilterProxyModel* m_movedProxy = nullptr;
    QSortFilterProxyModel* m_layerProxy = nullptr;
    QTableView* m_opTable = nullptr;
    QTableView* m_movedTable = nullptr;
    QTableView* m_layerTable = nullptr;
};

} // namespace timesink::widgets
