// SPDX-License-Identifier: MIT
#include "report/analysis/reportmodel.h"

#include "analysis/core/deviceactivity.h"
#include "analysis/core/totallost.h"
#include "model/trackname.h"
#include "report/analysis/tracesummary.h"

#include <algorithm>
#include <unordered_set>

namespace timesink::report {

using model::TimeNs;

ReportModel buildReportModel(const model::Trace& trace, const analysis::AnalysisResult& result,
                             const ReportOptions& options)
{
    ReportModel m;
    m.generator = options.generator;
    m.options = options.analysisOptions;
    m.trace = summarizeTrace(trace);
    m.efficiency = result.efficiency
        ? result.efficiency
        : std::make_shared<const analysis::efficiency::EfficiencyReport>(
            analysis::efficiency::computeEfficiency(trace, analysis::efficiency::builtinPeakTable()));
    const model::TraceMetadata& meta = m.trace.metadata;
    ReportSummary& s = m.summary;
    // Only devices with work in this trace: a Kineto trace lists every GPU of the node, one rank uses one.
    // One pass over the tracks, then one lookup per device (a trace may have 100,000s of both).
    auto deviceKey = [](model::DeviceKind kind, std::int32_t index) {
        return (std::uint64_t(kind) << 32U) | std::uint32_t(index);
    };
    std::unordered_set<std::uint64_t> activeDevices;
    for (const model::Track& t : trace.tracks()) {
        if (model::isDeviceTrack(t) && !t.empty())
            activeDevices.insert(deviceKey(t.deviceKind, t.deviceIndex));
    }
    for (const model::Device& d : meta.devices) {
        if (activeDevices.count(deviceKey(d.kind, d.index)) > 0)
            s.devices.push_back(d);
    }
    if (s.devices.empty() && analysis::hasDeviceWork(trace))
        s.devices = meta.devices; // device tracks that do not say their index: keep what the trace lists
    s.syntheticSteps = m.trace.steps == 1 && trace.steps().front().synthetic;
    s.startupNs = result.startupNs;
    s.warmupStep = result.warmupStep;
    s.warmupExcluded = result.warmupExcluded;
    s.warmupNs = result.warmupNs;
    TimeNs stepTotal = 0;
    for (const model::Step& step : trace.steps())
        stepTotal += step.duration();
    s.meanStepNs = m.trace.steps > 0 ? stepTotal / static_cast<TimeNs>(m.trace.steps) : 0;
    s.analysedNs = result.analysedNs;

    m.findings = result.findings;
    m.notAssessed = result.notAssessed;
    m.cancelled = result.cancelled;

    s.savingNs = result.savingNs;
    s.savingFraction = result.savingFraction;
    s.cyclicSteps = result.cyclicSteps;
    s.inconsistentSteps = result.inconsistentSteps;
    s.criticalPathNotAssessed = result.criticalPathNotAssessed;
    for (const analysis::StepCriticalPath& p : result.criticalPaths)
        s.criticalPathSteps += p.assessed ? 1 : 0;
    m.criticalPaths = result.criticalPaths;
    m.stepActivity = result.stepActivity;
    for (analysis::StepCriticalPath& p : m.criticalPaths)
        p.segments = {}; // the reports write the composition; the GUI draws the segments from the result
    s.lostNs = analysis::totalLostNs(result);
    s.lostFraction = analysis::totalLostFraction(result);
    m.findingEvents.reserve(m.findings.size());
    for (const analysis::Finding& f : m.findings) {
        std::vector<FindingEvent>& events = m.findingEvents.emplace_back();
        for (const model::SliceRef& r : f.events) {
            if (!r.isValid() || r.track.value >= trace.tracks().size())
                continue;
            const model::Track& t = trace.track(r.track);
            if (r.index.value >= t.size())
                continue;
            FindingEvent e;
            e.ref = r;
            e.name = std::string(trace.str(t.sliceName(r.index.value)));
            e.startNs = t.ts(r.index.value);
            e.endNs = t.end(r.index.value);
            events.push_back(std::move(e));
        }
    }

    // The step split, device summary and collectives are analyze()'s; the operator table depends on the report's
    // length and the loss by kind on the findings kept.
    m.steps = result.stepBreakdown;
    analysis::TopOperators top = analysis::computeTopOperators(trace, options.topOperators);
    m.operatorScope = std::move(top.scope);
    m.topOperators = std::move(top.operators);
    m.lostByKind = analysis::computeLostByKind(m.findings, s.analysedNs);
    m.device = result.device;
    m.communication = result.communication;

    m.trackNames.reserve(trace.tracks().size());
    for (const model::Track& t : trace.tracks())
        m.trackNames.push_back(model::trackDisplayName(trace, t));
    return m;
}

} // namespace timesink::report
