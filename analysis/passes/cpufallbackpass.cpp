// SPDX-License-Identifier: MIT
#include "analysis/passes/cpufallbackpass.h"

#include "analysis/core/callsite.h"
#include "analysis/core/context.h"
#include "analysis/core/deviceactivity.h"
#include "analysis/core/findingaccumulator.h"
#include "analysis/core/opclassifier.h"
#include "analysis/core/textformat.h"

#include <algorithm>
#include <map>
#include <memory>

namespace timesink::analysis {

namespace {

using model::SliceCategory;

enum class Source : std::uint8_t { DeviceTask, CpuLayer, RoundTrip };

struct Group
{
    explicit Group(const StepClock& clock)
        : acc(clock)
    {
    }
    FindingAccumulator acc;
    Source source = Source::DeviceTask;
    model::TimeNs opNs = 0;
    model::TimeNs copyNs = 0;
    std::int64_t copies = 0;
    WhatIf whatIf; // the fallback tasks or layers; the round trips' ops and copies
};

std::string recommendationFor(Platform p, Source source, const std::string& op)
{
    if (p == Platform::Rknn)
        return "The RKNN runtime runs " + op
            + " on the CPU because the NPU does not support it with these "
              "shapes, data types or attributes (check Rockchip's RKNN_Compiler_Support_Operator_List for your "
              "rknn-toolkit2 version). Rewrite the layer with NPU-supported operators (e.g. fold a Transpose/Reshape "
              "in the output head into the post-processing), or cut the graph before it with "
              "rknn.load_onnx(model, outputs=[...]) and do that step in your application code; each CPU layer "
              "also forces the feature map out of NPU memory and back.";
    if (p == Platform::TorchNpuCann || source == Source::DeviceTask)
        return "AI_CPU tasks run on the NPU's AI CPU cores instead of the AI Cores, usually because CANN has no "
               "AI Core kernel for this operator with these data types or shapes (int64 and float64 inputs are "
               "the usual cause). Look up "
            + op
            + " in kernel_details.csv (Accelerator Core = AI_CPU) and in the "
              "CANN operator list, cast its inputs to a supported type before the call (e.g. int64 → int32, "
              "float64 → float32), or replace it with an equivalent operator that has an AI Core implementation.";
    return "This operator copies its inputs to the host, computes there and copies the results back. Use a "
           "device implementation (check that every input is already on the device; a CPU tensor or a Python "
           "scalar list in the arguments pulls the op to the host), or move the op out of the step (precompute "
           "it once on the host before training).";
}

// A host framework op on a device run that round-trips through the host: inside it, a device-to-host copy
// is launched, followed (after host-only work) by a host-to-device copy, with no kernel launched in between.
struct RoundTrip
{
    model::SliceRef op;
    std::vector<model::SliceRef> copies;
};

// True when a slice nested in `op` (on its host track) and starting in [t0, t1] launches a kernel.
bool launchesKernelBetween(const model::Trace& trace, model::SliceRef op, model::TimeNs t0, model::TimeNs t1)
{
    const model::Track& t = trace.track(op.track);
    bool launches = false;
    t.forEachInRange(
        t0, t1,
        [&](std::uint32_t i) {
            if (t.ts(i) < t0 || t.ts(i) > t1)
                return true;
            for (const model::Flow& f : trace.flowsFrom({op.track, model::SliceIndex(i)})) {
                if (trace.track(f.to.track).category(f.to.index.value) == SliceCategory::Kernel)
                    launches = true;
            }
            return !launches;
        },
        t.depth(op.index.value) + 1u);
    return launches;
}

/// The fallback groups of one run, by source and op name.
using Groups = std::map<std::pair<Source, std::string>, std::unique_ptr<Group>>;

/// The group of (source, op), made on first use.
Group& groupFor(Groups& groups, const StepClock& clock, Source s, const std::string& op)
{
    auto& slot = groups[{s, op}];
    if (!slot) {
        slot = std::make_unique<Group>(clock);
        slot->source = s;
    }
    return *slot;
}

/// Explicit fallbacks into their groups: AI_CPU tasks and CPU layers. False when cancelled.
bool addExplicitFallbacks(const model::Trace& trace, const CancelToken& cancel, const StepClock& clock, Groups& groups)
{
    for (const model::Track& t : trace.tracks()) {
        if (cancel.cancelled())
            return false;
        if (t.role == model::TrackRole::Counter)
            continue;
        const bool device = isDeviceTrack(t);
        for (std::uint32_t i = 0; i < t.size(); ++i) {
            if (t.category(i) != SliceCategory::FallbackOp)
                continue;
            const model::SliceRef ref {t.id, model::SliceIndex(i)};
            if (!isCountedFallback(trace, ref))
                continue;
            Group& g = groupFor(groups, clock, device ? Source::DeviceTask : Source::CpuLayer,
                                std::string(rawOpType(trace, ref)));
            // A device task is device time; a CPU layer on a host track host time.
            const model::TimeNs lost = device ? g.acc.addLoss(t.ts(i), t.end(i)) : g.acc.addHostLoss(t.ts(i), t.end(i));
            g.opNs += lost;
            (device ? g.whatIf.removedDevice : g.whatIf.removedHost).push_back(ref);
            g.acc.countOccurrence();
            g.acc.addEvidence(t.id, t.ts(i), t.end(i));
            g.acc.addEvent(ref);
        }
    }
    return true;
}

/// Round trips through the host on a device run: a framework op that launches a DtoH copy and later an HtoD copy,
/// with no kernel launched from inside it in between. False when cancelled.
bool findRoundTrips(const model::Trace& trace, const CancelToken& cancel, std::map<model::SliceRef, RoundTrip>& trips)
{
    CallSiteResolver sites(trace);
    struct OpCopy
    {
        model::TimeNs launchTs = 0;
        model::MemcpyDirection dir = model::MemcpyDirection::None;
        model::SliceRef copy;
        model::SliceRef launch;
    };
    std::map<model::SliceRef, std::vector<OpCopy>> byOp;
    for (const model::Track& t : trace.tracks()) {
        if (!isDeviceTrack(t))
            continue;
        for (std::uint32_t i = 0; i < t.size(); ++i) {
            if ((i & 0xfff) == 0 && cancel.cancelled())
                return false;
            if (t.category(i) != SliceCategory::Memcpy)
                continue;
            const model::MemcpyDirection dir = t.direction(i);
            if (dir != model::MemcpyDirection::DeviceToHost && dir != model::MemcpyDirection::HostToDevice)
                continue;
            const model::SliceRef ref {t.id, model::SliceIndex(i)};
            const CallSite site = sites.resolve(ref);
            if (!site.op.isValid())
                continue;
            const model::Track& lt = trace.track(site.launch.track);
            byOp[site.op].push_back({lt.ts(site.launch.index.value), dir, ref, site.launch});
        }
    }
    for (auto& [op, copies] : byOp) {
        std::sort(copies.begin(), copies.end(),
                  [](const OpCopy& a, const OpCopy& b) { return a.launchTs < b.launchTs; });
        const OpCopy* pending = nullptr;
        for (const OpCopy& c : copies) {
            if (c.dir == model::MemcpyDirection::DeviceToHost) {
                pending = &c;
                continue;
            }
            if (pending == nullptr || launchesKernelBetween(trace, op, pending->launchTs, c.launchTs))
                continue;
            RoundTrip& trip = trips[op];
            trip.op = op;
            trip.copies.push_back(pending->copy);
            trip.copies.push_back(c.copy);
            pending = nullptr;
        }
    }
    return true;
}

/// The round trips into their groups: the op's host time that is not a copy, plus the copies, all clipped to steps.
void addRoundTrips(const model::Trace& trace, const std::map<model::SliceRef, RoundTrip>& trips, const StepClock& clock,
                   Groups& groups)
{
    for (const auto& [op, trip] : trips) {
        const model::Track& ht = trace.track(op.track);
        Group& g = groupFor(groups, clock, Source::RoundTrip, std::string(trace.str(ht.sliceName(op.index.value))));
        const model::TimeNs opStart = ht.ts(op.index.value);
        const model::TimeNs opEnd = ht.end(op.index.value);
        IntervalList copyTime;
        for (const model::SliceRef& c : trip.copies) {
            const model::Track& ct = trace.track(c.track);
            copyTime.push_back({ct.ts(c.index.value), ct.end(c.index.value)});
            g.copies += 1;
            g.whatIf.removedDevice.push_back(c);
            g.acc.addEvent(c);
            g.acc.addEvidence(c.track, ct.ts(c.index.value), ct.end(c.index.value));
        }
        const IntervalList copies = unite(std::move(copyTime));
        for (const Interval& r : subtract(IntervalList {{opStart, opEnd}}, copies))
            g.opNs += g.acc.addHostLoss(r.start, r.end);
        for (const Interval& r : copies)
            g.copyNs += g.acc.addLoss(r.start, r.end);
        g.acc.countOccurrence();
        g.whatIf.removedHost.push_back(op);
        g.acc.addEvent(op);
        g.acc.addEvidence(op.track, opStart, opEnd);
    }
}

/// The finding of one group, worded for its source.
Finding fallbackFinding(Group& g, Source source, const std::string& op, std::string_view kind, Platform platform)
{
    Finding f = g.acc.finish(std::string(kind));
    f.platform = platform;
    f.whatIf = std::move(g.whatIf);
    f.savingRule = source == Source::RoundTrip
        ? "The op keeps its inputs on the device: its host time and its two copies take no time."
        : "The fallback tasks take no time (an upper bound: the trace has no AI Core run of the same op to "
          "time it by).";
    // Every title ends the same way, ": 12.300 ms (3 tasks)", counting in the source's own unit.
    const auto lossAndCount = [&f](const char* one, const char* many) {
        return ": " + formatDuration(f.lostNs) + " (" + std::to_string(f.occurrences) + " "
            + (f.occurrences == 1 ? one : many) + ")";
    };
    switch (source) {
    case Source::DeviceTask:
        f.title = "AI_CPU fallback of " + op + lossAndCount("task", "tasks");
        f.explanation = "These device tasks ran on the AI CPU, which is far slower than the AI Cores for "
                        "tensor work, and the stream waits for them.";
        break;
    case Source::CpuLayer:
        f.title = "CPU fallback of " + op + " layer" + lossAndCount("layer", "layers");
        f.explanation = "These layers ran on the CPU instead of the NPU; the NPU waits while the CPU computes, "
                        "and the tensors travel between NPU and CPU memory around them.";
        break;
    case Source::RoundTrip:
        f.title = "Host round trip in " + op + lossAndCount("call", "calls");
        f.explanation = "This framework op copied its inputs from the device to the host, computed on the host "
                        "and copied the result back, with the device idle or waiting in between.";
        break;
    }
    f.details.push_back({"op", op});
    f.details.push_back({"source",
                         std::string(source == Source::DeviceTask     ? "ai_cpu_task"
                                         : source == Source::CpuLayer ? "cpu_layer"
                                                                      : "host_round_trip")});
    f.details.push_back({"op_ns", g.opNs});
    f.details.push_back({"copy_ns", g.copyNs});
    f.details.push_back({"copies", g.copies});
    f.recommendation = recommendationFor(platform, source, op);
    return f;
}

} // namespace

PassOutput CpuFallbackPass::run(const AnalysisContext& context) const
{
    const model::Trace& trace = context.trace();
    const CancelToken& cancel = context.cancel();
    PassOutput out;
    const Platform platform = trace.metadata().platform;
    const bool deviceWork = context.hasDeviceWork();
    const bool anyFallback = trace.categoryCount(SliceCategory::FallbackOp) > 0;
    if (!deviceWork && !anyFallback && platform == Platform::Rknn) {
        out.notAssessedReason = "the RKNN output has no per-layer table (perf_debug was off), so which layers ran "
                                "on the CPU is unknown";
        return out;
    }
    if (!deviceWork && !anyFallback) {
        out.notAssessedReason = "no accelerator work in this trace (host-only run), so nothing could fall back "
                                "from an accelerator to the CPU";
        return out;
    }
    const StepClock& clock = context.clock();
    Groups groups;
    if (!addExplicitFallbacks(trace, cancel, clock, groups))
        return out;
    if (deviceWork) {
        std::map<model::SliceRef, RoundTrip> trips;
        if (!findRoundTrips(trace, cancel, trips))
            return out;
        addRoundTrips(trace, trips, clock, groups);
    }
    for (auto& [key, g] : groups) {
        if (g->acc.lostNs() > 0)
            out.findings.push_back(fallbackFinding(*g, key.first, key.second, kind(), platform));
    }
    return out;
}

} // namespace timesink::analysis
