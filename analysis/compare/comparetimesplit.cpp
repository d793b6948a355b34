// SPDX-License-Identifier: MIT
#include "analysis/compare/comparetimesplit.h"

#include "analysis/core/deviceactivity.h"
#include "analysis/core/opclassifier.h"

#include <algorithm>
#include <vector>

namespace timesink::analysis {

namespace {

constexpr std::size_t idx(KernelClass c)
{
    return static_cast<std::size_t>(c);
}

constexpr std::size_t idx(IdleCause c)
{
    return static_cast<std::size_t>(c);
}

// Compute, communication and copies are told apart by slice category, as `analyze` does (deviceactivity.h): a
// TensorMove or MemSet kernel on an Ascend AI core is compute there and in msprof, so it is compute here too, in its
// kernel class (Copy, Memset). Only category Memcpy/Memset work is a copy.
bool isComputeClass(KernelClass c)
{
    return c != KernelClass::Communication;
}

/// Takes the part of `remaining` covered by `list` out of it and returns its length.
model::TimeNs take(IntervalList& remaining, const IntervalList& list)
{
    if (remaining.empty() || list.empty())
        return 0;
    const IntervalList got = intersect(remaining, clip(list, remaining.front().start, remaining.back().end));
    const model::TimeNs ns = totalLength(got);
    if (ns > 0)
        remaining = subtract(remaining, got);
    return ns;
}

} // namespace

std::string_view idleCauseKey(IdleCause c)
{
    switch (c) {
    case IdleCause::Dataloader:
        return "dataloader";
    case IdleCause::Fallback:
        return "fallback_wait";
    case IdleCause::Compile:
        return "compile";
    case IdleCause::Allocator:
        return "allocator";
    case IdleCause::Sync:
        return "sync";
    case IdleCause::HostOps:
        return "host_ops";
    case IdleCause::Python:
        return "python";
    case IdleCause::NoHost:
        break;
    }
    return "no_host_activity";
}

std::string_view idleCauseLabel(IdleCause c)
{
    switch (c) {
    case IdleCause::Dataloader:
        return "idle: dataloader";
    case IdleCause::Fallback:
        return "idle: CPU fallback wait";
    case IdleCause::Compile:
        return "idle: operator compile";
    case IdleCause::Allocator:
        return "idle: allocator";
    case IdleCause::Sync:
        return "idle: host synchronisation";
    case IdleCause::HostOps:
        return "idle: host framework ops";
    case IdleCause::Python:
        return "idle: Python";
    case IdleCause::NoHost:
        break;
    }
    return "idle: no host activity";
}

TraceTimeSplitter::TraceTimeSplitter(const model::Trace& trace)
{
    std::array<IntervalList, kKernelClassCount> device;
    std::array<IntervalList, kIdleCauseCount> host;
    IntervalList copies; // memcpy and memset (by category)
    KernelClassifier classifier(trace);
    // Per name: 0 not asked yet, else 1 + the cause a host call of that name is (NoHost = none of the named ones).
    std::vector<std::uint8_t> callCause(trace.strings().size(), 0);
    auto causeOfName = [&](model::StringId id) {
        if (id.value >= callCause.size())
            return IdleCause::NoHost;
        std::uint8_t& memo = callCause[id.value];
        if (memo == 0) {
            const std::string_view name = trace.str(id);
            IdleCause c = IdleCause::NoHost;
            switch (hostCallKind(name)) {
            case HostCallKind::Compile:
            case HostCallKind::Autotune:
                c = IdleCause::Compile;
                break;
            case HostCallKind::Allocator:
                c = IdleCause::Allocator;
                break;
            case HostCallKind::None:
                if (isBlockingRuntimeCall(name))
                    c = IdleCause::Sync;
                break;
            }
            memo = static_cast<std::uint8_t>(1 + static_cast<std::uint8_t>(c));
        }
        return static_cast<IdleCause>(memo - 1);
    };

    for (const model::Track& t : trace.tracks()) {
        const bool onDevice = model::isDeviceTrack(t);
        for (std::uint32_t i = 0; i < t.size(); ++i) {
            const model::SliceCategory cat = t.category(i);
            const Interval span {t.ts(i), t.end(i)};
            if (span.end <= span.start)
                continue;
            if (onDevice) {
                if (!isBusyCategory(cat))
                    continue;
                if (cat == model::SliceCategory::Memcpy || cat == model::SliceCategory::Memset) {
                    copies.push_back(span);
                    continue;
                }
                KernelClass c = cat == model::SliceCategory::Communication
                    ? KernelClass::Communication
                    : classifier.classOf(model::SliceRef {t.id, model::SliceIndex(i)});
                if (c == KernelClass::Communication && cat != model::SliceCategory::Communication)
                    c = KernelClass::Other; // a kernel named like a collective that the importer did not call one
                device[idx(c)].push_back(span);
                continue;
            }
            if (cat == model::SliceCategory::Dataloader) {
                host[idx(IdleCause::Dataloader)].push_back(span);
                continue;
            }
            if (cat == model::SliceCategory::FallbackOp) {
                if (isCountedFallback(trace, model::SliceRef {t.id, model::SliceIndex(i)}))
                    host[idx(IdleCause::Fallback)].push_back(span);
                continue;
            }
            const IdleCause byName = causeOfName(t.sliceName(i));
            if (byName != IdleCause::NoHost)
                host[idx(byName)].push_back(span);
            if (cat == model::SliceCategory::HostOp)
                host[idx(IdleCause::HostOps)].push_back(span);
            else if (cat == model::SliceCategory::PythonFrame)
                host[idx(IdleCause::Python)].push_back(span);
        }
    }
    IntervalList compute;
    for (std::size_t c = 0; c < kKernelClassCount; ++c) {
        m_device[c] = unite(std::move(device[c]));
        m_hasDeviceWork = m_hasDeviceWork || !m_device[c].empty();
        if (isComputeClass(static_cast<KernelClass>(c)))
            compute = uniteSorted(compute, m_device[c]);
    }
    m_compute = std::move(compute);
    m_copies = unite(std::move(copies));
    m_hasDeviceWork = m_hasDeviceWork || !m_copies.empty();
    for (std::size_t c = 0; c < kIdleCauseCount; ++c)
        m_host[c] = unite(std::move(host[c]));
}

StepTimeSplit TraceTimeSplitter::split(std::span<const Interval> windows) const
{
    StepTimeSplit out;
    const IntervalList& comm = m_device[idx(KernelClass::Communication)];
    for (const Interval& w : windows) {
        if (w.end <= w.start)
            continue;
        out.windowNs += w.length();
        IntervalList remaining {w};
        for (std::size_t c = 0; c < kKernelClassCount; ++c) {
            if (isComputeClass(static_cast<KernelClass>(c)))
                out.computeNs[c] += take(remaining, m_device[c]);
        }
        out.exposedCommunicationNs += take(remaining, comm);
        out.exposedCopyNs += take(remaining, m_copies);
        for (std::size_t c = 0; c + 1 < kIdleCauseCount; ++c)
            out.idleNs[c] += take(remaining, m_host[c]);
        out.idleNs[idx(IdleCause::NoHost)] += totalLength(remaining);
    }
    return out;
}

std::optional<Interval> TraceTimeSplitter::busyHull(Interval w) const
{
    std::optional<Interval> hull;
    const auto extend = [&](const IntervalList& list) {
        const IntervalList in = clip(list, w.start, w.end);
        if (in.empty())
            return;
        if (!hull)
            hull = Interval {in.front().start, in.back().end};
        hull->start = std::min(hull->start, in.front().start);
        hull->end = std::max(hull->end, in.back().end);
    };
    for (const IntervalList& list : m_device)
        extend(list);
    extend(m_copies);
    return hull;
}

DeviceBreakdown TraceTimeSplitter::deviceBreakdown(std::span<const Interval> deviceWindows) const
{
    DeviceBreakdown out;
    out.hasDeviceWork = m_hasDeviceWork;
    IntervalList windows = unite(IntervalList(deviceWindows.begin(), deviceWindows.end()));
    out.windowNs = totalLength(windows);
    out.computeNs = take(windows, m_compute);
    out.exposedCommunicationNs = take(windows, m_device[idx(KernelClass::Communication)]);
    out.exposedCopyNs = take(windows, m_copies);
    out.idleNs = totalLength(windows);
    return out;
}

} // namespace timesink::analysis
