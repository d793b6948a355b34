// SPDX-License-Identifier: MIT
#include "analysis/passes/pipelinebubblepass.h"

#include "analysis/core/context.h"
#include "analysis/core/deviceactivity.h"
#include "analysis/core/findingaccumulator.h"
#include "analysis/core/opclassifier.h"
#include "analysis/core/textformat.h"

#include <algorithm>
#include <array>
#include <optional>

namespace timesink::analysis {

namespace {

using model::SliceCategory;

enum Cause : std::size_t { kSyncWait, kLaunchBound, kHostOp, kPython, kCauseCount };

constexpr std::array<std::string_view, kCauseCount> kCauseKeys = {"sync_wait", "launch_bound", "host_op", "python"};

enum class HostClass : std::uint8_t { Transparent, Sync, Launch, HostWork, Python };

HostClass classify(const model::Trace& trace, const model::Track& t, std::uint32_t i)
{
    switch (t.category(i)) {
    case SliceCategory::Sync:
        return HostClass::Sync;
    case SliceCategory::RuntimeApi: {
        if ((t.flags(i) & model::SliceFlags::kSynchronous) != 0 || isBlockingRuntimeCall(trace.str(t.sliceName(i))))
            return HostClass::Sync;
        return HostClass::Launch;
    }
    case SliceCategory::Memcpy:
    case SliceCategory::Memset:
        return (t.flags(i) & model::SliceFlags::kSynchronous) != 0 ? HostClass::Sync : HostClass::HostWork;
    case SliceCategory::HostOp:
    case SliceCategory::Other:
    case SliceCategory::Kernel:
    case SliceCategory::Communication:
        return HostClass::HostWork;
    case SliceCategory::PythonFrame:
        return HostClass::Python;
    case SliceCategory::FallbackOp: // claimed by cpu_fallback before bubbles are formed
    case SliceCategory::Dataloader: // claimed by dataloader_starvation
    case SliceCategory::Step:
    case SliceCategory::Annotation:
        return HostClass::Transparent;
    }
    return HostClass::Transparent;
}

// A runtime call with a launch flow to a device track (cudaLaunchKernel, cudaMemcpyAsync, aclnn… enqueueing).
bool launchesDeviceWork(const model::Trace& trace, model::SliceRef call)
{
    for (const model::Flow& f : trace.flowsFrom(call)) {
        if (f.kind == model::FlowKind::Launch && isDeviceTrack(trace.track(f.to.track)))
            return true;
    }
    return false;
}

struct HostTracks
{
    std::vector<const model::Track*> tracks;
};

// Splits one bubble piece into causes; returns the nanoseconds per cause (summing to the piece length).
std::array<model::TimeNs, kCauseCount> splitPiece(const model::Trace& trace, const HostTracks& hosts,
                                                  const IdlePiece& piece,
                                                  std::array<std::vector<model::SliceRef>, kCauseCount>& events,
                                                  std::array<IntervalList, kCauseCount>& ranges)
{
    const Interval g = piece.range;
    struct Item
    {
        const model::Track* track;
        std::uint32_t index;
        Interval clipped;
        HostClass cls;
        std::size_t depth;
    };
    std::vector<Item> items;
    // Slices that launch device work, or hold a launching call below them (keys track << 32 | index).
    std::vector<std::uint64_t> launching;
    const auto key = [](const model::Track* t, std::uint32_t i) { return (std::uint64_t(t->id.value) << 32) | i; };
    for (const model::Track* t : hosts.tracks) {
        t->forEachInRange(g.start, g.end, [&](std::uint32_t i) {
            const model::TimeNs s = std::max(t->ts(i), g.start);
            const model::TimeNs e = std::min(t->end(i), g.end);
            if (e <= s)
                return;
            const HostClass cls = classify(trace, *t, i);
            if (cls == HostClass::Python || cls == HostClass::Transparent)
                return;
            items.push_back({t, i, {s, e}, cls, t->depth(i)});
            if (cls == HostClass::Launch && launchesDeviceWork(trace, model::SliceRef {t->id, model::SliceIndex(i)})) {
                launching.push_back(key(t, i));
                for (model::SliceIndex p = t->parent(i); p.isValid(); p = t->parent(p.value))
                    launching.push_back(key(t, p.value));
            }
        });
    }
    std::sort(launching.begin(), launching.end());
    IntervalList sync;
    IntervalList work;
    IntervalList notLaunching; // host work with no launch inside it: whatever runs there launches nothing
    std::optional<model::SliceRef> firstSync;
    std::optional<model::SliceRef> firstWork;
    std::optional<model::SliceRef> firstIdleWork;
    for (const Item& it : items) {
        const model::SliceRef ref {it.track->id, model::SliceIndex(it.index)};
        if (it.cls == HostClass::Sync) {
            sync.push_back(it.clipped);
            if (!firstSync)
                firstSync = ref;
            continue;
        }
        work.push_back(it.clipped);
        if (!std::binary_search(launching.begin(), launching.end(), key(it.track, it.index))) {
            notLaunching.push_back(it.clipped);
            if (!firstIdleWork || it.depth > 0)
                firstIdleWork = ref;
        }
        if (it.cls == HostClass::HostWork && (!firstWork || it.depth > 0))
            firstWork = ref;
    }
    const IntervalList syncU = unite(std::move(sync));
    const IntervalList busyU = subtract(unite(std::move(work)), syncU);
    std::array<model::TimeNs, kCauseCount> ns {};
    ns[kSyncWait] = totalLength(syncU);
    const model::TimeNs hostBusy = totalLength(busyU);
    // Launch-bound: tiny kernels on both sides of the gap (where there is device work) and the host launching
    // device work. Only the time the host spends in ops that launch counts: a host sitting in one allocation
    // (`aten::empty`) that launches nothing is running a framework op, however tiny the kernels around it.
    const bool tinyAround = (piece.busyBefore || piece.busyAfter) && piece.tinyBefore && piece.tinyAfter;
    model::TimeNs launchNs = 0;
    IntervalList launchU;
    if (tinyAround && !launching.empty()) {
        launchU = subtract(busyU, unite(std::move(notLaunching)));
        launchNs = totalLength(launchU);
    }
    // Where each cause held the host, for re-timing the step without it (WhatIf).
    const IntervalList hostOpU = subtract(busyU, launchU);
    const IntervalList pythonU = subtract(subtract(IntervalList {g}, syncU), busyU);
    ranges[kSyncWait].insert(ranges[kSyncWait].end(), syncU.begin(), syncU.end());
    ranges[kLaunchBound].insert(ranges[kLaunchBound].end(), launchU.begin(), launchU.end());
    ranges[kHostOp].insert(ranges[kHostOp].end(), hostOpU.begin(), hostOpU.end());
    ranges[kPython].insert(ranges[kPython].end(), pythonU.begin(), pythonU.end());
    ns[kLaunchBound] = launchNs;
    ns[kHostOp] = hostBusy - launchNs;
    ns[kPython] = g.length() - ns[kSyncWait] - hostBusy;
    if (firstSync && ns[kSyncWait] > 0)
        events[kSyncWait].push_back(*firstSync);
    if (firstWork && launchNs > 0)
        events[kLaunchBound].push_back(*firstWork);
    if (ns[kHostOp] > 0) {
        if (const auto ref = launchNs > 0 ? firstIdleWork : (firstWork ? firstWork : firstIdleWork))
            events[kHostOp].push_back(*ref);
    }
    return ns;
}

std::string titleFor(Cause c, model::TimeNs lost, std::uint64_t gaps)
{
    const std::string tail
        = ": " + formatDuration(lost) + " in " + std::to_string(gaps) + (gaps == 1 ? " gap" : " gaps");
    switch (c) {
    case kSyncWait:
        return "Device idle while the host blocks on synchronisation" + tail;
    case kLaunchBound:
        return "Launch-bound: the host issues tiny kernels slower than the device runs them" + tail;
    case kHostOp:
        return "Device idle while the host runs framework ops that issue no device work" + tail;
    default:
        return "Device idle while the host runs Python or unprofiled code" + tail;
    }
}

std::string explanationFor(Cause c)
{
    switch (c) {
    case kSyncWait:
        return "The host waited for the device (a synchronize call, a blocking copy such as .item()/.cpu(), or "
               "an event wait) and so had queued nothing for the device to run next: after the wait, the device "
               "idles until the host issues new work.";
    case kLaunchBound:
        return "The kernels around these gaps are shorter than the time the host needs to dispatch the next "
               "one, so the device drains its queue and waits for each launch.";
    case kHostOp:
        return "The host was busy inside framework operators or runtime calls that put no work on the device "
               "(host-side computation, allocation, shape logic), and the device queue ran dry.";
    default:
        return "The host was executing Python (or code the profiler did not record) between device work, "
               "e.g. logging, metric computation or control flow, and the device queue ran dry.";
    }
}

std::string recommendationFor(Cause c, Platform p)
{
    const bool npu = p == Platform::TorchNpuCann;
    switch (c) {
    case kSyncWait:
        if (npu)
            return "Remove host synchronisation from the training loop: avoid tensor.item(), .cpu(), print(tensor) "
                   "and torch.npu.synchronize() inside steps (accumulate metrics on the NPU and read them every N "
                   "steps); copy with non_blocking=True from pinned memory instead of blocking aclrtMemcpy.";
        return "Remove host synchronisation from the training loop: avoid tensor.item(), .cpu(), .tolist(), "
               "print(tensor) and torch.cuda.synchronize() inside steps (accumulate metrics on the device and read "
               "them every N steps); use non_blocking=True copies from pinned memory. "
               "torch.cuda.set_sync_debug_mode(\"warn\") reports every synchronising call.";
    case kLaunchBound:
        if (npu)
            return "Reduce per-kernel dispatch cost: run the model in graph mode (torch.compile with the torchair "
                   "backend, torchair.get_npu_backend()), keep the task queue enabled (TASK_QUEUE_ENABLE=1, or 2 on "
                   "recent torch_npu), and raise the batch size so each kernel does more work.";
        return "Reduce per-kernel launch cost: capture the step with CUDA Graphs (torch.cuda.graphs / "
               "torch.compile(model, mode=\"reduce-overhead\")), fuse small elementwise ops with torch.compile, "
               "use fused optimizers (torch.optim.AdamW(..., fused=True)), and raise the batch size so each "
               "kernel does more work.";
    case kHostOp:
        return std::string("Find the framework ops in these gaps (highlighted events) and move their work onto the ")
            + (npu ? "NPU" : "device")
            + ", or run them before the step (e.g. precompute masks and indices); ops that allocate or reshape "
              "on the host every step can often be hoisted out of the loop.";
    default:
        return "Move Python work out of the step (logging, metric math, checkpoint bookkeeping) or make it "
               "asynchronous; record it with torch.profiler(..., with_stack=True) to see which lines run in "
               "the gaps. Graph capture (torch.compile) also removes Python overhead between ops.";
    }
}

} // namespace

PassOutput PipelineBubblePass::run(const AnalysisContext& context) const
{
    const model::Trace& trace = context.trace();
    const AnalysisOptions& options = context.options();
    const CancelToken& cancel = context.cancel();
    PassOutput out;
    if (std::string why = context.notMeasuredReason("idle gaps are not real"); !why.empty())
        return PassOutput::notAssessed(std::move(why));
    if (std::string why = context.noDeviceWorkReason("there is no device idle time"); !why.empty())
        return PassOutput::notAssessed(std::move(why));
    const DeviceActivity& activity = context.activity();
    const StepClock& clock = context.clock();
    const IdleAttribution& idle = context.idle();
    // The host threads that issue device work decide when the device gets its next task; other threads
    // (dataloader workers, loggers) are busy or idle independently of the device, so they are not asked.
    std::vector<bool> launches(trace.tracks().size(), false);
    bool anyLaunch = false;
    for (const model::Flow& f : trace.flows()) {
        if (f.kind != model::FlowKind::Launch || !isDeviceTrack(trace.track(f.to.track))
            || isDeviceTrack(trace.track(f.from.track)))
            continue;
        launches[f.from.track.value] = true;
        anyLaunch = true;
    }
    HostTracks hosts;
    for (const model::Track& t : trace.tracks()) {
        if (isDeviceTrack(t) || t.role == model::TrackRole::Counter || t.role == model::TrackRole::Synthetic
            || t.empty())
            continue;
        if (!anyLaunch || launches[t.id.value])
            hosts.tracks.push_back(&t);
    }

    std::array<FindingAccumulator, kCauseCount> acc {FindingAccumulator(clock), FindingAccumulator(clock),
                                                     FindingAccumulator(clock), FindingAccumulator(clock)};
    std::array<model::TimeNs, kCauseCount> longest {};
    std::array<std::vector<model::SliceRef>, kCauseCount> events;
    std::array<IntervalList, kCauseCount> ranges;
    const model::TimeNs totalIdle = idle.restTotalNs;
    std::size_t done = 0;
    for (const IdlePiece& piece : idle.rest) {
        if ((++done & 0x3ff) == 0 && cancel.cancelled())
            return out;
        if (piece.range.length() < options.bubbleThresholdNs)
            continue;
        const auto ns = splitPiece(trace, hosts, piece, events, ranges);
        for (std::size_t c = 0; c < kCauseCount; ++c) {
            if (ns[c] <= 0)
                continue;
            acc[c].addLossInStep(piece.step, ns[c]);
            acc[c].countOccurrence();
            acc[c].addEvidence(activity.primaryDeviceTrack, piece.range.start, piece.range.end);
            longest[c] = std::max(longest[c], ns[c]);
        }
    }
    const Platform platform = trace.metadata().platform;
    for (std::size_t c = 0; c < kCauseCount; ++c) {
        if (acc[c].lostNs() <= 0)
            continue;
        for (const model::SliceRef& r : events[c])
            acc[c].addEvent(r);
        Finding f = acc[c].finish(std::string(kind()));
        const auto cause = static_cast<Cause>(c);
        f.platform = platform;
        f.title = titleFor(cause, f.lostNs, f.occurrences);
        f.details.push_back({"cause", std::string(kCauseKeys[c])});
        f.details.push_back({"gaps", static_cast<std::int64_t>(f.occurrences)});
        f.details.push_back({"longest_share_ns", longest[c]});
        f.details.push_back({"threshold_ns", options.bubbleThresholdNs});
        f.details.push_back({"device_idle_unexplained_ns", totalIdle});
        f.explanation = explanationFor(cause);
        f.recommendation = recommendationFor(cause, platform);
        if (cause == kSyncWait) {
            f.whatIf.syncRanges = unite(std::move(ranges[c]));
            f.savingRule = "The blocking calls in these gaps stop waiting for the device and take no time.";
        } else {
            f.whatIf.hostRanges = unite(std::move(ranges[c]));
            f.savingRule = cause == kLaunchBound
                ? "The host's launching work in these gaps takes no time (as with graph capture)."
                : cause == kHostOp ? "The host ops in these gaps take no time."
                                   : "The Python (or unrecorded) host time in these gaps takes no time.";
        }
        out.findings.push_back(std::move(f));
    }
    return out;
}

} // namespace timesink::analysis
