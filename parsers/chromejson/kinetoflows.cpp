// SPDX-License-Identifier: MIT
// KinetoSink (kinetosink.h): flow events (s/f/t), the launch correlation join, and resolving flows to tracks.
#include "model/argnames.h"
#include "model/checkedmath.h"
#include "model/tracebuilder.h"
#include "parsers/chromejson/kinetosink.h"

#include <algorithm>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace timesink::parsers::chromejson::kineto {

using model::SliceCategory;
using model::TimeNs;

void KinetoSink::flowEvent(const ChromeEvent& e)
{
    if (!m_flows.keeps(e.ph))
        return; // flow steps add nothing the two ends do not already say
    if (!e.hasTs || !e.hasId) {
        m_b.warn(model::ImportWarningKind::BadFlow, "a flow event without ts or id was skipped");
        return;
    }
    const bool launchCat = isLaunchFlowCategory(e.cat);
    if (launchCat && m_prevCorrelation >= 0 && toInt(e.id) == m_prevCorrelation
        && (e.ph == 's' || hostLaunch(m_prevCorrelation) != nullptr)) {
        // Kineto writes each flow end right after the runtime call or device activity it belongs to; when
        // that event carries the same correlation (and, for an end, its launch is known) the args.correlation
        // join links them, so the flow end adds nothing and is not kept (saves memory on big traces).
        return;
    }
    const std::uint32_t cat = m_flows.category(e.cat);
    const FlowId id = FlowId::parse(e.id, m_flowTexts);
    const std::uint32_t endpoint = flowEndpoint(m_b.intern(e.pid), m_b.intern(threadOf(e.pid, e.tid)));
    m_flows.add(cat, e.ph, id, model::saturatingAdd(e.ts, m_base), endpoint, e.bp == "e");
}

/// The dense number of a flow event's (interned pid, interned tid), for the pairing's compact records.
std::uint32_t KinetoSink::flowEndpoint(model::StringId pid, model::StringId tid)
{
    const std::uint64_t key = (std::uint64_t(pid.value) << 32) | tid.value;
    if (m_lastEndpoint != kNoEndpoint && m_endpoints[m_lastEndpoint] == key)
        return m_lastEndpoint;
    auto [it, inserted] = m_endpointIndex.try_emplace(key, static_cast<std::uint32_t>(m_endpoints.size()));
    if (inserted)
        m_endpoints.push_back(key);
    m_lastEndpoint = it->second;
    return it->second;
}

void KinetoSink::linkCorrelations()
{
    // Runtime call with correlation X → device activity with correlation X (the activities whose launch was
    // not yet seen when they were read; the others were linked in commit()).
    m_corr.join([this](model::SliceRef launch, model::SliceRef activity) {
        m_b.addFlow(launch, activity, model::FlowKind::Launch);
    });
}

void KinetoSink::resolveFlows()
{
    // Track of a flow end: a device stream when there is one for (pid, tid), else the host thread. Keyed by
    // the interned pid and tid (a track's processKey/threadKey are the same pool strings as a flow end's), so
    // a trace with a million threads pays no string building here.
    if (m_flows.empty()) {
        m_flows.clear();
        m_corr.clear();
        return;
    }
    const auto pairKey
        = [](model::StringId pid, model::StringId tid) { return (std::uint64_t(pid.value) << 32) | tid.value; };
    std::unordered_map<std::uint64_t, model::TrackId> byPidTid;
    byPidTid.reserve(m_trackMeta.size());
    for (std::size_t i = 0; i < m_trackMeta.size(); ++i) {
        const TrackMeta& m = m_trackMeta[i];
        if (m.counter || m.placement == Placement::DeviceAnnotation || m.placement == Placement::DeviceSync)
            continue;
        const model::TrackId id(static_cast<std::uint32_t>(i));
        const model::Track& t = m_b.track(id);
        // A described track keeps the source's keys; its flow ends name the exported pid and tid.
        const std::uint64_t k
            = m.described ? pairKey(m_b.intern(m.pid), m_b.intern(m.tid)) : pairKey(t.processKey, t.threadKey);
        auto [it, inserted] = byPidTid.emplace(k, id);
        if (!inserted && m.placement == Placement::DeviceStream)
            it->second = id;
    }
    std::vector<model::TrackId> trackOf(m_endpoints.size());
    for (std::size_t i = 0; i < m_endpoints.size(); ++i) {
        if (auto it = byPidTid.find(m_endpoints[i]); it != byPidTid.end())
            trackOf[i] = it->second;
    }
    m_flows.sort();
    if (const std::uint64_t duplicates = m_flows.duplicateStarts(); duplicates > 0)
        m_b.warn(model::ImportWarningKind::FlowDuplicate, "a flow id has more than one start; the first one was kept",
                 duplicates);
    std::vector<model::FlowKind> kindOf(m_flows.categoryCount());
    for (std::uint32_t c = 0; c < kindOf.size(); ++c) {
        const std::string_view cat = m_flows.categoryText(c);
        kindOf[c] = cat == "fwdbwd"     ? model::FlowKind::ForwardBackward
            : isLaunchFlowCategory(cat) ? model::FlowKind::Launch
                                        : model::FlowKind::Other;
    }
    std::uint64_t unresolved = 0;
    std::uint64_t unpaired = 0;
    m_flows.forEachGroup(
        [&](const FlowGroup& g) {
            const model::FlowKind kind = kindOf[g.category];
            const bool launch = kind == model::FlowKind::Launch;
            const std::int64_t correlation = launch ? flowCorrelation(g.id) : 0;
            // A launch flow names its correlation: when args.correlation already linked the call to its device
            // activities, the flow's ends say nothing more. Bound by time they can say something wrong: the
            // end of a cudaStreamSynchronize's flow lies on the stream's "Stream Sync" event, which is not a
            // track of its own, so "bp":"e" would bind it to the memcpy running at that moment.
            if (launch && correlation >= 0 && m_corr.linked(correlation))
                return;
            if (!g.start && launch && !g.ends.empty()) {
                // The start was folded into its launch (see flowEvent) or is missing: start from the launch.
                if (const model::SliceRef* launcher = m_corr.launch(correlation)) {
                    const model::Track& host = m_b.track(launcher->track);
                    for (const FlowRecord& to : g.ends) {
                        if (const model::TrackId toTrack = trackOf[to.endpoint]; toTrack.isValid())
                            m_b.addFlowAt(launcher->track, host.ts(launcher->index.value), toTrack, to.ts, kind,
                                          to.bindEnclosing);
                        else
                            ++unresolved;
                    }
                    return;
                }
            }
            if (!g.start || g.ends.empty()) {
                ++unpaired;
                return;
            }
            const model::TrackId from = trackOf[g.start->endpoint];
            for (const FlowRecord& to : g.ends) {
                const model::TrackId toTrack = trackOf[to.endpoint];
                if (!from.isValid() || !toTrack.isValid()) {
                    ++unresolved;
                    continue;
                }
                m_b.addFlowAt(from, g.start->ts, toTrack, to.ts, kind, to.bindEnclosing);
            }
        },
        true);
    if (unresolved > 0)
        m_b.warn(model::ImportWarningKind::FlowUnresolved, "flow events on threads without any slice were dropped",
                 unresolved);
    if (unpaired > 0) {
        m_b.warn(model::ImportWarningKind::FlowUnpaired,
                 "flow ids with only a start or only ends (normal for sampled traces; launches are still "
                 "linked through args.correlation)",
                 unpaired);
    }
    m_flows.clear();
    m_flowTexts = FlowTextIds();
    m_endpoints = {};
    m_endpointIndex = {};
    m_corr.clear();
}

} // namespace timesink::parsers::chromejson::kineto
