// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/intervals.h"
#include "model/trace.h"

namespace timesink::analysis {

/// A launch held back this long on an idle device, or a graph launch without recorded work, means the device ran
/// work the trace does not hold.
inline constexpr model::TimeNs kUnrecordedMinNs = 1'000'000;

/// True for a runtime call that replays a captured graph or an offline model: `cudaGraphLaunch`, `hipGraphLaunch`,
/// Ascend `aclmdlExecute`/`aclmdlExecuteAsync`/`aclmdlRIExecuteAsync` (with or without an `AscendCL@` prefix).
bool isGraphLaunchCall(std::string_view name);

/// Device time the trace does not record (docs/analysis.md "Unrecorded device work"), canonical, with no recorded
/// busy time (`busy`, the union over the device tracks) in it. Two rules:
/// * a graph launch without a launch flow to recorded device work: from the call's start to the next recorded
///   device activity, or to the end of the first blocking call after it that returns before that activity;
/// * a launch held back at least kUnrecordedMinNs: its operation started that long after the call ended while no
///   recorded work ran (the stream waited on an event, a graph replay or work queued before the profiler started).
/// Example: cudaLaunchKernel [0, 5 µs), its kernel starts at 463 ms, nothing recorded runs in between → [5 µs,
/// 463 ms) is unrecorded device work, not idle.
IntervalList unrecordedDeviceWork(const model::Trace& trace, const IntervalList& busy);

} // namespace timesink::analysis
