// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/job/job.h"

#include <QAbstractScrollArea>
#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QPainter;

namespace timesink::widgets {

/// One lane per rank for one step of a job, on a shared time axis (analysis::stepLanes): what the device did over
/// the step (compute, copies, idle), its collectives' waiting part (hatched), exposed transfer part and
/// compute-overlapped part, and the last arrival at each matched collective as a dashed line across the lanes — the
/// edge the others wait on. Only the visible lanes are painted, so 1,024 ranks scroll as smoothly as 4.
/// Double-clicking a lane activates its rank at that step.
class JobLanesView : public QAbstractScrollArea
{
    Q_OBJECT
public:
    enum class Sort : std::uint8_t { Rank, Wait, StepTime, CausedWait };

    explicit JobLanesView(QWidget* parent = nullptr);
    /// Shows step `step` of `job` (kept by pointer; the caller owns it and calls this again when it changes).
    void setStep(const analysis::JobResult* job, std::int64_t step, analysis::LaneAlign align, std::size_t collective);
    void setSort(Sort sort);
    /// Only the ranks `filter` names: "0-7, 12, 100-" style ranges of rank numbers; empty shows all. False (and no
    /// change) when the text is not such a list.
    bool setRankFilter(const QString& filter);

    [[nodiscard]] const analysis::StepLanes& lanes() const { return m_lanes; }
    /// The lanes shown, in order: indexes into lanes().lanes.
    [[nodiscard]] const std::vector<std::size_t>& order() const { return m_order; }
    /// The lane under a viewport position (an index into lanes().lanes), or −1.
    [[nodiscard]] int laneAt(QPoint viewportPos) const;
    /// The viewport x of axis time `t`.
    [[nodiscard]] double xOf(model::TimeNs t) const;
    /// The tooltip text at a viewport position (empty where there is nothing).
    [[nodiscard]] QString toolTipAt(QPoint viewportPos) const;
    [[nodiscard]] int laneHeight() const { return kLaneHeight; }
    /// Paints the time axis (the strip above the lanes).
    void paintAxis(QPainter& axis, int width) const;
    /// Lanes painted by the last paint (virtualisation check).
    [[nodiscard]] int lastPaintedLanes() const { return m_lastPainted; }

    static constexpr int kLaneHeight = 18;
    static constexpr int kLabelWidth = 150;
    static constexpr int kAxisHeight = 22;

signals:
    void rankActivated(int rankIndex, qint64 step);

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    bool viewportEvent(QEvent* event) override;

private:
    void rebuildOrder();
    void updateScrollBars();

    const analysis::JobResult* m_job = nullptr;
    analysis::StepLanes m_lanes;
    Sort m_sort = Sort::Rank;
    std::vector<std::pair<std::int64_t, std::int64_t>> m_filter; // rank ranges [a, b]
    std::vector<std::size_t> m_order;
    int m_lastPainted = 0;
    QWidget* m_axis = nullptr;
};

/// The lanes with their controls: step, alignment (common clock, step start, a collective), sort and rank filter.
class JobLanesPanel : public QWidget
{
    Q_OBJECT
public:
    explicit JobLanesPanel(QWidget* parent = nullptr);
    void setJob(const analysis::JobResult* job);
    /// Shows step `step` (selects it in the step box).
    void showStep(std::int64_t step);

    [[nodiscard]] JobLanesView* view() const { return m_view; }
    [[nodiscard]] QComboBox* stepBox() const { return m_step; }
    [[nodiscard]] QComboBox* alignBox() const { return m_align; }
    [[nodiscard]] QComboBox* sortBox() const { return m_sort; }
    [[nodiscard]] QLineEdit* filterEdit() const { return m_filter; }

private:
    void refresh();
    void fillAlignBox();

    const analysis::JobResult* m_job = nullptr;
    JobLanesView* m_view = nullptr;
    QComboBox* m_step = nullptr;
    QComboBox* m_align = nullptr;
    QComboBox* m_sort = nullptr;
    QLineEdit* m_filter = nullptr;
    QLabel* m_summary = nullptr;
};

} // namespace timesink::widgets
