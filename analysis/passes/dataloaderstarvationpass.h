// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/pass.h"

namespace timesink::analysis {

/// `dataloader_starvation`: the device has nothing to run while the host is inside a dataloader fetch
/// (`enumerate(DataLoader)#…`, SliceCategory::Dataloader).
/// Lost time per step = device idle time overlapping dataloader spans; on a trace without device work,
/// the dataloader span time inside the step. One finding with the per-step breakdown.
/// Example: step [0,100), kernels [0,10) and [60,100), dataloader [5,30) → lost 20 ns (idle [10,30)).
class DataloaderStarvationPass : public Pass
{
public:
    [[nodiscard]] std::string_view kind() const override { return "dataloader_starvation"; }
    [[nodiscard]] PassOutput run(const AnalysisContext& context) const override;
};

} // namespace timesink::analysis
