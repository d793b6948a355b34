// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/job/job.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QPushButton;
class QTableWidget;

namespace timesink::widgets {

/// The rank × step heat map of a job: one row per rank, one column per step, the colour the step time or the
/// communication wait of that rank in that step (white 0 → red the largest). Double-clicking a cell activates
/// its rank; the tooltip names rank, step and value.
class JobHeatMap : public QWidget
{
    Q_OBJECT
public:
    enum class Measure { StepTime, CommunicationWait };

    explicit JobHeatMap(QWidget* parent = nullptr);
    void setJob(const analysis::JobResult* job);
    void setMeasure(Measure measure);
    [[nodiscard]] Measure measure() const { return m_measure; }
    /// The value a cell shows (−1 when the rank has no such step).
    [[nodiscard]] model::TimeNs value(std::size_t rankIndex, std::size_t stepIndex) const;
    [[nodiscard]] model::TimeNs maxValue() const { return m_max; }
    /// The cell under a widget position: {rank index, step index}, or {-1, -1}.
    [[nodiscard]] std::pair<int, int> cellAt(QPoint pos) const;
    [[nodiscard]] QRect cellRect(int rankIndex, int stepIndex) const;
    [[nodiscard]] QSize sizeHint() const override;

signals:
    void rankActivated(int rankIndex);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    bool event(QEvent* event) override;

private:
    void recompute();

    const analysis::JobResult* m_job = nullptr;
    Measure m_measure = Measure::StepTime;
    std::vector<std::vector<model::TimeNs>> m_values; // [rank][step], −1 missing
    model::TimeNs m_max = 0;
};

/// The overview of a distributed job: the heat map (step time or communication wait), the job findings ranked by
/// lost time, and one row per rank (its steps, communication, wait, top finding). Double-clicking a rank (in the
/// heat map or the table) asks for its timeline; selecting two ranks enables "Compare Ranks".
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
    [[nodiscard]] QTableWidget* findingsTable() const { return m_findings; }
    [[nodiscard]] QTableWidget* ranksTable() const { return m_ranks; }
    [[nodiscard]] QPushButton* compareButton() const { return m_compare; }

signals:
    /// A rank's timeline was asked for (index into job().ranks).
    void rankActivated(int rankIndex);
    /// Two ranks are to be compared (indexes into job().ranks, in table order).
    void compareRequested(int firstRankIndex, int secondRankIndex);

private:
    void updateCompareButton();

    analysis::JobResult m_job;
    QLabel* m_headline = nullptr;
    JobHeatMap* m_heatMap = nullptr;
    QComboBox* m_measure = nullptr;
    QTableWidget* m_findings = nullptr;
    QTableWidget* m_ranks = nullptr;
    QPushButton* m_compare = nullptr;
};

} // namespace timesink::widgets
