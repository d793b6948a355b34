// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/pass.h"

namespace timesink::analysis {

/// `pipeline_bubble`: device idle gaps inside steps that the dataloader (and host CPU fallbacks) do not
/// explain, each at least AnalysisOptions::bubbleThresholdNs long, split by what the host was doing:
///   sync_wait    — a blocking sync or copy (Sync slices, cudaStreamSynchronize, cudaMemcpy, aclrtMemcpy …)
///   launch_bound — the gap sits between stretches of tiny kernels while the host was in framework ops or
///                  launches: the host cannot issue work as fast as the device finishes it
///   host_op      — the host was inside framework ops / runtime calls that issued no device work
///   python       — the host was in Python frames or in code the profiler did not record
/// Each nanosecond of a gap goes to exactly one cause, by that priority (sync first). One finding per cause.
/// Example: gap [100,300) with a cudaStreamSynchronize [150,200) on the host → 50 ns sync_wait and 150 ns python.
class PipelineBubblePass : public Pass
{
public:
    [[nodiscard]] std::string_view kind() const override { return "pipeline_bubble"; }
    [[nodiscard]] PassOutput run(const AnalysisContext& context) const override;
};

} // namespace timesink::analysis
