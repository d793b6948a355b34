// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/finding.h"
#include "analysis/core/rknnlayers.h"
#include "model/trace.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace timesink::analysis {

class StepClock;
struct DeviceActivity;

/// What one slice counts as in the breakdown. Decided here once for the report, the CLI and the GUI:
///   device trace (some device track holds busy work, model::isDeviceTrack):
///     compute        kernels, device fallback tasks (Ascend AI_CPU) and uncategorised device tasks on device
///                    tracks; CPU fallback ops on host threads (isCountedFallback), ranked below the dataloader
///     communication  collectives / point-to-point on device tracks only (a host `c10d::allreduce_` or
///                    `nccl:all_reduce` is the host waiting for or launching them, not device communication)
///     copy           memcpy and memset on device tracks (a memset is memory traffic, as HTA files it:
///                    never compute)
///     dataloader     host dataloader spans
///   host-only trace: host ops, kernels and fallback ops are compute; collectives communication; copies and
///   memsets copy; dataloader spans dataloader.
enum class WorkClass : std::uint8_t { Compute, Communication, Copy, Dataloader, HostFallback, None };

/// The class of slice `i` of `track` (HostFallback is reported as compute; it is its own class only so that
/// the dataloader outranks it, as in attributeIdle()).
WorkClass workClassOf(const model::Trace& trace, const model::Track& track, std::uint32_t i, bool deviceTrace);

/// Where the wall time of one step went. The classes are exclusive and add up to `durationNs`: a nanosecond
/// covered by several kinds of work counts once, for the first of device compute > communication > copies >
/// dataloader > host fallback (added to compute); `idleNs` is what none of them covers. So in a device trace
/// `idleNs` is exactly the device idle time the pipeline_bubble pass sees (attributeIdle()'s rest), and
/// `computeNs + communicationNs + copyNs` is the device busy time.
/// The step window is the StepClock's analysis window: the host step, moved to follow a device that lags its
/// host, so that device work is counted in the step whose host launched it (stepclock.h).
/// Example: a 100 ns step with a kernel over [0, 40) and a copy over [30, 60) → compute 40, copies 20, idle 40.
/// To add a class (e.g. communication wait inside communication), add a WorkClass before HostFallback,
/// a field here and its line in stepBreakdownOf().
struct StepBreakdown
{
    std::int64_t number = 0;
    bool synthetic = false;
    model::TimeNs startNs = 0; // the analysis window (StepClock::window): what the classes add up to
    model::TimeNs durationNs = 0;
    model::TimeNs hostStartNs = 0; // the host step (ProfilerStep#N marker, StepClock::hostWindow)
    model::TimeNs hostDurationNs = 0;
    model::TimeNs computeNs = 0;
    model::TimeNs communicationNs = 0; // device collectives only
    model::TimeNs copyNs = 0;
    model::TimeNs dataloaderNs = 0;
    model::TimeNs idleNs = 0;
    /// Where the device ran this step's work, next to the host window: from the first start to the last end of
    /// the device operations whose launch call starts inside the host window (launch flows) and of the
    /// device-side `ProfilerStep#N` annotation (`gpu_user_annotation`) when the trace has one. A device that lags
    /// its host shows here, and moves the analysis window (StepClock).
    /// Both 0 when the step launched nothing (hasDeviceWindow false).
    bool hasDeviceWindow = false;
    model::TimeNs deviceStartNs = 0;
    model::TimeNs deviceEndNs = 0;
    /// The warm-up step (StepClock). When it is left out of the analysis its numbers are still shown, over its
    /// own window, with `excluded` set; excluded steps count in no total.
    bool warmup = false;
    bool excluded = false;
    /// Device busy time (compute + communication + copies on device tracks; 0 in a host-only trace) and its
    /// complement, the device idle time of the step (idleNs + dataloaderNs + host fallback time; 0 in a host-only
    /// trace).
    model::TimeNs deviceBusyNs = 0;
    model::TimeNs deviceIdleNs = 0;
    /// Of idleNs: device work the trace does not record (DeviceActivity::unrecorded: graph replays, launches held
    /// by unrecorded work); not idle, never a bubble, nothing a finding can save.
    model::TimeNs unrecordedNs = 0;
};

/// One entry per Trace::steps() element.
std::vector<StepBreakdown> computeStepBreakdown(const model::Trace& trace, bool includeWarmup = false);
/// The same over the step clock the caller has (analyze() passes its context's; a clock is one scan of the trace).
std::vector<StepBreakdown> computeStepBreakdown(const model::Trace& trace, const StepClock& clock);

/// Time spent in slices of one name.
struct OperatorTime
{
    std::string name;
    model::SliceCategory category = model::SliceCategory::Other; // the category covering most of its time
    model::TimeNs totalNs = 0;
    std::uint64_t count = 0;
    double fraction = 0.0; // totalNs / time of all operators in the same scope
};

/// The operators the time went to. Scope "device" (a device trace): the outermost busy slices of device
/// tracks (kernels, copies, memsets, collectives, device tasks; a slice nested in another busy slice is
/// already in its time) plus the counted CPU fallback ops of host threads, the work the device did not do.
/// Scope "host" (no device work): outermost host and fallback ops of host threads.
struct TopOperators
{
    std::string scope;                   // "device" or "host"
    std::vector<OperatorTime> operators; // by total time descending, then by name; at most `limit`
};
TopOperators computeTopOperators(const model::Trace& trace, std::size_t limit);

/// Lost time of all findings of one kind (kinds may overlap each other; one kind never double counts).
struct KindLoss
{
    std::string kind;
    model::TimeNs lostNs = 0;
    double fraction = 0.0; // lostNs / analysed wall time
    std::size_t findings = 0;
};
/// By lost time descending; equal totals keep the alphabetical order of kinds.
std::vector<KindLoss> computeLostByKind(const std::vector<Finding>& findings, model::TimeNs analysedNs);

// A communication task that waits for a peer instead of moving data (HCCL `Notify_Wait`, `EVENT_WAIT`…) is
// analysis::isCommunicationWaitTask() in analysis/core/communication.h, shared with the communication pass and jobs.

/// Outstanding launched-but-not-finished operations of one device stream.
struct StreamQueue
{
    model::TrackId track;
    std::string name;             // "GPU 0 / stream 7"
    std::uint64_t operations = 0; // device operations with a host launch on this stream
    std::int64_t maxLength = 0;
    double meanLength = 0.0; // time-weighted over [first launch, last end) of the stream
};

/// What the devices did over the analysed time, the numbers HTA gives per rank. Unlike the step breakdown the
/// classes here are unions and may overlap: compute, communication and copies each count all of their time.
///   busy           union of device busy work (deviceactivity.h) inside the step windows
///   compute        device kernels, device fallback tasks and uncategorised device tasks
///   communication  collectives / point-to-point on device tracks; split into the time inside wait tasks
///                  (isCommunicationWaitTask) and the rest
///   exposed communication: communication not overlapped by compute
///   copy           memcpy and memset on device tracks
///   idle           window − busy
/// comm_compute_overlap_fraction as HTA's get_comm_comp_overlap: (communication ∩ compute) / communication.
struct DeviceSummary
{
    bool hasDeviceWork = false;
    std::string deviceLabel;    // "GPU", "NPU", "edge NPU"
    model::TimeNs windowNs = 0; // analysed time (sum of step windows)
    model::TimeNs busyNs = 0;
    model::TimeNs computeNs = 0;
    model::TimeNs communicationNs = 0;
    /// Inside wait tasks (HCCL Notify_Wait …), overlapped or not; the rest of communicationNs. Not the exposed
    /// waiting of the steps (StepCommunication::waitNs): a wait task under compute or beside a transfer counts here.
    model::TimeNs communicationInWaitTasksNs = 0;
    model::TimeNs communicationOutsideWaitTasksNs = 0;
    model::TimeNs exposedCommunicationNs = 0;
    model::TimeNs copyNs = 0;
    model::TimeNs idleNs = 0;
    std::optional<double> commComputeOverlapFraction; // absent without device communication
    /// busyNs / windowNs, and the lowest and highest share of one step (steps with a window only).
    double busyFraction = 0.0;
    double minStepBusyFraction = 0.0;
    double maxStepBusyFraction = 0.0;

    /// Launch statistics over the host→device launch flows whose host call starts inside a host step window, every
    /// launch API alike (cudaLaunchKernel, cuLaunchKernel, cudaMemcpyAsync, hipLaunchKernel, aclnn…, graph
    /// launches): delay = device operation start − host launch call end, signed (a call that returns after its
    /// work began, such as a pageable cudaMemcpyAsync, gives a negative delay); queueing delay = the delay clipped
    /// at 0, the time the operation waited in the stream after its call returned (HTA's launch delay clips the
    /// same way but counts cudaLaunchKernel(ExC), cudaMemcpyAsync and cudaMemsetAsync only, over the whole trace).
    /// Nearest-rank percentiles, means rounded.
    std::uint64_t launches = 0;
    model::TimeNs launchDelayP50Ns = 0;
    model::TimeNs launchDelayMeanNs = 0;
    model::TimeNs launchDelayP99Ns = 0;
    model::TimeNs queueingDelayP50Ns = 0;
    model::TimeNs queueingDelayMeanNs = 0;
    model::TimeNs queueingDelayP99Ns = 0;
    std::uint64_t launchesDelayedOver100us = 0;

    /// Per device stream with launched operations, in track order.
    std::vector<StreamQueue> queues;

    /// RKNN traces with NPU layers only: how busy each NPU core was (analysis/core/rknnlayers.h, npuCoreUse).
    std::optional<NpuCoreUse> npuCores;
};

/// `steps` is computeStepBreakdown(trace) (passed in so that a caller that has it does not compute it twice).
DeviceSummary computeDeviceSummary(const model::Trace& trace, const std::vector<StepBreakdown>& steps,
                                   bool includeWarmup = false);
/// The same from the step clock and the device activity the caller has (analyze() passes its context's): the busy,
/// compute and copy time are the activity's unions, not collected again (at 10 GB each list is ~10^7 intervals).
DeviceSummary computeDeviceSummary(const model::Trace& trace, const StepClock& clock, const DeviceActivity& activity,
                                   const std::vector<StepBreakdown>& steps);

/// The headline people say: "GPU busy 61 % of the step" (empty without device work); RKNN traces add the cores:
/// "NPU busy 99 % of the step, NPU cores busy 41 % (3 cores)".
std::string busyHeadline(const DeviceSummary& summary);

/// Everything the summary views show, computed once (report model, CLI, GUI Summary tab).
struct Breakdown
{
    std::vector<StepBreakdown> steps;
    TopOperators topOperators;
    std::vector<KindLoss> lostByKind;
    DeviceSummary device;
};
Breakdown computeBreakdown(const model::Trace& trace, const std::vector<Finding>& findings, model::TimeNs analysedNs,
                           std::size_t topOperatorLimit, bool includeWarmup = false);

} // namespace timesink::analysis
