// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/pass.h"

namespace timesink::analysis {

/// `precision`: matmul and convolution work that runs in FP32 in a run that uses mixed precision.
/// Mixed precision is in use when the trace shows autocast or a gradient scaler on the host (names containing
/// `autocast`, `grad_scaler`, `_amp_update_scale`, `AmpUpdateScale`, `_amp_foreach_non_finite_check_and_unscale`)
/// or matmul/conv work in FP16/BF16 on the device. Matmul/conv device work is recognised by op type (Ascend
/// `MatMul*`, `BatchMatMul*`, `Conv2D*`, incl. backprop) or GPU kernel name (`gemm`, `convolve`, `conv2d`, `conv3d`,
/// `fprop`, `dgrad`, `wgrad`, `winograd`); its precision comes from kernel_details `Input Data Types` (FLOAT / DT_FLOAT
/// vs FLOAT16 / DT_BF16 …) or GPU kernel name tokens (`sgemm`, `f32f32_f32f32`, `fp32` vs `hmma`, `fp16`, `bf16`,
/// `f16`, `hgemm`, `h884`, `h1688`, `h16816`). Lost time is an estimate: half the FP32 matmul/conv device time inside
/// steps (the conservative tensor-core gain on A100-class GPUs and Ascend 910). One finding per trace; details list the
/// ops.
class PrecisionPass : public Pass
{
public:
    [[nodiscard]] std::string_view kind() const override { return "precision"; }
    [[nodiscard]] PassOutput run(const AnalysisContext& context) const override;
};

} // namespace timesink::analysis
