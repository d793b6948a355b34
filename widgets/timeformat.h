// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/efficiency/efficiency.h"
#include "model/types.h"

#include <QString>

namespace timesink::widgets {

/// Formatting of durations and ruler ticks; numbers come from the one formatter, analysis/core/textformat.h.
///
/// Examples: formatDuration(1'500) == "1.50 µs"; formatDuration(2'000'000'000) == "2.00 s";
///           tickStep(1000.0, 80) == 100'000 (1 µs a pixel, ticks at least 80 px apart → 100 µs).
class TimeFormat
{
public:
    /// Duration with three significant digits and a unit chosen from ns, µs, ms, s (analysis::formatDuration).
    static QString formatDuration(model::TimeNs ns);
    /// A fraction as a percentage with one decimal, "41.2%" (analysis::formatPercent).
    static QString formatPercent(double fraction);
    /// A rate or size with three significant digits, four from 1000 so that no exponent shows: "0.0412", "61.9",
    /// "1307" (analysis::formatGeneral).
    static QString formatNumber(double value);
    /// A bounded share, "61.9%" or "100.0% (clamped)" (analysis::efficiency::formatFraction).
    static QString formatFraction(const analysis::efficiency::BoundedFraction& fraction);
    /// Offset label for the ruler, with just enough decimals to tell ticks `step` apart ("12.5 ms"), in the unit of
    /// the larger of `step` and `magnitude` (the largest offset in view), so that all labels of a view share a unit:
    /// formatOffset(3'000, 500, 8'000) == "3.0 µs".
    static QString formatOffset(model::TimeNs ns, model::TimeNs step, model::TimeNs magnitude = 0);
    /// The smallest 1-2-5 × 10^k ns step whose ticks are at least `minPixels` apart at `nsPerPixel`.
    static model::TimeNs tickStep(double nsPerPixel, int minPixels);
};

} // namespace timesink::widgets
