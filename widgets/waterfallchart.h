// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/compare/compare.h"

#include <QWidget>

namespace timesink::widgets {

/// The waterfall of a comparison (CompareResult::waterfall, docs/compare.md): a bar for the baseline's step time, one
/// floating bar per part from the running total to the running total plus its delta (red: the candidate spends more
/// there, green: less), and a bar for the candidate's step time. Below it the device breakdown of both sides.
/// Hovering a bar shows its part, both sides' times and the delta.
class WaterfallChart : public QWidget
{
    Q_OBJECT
public:
    explicit WaterfallChart(QWidget* parent = nullptr);

    void setResult(const analysis::CompareResult& result);

    /// One drawn bar: what it says and where it runs on the time axis.
    struct Bar
    {
        QString label;
        model::TimeNs from = 0;
        model::TimeNs to = 0;
        QString tooltip;
        enum class Tone : std::uint8_t { Baseline, Candidate, Worse, Better } tone = Tone::Baseline;
    };
    [[nodiscard]] const std::vector<Bar>& bars() const { return m_bars; }

    [[nodiscard]] QSize sizeHint() const override;
    [[nodiscard]] QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;

private:
    [[nodiscard]] int barAt(QPoint pos) const;

    std::vector<Bar> m_bars;
    QStringList m_deviceLines; // the device breakdown, one line per figure
    model::TimeNs m_lo = 0;
    model::TimeNs m_hi = 0;
};

} // namespace timesink::widgets
