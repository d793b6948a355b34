// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/pass.h"

namespace timesink::analysis {

/// `unfused_chain`: Conv → BatchNorm → activation (and Conv → BatchNorm, Conv → activation,
/// MatMul/Linear → Add → activation) executed as separate kernels, device tasks or layers. Found from
///   - framework ops: consecutive sibling HostOps on a host thread (`aten::conv2d` → `aten::batch_norm` →
///     `aten::relu_`); on a CPU-only trace these host ops are the work itself;
///   - device tasks in stream order whose op type (arg or name) forms a chain (Ascend `Conv2D` →
///     `BNTrainingReduce`/`BNTrainingUpdate` → `Relu`), unless a framework chain already covers them;
///   - RKNN layers in execution order (`Conv` → `BatchNormalization` → `Relu`); a fused `ConvRelu` is one
///     layer and never a chain.
/// Lost time = time of the kernels a fusion removes (the BatchNorm and activation, or the Add and
/// activation): for a framework op, the device kernels it launched (via launch flows), else its own time.
/// occurrences = number of chains. One finding per chain pattern.
class UnfusedChainPass : public Pass
{
public:
    [[nodiscard]] std::string_view kind() const override { return "unfused_chain"; }
    [[nodiscard]] PassOutput run(const AnalysisContext& context) const override;
};

} // namespace timesink::analysis
