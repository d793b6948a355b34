// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/pass.h"

namespace timesink::analysis {

/// `copy_hotspot`: host↔device copies grouped by call site and direction. The call site is the outermost
/// framework op (HostOp) enclosing the runtime call that launched the copy (found by following the launch
/// flow from the device copy back to the host), else the runtime call's own name.
/// Lost time = copy time on the device that did not overlap device compute on the same device.
/// Each group reports how many copies were from pageable memory, synchronous, or small
/// (< AnalysisOptions::smallCopyBytes). One finding per group with lost time.
/// Example: an HtoD copy [0,100) with a kernel [0,60) on another stream of the same GPU → 40 ns lost.
class CopyHotspotPass : public Pass
{
public:
    [[nodiscard]] std::string_view kind() const override { return "copy_hotspot"; }
    [[nodiscard]] PassOutput run(const AnalysisContext& context) const override;
};

} // namespace timesink::analysis
