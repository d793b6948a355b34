// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/job/job.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QPushButton;
class QTabWidget;
class QTableWidget;

namespace timesink::widgets {

class JobLinkMap;

/// The rank × step heat map of a job: one row per rank, one column per step, the colour the chosen measure of that
/// rank in that step on a scale from 0 to the largest value (analysis::jobHeatColor; 0 is pale yellow, not white).
/// It explains itself: the measure and unit in its title, step numbers on the axis, the colour scale with its ends
/// in ms, stragglers' rows marked and outlined, hatched cells where a rank has no such step, and the ranks the job
/// lacks named under the map. Only the visible rows are painted. The tooltip names rank, step and value;
/// double-clicking a cell activates that rank at that step, clicking it selects the step.
class JobHeatMap : public QWidget
{
    Q_OBJECT
public:
    explicit JobHeatMap(QWidget* parent = nullptr);
    void setJob(const analysis::JobResult* job);
    void setMeasure(analysis::JobMeasure measure);
    [[nodiscard]] analysis::JobMeasure measure() const { return m_measure; }
    /// "Step time per rank and step (ms)".
    [[nodiscard]] QString title() const;
    /// The value a cell shows (−1 when the rank has no such step).
    [[nodiscard]] model::TimeNs value(std::size_t rankIndex, std::size_t stepIndex) const;
    [[nodiscard]] model::TimeNs maxValue() const { return m_max; }
    [[nodiscard]] bool isStraggler(std::size_t rankIndex) const;
    /// The cell under a widget position: {rank index, step index}, or {-1, -1}.
    [[nodiscard]] std::pair<int, int> cellAt(QPoint pos) const;
    [[nodiscard]] QRect cellRect(int rankIndex, int stepIndex) const;
    /// The tooltip text of a position (empty outside the cells).
    [[nodiscard]] QString toolTipAt(QPoint pos) const;
    /// The colour a value is painted with.
    [[nodiscard]] QColor colorOf(model::TimeNs value) const;
    [[nodiscard]] QSize sizeHint() const override;

signals:
    void cellActivated(int rankIndex, qint64 step);
    void stepClicked(qint64 step);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    bool event(QEvent* event) override;

private:
    void recompute();
    [[nodiscard]] int cellW() const;
    [[nodiscard]] int cellH() const;

    const analysis::JobResult* m_job = nullptr;
    analysis::JobMeasure m_measure = analysis::JobMeasure::StepTime;
    std::vector<std::vector<model::TimeNs>> m_values; // [rank][step], −1 missing
    std::vector<bool> m_stragglers;                   // per rank index
    model::TimeNs m_max = 0;
};

class JobLanesPanel;
class DetailsPanel;

/// The overview of a distributed job: the heat map (with its values as a copyable table) and the aligned rank lanes
/// of a step, the job findings ranked by lost time with their details, and one row per rank (its steps,
/// communication, wait, caused wait, top finding; sortable and copyable). Double-clicking a rank (in the heat map,
/// the lanes or the table) asks for its trace at that step; selecting two ranks enables "Compare Ranks".
class JobOverview : public QWidget
{
    Q_OBJECT
public:
    explicit JobOverview(QWidget* parent = nullptr);
    /// Shows `job` (copied; the overview owns what it shows).
    void setJob(analysis::JobResult job);
    [[nodiscard]] const analysis::JobResult& job() const { return m_job; }

    [[nodiscard]] JobHeatMap* heatMap() const { return m_heatMap; }
    [[nodiscard]] QComboBox* measureBox() const { return m_measure; }
    [[nodiscard]] QTabWidget* tabs() const { return m_tabs; }
    /// The heat map's values, rank × step in ms (Ctrl+C / right-click copies).
    [[nodiscard]] QTableWidget* valuesTable() const { return m_values; }
    [[nodiscard]] JobLanesPanel* lanes() const { return m_lanes; }
    /// The "Links" tab: the rank-pair matrix (Ascend; "No link data" for other jobs).
    [[nodiscard]] JobLinkMap* linkMap() const { return m_linkMap; }
    [[nodiscard]] QTableWidget* findingsTable() const { return m_findings; }
    [[nodiscard]] DetailsPanel* findingDetails() const { return m_details; }
    [[nodiscard]] QTableWidget* ranksTable() const { return m_ranks; }
    [[nodiscard]] QPushButton* compareButton() const { return m_compare; }
    /// The rank index (into job().ranks) a row of the ranks table shows, whatever the sort.
    [[nodiscard]] int rankIndexOfRow(int row) const;

signals:
    /// A rank's trace was asked for (index into job().ranks), at step `step` (−1: no particular step).
    void rankActivated(int rankIndex, qint64 step);
    /// Two ranks are to be compared (indexes into job().ranks, in rank order).
    void compareRequested(int firstRankIndex, int secondRankIndex);

private:
    void updateCompareButton();
    void fillValues();
    void showFinding(int row);

    analysis::JobResult m_job;
    QLabel* m_headline = nullptr;
    QTabWidget* m_tabs = nullptr;
    JobHeatMap* m_heatMap = nullptr;
    QComboBox* m_measure = nullptr;
    QLabel* m_measureNote = nullptr;
    QTableWidget* m_values = nullptr;
    JobLanesPanel* m_lanes = nullptr;
    JobLinkMap* m_linkMap = nullptr;
    QTableWidget* m_findings = nullptr;
    DetailsPanel* m_details = nullptr;
    QTableWidget* m_ranks = nullptr;
    QPushButton* m_compare = nullptr;
};

} // namespace timesink::widgets
