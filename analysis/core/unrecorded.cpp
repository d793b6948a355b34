// SPDX-License-Identifier: MIT
#include "analysis/core/unrecorded.h"

#include "analysis/core/deviceactivity.h"
#include "analysis/core/opclassifier.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace timesink::analysis {

bool isGraphLaunchCall(std::string_view name)
{
    if (name.starts_with("AscendCL@"))
        name.remove_prefix(9);
    static constexpr std::array<std::string_view, 5> kNames
        = {"cudaGraphLaunch", "hipGraphLaunch", "aclmdlExecute", "aclmdlExecuteAsync", "aclmdlRIExecuteAsync"};
    // cudaGraphLaunch_v10000 and the like are the same call.
    return std::any_of(kNames.begin(), kNames.end(), [&](std::string_view n) {
        return name.starts_with(n) && (name.size() == n.size() || name[n.size()] == '_');
    });
}

namespace {

// The first recorded busy start at or after t (−1: none).
model::TimeNs nextBusyStart(const IntervalList& busy, model::TimeNs t)
{
    const auto it = std::partition_point(busy.begin(), busy.end(), [&](const Interval& i) { return i.end <= t; });
    if (it == busy.end())
        return -1;
    return std::max(it->start, t);
}

} // namespace

IntervalList unrecordedDeviceWork(const model::Trace& trace, const IntervalList& busy)
{
    IntervalList out;
    if (busy.empty())
        return out;
    // Held launches: from runtime calls only (cudaLaunchKernel, aclrtMemcpyAsync, CANN's Node@launch). A framework
    // op that enqueued the work (torch_npu's async_npu flows) says nothing about when the task queue launched it, so
    // an operation linked only to one is never held. Of several runtime launches, the last counts.
    const std::span<const model::Flow> flows = trace.flows();
    const auto held = [&](model::SliceRef op, model::TimeNs called) {
        const model::TimeNs started = trace.track(op.track).ts(op.index.value);
        if (started - called < kUnrecordedMinNs)
            return;
        for (const Interval& r : subtract(IntervalList {{called, started}}, clip(busy, called, started))) {
            if (r.length() >= kUnrecordedMinNs)
                out.push_back(r);
        }
    };
    model::SliceRef op;
    model::TimeNs called = 0;
    for (const std::uint32_t k : trace.flowIndicesByTarget()) {
        const model::Flow& f = flows[k];
        if (!isDeviceLaunch(trace, f)
            || trace.track(f.from.track).category(f.from.index.value) != model::SliceCategory::RuntimeApi)
            continue;
        const model::TimeNs returned = trace.track(f.from.track).end(f.from.index.value);
        if (op.isValid() && f.to == op) {
            called = std::max(called, returned);
            continue;
        }
        if (op.isValid())
            held(op, called);
        op = f.to;
        called = returned;
    }
    if (op.isValid())
        held(op, called);
    // Graph launches whose work the trace does not hold (names judged once per string: a trace has millions of
    // runtime calls but few names).
    std::vector<std::uint8_t> graphName(trace.strings().size(), 0xff);
    const auto isGraph = [&](model::StringId name) {
        if (name.value >= graphName.size())
            return false;
        std::uint8_t& g = graphName[name.value];
        if (g == 0xff)
            g = isGraphLaunchCall(trace.str(name)) ? 1 : 0;
        return g == 1;
    };
    for (const model::Track& t : trace.tracks()) {
        if (isDeviceTrack(t) || t.role == model::TrackRole::Counter)
            continue;
        for (std::uint32_t i = 0; i < t.size(); ++i) {
            if (t.category(i) != model::SliceCategory::RuntimeApi || !isGraph(t.sliceName(i)))
                continue;
            bool recorded = false;
            for (const model::Flow& f : trace.flowsFrom({t.id, model::SliceIndex(i)}))
                recorded = recorded || isDeviceLaunch(trace, f);
            if (recorded)
                continue;
            const model::TimeNs from = t.ts(i);
            const model::TimeNs next = nextBusyStart(busy, from); // −1: no recorded work after it
            model::TimeNs to = next >= 0 ? next : t.end(i);
            // The wait that ends it: the first blocking call on this thread after the launch (before the next
            // recorded work; with none after it, the wait alone says how long the graph ran).
            for (std::uint32_t k = i + 1; k < t.size() && (next < 0 || t.ts(k) < next); ++k) {
                if (isBlockingRuntimeCall(trace.str(t.sliceName(k)))) {
                    to = next >= 0 ? std::min(next, t.end(k)) : t.end(k);
                    break;
                }
            }
            if (to > from)
                out.push_back({from, to});
        }
    }
    return subtract(unite(std::move(out)), busy);
}

} // namespace timesink::analysis
