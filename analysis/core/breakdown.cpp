// SPDX-License-Identifier: MIT
#include "analysis/core/breakdown.h"

#include "analysis/core/deviceactivity.h"
#include "analysis/core/intervals.h"
#include "analysis/core/opclassifier.h"
#include "analysis/core/stepclock.h"
#include "model/checkedmath.h"

#include <algorithm>
#include <array>
#include <map>
#include <unordered_map>

namespace timesink::analysis {

using model::SliceCategory;
using model::TimeNs;

namespace {

constexpr std::size_t kClassCount = static_cast<std::size_t>(WorkClass::None);

StepBreakdown stepBreakdownOf(const model::Trace& trace, const model::Step& step, const Interval& window,
                              bool deviceTrace)
{
    StepBreakdown b;
    b.number = step.number;
    b.synthetic = step.synthetic;
    b.startNs = window.start;
    b.durationNs = window.length();
    std::array<IntervalList, kClassCount> byClass;
    for (const model::Track& track : trace.tracks()) {
        if (track.role == model::TrackRole::Counter || track.empty())
            continue;
        track.forEachInRange(window.start, window.end, [&](std::uint32_t i) {
            const WorkClass cls = workClassOf(trace, track, i, deviceTrace);
            if (cls == WorkClass::None)
                return;
            const TimeNs s = std::max(track.ts(i), window.start);
            const TimeNs e = std::min(track.end(i), window.end);
            if (e > s)
                byClass[static_cast<std::size_t>(cls)].push_back({s, e});
        });
    }
    // Exclusive attribution by priority (enum order): each class gets what the union grows by when it is added.
    IntervalList covered;
    TimeNs coveredNs = 0;
    std::array<TimeNs, kClassCount> share {};
    for (std::size_t c = 0; c < kClassCount; ++c) {
        if (byClass[c].empty())
            continue;
        covered = uniteSorted(covered, unite(std::move(byClass[c])));
        const TimeNs now = totalLength(covered);
        share[c] = now - coveredNs;
        coveredNs = now;
    }
    const auto at = [&](WorkClass c) { return share[static_cast<std::size_t>(c)]; };
    b.computeNs = at(WorkClass::Compute) + at(WorkClass::HostFallback);
    b.communicationNs = at(WorkClass::Communication);
    b.copyNs = at(WorkClass::Copy);
    b.dataloaderNs = at(WorkClass::Dataloader);
    b.idleNs = b.durationNs - coveredNs;
    if (deviceTrace) {
        b.deviceBusyNs = at(WorkClass::Compute) + at(WorkClass::Communication) + at(WorkClass::Copy);
        b.deviceIdleNs = b.durationNs - b.deviceBusyNs;
    }
    return b;
}

bool hasAncestor(const model::Track& track, std::uint32_t i, bool (*matches)(SliceCategory))
{
    for (model::SliceIndex p = track.parent(i); p.isValid(); p = track.parent(p.value)) {
        if (matches(track.category(p.value)))
            return true;
    }
    return false;
}

bool isHostOperator(SliceCategory c)
{
    return c == SliceCategory::HostOp || c == SliceCategory::FallbackOp;
}

bool isFallback(SliceCategory c)
{
    return c == SliceCategory::FallbackOp;
}

} // namespace

WorkClass workClassOf(const model::Trace& trace, const model::Track& track, std::uint32_t i, bool deviceTrace)
{
    if (track.role == model::TrackRole::Counter)
        return WorkClass::None;
    const SliceCategory c = track.category(i);
    if (deviceTrace) {
        if (model::isDeviceTrack(track)) {
            if (!isBusyCategory(c))
                return WorkClass::None;
            if (c == SliceCategory::Communication)
                return WorkClass::Communication;
            if (c == SliceCategory::Memcpy || c == SliceCategory::Memset)
                return WorkClass::Copy;
            return WorkClass::Compute;
        }
        if (c == SliceCategory::Dataloader)
            return WorkClass::Dataloader;
        if (c == SliceCategory::FallbackOp && isCountedFallback(trace, {track.id, model::SliceIndex(i)}))
            return WorkClass::HostFallback;
        return WorkClass::None;
    }
    switch (c) {
    case SliceCategory::HostOp:
    case SliceCategory::Kernel:
    case SliceCategory::FallbackOp:
        return WorkClass::Compute;
    case SliceCategory::Communication:
        return WorkClass::Communication;
    case SliceCategory::Memcpy:
    case SliceCategory::Memset:
        return WorkClass::Copy;
    case SliceCategory::Dataloader:
        return WorkClass::Dataloader;
    default:
        return WorkClass::None;
    }
}

std::vector<StepBreakdown> computeStepBreakdown(const model::Trace& trace, bool includeWarmup)
{
    return computeStepBreakdown(trace, StepClock(trace, includeWarmup));
}

std::vector<StepBreakdown> computeStepBreakdown(const model::Trace& trace, const StepClock& clock)
{
    const bool deviceTrace = hasDeviceWork(trace);
    std::vector<StepBreakdown> steps;
    steps.reserve(clock.size());
    for (std::size_t s = 0; s < clock.size(); ++s) {
        const bool warmup = s == clock.warmupStep();
        const bool excluded = warmup && clock.warmupExcluded();
        StepBreakdown b
            = stepBreakdownOf(trace, clock.step(s), excluded ? clock.fullWindow(s) : clock.window(s), deviceTrace);
        const Interval host = excluded ? clock.fullHostWindow(s) : clock.hostWindow(s);
        b.hostStartNs = host.start;
        b.hostDurationNs = host.length();
        b.hasDeviceWindow = clock.hasDeviceWindow(s);
        if (b.hasDeviceWindow) {
            b.deviceStartNs = clock.deviceWindow(s).start;
            b.deviceEndNs = clock.deviceWindow(s).end;
        }
        b.warmup = warmup;
        b.excluded = excluded;
        steps.push_back(b);
    }
    return steps;
}

TopOperators computeTopOperators(const model::Trace& trace, std::size_t limit)
{
    const bool deviceTrace = hasDeviceWork(trace);
    struct Acc
    {
        TimeNs total = 0;
        std::uint64_t count = 0;
        std::array<TimeNs, model::kSliceCategoryCount> byCategory {};
    };
    // Keyed by StringId: names are interned, so equal ids mean equal names.
    std::unordered_map<std::uint32_t, Acc> acc;
    TimeNs scopeTotal = 0;
    for (const model::Track& track : trace.tracks()) {
        const bool device = model::isDeviceTrack(track);
        if (deviceTrace ? !device && track.role != model::TrackRole::HostThread
                        : track.role != model::TrackRole::HostThread)
            continue;
        for (std::uint32_t i = 0; i < track.size(); ++i) {
            const SliceCategory c = track.category(i);
            if (deviceTrace && device) {
                if (!isBusyCategory(c) || hasAncestor(track, i, &isBusyCategory))
                    continue;
            } else if (deviceTrace) {
                if (c != SliceCategory::FallbackOp || hasAncestor(track, i, &isFallback)
                    || !isCountedFallback(trace, {track.id, model::SliceIndex(i)}))
                    continue;
            } else if (!isHostOperator(c) || hasAncestor(track, i, &isHostOperator)) {
                continue;
            }
            Acc& a = acc[track.sliceName(i).value];
            a.total = model::saturatingAdd(a.total, track.dur(i));
            ++a.count;
            a.byCategory[static_cast<std::size_t>(c)]
                = model::saturatingAdd(a.byCategory[static_cast<std::size_t>(c)], track.dur(i));
            scopeTotal = model::saturatingAdd(scopeTotal, track.dur(i));
        }
    }
    TopOperators out;
    out.scope = deviceTrace ? "device" : "host";
    out.operators.reserve(acc.size());
    for (const auto& [name, a] : acc) {
        OperatorTime op;
        op.name = std::string(trace.str(model::StringId(name)));
        op.totalNs = a.total;
        op.count = a.count;
        op.category = static_cast<SliceCategory>(std::max_element(a.byCategory.begin(), a.byCategory.end())
                                                 - a.byCategory.begin());
        op.fraction = scopeTotal > 0 ? static_cast<double>(a.total) / static_cast<double>(scopeTotal) : 0.0;
        out.operators.push_back(std::move(op));
    }
    std::sort(out.operators.begin(), out.operators.end(), [](const OperatorTime& a, const OperatorTime& b) {
        return a.totalNs != b.totalNs ? a.totalNs > b.totalNs : a.name < b.name;
    });
    if (out.operators.size() > limit)
        out.operators.resize(limit);
    return out;
}

std::vector<KindLoss> computeLostByKind(const std::vector<Finding>& findings, TimeNs analysedNs)
{
    std::map<std::string, KindLoss> byKind;
    for (const Finding& f : findings) {
        KindLoss& k = byKind[f.kind];
        k.kind = f.kind;
        k.lostNs = model::saturatingAdd(k.lostNs, f.lostNs);
        ++k.findings;
    }
    std::vector<KindLoss> out;
    out.reserve(byKind.size());
    for (auto& [kind, loss] : byKind) {
        loss.fraction = analysedNs > 0 ? static_cast<double>(loss.lostNs) / static_cast<double>(analysedNs) : 0.0;
        out.push_back(std::move(loss));
    }
    std::stable_sort(out.begin(), out.end(), [](const KindLoss& a, const KindLoss& b) { return a.lostNs > b.lostNs; });
    return out;
}

Breakdown computeBreakdown(const model::Trace& trace, const std::vector<Finding>& findings, TimeNs analysedNs,
                           std::size_t topOperatorLimit, bool includeWarmup)
{
    Breakdown b;
    b.steps = computeStepBreakdown(trace, includeWarmup);
    b.topOperators = computeTopOperators(trace, topOperatorLimit);
    b.lostByKind = computeLostByKind(findings, analysedNs);
    b.device = computeDeviceSummary(trace, b.steps, includeWarmup);
    return b;
}

} // namespace timesink::analysis
