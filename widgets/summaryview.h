// SPDX-License-Identifier: MIT
#pragma once

#include "widgets/summarydata.h"

#include <QWidget>

class QChartView;
class QLabel;

namespace timesink::widgets {

/// Three charts over pre-aggregated SummaryData: per-step time breakdown (stacked bars), lost time by
/// finding kind, and the top operators by device time. The charts only draw; nothing is computed here.
class SummaryView : public QWidget
{
    Q_OBJECT
public:
    explicit SummaryView(QWidget* parent = nullptr);

    void setData(const SummaryData& data);
    void clear() { setData(SummaryData {}); }
    [[nodiscard]] const SummaryData& data() const { return m_data; }
    /// The three charts (for tests and screenshots): time per step, lost time by kind, top operators.
    [[nodiscard]] QChartView* stepsChart() const { return m_steps; }
    [[nodiscard]] QChartView* lostChart() const { return m_lost; }
    [[nodiscard]] QChartView* operatorsChart() const { return m_operators; }

protected:
    void changeEvent(QEvent* event) override;

private:
    void rebuild();

    SummaryData m_data;
    QChartView* m_steps = nullptr;
    QChartView* m_lost = nullptr;
    QChartView* m_operators = nullptr;
};

} // namespace timesink::widgets
