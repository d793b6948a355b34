// SPDX-License-Identifier: MIT
#pragma once

#include "model/types.h"

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace timesink::analysis {

/// What a stretch of a critical path was (docs/analysis.md "Critical path and projected saving").
enum class PathClass : std::uint8_t {
    HostCompute,   // framework ops and runtime calls that launch nothing on the path
    Python,        // Python frames, or nothing recorded on the host thread
    Dataloader,    // a host DataLoader fetch
    Launch,        // a runtime call that launches device work
    Sync,          // a blocking call (synchronize, blocking copy) and its return after the awaited work
    DeviceCompute, // kernels and uncategorised device tasks
    Copy,          // memcpy / memset on the device
    Communication, // collectives on the device
    Fallback,      // device-side CPU fallback tasks (Ascend AI_CPU)
    Latency,       // launch latency (call start → device start) and gaps between operations of one stream
    Unrecorded,    // device work the trace does not record held the path (analysis/core/unrecorded.h)
    ExternalWait,  // a blocking call that waited for no recorded device work (kUnrecordedMinNs or longer)
};
inline constexpr std::size_t kPathClassCount = 12;
/// Stable key: "host_compute", "python", "dataloader", "launch", "sync", "device_compute", "copy",
/// "communication", "fallback", "latency", "unrecorded", "external_wait".
std::string_view pathClassKey(PathClass c);

/// A stretch of a critical path: a node's own time on its track (host thread or device stream), with the slice it
/// belongs to where there is one: the device operation, the launching runtime call or the blocking call (for a group
/// of nested calls, the outermost). Host time between calls (Python, framework ops, DataLoader: `slice` invalid) is
/// a stretch of its thread only. Sync stretches cover the end of their blocking call, from the end of the awaited
/// work to the call's return.
struct PathSegment
{
    model::TimeNs start = 0;
    model::TimeNs end = 0;
    model::TrackId track;
    PathClass cls = PathClass::HostCompute;
    model::SliceRef slice; // on `track` when valid
};
// Up to kMaxPathSegments per step are kept for the whole analysis: the slice fits in the padding the fields had.
static_assert(sizeof(PathSegment) <= 32);

/// The critical path of one step: the chain of host time, launches, device operations and waits that ends last.
struct StepCriticalPath
{
    bool assessed = false;
    std::string reason;        // why the step has no path (not assessed), empty otherwise
    model::TimeNs startNs = 0; // where the path begins (the host step start, or device work queued before it)
    model::TimeNs endNs = 0;   // where the step's work ends (the last host or device end of the step)
    std::array<model::TimeNs, kPathClassCount> byClass {}; // adds up to endNs - startNs
    std::vector<PathSegment> segments;                     // own time of the nodes on the path, in time order
    std::uint64_t segmentsOmitted = 0;                     // left out past kMaxPathSegments
    // Operations of the step held by another stream's operation that the trace records no wait for (inferred:
    // it started right after that one ended, long after its launch and its own stream allowed).
    std::uint64_t crossStreamWaits = 0;
    // Operations of the step held by a wait of their stream on another that the trace records (Kineto's Stream Wait
    // Event: cudaStreamWaitEvent on an event recorded by cudaEventRecord).
    std::uint64_t crossStreamWaitsRecorded = 0;
    [[nodiscard]] model::TimeNs lengthNs() const { return endNs - startNs; }
};

/// Most segments one step's path keeps (the composition always counts all of them).
inline constexpr std::size_t kMaxPathSegments = 5000;

} // namespace timesink::analysis
