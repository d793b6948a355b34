// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/deviceactivity.h"
#include "analysis/core/finding.h"

#include <optional>
#include <string>
#include <vector>

namespace timesink::analysis {

/// The loss of host calls that stall the device (op_compile: compile calls, memory_pressure: allocator calls),
/// counted the same way for both kinds:
///   * with device work: the device idle time the calls claimed in attributeIdle() (`claimed`), so no idle
///     nanosecond is counted by two kinds; evidence is the idle ranges on the busiest device track;
///   * without device work (host-only trace): the calls' own time inside steps.
/// The calls themselves are evidence and events either way.
/// Example: step [0,1000), kernels [0,100) and [500,1000), a compile call [50,450) → 350 ns lost
/// (the device was busy for [50,100) of the call), call_ns 400, calls 1.
struct HostCallClaim
{
    Finding finding;          // kind, lostNs, perStep, evidence, events, occurrences (= merged calls in steps)
    model::TimeNs callNs = 0; // union of the calls inside steps
    std::uint64_t calls = 0;  // call slices (outermost ones) inside steps
    bool deviceless = false;
};

/// Empty when no call lies inside a step or nothing was lost.
std::optional<HostCallClaim> claimHostCalls(const model::Trace& trace, const StepClock& clock,
                                            const DeviceActivity& activity, const IntervalList& calls,
                                            const std::vector<model::SliceRef>& callSlices,
                                            const std::vector<IdlePiece>& claimed, std::string kind);

} // namespace timesink::analysis
