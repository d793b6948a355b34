// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/intervals.h"
#include "analysis/core/kernelclass.h"
#include "model/trace.h"

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace timesink::analysis {

/// The device side of the compared steps, in TraceLens's gpu_timeline terms (docs/compare.md "Device breakdown"):
/// over the steps' device windows (StepClock::deviceWindow: first start to last end of the device work each step
/// launched, united so that overlapping windows count once)
///   compute_ns                 union of device compute (everything busy but copies, memsets and communication)
///   exposed_communication_ns   communication not under compute
///   exposed_copy_ns            copies and memsets under neither
///   idle_ns                    the rest of the window
/// so compute + exposed communication + exposed copy + idle = window.
struct DeviceBreakdown
{
    bool hasDeviceWork = false;
    model::TimeNs windowNs = 0;
    model::TimeNs computeNs = 0;
    model::TimeNs exposedCommunicationNs = 0;
    model::TimeNs exposedCopyNs = 0;
    model::TimeNs idleNs = 0;
};

/// Why the device was idle while the host did something, first that applies (the order of attributeIdle() in
/// deviceactivity.h, then blocking calls, framework ops, Python): a nanosecond of device idle time under a
/// dataloader span is the dataloader's even if a host op runs then too.
enum class IdleCause : std::uint8_t {
    Dataloader, // host dataloader spans
    Fallback,   // CPU fallback ops on host threads (RKNN CPU layers, host-side fallbacks)
    Compile,    // operator compilation and autotuning calls (hostCallKind Compile / Autotune)
    Allocator,  // device allocator calls (cudaMalloc, aclrtMalloc, …)
    Sync,       // blocking runtime calls (isBlockingRuntimeCall: synchronize, synchronous copies)
    HostOps,    // framework ops on host threads (launch-bound or host-bound work)
    Python,     // Python frames outside any framework op
    NoHost,     // nothing on the host timeline explains it (launch latency, untraced host work)
};
inline constexpr std::size_t kIdleCauseCount = static_cast<std::size_t>(IdleCause::NoHost) + 1;
/// "dataloader", "fallback_wait", "compile", "allocator", "sync", "host_ops", "python", "no_host_activity".
std::string_view idleCauseKey(IdleCause c);
/// "idle: dataloader", "idle: CPU fallback wait", … for people.
std::string_view idleCauseLabel(IdleCause c);

/// One side's step time cut into exclusive parts that add up to it exactly. Every nanosecond of a step window goes
/// to the first of: device compute (by kernel class; where kernels of two classes overlap, the class earlier in
/// KernelClass's order takes it), exposed communication, exposed copies (memcpy and memset), and device idle time by
/// its IdleCause. Compute, communication and copies are told apart by slice category, as `analyze` tells them apart
/// (deviceactivity.h); the kernel class only subdivides compute.
struct StepTimeSplit
{
    model::TimeNs windowNs = 0; // what the parts add up to: the step time of the compared steps
    std::array<model::TimeNs, kKernelClassCount> computeNs {}; // Communication stays 0; Copy and Memset hold
                                                               // copy kernels (TensorMove) that run as compute
    model::TimeNs exposedCommunicationNs = 0;
    model::TimeNs exposedCopyNs = 0;
    std::array<model::TimeNs, kIdleCauseCount> idleNs {};
};

/// The device work and host activity of one trace as interval unions, built once (one pass over the slices), then
/// cut along any windows.
class TraceTimeSplitter
{
public:
    explicit TraceTimeSplitter(const model::Trace& trace);

    /// Splits the given windows (disjoint, any order) as StepTimeSplit says.
    [[nodiscard]] StepTimeSplit split(std::span<const Interval> windows) const;
    /// The device breakdown over the union of the given device windows.
    [[nodiscard]] DeviceBreakdown deviceBreakdown(std::span<const Interval> deviceWindows) const;
    [[nodiscard]] bool hasDeviceWork() const { return m_hasDeviceWork; }
    /// First start to last end of the device work inside `w` (clipped to it), if there is any.
    [[nodiscard]] std::optional<Interval> busyHull(Interval w) const;

private:
    std::array<IntervalList, kKernelClassCount> m_device; // device compute and communication by class
    IntervalList m_compute;                               // union of the compute classes
    IntervalList m_copies;                                // memcpy and memset work (slice category)
    std::array<IntervalList, kIdleCauseCount> m_host;     // host activity by cause (NoHost stays empty)
    bool m_hasDeviceWork = false;
};

} // namespace timesink::analysis
