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

void launchStatistics(const model::Trace& trace, const StepClock& clock, DeviceSummary& out)
{
    std::vector<TimeNs> delays;
    struct QueueEdge
    {
        TimeNs t;
        int delta;
    };
    // Per device track: operations' ends (in track order) and launches (the launching calls' starts, in the same
    // order), each nearly sorted already.
    std::vector<std::vector<QueueEdge>> ends(trace.tracks().size());
    std::vector<std::vector<QueueEdge>> starts(trace.tracks().size());
    // One launch per device operation. Old Kineto traces address flow ends by time at µs resolution, so a device
    // operation can get a second flow from a runtime call that starts in the same µs (cudaFuncSetAttribute next
    // to its cudaLaunchKernel); the launching call is the one that ends last.
    // By device track and operation index (direct addressing: a hash map of every launch cost 17x more at 10 GB
    // than at 1 GB in cache misses and page faults).
    std::vector<std::vector<model::SliceRef>> launchOf(trace.tracks().size());
    for (const model::Flow& f : trace.flows()) {
        if (!isDeviceLaunch(trace, f))
            continue;
        std::vector<model::SliceRef>& ofTrack = launchOf[f.to.track.value];
        if (ofTrack.empty())
            ofTrack.assign(trace.track(f.to.track).size(), model::SliceRef {});
        model::SliceRef& current = ofTrack[f.to.index.value];
        if (!current.isValid()) {
            current = f.from;
            continue;
        }
        const model::Track& host = trace.track(f.from.track);
        const model::Track& other = trace.track(current.track);
        const std::uint32_t h = f.from.index.value;
        const std::uint32_t o = current.index.value;
        if (host.ts(h) > other.ts(o) || (host.ts(h) == other.ts(o) && host.end(h) > other.end(o)))
            current = f.from;
    }
    for (std::uint32_t ti = 0; ti < launchOf.size(); ++ti) {
        const model::Track& device = trace.track(model::TrackId(ti));
        const std::vector<model::SliceRef>& ofTrack = launchOf[ti];
        for (std::uint32_t d = 0; d < ofTrack.size(); ++d) {
            const model::SliceRef from = ofTrack[d];
            if (!from.isValid())
                continue;
            const model::Track& host = trace.track(from.track);
            const std::uint32_t h = from.index.value;
            starts[ti].push_back({host.ts(h), +1});
            ends[ti].push_back({device.end(d), -1});
            if (clock.hostStepAt(host.ts(h)) < clock.size())
                delays.push_back(device.ts(d) - host.end(h));
        }
    }
    out.launches = delays.size();
    if (!delays.empty()) {
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
    const auto byTime = [](const QueueEdge& a, const QueueEdge& b) { return a.t < b.t; };
    std::vector<QueueEdge> e;
    for (const model::Track& t : trace.tracks()) {
        std::vector<QueueEdge>& up = starts[t.id.value];
        std::vector<QueueEdge>& down = ends[t.id.value];
        if (up.empty())
            continue;
        for (std::vector<QueueEdge>* list : {&up, &down}) {
            if (!std::is_sorted(list->begin(), list->end(), byTime))
                std::sort(list->begin(), list->end(), byTime);
        }
        // At equal times an operation that ends leaves the queue before the next launch enters it: the merge takes
        // from its first range (the ends) on ties.
        e.resize(up.size() + down.size());
        std::merge(down.begin(), down.end(), up.begin(), up.end(), e.begin(), byTime);
        std::vector<QueueEdge>().swap(up);
        std::vector<QueueEdge>().swap(down);
        StreamQueue q;
        q.track = t.id;
        q.name = model::trackDisplayName(trace, t);
        q.operations = e.size() / 2;
        std::int64_t length = 0;
        long double area = 0;
        for (std::size_t i = 0; i < e.size(); ++i) {
            if (i > 0)
                area += static_cast<long double>(length) * static_cast<long double>(e[i].t - e[i - 1].t);
            length += e[i].delta;
            q.maxLength = std::max(q.maxLength, length);
        }
        const TimeNs span = e.back().t - e.front().t;
        q.meanLength = span > 0 ? static_cast<double>(area / static_cast<long double>(span)) : 0.0;
        out.queues.push_back(std::move(q));
    }
}

} // namespace

DeviceSummary computeDeviceSummary(const model::Trace& trace, const std::vector<StepBreakdown>& steps,
                                   bool includeWarmup)
{
    DeviceSummary out;
    const StepClock clock(trace, includeWarmup);
    out.windowNs = clock.analysedNs();
    IntervalList busy;
    IntervalList compute;
    IntervalList communication;
    IntervalList wait;
    IntervalList copy;
    std::array<TimeNs, 4> busyByKind {};
    for (const model::Track& t : trace.tracks()) {
        if (!model::isDeviceTrack(t))
            continue;
        for (std::uint32_t i = 0; i < t.size(); ++i) {
            const SliceCategory c = t.category(i);
            if (!isBusyCategory(c) || t.dur(i) <= 0)
                continue;
            const Interval iv {t.ts(i), t.end(i)};
            busy.push_back(iv);
            busyByKind[static_cast<std::size_t>(t.deviceKind)] += t.dur(i);
            if (c == SliceCategory::Communication) {
                communication.push_back(iv);
                if (isCommunicationWaitTask(trace.str(t.sliceName(i))))
                    wait.push_back(iv);
            } else if (c == SliceCategory::Memcpy || c == SliceCategory::Memset) {
                copy.push_back(iv);
            } else {
                compute.push_back(iv);
            }
        }
    }
    if (busy.empty())
        return out;
    out.hasDeviceWork = true;
    const auto kind
        = static_cast<model::DeviceKind>(std::max_element(busyByKind.begin(), busyByKind.end()) - busyByKind.begin());
    out.deviceLabel = kind == model::DeviceKind::Gpu ? "GPU" : "NPU";
    const IntervalList& windows = clock.windows();
    const auto inWindows = [&](IntervalList v) { return intersect(unite(std::move(v)), unite(windows)); };
    const IntervalList busyIn = inWindows(std::move(busy));
    const IntervalList computeIn = inWindows(std::move(compute));
    const IntervalList commIn = inWindows(std::move(communication));
    const IntervalList waitIn = inWindows(std::move(wait));
    out.busyNs = totalLength(busyIn);
    out.computeNs = totalLength(computeIn);
    out.communicationNs = totalLength(commIn);
    out.communicationInWaitTasksNs = totalLength(waitIn);
    out.communicationOutsideWaitTasksNs = out.communicationNs - out.communicationInWaitTasksNs;
    out.copyNs = totalLength(inWindows(std::move(copy)));
    out.idleNs = out.windowNs - out.busyNs;
    if (out.communicationNs > 0) {
        const TimeNs overlapped = totalLength(intersect(commIn, computeIn));
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
