// SPDX-License-Identifier: MIT
#include "analysis/callsite.h"

#include "analysis/deviceactivity.h"
#include "analysis/opclassifier.h"

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

CallSite CallSiteResolver::resolve(model::SliceRef deviceSlice) const
{
    CallSite site;
    for (std::uint32_t index : m_trace.flowsTo(deviceSlice)) {
        const model::Flow& flow = m_trace.flows()[index];
        if (flow.kind != model::FlowKind::Launch || isDeviceTrack(m_trace.track(flow.from.track)))
            continue;
        const model::Track& from = m_trace.track(flow.from.track);
        const std::string_view launchName = m_trace.str(from.sliceName(flow.from.index.value));
        const model::SliceRef op = outermostHostOp(flow.from);
        if (!site.launch.isValid()) {
            site.launch = flow.from;
            site.name = std::string(launchName);
        }
        site.blocking = site.blocking || isBlockingRuntimeCall(launchName)
            || (from.flags(flow.from.index.value) & model::SliceFlags::kSynchronous) != 0;
        if (op.isValid()) {
            site.op = op;
            site.name = std::string(m_trace.str(m_trace.track(op.track).sliceName(op.index.value)));
            break;
        }
    }
    if (site.name.empty())
        site.name = "unknown call site";
    return site;
}

} // namespace timesink::analysis
