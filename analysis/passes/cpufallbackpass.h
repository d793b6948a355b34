// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/pass.h"

namespace timesink::analysis {

/// `cpu_fallback`: work that ran on a CPU instead of the accelerator, grouped by operator type:
///   - Ascend AI_CPU tasks (FallbackOp slices on NPU tracks);
///   - RKNN `Target=CPU` layers (FallbackOp slices on a CPU track), except the Input/Output operators;
///   - on GPU/NPU runs, framework ops that copy their inputs to the host (device-to-host copy), run there
///     without issuing device work, and copy the results back (host-to-device copy) — the "round trip".
/// Lost time = the fallback op's own time plus the device time of the copies the round trip forced.
/// Example: an RKNN Transpose layer on the CPU for 590 µs → lost 590 µs; InputOperator on the CPU → nothing.
class CpuFallbackPass : public Pass
{
public:
    [[nodiscard]] std::string_view kind() const override { return "cpu_fallback"; }
    [[nodiscard]] PassOutput run(const AnalysisContext& context) const override;
};

} // namespace timesink::analysis
