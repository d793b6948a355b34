// SPDX-License-Identifier: MIT
#include "analysis/passes/copyhotspotpass.h"

#include "analysis/core/callsite.h"
#include "analysis/core/context.h"
#include "analysis/core/deviceactivity.h"
#include "analysis/core/findingaccumulator.h"
#include "analysis/core/opclassifier.h"
#include "analysis/core/textformat.h"
#include "model/argnames.h"
#include "model/checkedmath.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <span>

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
    // Host-to-device copies of float32 image batches (N×3×H×W), which uint8 would make 4× smaller.
    std::int64_t imageCopies = 0;
    std::int64_t imageBytes = 0;
    std::string imageShape; // "32×3×224×224", the first one seen
    // Device-to-host copies: the Python line that asked for them (.item(), .cpu(), .numpy()), by count.
    std::map<std::string, std::int64_t> pythonLines;
    std::vector<model::SliceRef> copies; // every copy of the group, for re-timing it asynchronous (WhatIf)
    // Per copy (parallel to `copies`): the part of its time no compute hides, for the prefetch budget (prefetchCopies).
    std::vector<model::TimeNs> visibleNs;
    // The copies the prefetch rule hides behind the previous step's compute, and the share of each that stays.
    std::vector<model::SliceRef> prefetched;
    std::vector<double> prefetchScales;
    model::TimeNs hiddenNs = 0; // copy time the prefetch rule hides
    // Blocking calls that ran a host-to-device copy of the group as their own work (cudaMemcpy, aclrtMemcpy): made
    // asynchronous, the call returns at once (WhatIf::removedHost), where the step graph counts the copy in its time.
    std::vector<model::SliceRef> blockingLaunches;
};

// The first tensor's dims and dtype of a framework op recorded with record_shapes: Kineto writes
// "Input Dims" = "[[32, 3, 224, 224], [], …]" and "Input type" = ["float", …], torch_npu
// "32,3,224,224;\r\n;…" and "float;\r\nScalar…".
struct FirstInput
{
    std::vector<std::int64_t> dims;
    std::string type;
};

FirstInput firstInput(const model::Trace& trace, model::SliceRef op)
{
    FirstInput in;
    const std::optional<model::ArgValue> dims = trace.arg(op, model::argnames::kInputDims);
    const std::optional<model::ArgValue> type = trace.arg(op, model::argnames::kInputType);
    if (!dims.has_value() || !type.has_value() || dims->type != model::ArgValue::Type::String
        || type->type != model::ArgValue::Type::String)
        return in;
    const std::string_view d = trace.str(model::StringId(dims->s));
    std::size_t i = d.find_first_not_of("[ ");
    std::int64_t value = -1;
    for (; i < d.size() && d[i] != ']' && d[i] != ';'; ++i) {
        const char c = d[i];
        if (c >= '0' && c <= '9') {
            value = (value < 0 ? 0 : value) * 10 + (c - '0');
            if (value > (std::int64_t(1) << 40))
                return {};
        } else if (c == ',') {
            if (value < 0)
                return {};
            in.dims.push_back(value);
            value = -1;
        } else if (c != ' ') {
            return {};
        }
    }
    if (value >= 0)
        in.dims.push_back(value);
    const std::string_view t = trace.str(model::StringId(type->s));
    const std::size_t b = t.find_first_not_of("[\" ");
    if (b != std::string_view::npos)
        in.type = std::string(t.substr(b, t.find_first_of("\";,\r\n", b) - b));
    return in;
}

// A Python frame that belongs to the user's program rather than to PyTorch or the standard library.
bool isUserFrame(std::string_view frame)
{
    return !frame.empty() && frame.find("site-packages") == std::string_view::npos
        && frame.find("dist-packages") == std::string_view::npos && !frame.starts_with("torch/")
        && frame.find("/torch/") == std::string_view::npos && !frame.starts_with("<built-in")
        && !frame.starts_with("nn.Module:") && frame.find("multiprocessing/") == std::string_view::npos;
}

// The user's Python line behind a framework op: the innermost user frame of its "Call stack" arg
// (torch_npu, with_stack=True) or of the Python frames enclosing it (Kineto, with_stack=True).
std::string pythonLine(const model::Trace& trace, model::SliceRef op)
{
    if (!op.isValid())
        return {};
    if (const std::optional<model::ArgValue> v = trace.arg(op, model::argnames::kCallStack);
        v.has_value() && v->type == model::ArgValue::Type::String) {
        std::string_view stack = trace.str(model::StringId(v->s));
        while (!stack.empty()) {
            const std::size_t semi = stack.find(';');
            std::string_view frame = stack.substr(0, semi);
            while (!frame.empty() && (frame.front() == '\r' || frame.front() == '\n' || frame.front() == ' '))
                frame.remove_prefix(1);
            if (isUserFrame(frame))
                return std::string(frame);
            if (semi == std::string_view::npos)
                break;
            stack.remove_prefix(semi + 1);
        }
    }
    const model::Track& t = trace.track(op.track);
    model::SliceIndex i = t.parent(op.index.value);
    for (std::size_t guard = 0; i.isValid() && guard <= t.depthCount(); ++guard) {
        if (t.category(i.value) == model::SliceCategory::PythonFrame) {
            const std::string_view frame = trace.str(t.sliceName(i.value));
            if (isUserFrame(frame))
                return std::string(frame);
        }
        i = t.parent(i.value);
    }
    return {};
}

std::int64_t copyBytes(const model::Trace& trace, model::SliceRef ref)
{
    for (std::string_view key : {"bytes", "size(Byte)", "Size", "size", "bytes_transferred"}) {
        const std::optional<model::ArgValue> v = trace.arg(ref, key);
        if (!v.has_value())
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
            text += "Copy from pinned memory without blocking: DataLoader(..., pin_memory=True) (or "
                    "tensor.pin_memory()) "
                    "and tensor.to("
                + dev
                + ", non_blocking=True), so the copy runs on the copy engine while the "
                  "previous step computes. ";
        else
            text += "Issue the copy earlier or on a separate stream (prefetch the next batch to the device while the "
                    "current one computes) so it overlaps compute. ";
    } else {
        text += "Device-to-host copies stall the pipeline: keep losses and metrics on the device and read them "
                "every N steps instead of calling .item(), .cpu(), .numpy() or .tolist() in each step; if the "
                "values are needed, copy into a pinned buffer with non_blocking=True and synchronise later. ";
    }
    if (dir == MemcpyDirection::HostToDevice && g.imageCopies > 0)
        text += "These copies carry float32 image batches (" + g.imageShape
            + "): send the images as uint8 and "
              "normalise on the device — drop ToTensor()/Normalize from the DataLoader's transforms (use "
              "transforms.PILToTensor() or torchvision.io.decode_image), then "
              "x = (x.to("
            + dev
            + ", non_blocking=True).float() / 255 - mean) / std — a quarter of the bytes, "
              "saving "
            + formatBytes(g.imageBytes / 4 * 3) + " over these " + std::to_string(g.imageCopies)
            + (g.imageCopies == 1 ? " copy" : " copies") + " and the loader workers' normalisation time. ";
    if (dir == MemcpyDirection::DeviceToHost && !g.pythonLines.empty()) {
        const auto top = std::max_element(g.pythonLines.begin(), g.pythonLines.end(),
                                          [](const auto& a, const auto& b) { return a.second < b.second; });
        text += "The copy is asked for at " + top->first + ". ";
    }
    if (g.small > 0)
        text += "Many copies are small: batch them into one tensor before copying (torch.stack/torch.cat on the host) "
                "or create the tensors directly on the device (torch.tensor(..., device="
            + dev + ")). ";
    if (npu)
        text += "On Ascend, blocking copies appear as aclrtMemcpy; the asynchronous path is aclrtMemcpyAsync, which "
                "torch_npu uses for non_blocking=True copies from pinned memory.";
    while (!text.empty() && text.back() == ' ')
        text.pop_back();
    return text;
}

/// The device compute that can hide a copy's cost, per device. Copies are few and compute slices many, so each copy
/// looks up the compute overlapping it instead of building a union.
class ComputeLookup
{
public:
    explicit ComputeLookup(const model::Trace& trace)
    {
        for (const model::Track& t : trace.tracks()) {
            if (isDeviceTrack(t))
                m_tracks[t.deviceIndex].push_back(&t);
        }
    }

    /// The compute on `device` during [s, e), clipped to it and united; valid until the next call.
    const IntervalList& during(std::int32_t device, model::TimeNs s, model::TimeNs e)
    {
        m_overlapping.clear();
        if (const auto it = m_tracks.find(device); it != m_tracks.end()) {
            for (const model::Track* t : it->second) {
                t->forEachInRange(s, e, [&](std::uint32_t i) {
                    if (isComputeCategory(t->category(i)))
                        m_overlapping.push_back({std::max(s, t->ts(i)), std::min(e, t->end(i))});
                });
            }
        }
        m_overlapping = unite(std::move(m_overlapping));
        return m_overlapping;
    }

private:
    std::map<std::int32_t, std::vector<const model::Track*>> m_tracks;
    IntervalList m_overlapping;
};

/// Counts a host-to-device copy in the group when it carries a float32 image batch N×3×H×W (whose size, when the
/// trace has it, is exactly N·3·H·W·4 bytes).
void noteImageBatch(const model::Trace& trace, const CallSiteResolver& sites, model::SliceRef ref, std::int64_t bytes,
                    Group& g)
{
    const model::SliceRef op = sites.launchingAtenOp(ref);
    const FirstInput in = op.isValid() ? firstInput(trace, op) : FirstInput {};
    // Bounded sizes keep the byte arithmetic far from overflow on malformed shapes.
    if (in.dims.size() == 4 && in.dims[1] == 3 && in.dims[2] >= 16 && in.dims[3] >= 16 && in.dims[0] <= (1 << 20)
        && in.dims[2] <= 65536 && in.dims[3] <= 65536 && in.type == "float") {
        const std::int64_t imageBytes = in.dims[0] * 3 * in.dims[2] * in.dims[3] * 4;
        if (bytes < 0 || bytes == imageBytes) {
            ++g.imageCopies;
            g.imageBytes += imageBytes;
            if (g.imageShape.empty())
                g.imageShape = std::to_string(in.dims[0]) + "×3×" + std::to_string(in.dims[2]) + "×"
                    + std::to_string(in.dims[3]);
        }
    }
}

/// One copy (slice `i` of device track `t`) into its call site's group: the part no compute hides is lost; its
/// size, host memory, synchrony, and what it carries or where in Python it came from are counted.
void addCopy(const model::Trace& trace, const model::Track& t, std::uint32_t i, const CallSite& site,
             const CallSiteResolver& sites, ComputeLookup& compute, const AnalysisOptions& options, Group& g)
{
    const model::SliceRef ref {t.id, model::SliceIndex(i)};
    const MemcpyDirection dir = t.direction(i);
    const model::TimeNs s = t.ts(i);
    const model::TimeNs e = t.end(i);
    g.copyNs = model::saturatingAdd(g.copyNs, e - s);
    const IntervalList visible = subtract(IntervalList {{s, e}}, compute.during(t.deviceIndex, s, e));
    model::TimeNs lost = 0;
    for (const Interval& v : visible)
        lost += g.acc.addLoss(v.start, v.end);
    g.acc.countOccurrence();
    g.copies.push_back(ref);
    g.visibleNs.push_back(totalLength(visible));
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
    if (dir == MemcpyDirection::HostToDevice) {
        noteImageBatch(trace, sites, ref, bytes, g);
        if (site.launch.isValid()) {
            const model::Track& lt = trace.track(site.launch.track);
            const std::uint32_t li = site.launch.index.value;
            const std::string_view name = trace.str(lt.sliceName(li));
            if (lt.category(li) == model::SliceCategory::RuntimeApi
                && name.find("Synchronize") == std::string_view::npos
                && (isBlockingRuntimeCall(name) || (lt.flags(li) & model::SliceFlags::kSynchronous) != 0))
                g.blockingLaunches.push_back(site.launch);
        }
    } else if (const std::string line = pythonLine(trace, site.op.isValid() ? site.op : site.launch); !line.empty())
        ++g.pythonLines[line];
    if (lost > 0) {
        g.acc.addEvidence(t.id, s, e);
        g.acc.addEvent(ref);
        if (site.launch.isValid())
            g.acc.addEvent(site.launch);
    }
}

/// The prefetch rule (issue 46): a host-to-device copy of analysed step i can be prefetched on a copy stream while
/// the previous analysed step computes on the same device, where that compute overlaps no host-to-device copy (the
/// copy engine is free there). That budget, per (previous step, device), is given out once across the copies of
/// every group, in time order, each copy taking up to its whole duration; only copies with time no compute hides
/// ask for it. Copies of the first analysed step, or whose previous step has no compute on their device, get none.
/// Each group records its hidden copies and the share of each copy's time that stays (unhidden / duration).
void prefetchCopies(const model::Trace& trace, const StepClock& clock, ComputeLookup& compute,
                    const std::map<std::int32_t, IntervalList>& hostToDevice, std::span<Group* const> groups)
{
    struct Candidate
    {
        model::TimeNs start;
        model::SliceRef ref;
        Group* group;
    };
    std::vector<Candidate> candidates;
    for (Group* g : groups) {
        for (std::size_t i = 0; i < g->copies.size(); ++i) {
            if (g->visibleNs[i] > 0) {
                const model::SliceRef ref = g->copies[i];
                candidates.push_back({trace.track(ref.track).ts(ref.index.value), ref, g});
            }
        }
    }
    std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
        return std::pair(a.start, a.ref) < std::pair(b.start, b.ref);
    });
    std::map<std::pair<std::size_t, std::int32_t>, model::TimeNs> budget; // (previous step, device) → time left
    for (const Candidate& c : candidates) {
        const model::Track& t = trace.track(c.ref.track);
        const model::TimeNs duration = t.end(c.ref.index.value) - c.start;
        const std::size_t step = clock.stepAt(c.start);
        if (duration <= 0 || step >= clock.size())
            continue;
        std::size_t prev = step;
        while (prev > 0 && clock.window(prev - 1).end <= clock.window(prev - 1).start)
            --prev; // skips empty windows (a warm-up step left out, a step squeezed out by its neighbours)
        if (prev == 0)
            continue; // the first analysed step: nothing computes before it
        const Interval& window = clock.window(prev - 1);
        const auto [it, added] = budget.try_emplace({prev - 1, t.deviceIndex}, 0);
        if (added) {
            IntervalList free = compute.during(t.deviceIndex, window.start, window.end);
            if (const auto copies = hostToDevice.find(t.deviceIndex); copies != hostToDevice.end())
                free = subtract(free, clip(copies->second, window.start, window.end));
            it->second = totalLength(free);
        }
        const model::TimeNs hidden = std::min(duration, it->second);
        if (hidden <= 0)
            continue;
        it->second -= hidden;
        c.group->prefetched.push_back(c.ref);
        c.group->prefetchScales.push_back(static_cast<double>(duration - hidden) / static_cast<double>(duration));
        c.group->hiddenNs = model::saturatingAdd(c.group->hiddenNs, hidden);
    }
}

/// The finding of one group: the copies of one direction from one call site.
Finding copyFinding(Group& g, const std::string& site, MemcpyDirection dir, std::string_view kind, Platform platform,
                    const AnalysisOptions& options)
{
    Finding f = g.acc.finish(std::string(kind));
    f.platform = platform;
    f.whatIf.asyncCopies = std::move(g.copies);
    // A prefetched copy stays asynchronous and keeps the part of its time the budget could not hide: the work after
    // it waits for that part only (stepgraph: a scaled, detached operation).
    f.whatIf.scaledDevice = std::move(g.prefetched);
    f.whatIf.scales = std::move(g.prefetchScales);
    // The host no longer waits: a blocking call whose own work was the copy returns at once (non_blocking=True).
    std::sort(g.blockingLaunches.begin(), g.blockingLaunches.end());
    g.blockingLaunches.erase(std::unique(g.blockingLaunches.begin(), g.blockingLaunches.end()),
                             g.blockingLaunches.end());
    f.whatIf.removedHost = std::move(g.blockingLaunches);
    if (dir == MemcpyDirection::HostToDevice)
        f.savingRule = "These copies become asynchronous (pinned memory, non_blocking=True) and are prefetched on a "
                       "copy stream during the previous step's compute: the host no longer waits for them, they "
                       "leave their stream's order, and the work after them waits only for the part that compute "
                       "cannot hide. The budget is the previous analysed step's device compute on the same device "
                       "that no host-to-device copy already overlaps, shared by all host-to-device copy findings in "
                       "time order (so fixing all of them hides no more than it); copies of the first analysed step, "
                       "or after a step without compute, are only made asynchronous"
            + (g.hiddenNs > 0 ? " (" + formatDuration(g.hiddenNs) + " of these copies hidden)." : ".");
    else
        f.savingRule = "These copies become asynchronous (a pinned buffer, non_blocking=True, a copy stream): the "
                       "host no longer waits for them and they leave their stream's order, but the work after them "
                       "on that stream still waits for their data. They are not prefetched: a device-to-host copy "
                       "carries what this step computed, so no earlier compute can hide it.";
    const std::string dirLabel = dir == MemcpyDirection::HostToDevice ? "Host-to-device" : "Device-to-host";
    std::string flags;
    if (g.pageable > 0)
        flags += ", pageable";
    if (g.synchronous > 0)
        flags += ", synchronous";
    if (g.small > 0 && g.small * 2 >= static_cast<std::int64_t>(f.occurrences))
        flags += ", mostly small";
    f.title = dirLabel + " copies from " + site + ": " + formatDuration(f.lostNs) + " not overlapped ("
        + std::to_string(f.occurrences) + (f.occurrences == 1 ? " copy" : " copies") + flags + ")";
    f.details.push_back({"call_site", site});
    f.details.push_back({"direction", std::string(model::directionKey(dir))});
    f.details.push_back({"copies", static_cast<std::int64_t>(f.occurrences)});
    f.details.push_back({"copy_ns", g.copyNs});
    f.details.push_back({"overlapped_ns", g.copyNs - f.lostNs});
    if (g.bytesKnown > 0) {
        f.details.push_back({"bytes", g.bytes});
        f.details.push_back({"mean_bytes", g.bytes / g.bytesKnown});
    }
    f.details.push_back({"pageable", g.pageable});
    f.details.push_back({"synchronous", g.synchronous});
    f.details.push_back({"small", g.small});
    f.details.push_back({"small_threshold_bytes", options.smallCopyBytes});
    if (g.imageCopies > 0) {
        f.details.push_back({"float32_image_copies", g.imageCopies});
        f.details.push_back({"image_shape", g.imageShape});
        f.details.push_back({"uint8_saving_bytes", g.imageBytes / 4 * 3});
    }
    if (!g.pythonLines.empty()) {
        std::string lines;
        for (const auto& [line, n] : g.pythonLines)
            lines += (lines.empty() ? "" : ", ") + line + " ×" + std::to_string(n);
        f.details.push_back({"python_lines", lines});
    }
    f.explanation = "These copies ran while the device had no compute to overlap them with, so the step waited "
                    "for the transfer. "
        + std::string(g.pageable > 0 ? "Copies from pageable host memory are staged through a pinned buffer "
                                       "and block the host thread. "
                                     : "")
        + std::string(g.small > 0 ? "Small copies pay a fixed latency each, far above their transfer time. " : "");
    while (!f.explanation.empty() && f.explanation.back() == ' ')
        f.explanation.pop_back();
    f.recommendation = recommendationFor(platform, dir, g);
    return f;
}

} // namespace

PassOutput CopyHotspotPass::run(const AnalysisContext& context) const
{
    const model::Trace& trace = context.trace();
    const AnalysisOptions& options = context.options();
    const CancelToken& cancel = context.cancel();
    PassOutput out;
    if (trace.metadata().platform == model::Platform::Rknn && trace.categoryCount(model::SliceCategory::Memcpy) == 0) {
        out.notAssessedReason = "RKNN performance tables have no copy rows; input/output conversion is reported by "
                                "the Input/Output operators";
        return out;
    }
    if (std::string why = context.noDeviceWorkReason("there are no host-device copies"); !why.empty())
        return PassOutput::notAssessed(std::move(why));
    const StepClock& clock = context.clock();
    ComputeLookup compute(trace);
    std::map<std::pair<std::string, MemcpyDirection>, std::unique_ptr<Group>> groups;
    std::map<std::int32_t, IntervalList> hostToDevice; // every host-to-device copy, per device (prefetchCopies)
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
            if (dir == MemcpyDirection::HostToDevice)
                hostToDevice[t.deviceIndex].push_back({t.ts(i), t.end(i)});
            const CallSite site = sites.resolve({t.id, model::SliceIndex(i)});
            auto& slot = groups[{site.name, dir}];
            if (!slot)
                slot = std::make_unique<Group>(clock);
            addCopy(trace, t, i, site, sites, compute, options, *slot);
        }
    }
    for (auto& [device, list] : hostToDevice)
        list = unite(std::move(list));
    std::vector<Group*> prefetchable; // the host-to-device groups that make a finding
    for (auto& [key, g] : groups) {
        if (key.second == MemcpyDirection::HostToDevice && g->acc.lostNs() > 0)
            prefetchable.push_back(g.get());
    }
    prefetchCopies(trace, clock, compute, hostToDevice, prefetchable);
    const Platform platform = trace.metadata().platform;
    for (auto& [key, g] : groups) {
        if (g->acc.lostNs() > 0)
            out.findings.push_back(copyFinding(*g, key.first, key.second, kind(), platform, options));
    }
    return out;
}

} // namespace timesink::analysis
