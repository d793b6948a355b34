// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/pass.h"

namespace timesink::analysis {

/// `op_compile`: operators compiled at run time inside steps (HostCallKind::Compile: Ascend
/// `AscendCL@aclopCompileAndExecute` / `AscendCL@opCompile` / `aclopCompile*`, TorchDynamo and Inductor
/// compiles; cuDNN/MIOpen autotuning after the first step).
/// Lost time = device idle time while the host compiles, claimed after the dataloader and CPU fallbacks and
/// before the allocator and pipeline bubbles (deviceactivity.h); on a host-only trace the compile time itself.
/// One finding per trace.
class OpCompilePass : public Pass
{
public:
    [[nodiscard]] std::string_view kind() const override { return "op_compile"; }
    [[nodiscard]] PassOutput run(const AnalysisContext& context) const override;
};

} // namespace timesink::analysis
