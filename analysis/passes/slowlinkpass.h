// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/pass.h"

namespace timesink::analysis {

/// `slow_link`: collectives that moved their bytes far below the peak of the link they ran on
/// (analysis/core/collectivebandwidth.h). A collective counts when its bytes are known, it moved at least
/// kMinBytes (below that the per-step latency of the algorithm, not the link, sets the time) and its bus bandwidth
/// is under kSlowShare of the link's peak (NCCL-tests reach 70–80 % of a healthy link's peak at large sizes and
/// still a good third of it at a few MiB, so a quarter is far below what the link gives).
/// Lost time per collective = its duration × (1 − busbw / peak) = its duration − the time the link at its peak
/// would take, never more than the collective's exposed time (what no compute overlaps). It is a part of the
/// `communication` finding's exposed time, named by its cause.
/// On one rank an NCCL collective's duration includes waiting for peers, so its bandwidth is a lower bound there
/// (`timesink-cli job` takes the shortest duration of the group); the Ascend tools measure the link's own transit.
/// Example: allreduce of 64 MiB over 2 ranks on A100 (NVLink3, 300 GB/s) in 10 ms, all exposed → busbw 6.7 GB/s
///   (2.2 % of peak), at peak 0.224 ms, lost 9.776 ms.
class SlowLinkPass : public Pass
{
public:
    static constexpr std::int64_t kMinBytes = std::int64_t(1) << 20;
    static constexpr double kSlowShare = 0.25;
    [[nodiscard]] std::string_view kind() const override { return "slow_link"; }
    [[nodiscard]] PassOutput run(const AnalysisContext& context) const override;
};

/// The recommendation for collectives below their link's peak, for the collective library and the link.
std::string slowLinkRecommendation(bool hccl, std::string_view link);

} // namespace timesink::analysis
