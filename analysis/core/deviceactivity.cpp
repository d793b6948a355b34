// SPDX-License-Identifier: MIT
#include "analysis/core/deviceactivity.h"

#include "analysis/core/opclassifier.h"
#include "analysis/core/unrecorded.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <unordered_map>

namespace timesink::analysis {

using model::SliceCategory;

bool isBusyCategory(SliceCategory c)
{
    switch (c) {
    case SliceCategory::Kernel:
    case SliceCategory::Memcpy:
    case SliceCategory::Memset:
    case SliceCategory::Communication:
    case SliceCategory::FallbackOp:
    case SliceCategory::Other:
        return true;
    default:
        return false;
    }
}

bool isComputeCategory(SliceCategory c)
{
    return isBusyCategory(c) && c != SliceCategory::Memcpy && c != SliceCategory::Memset;
}

bool isDeviceLaunch(const model::Trace& trace, const model::Flow& f)
{
    if (f.kind != model::FlowKind::Launch || !f.from.isValid() || !f.to.isValid())
        return false;
    const model::Track& device = trace.track(f.to.track);
    return !isDeviceTrack(trace.track(f.from.track)) && isDeviceTrack(device)
        && isBusyCategory(device.category(f.to.index.value));
}

bool hasDeviceWork(const model::Trace& trace)
{
    for (const model::Track& t : trace.tracks()) {
        if (!isDeviceTrack(t))
            continue;
        for (std::uint32_t i = 0; i < t.size(); ++i) {
            if (isBusyCategory(t.category(i)) && t.dur(i) > 0)
                return true;
        }
    }
    return false;
}

std::vector<std::uint32_t> hostThreadsOf(const model::Trace& trace)
{
    const auto tracks = trace.tracks();
    std::vector<std::uint32_t> thread(tracks.size());
    std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> lanes; // numeric thread id → host tracks
    for (std::uint32_t ti = 0; ti < tracks.size(); ++ti) {
        thread[ti] = ti;
        const model::Track& t = tracks[ti];
        if (isDeviceTrack(t) || t.role != model::TrackRole::HostThread)
            continue;
        const std::string_view key = trace.str(t.threadKey);
        std::uint64_t tid = 0;
        const auto [end, ec] = std::from_chars(key.data(), key.data() + key.size(), tid);
        if (ec != std::errc() || end != key.data() + key.size() || tid <= 1)
            continue; // not an OS thread id (Kineto's "PyTorch Profiler", a legacy trace's 0 or 1)
        lanes[tid].push_back(ti);
    }
    for (const auto& [tid, list] : lanes) {
        if (list.size() < 2)
            continue;
        // Lanes of one process with the same id are not two lanes of one thread: only distinct processes merge.
        bool distinct = true;
        for (std::size_t a = 0; a < list.size() && distinct; ++a) {
            for (std::size_t b = a + 1; b < list.size(); ++b) {
                if (tracks[list[a]].processKey == tracks[list[b]].processKey) {
                    distinct = false;
                    break;
                }
            }
        }
        if (!distinct)
            continue;
        std::uint32_t rep = list.front();
        for (const std::uint32_t ti : list) {
            if (tracks[ti].size() > tracks[rep].size())
                rep = ti;
        }
        for (const std::uint32_t ti : list)
            thread[ti] = rep;
    }
    return thread;
}

namespace {

struct FlaggedInterval
{
    Interval range;
    bool allTiny = true;
};

// Union of two canonical flagged lists; a merged interval is tiny only if everything in it was.
std::vector<FlaggedInterval> uniteFlagged(const std::vector<FlaggedInterval>& a, const std::vector<FlaggedInterval>& b)
{
    std::vector<FlaggedInterval> out;
    out.reserve(a.size() + b.size());
    std::size_t i = 0;
    std::size_t j = 0;
    while (i < a.size() || j < b.size()) {
        const FlaggedInterval& next
            = (j >= b.size() || (i < a.size() && a[i].range.start <= b[j].range.start)) ? a[i++] : b[j++];
        if (!out.empty() && next.range.start <= out.back().range.end) {
            out.back().range.end = std::max(out.back().range.end, next.range.end);
            out.back().allTiny = out.back().allTiny && next.allTiny;
        } else {
            out.push_back(next);
        }
    }
    return out;
}

} // namespace

DeviceActivity computeDeviceActivity(const model::Trace& trace, const AnalysisOptions& options,
                                     const CancelToken& cancel)
{
    DeviceActivity out;
    std::vector<FlaggedInterval> busy;
    model::TimeNs bestBusy = -1;
    IntervalList dataloader;
    IntervalList fallback;
    IntervalList compile;
    IntervalList allocator;
    IntervalList autotune;
    std::vector<model::SliceRef> autotuneSlices;
    // Host call kinds by name id: a trace has millions of host slices but few distinct names.
    std::vector<std::uint8_t> callKinds(trace.strings().size(), 0xff);
    auto callKindOf = [&](model::StringId name) {
        if (name.value >= callKinds.size())
            return HostCallKind::None;
        std::uint8_t& k = callKinds[name.value];
        if (k == 0xff)
            k = static_cast<std::uint8_t>(hostCallKind(trace.str(name)));
        return static_cast<HostCallKind>(k);
    };
    for (const model::Track& t : trace.tracks()) {
        if (cancel.cancelled())
            return out;
        const std::size_t n = t.size();
        if (isDeviceTrack(t)) {
            // Slices are sorted by (ts, -dur), so a single forward sweep yields this track's union.
            // Reserved for the worst case (no two slices merge): untouched pages cost address space, not memory,
            // and the lists never move (a move holds them twice).
            std::vector<FlaggedInterval> own;
            IntervalList ownCompute;
            IntervalList ownCopy;
            own.reserve(n);
            ownCompute.reserve(n);
            ownCopy.reserve(n);
            for (std::uint32_t i = 0; i < n; ++i) {
                const SliceCategory c = t.category(i);
                if (!isBusyCategory(c))
                    continue;
                const model::TimeNs s = t.ts(i);
                const model::TimeNs e = s + t.dur(i);
                const bool tiny = c == SliceCategory::Kernel && t.dur(i) < options.tinyKernelNs;
                if (e <= s)
                    continue;
                if (c == SliceCategory::Memcpy || c == SliceCategory::Memset)
                    appendInStartOrder(ownCopy, s, e);
                else if (c != SliceCategory::Communication)
                    appendInStartOrder(ownCompute, s, e);
                if (!own.empty() && s <= own.back().range.end) {
                    own.back().range.end = std::max(own.back().range.end, e);
                    own.back().allTiny = own.back().allTiny && tiny;
                } else {
                    own.push_back({{s, e}, tiny});
                }
            }
            if (own.empty())
                continue;
            out.hasDeviceWork = true;
            model::TimeNs ownBusy = 0;
            for (const FlaggedInterval& f : own)
                ownBusy += f.range.length();
            if (ownBusy > bestBusy) {
                bestBusy = ownBusy;
                out.primaryDeviceTrack = t.id;
            }
            busy = busy.empty() ? std::move(own) : uniteFlagged(busy, own);
            out.compute = out.compute.empty() ? std::move(ownCompute) : uniteSorted(out.compute, ownCompute);
            out.copy = out.copy.empty() ? std::move(ownCopy) : uniteSorted(out.copy, ownCopy);
            continue;
        }
        if (t.role == model::TrackRole::Counter)
            continue;
        for (std::uint32_t i = 0; i < n; ++i) {
            const SliceCategory c = t.category(i);
            if (c == SliceCategory::Dataloader) {
                dataloader.push_back({t.ts(i), t.end(i)});
                out.dataloaderSlices.push_back({t.id, model::SliceIndex(i)});
            } else if (c == SliceCategory::FallbackOp && isCountedFallback(trace, {t.id, model::SliceIndex(i)})) {
                fallback.push_back({t.ts(i), t.end(i)});
            } else if (c != SliceCategory::Step) {
                switch (callKindOf(t.sliceName(i))) {
                case HostCallKind::Compile:
                    compile.push_back({t.ts(i), t.end(i)});
                    out.compileSlices.push_back({t.id, model::SliceIndex(i)});
                    break;
                case HostCallKind::Autotune:
                    autotune.push_back({t.ts(i), t.end(i)});
                    autotuneSlices.push_back({t.id, model::SliceIndex(i)});
                    break;
                case HostCallKind::Allocator:
                    allocator.push_back({t.ts(i), t.end(i)});
                    out.allocatorSlices.push_back({t.id, model::SliceIndex(i)});
                    break;
                case HostCallKind::None:
                    break;
                }
            }
        }
    }
    if (!autotune.empty()) {
        // Autotuning in the first step is the expected warm-up (cudnn.benchmark picks algorithms once per
        // shape); after it, it means new shapes keep arriving.
        const StepClock clock(trace, options.includeWarmup);
        for (std::size_t k = 0; k < autotune.size(); ++k) {
            const std::size_t step = clock.hostStepAt(autotune[k].start);
            if (step < clock.size() && step > 0) {
                compile.push_back(autotune[k]);
                out.compileSlices.push_back(autotuneSlices[k]);
            }
        }
    }
    out.busy.reserve(busy.size());
    out.busyAllTiny.reserve(busy.size());
    for (const FlaggedInterval& f : busy) {
        out.busy.push_back(f.range);
        out.busyAllTiny.push_back(f.allTiny);
    }
    out.unrecorded = unrecordedDeviceWork(trace, out.busy);
    out.dataloader = unite(std::move(dataloader));
    out.hostFallback = unite(std::move(fallback));
    out.hostCompile = unite(std::move(compile));
    out.hostAllocator = unite(std::move(allocator));
    return out;
}

StepActivity stepActivityOf(const DeviceActivity& activity, Interval window, const CommunicationProfile* communication)
{
    StepActivity out;
    if (window.length() <= 0)
        return out;
    const auto relative = [&window](IntervalList list) {
        for (Interval& i : list) {
            i.start -= window.start;
            i.end -= window.start;
        }
        return list;
    };
    const IntervalList compute = clip(activity.compute, window.start, window.end);
    const IntervalList copy = subtract(clip(activity.copy, window.start, window.end), compute);
    const IntervalList busy = clip(activity.busy, window.start, window.end);
    out.communicationSplit = communication && (communication->waitFromTasks || communication->communicationJsonOps > 0);
    const IntervalList commWait
        = out.communicationSplit ? clip(communication->wait, window.start, window.end) : IntervalList {};
    const IntervalList commIdle
        = out.communicationSplit ? clip(communication->idle, window.start, window.end) : IntervalList {};
    // Exact while it is small; a step of thousands of kernels is drawn at 1/kStepActivityDivisions of its length.
    // (closeGaps at 1 ns changes nothing: a canonical list has no touching pieces.)
    const auto limit = static_cast<std::size_t>(kStepActivityDivisions);
    const bool exact = compute.size() <= limit && copy.size() <= limit && busy.size() < limit
        && commWait.size() <= limit && commIdle.size() <= limit;
    out.resolutionNs = exact ? 1 : std::max<model::TimeNs>(1, window.length() / kStepActivityDivisions);
    const IntervalList closedCompute = closeGaps(compute, out.resolutionNs);
    out.compute = relative(closedCompute);
    out.copy = relative(subtract(closeGaps(copy, out.resolutionNs), closedCompute));
    out.idle = relative(subtract({window}, closeGaps(busy, out.resolutionNs)));
    // Wait and idle never overlap in the profile; filling gaps may make them touch, and the wait keeps the piece.
    const IntervalList closedWait = closeGaps(commWait, out.resolutionNs);
    out.communicationWait = relative(closedWait);
    out.communicationIdle = relative(subtract(closeGaps(commIdle, out.resolutionNs), closedWait));
    return out;
}

IdleAttribution attributeIdle(const StepClock& clock, const DeviceActivity& activity, const CancelToken& cancel,
                              model::TimeNs minRestNs)
{
    IdleAttribution out;
    if (!activity.hasDeviceWork)
        return out;
    const IntervalList& busy = activity.busy;
    for (std::size_t s = 0; s < clock.size(); ++s) {
        if (cancel.cancelled())
            return out;
        const Interval w = clock.window(s);
        if (w.length() <= 0)
            continue;
        // First busy interval that ends after the window starts.
        std::size_t b = static_cast<std::size_t>(
            std::partition_point(busy.begin(), busy.end(), [&](const Interval& i) { return i.end <= w.start; })
            - busy.begin());
        model::TimeNs cursor = w.start;
        bool haveBefore = false;
        bool tinyBefore = true;
        auto emitGap = [&](model::TimeNs g0, model::TimeNs g1, bool haveAfter, bool tinyAfter) {
            if (g1 <= g0)
                return;
            const Interval gap {g0, g1};
            IdlePiece base;
            base.step = s;
            base.gap = gap;
            base.busyBefore = haveBefore;
            base.busyAfter = haveAfter;
            base.tinyBefore = !haveBefore || tinyBefore;
            base.tinyAfter = !haveAfter || tinyAfter;
            auto keepRest = [&](const Interval& r) {
                out.restTotalNs += r.length();
                if (r.length() >= minRestNs) {
                    IdlePiece p = base;
                    p.range = r;
                    out.rest.push_back(p);
                }
            };
            // Device work the trace does not record, then host activity that claims idle time, in priority order;
            // what none claims is left for bubbles.
            const std::array<std::pair<const IntervalList*, std::vector<IdlePiece>*>, 5> claims {{
                {&activity.unrecorded, &out.unrecorded},
                {&activity.dataloader, &out.dataloader},
                {&activity.hostFallback, &out.fallback},
                {&activity.hostCompile, &out.compile},
                {&activity.hostAllocator, &out.allocator},
            }};
            // Most gaps touch none of them: no allocation for those.
            bool touched = false;
            for (const auto& [owners, pieces] : claims)
                touched = touched || overlapLength(*owners, g0, g1) > 0;
            if (!touched) {
                keepRest(gap);
                return;
            }
            IntervalList left {gap};
            for (const auto& [owners, pieces] : claims) {
                IntervalList claimed;
                for (const Interval& r : left) {
                    for (const Interval& c : clip(*owners, r.start, r.end)) {
                        IdlePiece p = base;
                        p.range = c;
                        pieces->push_back(p);
                        claimed.push_back(c);
                    }
                }
                if (!claimed.empty())
                    left = subtract(left, claimed);
            }
            for (const Interval& r : left)
                keepRest(r);
        };
        for (; b < busy.size() && busy[b].start < w.end; ++b) {
            if ((b & 0xffff) == 0 && cancel.cancelled())
                return out;
            emitGap(cursor, std::min(busy[b].start, w.end), true, activity.busyAllTiny[b]);
            haveBefore = true;
            tinyBefore = activity.busyAllTiny[b];
            cursor = std::max(cursor, busy[b].end);
        }
        emitGap(cursor, w.end, false, true);
    }
    return out;
}

} // namespace timesink::analysis
