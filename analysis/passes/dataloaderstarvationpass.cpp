// SPDX-License-Identifier: MIT
#include "analysis/passes/dataloaderstarvationpass.h"

#include "analysis/core/context.h"
#include "analysis/core/deviceactivity.h"
#include "analysis/core/findingaccumulator.h"
#include "analysis/core/textformat.h"

#include <algorithm>

namespace timesink::analysis {

namespace {

std::string recommendationFor(Platform p, bool deviceless)
{
    std::string text;
    if (p == Platform::Rknn)
        return "Prepare the next frame (decode, resize, layout conversion) on another thread while rknn_run() "
               "executes the current one, so the NPU never waits for input.";
    text = "Load batches in parallel with training: give the DataLoader worker processes "
           "(DataLoader(..., num_workers=N), start with the number of CPU cores per device), keep them alive "
           "between epochs (persistent_workers=True) and let each worker queue more batches (prefetch_factor=2 or "
           "more). Move per-sample work that is heavy on the CPU (decoding, augmentation, normalisation) out of "
           "__getitem__: decode once and cache, or normalise on the device after the copy.";
    if (deviceless)
        return text;
    if (p == Platform::TorchNpuCann)
        text += " Use pin_memory=True in the DataLoader and tensor.to('npu', non_blocking=True) so the copy "
                "to the NPU overlaps compute.";
    else
        text += " Use pin_memory=True in the DataLoader and tensor.to(device, non_blocking=True) so the "
                "host-to-device copy overlaps compute.";
    return text;
}

} // namespace

PassOutput DataloaderStarvationPass::run(const AnalysisContext& context) const
{
    const model::Trace& trace = context.trace();
    const CancelToken& cancel = context.cancel();
    PassOutput out;
    if (std::string why = context.noHostTimelineReason(); !why.empty())
        return PassOutput::notAssessed(std::move(why));
    const DeviceActivity& activity = context.activity();
    if (activity.dataloaderSlices.empty()) {
        out.notAssessedReason = "the trace records no dataloader fetches (no enumerate(DataLoader)#… spans)";
        return out;
    }
    const StepClock& clock = context.clock();
    FindingAccumulator acc(clock);
    const bool deviceless = !activity.hasDeviceWork;
    model::TimeNs spanInSteps = 0;
    if (deviceless) {
        for (const Interval& d : activity.dataloader)
            acc.addHostLoss(d.start, d.end);
    } else {
        const IdleAttribution& idle = context.idle();
        for (const IdlePiece& p : idle.dataloader) {
            acc.addLossInStep(p.step, p.range.length());
            if (activity.primaryDeviceTrack.isValid())
                acc.addEvidence(activity.primaryDeviceTrack, p.range.start, p.range.end);
        }
    }
    for (const Interval& d : activity.dataloader)
        clock.forEachHostOverlap(d.start, d.end,
                                 [&](std::size_t, model::TimeNs s, model::TimeNs e) { spanInSteps += e - s; });
    std::uint64_t fetches = 0;
    std::vector<model::SliceRef> fetchSlices;
    for (const model::SliceRef& ref : activity.dataloaderSlices) {
        const model::Track& t = trace.track(ref.track);
        const model::TimeNs s = t.ts(ref.index.value);
        const model::TimeNs e = t.end(ref.index.value);
        bool inStep = false;
        clock.forEachHostOverlap(s, e, [&](std::size_t, model::TimeNs, model::TimeNs) { inStep = true; });
        if (!inStep)
            continue;
        ++fetches;
        fetchSlices.push_back(ref);
        acc.addEvent(ref);
        acc.addEvidence(ref.track, s, e);
    }
    if (cancel.cancelled() || acc.lostNs() <= 0)
        return out;
    acc.countOccurrence(fetches);

    Finding f = acc.finish(std::string(kind()));
    f.platform = trace.metadata().platform;
    double worst = 0.0;
    std::int64_t worstStep = 0;
    for (const StepLoss& s : f.perStep) {
        const double share = s.stepNs > 0 ? double(s.lostNs) / double(s.stepNs) : 0.0;
        if (share > worst) {
            worst = share;
            worstStep = s.stepNumber;
        }
    }
    f.title = deviceless ? "Input pipeline: " + formatDuration(f.lostNs) + " of step time spent fetching batches"
                         : "Device idle while the host waits for the DataLoader: " + formatDuration(f.lostNs);
    f.details.push_back({"dataloader_ns", spanInSteps});
    f.details.push_back({"fetches", static_cast<std::int64_t>(fetches)});
    f.details.push_back({"steps_affected", static_cast<std::int64_t>(f.perStep.size())});
    f.details.push_back({"worst_step", worstStep});
    f.details.push_back({"worst_step_share", worst});
    f.details.push_back({"device_work", std::string(deviceless ? "none" : "present")});
    f.explanation = deviceless
        ? "The host spent this time inside DataLoader fetches within the steps instead of computing; on a "
          "CPU-only run every millisecond of fetching is a millisecond the model does not train."
        : "The device had no work queued while the host was inside a DataLoader fetch: the input pipeline, "
          "not the model, set the pace for this time.";
    f.recommendation = recommendationFor(f.platform, deviceless);
    f.whatIf.removedHost = std::move(fetchSlices);
    f.savingRule = "Every DataLoader fetch inside the steps takes no time; the host launches its work that much "
                   "earlier, and the device still runs what was queued before.";
    out.findings.push_back(std::move(f));
    return out;
}

} // namespace timesink::analysis
