// SPDX-License-Identifier: MIT
#pragma once

// What a layer row's cells say beyond their text: how many NPU cores it kept busy, and whether its numbers can be
// right at all.

#include "parsers/rknn/rknnperfreport.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace timesink::parsers::rknncells {

/// Number of NPU cores a workload cell shows busy: "33.3%/33.3%/33.3%" → 3, "100.0%/0.0%/0.0%" → 1.
[[nodiscard]] std::int64_t coresUsed(std::string_view workload);

/// The shares of a WorkLoad cell in percent per core: "33.3%/33.3%/33.3%" → {33.3, 33.3, 33.3}; nullopt when a
/// part is no number.
[[nodiscard]] std::optional<std::vector<double>> workloadShares(std::string_view workload);

/// Why a layer's WorkLoad, cycles, MacUsage or RW cell cannot be right, or empty. The same rules make
/// analysis::readRknnLayers leave the cell out (analysis/core/rknnlayers.h), so the advisor draws no finding
/// from it: shares outside 0–100 % or not adding up to 100 % (±1.5 points; all 0.0% is "not printed"), cycles
/// negative or above 10^13 or a Total that is not max(DDR, NPU), MAC usage outside 0–100 %, RW(KB) negative or
/// above 10^9. Example: "50.0%/0.0%/0.0%" → "WorkLoad 50.0%/0.0%/0.0% adds up to 50.0 %, not 100 %".
[[nodiscard]] std::string implausibleCells(const RknnLayer& l);

/// True for the operators that convert data at the graph's edge (InputOperator, OutputOperator): on the CPU by
/// design, not a fallback.
[[nodiscard]] bool isEdgeOperator(std::string_view opType);

} // namespace timesink::parsers::rknncells
