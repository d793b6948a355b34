// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/pass.h"

#include <memory>

namespace timesink::analysis {

/// `low_efficiency` (issue 51): operators far below their roofline (analysis/efficiency/), with the cause where the
/// trace shows it, one finding per cause:
///   `tiny_gemm`          GEMM/conv calls too small to fill the chip: a mean device time under the tiny-kernel
///                        threshold (AnalysisOptions::tinyKernelNs) over many calls (launch-bound);
///   `fp32_matmul`        a GEMM/conv in FP32 on a chip whose BF16/FP16 peak is at least twice the peak it ran at,
///                        judged against the roofline it would have in half precision;
///   `misaligned_dims`    GEMM/conv dimensions not multiples of the matrix unit's tile (8 on GPUs, 16 for the
///                        Ascend Cube and RKNN INT8);
///   `elementwise_chain`  memory-bound elementwise/normalisation kernels that run next to each other in a stream
///                        (fusion candidates).
/// An operator is far below when its roofline fraction is under kLowEfficiencyFlag (half the target). Lost time:
/// its kernels re-timed at kLowEfficiencyTarget of the roofline — each kernel keeps fraction / target of its time,
/// never less than kShortestKernelNs — and the saving re-times the steps with those kernels scaled. Without a known
/// device (no peaks) nothing is claimed: the pass is not assessed.
class LowEfficiencyPass : public Pass
{
public:
    [[nodiscard]] std::string_view kind() const override { return "low_efficiency"; }
    [[nodiscard]] PassOutput run(const AnalysisContext& context) const override;
};

/// The efficiency report as an analyze() run keeps it (AnalysisResult::efficiency): the built-in peak table, with
/// each operator's device work. The pass makes it for its findings; analyze() makes it only when the pass did not.
std::shared_ptr<const efficiency::EfficiencyReport> makeEfficiencyReport(const model::Trace& trace,
                                                                         const CancelToken* cancel);

/// The efficiency a fixed operator is re-timed at: 60 % of its roofline (well-tuned GEMMs and fused elementwise
/// kernels reach 60–80 % of the peak or the bandwidth; 60 % is a target a fix can be expected to reach).
inline constexpr double kLowEfficiencyTarget = 0.6;
/// Operators under half the target are "far below" their roofline.
inline constexpr double kLowEfficiencyFlag = 0.3;
/// No kernel is re-timed below this: launching and draining a kernel takes a couple of microseconds whatever it does.
inline constexpr model::TimeNs kShortestKernelNs = 2'000;
/// A GEMM/conv with a mean under the tiny-kernel threshold is launch-bound when it has at least this many calls.
inline constexpr std::uint64_t kTinyGemmMinCalls = 20;

} // namespace timesink::analysis
