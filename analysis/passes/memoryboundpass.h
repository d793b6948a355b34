// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/pass.h"

namespace timesink::analysis {

/// `memory_bound` (RKNN traces): NPU layers whose DDR cycles exceed their NPU cycles (`Cycles(DDR/NPU/Total)`, or
/// toolkit2 1.x `DDR Cycles` / `NPU Cycles`): the layer waits for DRAM longer than it computes. Layers that only
/// move data (isRknnDataMovement) are `data_movement`'s. Lost time = the part of the layer's time the DDR stall
/// explains: t · (DDR − NPU) / DDR (the time is set by Total = max(DDR, NPU); at NPU-bound speed it would be
/// t · NPU / DDR). One finding for the run, naming the worst layers with their shapes; other platforms get none.
class MemoryBoundPass : public Pass
{
public:
    [[nodiscard]] std::string_view kind() const override { return "memory_bound"; }
    [[nodiscard]] PassOutput run(const AnalysisContext& context) const override;
};

} // namespace timesink::analysis
