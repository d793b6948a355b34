// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/pass.h"

namespace timesink::analysis {

/// `core_imbalance` (RKNN traces): in a run that used several NPU cores — some layers split across cores
/// (WorkLoad `33.3%/33.3%/33.3%`) — the NPU layers that ran on fewer cores than the run had (`100.0%/0.0%/0.0%`).
/// Lost time, an upper bound (perfect scaling): a layer of time t whose WorkLoad shares w_c keep the cores busy
/// B = t · Σ_c w_c / max_k w_k core-time would take B / N split evenly over the run's N cores, so
/// lost = t − B / N (t · (1 − 1/N) for a single-core layer). One finding for the run; other platforms get none.
class CoreImbalancePass : public Pass
{
public:
    [[nodiscard]] std::string_view kind() const override { return "core_imbalance"; }
    [[nodiscard]] PassOutput run(const AnalysisContext& context) const override;
};

} // namespace timesink::analysis
