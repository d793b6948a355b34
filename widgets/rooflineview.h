// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/efficiency/efficiency.h"
#include "model/trace.h"

#include <QPoint>
#include <QPointF>
#include <QStringList>
#include <QWidget>

#include <cstddef>
#include <memory>
#include <optional>
#include <vector>

class QChart;
class QChartView;
class QLabel;
class QScatterSeries;
class QSortFilterProxyModel;
class QStandardItemModel;
class QTableView;

namespace timesink::widgets {

/// How close each operator of a trace ran to its chip (issue 51, docs/gui.md "Roofline"): a log–log roofline chart
/// (arithmetic intensity in FLOP/byte across, achieved TFLOP/s up) with the chip's roofs — memory bandwidth × intensity
/// up to each peak its operators are judged at — and one point per operator (name, shapes, data type) sized by its
/// device time and coloured by class, beside a sortable table of the same operators. Clicking a point or selecting
/// a row outlines the operator's device work on the timeline (highlightRequested) and goes to its longest kernel
/// (sliceRequested). A trace whose chip is not in the peak table gets the points without roofs and says why.
class RooflineView : public QWidget
{
    Q_OBJECT
public:
    static constexpr int kSortRole = Qt::UserRole + 1;
    static constexpr int kOperatorRole = Qt::UserRole + 2; // index into the report's operators
    /// At most this many operators (the longest) are drawn; the table lists them all.
    static constexpr std::size_t kMaxPoints = 2000;

    /// One roof as drawn: its data type, its peak (TFLOP/s), the bandwidth (TB/s, 0 when unknown) and the
    /// intensity where the two meet.
    struct Roof
    {
        analysis::efficiency::DataType type = analysis::efficiency::DataType::Unknown;
        double peakTflops = 0.0;
        double bandwidthTbps = 0.0;
        double ridge = 0.0;
    };

    explicit RooflineView(QWidget* parent = nullptr);

    /// The efficiency of `trace` (either nullptr: nothing to show, e.g. while the analyses still run).
    void setEfficiency(model::TracePtr trace, std::shared_ptr<const analysis::efficiency::EfficiencyReport> report);

    /// Makes operator `op` (index into the report's operators) the current one, as clicking its point does: selects
    /// its row and point, outlines its device work and asks for its longest kernel. False when there is no such
    /// operator.
    bool activateOperator(std::size_t op);
    /// The operator drawn as point `point` (its index) of `series`, if there is one.
    [[nodiscard]] std::optional<std::size_t> operatorOf(const QScatterSeries* series, int point) const;
    /// The operator whose drawn point covers `viewportPos` of the chart view (the nearest centre), if one does.
    [[nodiscard]] std::optional<std::size_t> operatorNear(QPoint viewportPos) const;

    /// The text shown when hovering operator `op`'s point (also its table row's name tooltip): its figures, and for a
    /// measured utilisation the counter it comes from (the report's measured_source). Empty for no such operator.
    [[nodiscard]] QString pointToolTip(std::size_t op) const;

    [[nodiscard]] const analysis::efficiency::EfficiencyReport* report() const { return m_report.get(); }
    [[nodiscard]] const std::vector<Roof>& roofs() const { return m_roofs; }
    /// The scatter series of the chart (per class and point size, and for the operators above their roof).
    [[nodiscard]] std::vector<QScatterSeries*> pointSeries() const;
    /// Operators drawn (their FLOPs and bytes are known and they ran).
    [[nodiscard]] std::size_t pointCount() const;
    [[nodiscard]] QChart* chart() const;
    [[nodiscard]] QTableView* table() const { return m_table; }
    [[nodiscard]] QStandardItemModel* model() const { return m_model; }
    [[nodiscard]] QSortFilterProxyModel* proxy() const { return m_proxy; }
    [[nodiscard]] QLabel* summary() const { return m_summary; }
    /// The column titled `title` ("Roofline", "TFLOP/s"), or -1.
    [[nodiscard]] int column(const QString& title) const { return static_cast<int>(m_headers.indexOf(title)); }

signals:
    void sliceRequested(timesink::model::SliceRef slice);
    void highlightRequested(const std::vector<timesink::model::SliceRef>& slices);

protected:
    void changeEvent(QEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    struct Drawn
    {
        QScatterSeries* series = nullptr;
        std::vector<std::size_t> ops; // parallel to the series' points
    };

    void rebuild();
    void fillTable();
    void fillChart();
    void onRowChanged();
    void selectPoint(std::size_t op);

    model::TracePtr m_trace;
    std::shared_ptr<const analysis::efficiency::EfficiencyReport> m_report;
    std::vector<Roof> m_roofs;
    std::vector<Drawn> m_drawn;
    QStringList m_headers;
    QLabel* m_summary = nullptr;
    QChartView* m_chartView = nullptr;
    QStandardItemModel* m_model = nullptr;
    QSortFilterProxyModel* m_proxy = nullptr;
    QTableView* m_table = nullptr;
    bool m_activating = false;
};

} // namespace timesink::widgets
