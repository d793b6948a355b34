// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/pass.h"

namespace timesink::analysis {

/// `memory_pressure`: device memory allocated or freed through the runtime inside steps
/// (HostCallKind::Allocator: `cudaMalloc`/`cudaFree`, `hipMalloc`/`hipFree`, `aclrtMalloc`/`aclrtFree`, …).
/// A caching allocator only calls these when its cache misses or it must release cached blocks to satisfy a
/// request — the sign of a working set close to the device's capacity. `cudaFree` and its kin also
/// synchronise the device.
/// Lost time = device idle time while the host is in those calls, claimed after op_compile and before
/// pipeline bubbles (deviceactivity.h); on a host-only trace the calls' own time. When the trace has
/// allocator counters (Kineto `[memory]` → "GPU N memory allocated") the peak is reported, and against the
/// device's memory when the trace names it.
class MemoryPressurePass : public Pass
{
public:
    [[nodiscard]] std::string_view kind() const override { return "memory_pressure"; }
    [[nodiscard]] PassOutput run(const AnalysisContext& context) const override;
};

} // namespace timesink::analysis
