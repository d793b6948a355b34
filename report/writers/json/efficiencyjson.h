// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/efficiency/compareefficiency.h"
#include "analysis/efficiency/efficiency.h"

#include <cstddef>
#include <nlohmann/json.hpp>

namespace timesink::report {

/// How many operators a report lists (by device time); `operator_count` says how many there were.
inline constexpr std::size_t kEfficiencyOperators = 20;

/// The report's `efficiency` object (docs/report-schema.md): the device as resolved with its peaks and their source,
/// per step MFU, per class, the operators with the most device time, and what could not be assessed. Fractions are
/// 0–1; one that was clamped carries `clamped: true` and `clamp_reason`.
nlohmann::ordered_json efficiencyJson(const analysis::efficiency::EfficiencyReport& r,
                                      std::size_t maxOperators = kEfficiencyOperators);

/// The compare report's `efficiency_by_class` array: per work class, each side's calls, device time, TFLOP/s,
/// fraction of peak and of roofline (null where the side has none, the side null where it has no call of the
/// class), the speed ratio, the limit ("chip", "port", "chip_and_port", "not_slower", "not_judged") and why.
nlohmann::ordered_json efficiencyByClassJson(const analysis::efficiency::CompareEfficiency& e);

} // namespace timesink::report
