// SPDX-License-Identifier: MIT
#include "analysis/copyhotspotpass.h"

#include "model/checkedmath.h"
#include "analysis/callsite.h"
#include "analysis/deviceactivity.h"
#include "analysis/findingaccumulator.h"
#include "analysis/opclassifier.h"
#include "analysis/platform.h"
#include "analysis/textformat.h"

#include <map>
#include <memory>

namespace timesink::analysis {

namespace {

using model::MemcpyDirection;

struct Group
{
    explicit Group(const StepClock& clock)
        : acc(clock)
    {
    }
    FindingAccumulator acc;
    model::TimeNs copyNs = 0;
    std::int64_t bytes = 0;
    std::int64_t bytesKnown = 0;
    std::int64_t pageable = 0;
    std::int64_t synchronous = 0;
    std::int64_t small = 0;
};

std::int64_t copyBytes(const model::Trace& trace, model::SliceRef ref)
{
    for (std::string_view key : {"bytes", "size(Byte)", "Size", "size", "bytes_transferred"}) {
        const model::ArgValue* v = trace.arg(ref, key);
        if (v == nullptr)
            continue;
        if (v->type == model::ArgValue::Type::Int)
            return v->i;
        if (v->type == model::ArgValue::Type::Double)
            return model::doubleToInt64Clamped(v->d); // a byte count of 1e308 is "very large", not UB
    }
    return -1;
}

std::string recommendationFor(Platform p, MemcpyDirection dir, const Group& g)
{
    const bool npu = p == Platform::TorchNpuCann;
    const std::string dev = npu ? "'npu'" : "'cuda'";
    std::string text;
    if (dir == MemcpyDirection::HostToDevice) {
        if (g.pageable > 0 || g.synchronous > 0)
            text += "Copy from pinned memory without blocking: DataLoader(..., pin_memory=True) (or tensor.pin_memory()) "
                    "and tensor.to(" + dev + ", non_blocking=True), so the copy runs on the copy engine while the "
                    "previous step computes. ";
        else
            text += "Issue the copy earlier or on a separate stream (prefetch the next batch to the device while the "
                    "current one computes) so it overlaps compute. ";
    } else {
        text += "Device-to-host copies stall the pipeline: keep losses and metrics on the device and read them "
                "every N steps instead of calling .item(), .cpu(), .numpy() or .tolist() in each step; if the "
                "values are needed, copy into a pinned buffer with non_blocking=True and synchronise later. ";
    }
    if (g.small > 0)
        text += "Many copies are small: batch them into one tensor before copying (torch.stack/torch.cat on the host) "
                "or create the tensors directly on the device (torch.tensor(..., device=" + dev + ")). ";
    if (npu)
        text += "On Ascend, blocking copies appear as aclrtMemcpy; the asynchronous path is aclrtMemcpyAsync, which "
                "torch_npu uses for non_blocking=True copies from pinned memory.";
    while (!text.empty() && text.back() == ' ')
        text.pop_back();
    return text;
}

} // namespace

PassOutput CopyHotspotPass::run(const model::Trace& trace, const AnalysisOptions& options,
                                const CancelToken& cancel) const
{
    PassOutput out;
    if (trace.metadata().format == "rknn" && trace.categoryCount(model::SliceCategory::Memcpy) == 0) {
        out.notAssessedReason = "RKNN performance tables have no copy rows; input/output conversion is reported by "
                                "the Input/Output operators";
        return out;
    }
    if (!hasDeviceWork(trace)) {
        out.notAssessedReason = "no device work in this trace (host-only run), so there are no host-device copies";
        return out;
    }
    const StepClock clock(trace);

    // Device compute on the same device is the only thing that can hide a copy's cost. Copies are few and
    // compute slices many, so each copy looks up the compute overlapping it instead of building a union.
    std::map<std::int32_t, std::vector<const model::Track*>> computeTracks;
    for (const model::Track& t : trace.tracks()) {
        if (isDeviceTrack(t))
            computeTracks[t.deviceIndex].push_back(&t);
    }
    IntervalList overlapping;
    auto computeDuring = [&](std::int32_t device, model::TimeNs s, model::TimeNs e) -> const IntervalList& {
        overlapping.clear();
        for (const model::Track* t : computeTracks[device]) {
            for (std::size_t d = 0; d < t->depthCount(); ++d) {
                const auto [lo, hi] = t->rangeAtDepth(d, s, e);
                const auto idx = t->slicesAtDepth(d);
                for (std::size_t k = lo; k < hi; ++k) {
                    if (isComputeCategory(t->category(idx[k])))
                        overlapping.push_back({std::max(s, t->ts(idx[k])), std::min(e, t->end(idx[k]))});
                }
            }
        }
        overlapping = unite(std::move(overlapping));
        return overlapping;
    };

    std::map<std::pair<std::string, MemcpyDirection>, std::unique_ptr<Group>> groups;
    CallSiteResolver sites(trace);
    std::size_t seen = 0;
    for (const model::Track& t : trace.tracks()) {
        if (!isDeviceTrack(t))
            continue;
        for (std::uint32_t i = 0; i < t.size(); ++i) {
            if (t.category(i) != model::SliceCategory::Memcpy)
                continue;
            const MemcpyDirection dir = t.direction(i);
            if (dir != MemcpyDirection::HostToDevice && dir != MemcpyDirection::DeviceToHost)
                continue;
            if ((++seen & 0xfff) == 0 && cancel.cancelled())
                return out;
            const model::SliceRef ref {t.id, model::SliceIndex(i)};
            const CallSite site = sites.resolve(ref);
            auto& slot = groups[{site.name, dir}];
            if (!slot)
                slot = std::make_unique<Group>(clock);
            Group& g = *slot;
            const model::TimeNs s = t.ts(i);
            const model::TimeNs e = t.end(i);
            g.copyNs = model::saturatingAdd(g.copyNs, e - s);
            const IntervalList visible = subtract(IntervalList {{s, e}}, computeDuring(t.deviceIndex, s, e));
            model::TimeNs lost = 0;
            for (const Interval& v : visible)
                lost += g.acc.addLoss(v.start, v.end);
            g.acc.countOccurrence();
            const std::int64_t bytes = copyBytes(trace, ref);
            if (bytes >= 0) {
                g.bytes = model::saturatingAdd(g.bytes, bytes);
                ++g.bytesKnown;
                if (bytes < options.smallCopyBytes)
                    ++g.small;
            }
            const bool pageable = t.hostMemory(i) == model::HostMemoryKind::Pageable;
            g.pageable += pageable ? 1 : 0;
            if ((t.flags(i) & model::SliceFlags::kSynchronous) != 0 || site.blocking)
                ++g.synchronous;
            if (lost > 0) {
                g.acc.addEvidence(t.id, s, e);
                g.acc.addEvent(ref);
                if (site.launch.isValid())
                    g.acc.addEvent(site.launch);
            }
        }
    }

    const Platform platform = detectPlatform(trace);
    for (auto& [key, g] : groups) {
        if (g->acc.lostNs() <= 0)
            continue;
        const auto& [site, dir] = key;
        Finding f = g->acc.finish(std::string(kind()));
        f.platform = platform;
        const std::string dirLabel = dir == MemcpyDirection::HostToDevice ? "Host-to-device" : "Device-to-host";
        std::string flags;
        if (g->pageable > 0)
            flags += ", pageable";
        if (g->synchronous > 0)
            flags += ", synchronous";
        if (g->small > 0 && g->small * 2 >= static_cast<std::int64_t>(f.occurrences))
            flags += ", mostly small";
        f.title = dirLabel + " copies from " + site + ": " + formatMs(f.lostNs) + " not overlapped ("
            + std::to_string(f.occurrences) + (f.occurrences == 1 ? " copy" : " copies") + flags + ")";
        f.details.push_back({"call_site", site});
        f.details.push_back({"direction", std::string(model::directionKey(dir))});
        f.details.push_back({"copies", static_cast<std::int64_t>(f.occurrences)});
        f.details.push_back({"copy_ns", g->copyNs});
        f.details.push_back({"overlapped_ns", g->copyNs - f.lostNs});
        if (g->bytesKnown > 0) {
            f.details.push_back({"bytes", g->bytes});
            f.details.push_back({"mean_bytes", g->bytes / g->bytesKnown});
        }
        f.details.push_back({"pageable", g->pageable});
        f.details.push_back({"synchronous", g->synchronous});
        f.details.push_back({"small", g->small});
        f.details.push_back({"small_threshold_bytes", options.smallCopyBytes});
        f.explanation = "These copies ran while the device had no compute to overlap them with, so the step waited "
                        "for the transfer. "
            + std::string(g->pageable > 0 ? "Copies from pageable host memory are staged through a pinned buffer "
                                            "and block the host thread. "
                                          : "")
            + std::string(g->small > 0 ? "Small copies pay a fixed latency each, far above their transfer time. " : "");
        while (!f.explanation.empty() && f.explanation.back() == ' ')
            f.explanation.pop_back();
        f.recommendation = recommendationFor(platform, dir, *g);
        out.findings.push_back(std::move(f));
    }
    return out;
}

} // namespace timesink::analysis
