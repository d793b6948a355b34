// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/pass.h"

namespace timesink::analysis {

/// `data_movement` (RKNN traces): NPU layers that only move or rearrange tensors — Split, Concat, Reshape,
/// Transpose, Resize, Slice, Permute, v1 TENSOR_TRANS … (isRknnDataMovement). A kind of its own rather than
/// `conversion`: they change no layout or dtype the next layer needs, they copy feature maps through DRAM.
/// Lost time = their time in the analysed frames (a CPU layer of these types is `cpu_fallback`'s). One finding for
/// the run with the time share per op type and the longest layers; other platforms get none.
class DataMovementPass : public Pass
{
public:
    [[nodiscard]] std::string_view kind() const override { return "data_movement"; }
    [[nodiscard]] PassOutput run(const AnalysisContext& context) const override;
};

} // namespace timesink::analysis
