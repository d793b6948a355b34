// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/communication.h"
#include "analysis/core/intervals.h"
#include "analysis/core/pass.h"
#include "analysis/core/stepactivity.h"
#include "analysis/core/stepclock.h"
#include "model/trace.h"

#include <vector>

namespace timesink::analysis {

/// A track whose slices are device work (the model's definition, model/track.h).
using model::isDeviceTrack;
/// Categories that keep a device busy (kernels, copies, memsets, collectives, device-side fallback tasks
/// such as Ascend AI_CPU, and uncategorised device tasks). Syncs, annotations and steps do not.
bool isBusyCategory(model::SliceCategory c);
/// Categories of device compute that can hide a copy (everything busy except copies and memsets).
bool isComputeCategory(model::SliceCategory c);
/// A launch that put work on a device: a valid Launch flow from a host (non-device) track to a busy operation on
/// a device track. Step windows and launch statistics count the same launches through this one rule.
bool isDeviceLaunch(const model::Trace& trace, const model::Flow& f);

/// True when some device track holds a busy slice (stops at the first one found).
bool hasDeviceWork(const model::Trace& trace);

/// Per track, the OS thread it records, as that thread's representative track: host lanes of different processes
/// with the same numeric thread id (above 1) are one thread (torch_npu records a thread's framework ops in the
/// Python process and its AscendCL calls in the CANN process). The representative is the lane with the most
/// slices (where the framework work and the DataLoader are); a track alone, or not a host thread, is its own.
std::vector<std::uint32_t> hostThreadsOf(const model::Trace& trace);

/// When the device was busy, and what the host did that the idle-based kinds attribute idle time to.
/// All lists are canonical (sorted, disjoint). Busy is the union over all device tracks, so with several
/// devices in one trace "idle" means every device was idle.
struct DeviceActivity
{
    bool hasDeviceWork = false;
    IntervalList busy;
    /// Parallel to `busy`: true when every slice merged into that busy interval was a kernel shorter
    /// than AnalysisOptions::tinyKernelNs (a launch-bound stretch looks like tiny kernels and gaps).
    std::vector<bool> busyAllTiny;
    /// The parts of `busy` by what the device did (unions over the device tracks, canonical; they may overlap):
    /// compute is kernels, device fallback tasks and uncategorised device tasks (busy, not communication, not a
    /// copy); copy is memcpy and memset. What the rank lanes of a job draw (stepActivityOf).
    IntervalList compute;
    IntervalList copy;
    IntervalList dataloader; // union of host dataloader spans
    std::vector<model::SliceRef> dataloaderSlices;
    IntervalList hostFallback; // union of counted CPU fallbacks on non-device tracks
    /// Union of host operator-compile calls (HostCallKind::Compile; Autotune only outside the first step).
    IntervalList hostCompile;
    /// Union of host device-allocator calls (HostCallKind::Allocator).
    IntervalList hostAllocator;
    std::vector<model::SliceRef> compileSlices;   // the calls behind hostCompile (nested ones too)
    std::vector<model::SliceRef> allocatorSlices; // the calls behind hostAllocator
    model::TrackId primaryDeviceTrack;            // device track with the most busy time (evidence for idle ranges)
    /// Device time the trace does not record (unrecordedDeviceWork, analysis/core/unrecorded.h): not idle, never
    /// a bubble.
    IntervalList unrecorded;
};

DeviceActivity computeDeviceActivity(const model::Trace& trace, const AnalysisOptions& options,
                                     const CancelToken& cancel);

/// What the device did over `window` (a step's analysis window), relative to its start, at the resolution
/// window length / kStepActivityDivisions (stepactivity.h). Empty lists without device work. With `communication`
/// whose wait is measured (wait tasks or communication.json), also its wait and idle inside the collectives over
/// the window (StepActivity::communicationSplit).
StepActivity stepActivityOf(const DeviceActivity& activity, Interval window,
                            const CommunicationProfile* communication = nullptr);

/// One piece of device idle time inside a step, with what surrounds the idle gap it came from.
struct IdlePiece
{
    Interval range;
    std::size_t step = 0;
    Interval gap;            // the whole idle gap (inside the step window) this piece is part of
    bool tinyBefore = false; // the busy stretch just before the gap was tiny kernels only (or absent)
    bool tinyAfter = false;
    bool busyBefore = false; // there was device work before the gap inside the step
    bool busyAfter = false;
};

/// Device idle time inside steps, split so that no nanosecond is attributed twice:
/// the dataloader claims idle time overlapping dataloader spans first, then CPU fallbacks claim idle
/// time overlapping host fallback ops, then operator compilation (host compile calls), then the
/// allocator (host allocator calls), and the rest is left for pipeline bubbles. Device work the trace does not
/// record (DeviceActivity::unrecorded) is taken out of the gaps before any of them: it is not idle.
/// Example: step [0,100), busy [0,10) and [60,100), dataloader [5,30) → dataloader [10,30), rest [30,60).
struct IdleAttribution
{
    std::vector<IdlePiece> dataloader;
    std::vector<IdlePiece> fallback;
    std::vector<IdlePiece> compile;    // op_compile
    std::vector<IdlePiece> allocator;  // memory_pressure
    std::vector<IdlePiece> rest;       // only pieces at least `minRestNs` long are kept …
    model::TimeNs restTotalNs = 0;     // … but all of them are counted here
    std::vector<IdlePiece> unrecorded; // device work the trace does not record (DeviceActivity::unrecorded), first
};

/// `minRestNs`: rest pieces shorter than this are only counted (a busy trace has millions of tiny gaps
/// between kernels; the bubble pass ignores those below its threshold anyway).
IdleAttribution attributeIdle(const StepClock& clock, const DeviceActivity& activity, const CancelToken& cancel,
                              model::TimeNs minRestNs = 0);

} // namespace timesink::analysis
