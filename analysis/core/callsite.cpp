// SPDX-License-Identifier: MIT
#include "analysis/core/callsite.h"

#include "analysis/core/deviceactivity.h"
#include "analysis/core/opclassifier.h"

namespace timesink::analysis {

model::SliceRef CallSiteResolver::outermostHostOp(model::SliceRef hostSlice) const
{
    if (!hostSlice.isValid())
        return {};
    const model::Track& t = m_trace.track(hostSlice.track);
    model::SliceRef found;
    model::SliceIndex i = hostSlice.index;
    // Depth is bounded by the track's depth count, so this walk cannot loop.
    for (std::size_t guard = 0; i.isValid() && guard <= t.depthCount(); ++guard) {
        if (t.category(i.value) == model::SliceCategory::HostOp)
            found = {hostSlice.track, i};
        i = t.parent(i.value);
    }
    return found;
}

model::SliceRef CallSiteResolver::outermostAtenOp(model::SliceRef hostSlice) const
{
    if (!hostSlice.isValid())
        return {};
    const model::Track& t = m_trace.track(hostSlice.track);
    model::SliceRef found;
    model::SliceIndex i = hostSlice.index;
    for (std::size_t guard = 0; i.isValid() && guard <= t.depthCount(); ++guard) {
        if (t.category(i.value) == model::SliceCategory::HostOp
            && m_trace.str(t.sliceName(i.value)).starts_with("aten::"))
            found = {hostSlice.track, i};
        i = t.parent(i.value);
    }
    return found;
}

model::SliceRef CallSiteResolver::launchingAtenOp(model::SliceRef deviceSlice) const
{
    model::SliceRef best;
    for (std::uint32_t index : m_trace.flowIndicesTo(deviceSlice)) {
        const model::Flow& flow = m_trace.flows()[index];
        if (flow.kind != model::FlowKind::Launch || isDeviceTrack(m_trace.track(flow.from.track)))
            continue;
        const model::SliceRef op = outermostAtenOp(flow.from);
        // Independent of flow order: the earliest-listed track wins, then the lower index.
        if (op.isValid() && (!best.isValid() || op < best))
            best = op;
    }
    return best;
}

std::string CallSiteResolver::operatorName(model::SliceRef deviceSlice, std::string_view fallback) const
{
    const model::SliceRef aten = launchingAtenOp(deviceSlice);
    if (aten.isValid())
        return std::string(m_trace.str(m_trace.track(aten.track).sliceName(aten.index.value)));
    const CallSite site = resolve(deviceSlice);
    return site.launch.isValid() ? site.name : std::string(fallback);
}

CallSite CallSiteResolver::resolve(model::SliceRef deviceSlice) const
{
    // A device task can have several launch flows (torch_npu: one from the CANN API call, one from the framework
    // op). The answer must not depend on their order: the launch is a runtime API call when one launched it (else
    // the first source), the op is the first outermost framework op found, and any blocking source makes it
    // blocking.
    CallSite site;
    bool launchIsRuntime = false;
    for (std::uint32_t index : m_trace.flowIndicesTo(deviceSlice)) {
        const model::Flow& flow = m_trace.flows()[index];
        if (flow.kind != model::FlowKind::Launch || isDeviceTrack(m_trace.track(flow.from.track)))
            continue;
        const model::Track& from = m_trace.track(flow.from.track);
        const std::uint32_t i = flow.from.index.value;
        const bool runtime = from.category(i) == model::SliceCategory::RuntimeApi;
        if (!site.launch.isValid() || (runtime && !launchIsRuntime)) {
            site.launch = flow.from;
            launchIsRuntime = runtime;
        }
        const std::string_view launchName = m_trace.str(from.sliceName(i));
        site.blocking = site.blocking || isBlockingRuntimeCall(launchName)
            || (from.flags(i) & model::SliceFlags::kSynchronous) != 0;
        if (!site.op.isValid())
            site.op = outermostHostOp(flow.from);
    }
    // A copy launched asynchronously still blocks the host when the op that launched it then synchronises the
    // stream (aten::copy_ of a pageable tensor: cudaMemcpyAsync, then cudaStreamSynchronize). The sync is a call
    // of its own, later inside the same parent op; a launch flow never binds the copy to it.
    if (!site.blocking && launchIsRuntime
        && m_trace.track(deviceSlice.track).category(deviceSlice.index.value) == model::SliceCategory::Memcpy) {
        const model::Track& t = m_trace.track(site.launch.track);
        const std::uint32_t launch = site.launch.index.value;
        const model::SliceIndex parent = t.parent(launch);
        const model::TimeNs until = parent.isValid() ? t.end(parent.value) : t.end(launch);
        constexpr std::uint32_t kLookAhead = 32; // calls after the launch inside the parent op
        for (std::uint32_t j = launch + 1; j < t.size() && j <= launch + kLookAhead && t.ts(j) < until; ++j) {
            if (t.category(j) == model::SliceCategory::RuntimeApi && t.parent(j) == parent
                && m_trace.str(t.sliceName(j)).find("Synchronize") != std::string_view::npos) {
                site.blocking = true;
                break;
            }
        }
    }
    const model::SliceRef named = site.op.isValid() ? site.op : site.launch;
    site.name = named.isValid() ? std::string(m_trace.str(m_trace.track(named.track).sliceName(named.index.value)))
                                : std::string("unknown call site");
    return site;
}

} // namespace timesink::analysis
