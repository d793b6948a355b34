// SPDX-License-Identifier: MIT
#include "analysis/core/breakdown.h"
#include "analysis/core/communication.h"
#include "analysis/core/deviceactivity.h"
#include "analysis/core/intervals.h"
#include "analysis/core/rknnlayers.h"
#include "analysis/core/stepclock.h"
#include "model/trackname.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <span>

namespace timesink::analysis {

using model::SliceCategory;
using model::TimeNs;

namespace {

// Nearest-rank percentile of a non-empty list (reordered: a selection, not a sort of millions of launches).
TimeNs percentile(std::vector<TimeNs>& values, double p)
{
    const auto rank = static_cast<std::size_t>(std::ceil(p * static_cast<double>(values.size())));
    const auto nth = values.begin() + static_cast<std::ptrdiff_t>(std::clamp<std::size_t>(rank, 1, values.size()) - 1);
    std::nth_element(values.begin(), nth, values.end());
    return *nth;
}

// The launch whose call launched device operation `op`, among the flows into it (`into`, in flows() order): one
// launch per operation. Old Kineto traces address flow ends by time at µs resolution, so a device operation can get
// a second flow from a runtime call that starts in the same µs (cudaFuncSetAttribute next to its cudaLaunchKernel);
// the launching call is the one that starts last (then ends last).
model::SliceRef launchingCall(const model::Trace& trace, std::span<const std::uint32_t> into)
{
    model::SliceRef best;
    for (const std::uint32_t k : into) {
        const model::Flow& f = trace.flows()[k];
        if (!isDeviceLaunch(trace, f))
            continue;
        if (!best.isValid()) {
            best = f.from;
            continue;
        }
        const model::Track& host = trace.track(f.from.track);
        const model::Track& other = trace.track(best.track);
        const std::uint32_t h = f.from.index.value;
        const std::uint32_t o = best.index.value;
        if (host.ts(h) > other.ts(o) || (host.ts(h) == other.ts(o) && host.end(h) > other.end(o)))
            best = f.from;
    }
    return best;
}

// The queue of one device stream from its launches' call starts and its operations' ends (each in operation order,
// so nearly sorted): the length over time as one merge of the two, where at equal times an operation that ends
// leaves the queue before the next launch enters it.
StreamQueue queueOf(const model::Trace& trace, const model::Track& device, std::vector<TimeNs>& enters,
                    std::vector<TimeNs>& leaves)
{
    for (std::vector<TimeNs>* list : {&enters, &leaves}) {
        if (!std::is_sorted(list->begin(), list->end()))
            std::sort(list->begin(), list->end());
    }
    StreamQueue q;
    q.track = device.id;
    q.name = model::trackDisplayName(trace, device);
    q.operations = enters.size();
    std::int64_t length = 0;
    long double area = 0;
    std::size_t in = 0;
    std::size_t out = 0;
    const TimeNs first = std::min(enters.front(), leaves.front());
    TimeNs previous = first;
    while (in < enters.size() || out < leaves.size()) {
        const bool leave = out < leaves.size() && (in == enters.size() || leaves[out] <= enters[in]);
        const TimeNs t = leave ? leaves[out++] : enters[in++];
        area += static_cast<long double>(length) * static_cast<long double>(t - previous);
        previous = t;
        length += leave ? -1 : +1;
        q.maxLength = std::max(q.maxLength, length);
    }
    const TimeNs span = previous - first;
    q.meanLength = span > 0 ? static_cast<double>(area / static_cast<long double>(span)) : 0.0;
    return q;
}

// Launch delays and stream queues, one device track at a time along the flows sorted by target (no trace-wide
// table of launches: at 10 GB that was 10^7 entries, twice).
void launchStatistics(const model::Trace& trace, const StepClock& clock, DeviceSummary& out)
{
    const std::span<const std::uint32_t> byTarget = trace.flowIndicesByTarget();
    // At most one delay per flow; reserved (untouched pages cost no memory) so that the list never moves.
    std::vector<TimeNs> delays;
    delays.reserve(byTarget.size());
    std::vector<TimeNs> enters;
    std::vector<TimeNs> leaves;
    const auto flows = trace.flows();
    for (std::size_t k = 0; k < byTarget.size();) {
        const model::TrackId trackId = flows[byTarget[k]].to.track;
        std::size_t trackEnd = k;
        while (trackEnd < byTarget.size() && flows[byTarget[trackEnd]].to.track == trackId)
            ++trackEnd;
        enters.clear();
        leaves.clear();
        enters.reserve(trackEnd - k);
        leaves.reserve(trackEnd - k);
        const model::Track* device = trackId.value < trace.tracks().size() ? &trace.track(trackId) : nullptr;
        while (k < trackEnd) {
            const model::SliceIndex op = flows[byTarget[k]].to.index;
            std::size_t opEnd = k;
            while (opEnd < trackEnd && flows[byTarget[opEnd]].to.index == op)
                ++opEnd;
            const model::SliceRef from
                = device ? launchingCall(trace, byTarget.subspan(k, opEnd - k)) : model::SliceRef {};
            k = opEnd;
            if (!from.isValid())
                continue;
            const model::Track& host = trace.track(from.track);
            const std::uint32_t h = from.index.value;
            enters.push_back(host.ts(h));
            leaves.push_back(device->end(op.value));
            if (clock.hostStepAt(host.ts(h)) < clock.size())
                delays.push_back(device->ts(op.value) - host.end(h));
        }
        if (!enters.empty())
            out.queues.push_back(queueOf(trace, *device, enters, leaves));
    }
    out.launches = delays.size();
    if (delays.empty())
        return;
    long double sum = 0; // of integers: exact in any order
    for (TimeNs v : delays) {
        sum += v;
        if (v > 100'000)
            ++out.launchesDelayedOver100us;
    }
    out.launchDelayP50Ns = percentile(delays, 0.50);
    out.launchDelayP99Ns = percentile(delays, 0.99);
    out.launchDelayMeanNs = static_cast<TimeNs>(std::llround(sum / static_cast<long double>(delays.size())));
    // Clipping keeps the order, so the percentiles of the queueing delay are the clipped percentiles.
    long double queued = 0;
    for (TimeNs v : delays)
        queued += std::max<TimeNs>(0, v);
    out.queueingDelayP50Ns = std::max<TimeNs>(0, out.launchDelayP50Ns);
    out.queueingDelayP99Ns = std::max<TimeNs>(0, out.launchDelayP99Ns);
    out.queueingDelayMeanNs = static_cast<TimeNs>(std::llround(queued / static_cast<long double>(delays.size())));
}

} // namespace

DeviceSummary computeDeviceSummary(const model::Trace& trace, const std::vector<StepBreakdown>& steps,
                                   bool includeWarmup)
{
    AnalysisOptions options;
    options.includeWarmup = includeWarmup;
    const StepClock clock(trace, includeWarmup);
    return computeDeviceSummary(trace, clock, computeDeviceActivity(trace, options, CancelToken {}), steps);
}

DeviceSummary computeDeviceSummary(const model::Trace& trace, const StepClock& clock, const DeviceActivity& activity,
                                   const std::vector<StepBreakdown>& steps)
{
    DeviceSummary out;
    out.windowNs = clock.analysedNs();
    if (activity.busy.empty())
        return out;
    // Busy, compute and copy time are the activity's unions; communication (and its wait tasks) is collected here,
    // with the busy time by device kind.
    IntervalList communication;
    IntervalList wait;
    std::array<TimeNs, 4> busyByKind {};
    for (const model::Track& t : trace.tracks()) {
        if (!model::isDeviceTrack(t))
            continue;
        TimeNs& ofKind = busyByKind[static_cast<std::size_t>(t.deviceKind)];
        for (std::uint32_t i = 0; i < t.size(); ++i) {
            const SliceCategory c = t.category(i);
            if (!isBusyCategory(c) || t.dur(i) <= 0)
                continue;
            ofKind += t.dur(i);
            if (c == SliceCategory::Communication) {
                communication.push_back({t.ts(i), t.end(i)});
                if (isCommunicationWaitTask(trace.str(t.sliceName(i))))
                    wait.push_back({t.ts(i), t.end(i)});
            }
        }
    }
    out.hasDeviceWork = true;
    const auto kind
        = static_cast<model::DeviceKind>(std::max_element(busyByKind.begin(), busyByKind.end()) - busyByKind.begin());
    out.deviceLabel = kind == model::DeviceKind::Gpu ? "GPU" : "NPU";
    const IntervalList windows = unite(clock.windows());
    const IntervalList commIn = intersect(unite(std::move(communication)), windows);
    out.busyNs = intersectionLength(activity.busy, windows);
    out.computeNs = intersectionLength(activity.compute, windows);
    out.communicationNs = totalLength(commIn);
    out.communicationInWaitTasksNs = intersectionLength(unite(std::move(wait)), windows);
    out.communicationOutsideWaitTasksNs = out.communicationNs - out.communicationInWaitTasksNs;
    out.copyNs = intersectionLength(activity.copy, windows);
    out.idleNs = out.windowNs - out.busyNs;
    if (out.communicationNs > 0) {
        // commIn lies inside the windows, so its overlap with compute inside them is its overlap with compute.
        const TimeNs overlapped = intersectionLength(commIn, activity.compute);
        out.exposedCommunicationNs = out.communicationNs - overlapped;
        out.commComputeOverlapFraction = static_cast<double>(overlapped) / static_cast<double>(out.communicationNs);
    }
    out.busyFraction = out.windowNs > 0 ? static_cast<double>(out.busyNs) / static_cast<double>(out.windowNs) : 0.0;
    bool first = true;
    for (const StepBreakdown& s : steps) {
        if (s.durationNs <= 0 || s.excluded)
            continue;
        const double share = static_cast<double>(s.deviceBusyNs) / static_cast<double>(s.durationNs);
        out.minStepBusyFraction = first ? share : std::min(out.minStepBusyFraction, share);
        out.maxStepBusyFraction = first ? share : std::max(out.maxStepBusyFraction, share);
        first = false;
    }
    launchStatistics(trace, clock, out);
    if (trace.metadata().platform == model::Platform::Rknn)
        out.npuCores = npuCoreUse(trace, readRknnLayers(trace), clock);
    return out;
}

std::string busyHeadline(const DeviceSummary& s)
{
    if (!s.hasDeviceWork || s.windowNs <= 0)
        return {};
    const auto pct = [](double f) { return static_cast<int>(std::lround(f * 100.0)); };
    char buf[160];
    if (pct(s.minStepBusyFraction) != pct(s.maxStepBusyFraction))
        std::snprintf(buf, sizeof buf, "%s busy %d %% of the step (steps %d–%d %%)", s.deviceLabel.c_str(),
                      pct(s.busyFraction), pct(s.minStepBusyFraction), pct(s.maxStepBusyFraction));
    else
        std::snprintf(buf, sizeof buf, "%s busy %d %% of the step", s.deviceLabel.c_str(), pct(s.busyFraction));
    std::string headline = buf;
    if (s.npuCores && s.npuCores->busyFraction) {
        // "(3 cores)", or "(1 core of 3)" when the run left cores of the chip unused.
        const int cores = s.npuCores->cores;
        std::snprintf(buf, sizeof buf, ", NPU cores busy %d %% (%d %s", pct(*s.npuCores->busyFraction), cores,
                      cores == 1 ? "core" : "cores");
        headline += buf;
        if (s.npuCores->coresOnChip > cores)
            headline += " of " + std::to_string(s.npuCores->coresOnChip);
        headline += ")";
    }
    return headline;
}

} // namespace timesink::analysis
