// SPDX-License-Identifier: MIT
#include "report/reportmodel.h"

#include "analysis/core/deviceactivity.h"
#include "model/checkedmath.h"
#include "model/trackname.h"
#include "report/reportjson.h"

#include <algorithm>

namespace timesink::report {

using model::TimeNs;

ReportModel buildReportModel(const model::Trace& trace, const analysis::AnalysisResult& result,
                             const ReportOptions& options)
{
    ReportModel m;
    m.generator = options.generator;
    const model::TraceMetadata& meta = trace.metadata();
    ReportSummary& s = m.summary;
    s.sourcePath = meta.sourcePath;
    s.format = meta.format;
    s.formatVersion = meta.formatVersion;
    // Only devices with work in this trace: a Kineto trace lists every GPU of the node, one rank uses one.
    for (const model::Device& d : meta.devices) {
        const bool active = std::any_of(trace.tracks().begin(), trace.tracks().end(), [&](const model::Track& t) {
            return model::isDeviceTrack(t) && t.deviceKind == d.kind && t.deviceIndex == d.index && !t.empty();
        });
        if (active)
            s.devices.push_back(d);
    }
    if (s.devices.empty() && analysis::hasDeviceWork(trace))
        s.devices = meta.devices; // device tracks that do not say their index: keep what the trace lists
    s.rank = meta.rank;
    s.worldSize = meta.worldSize;
    s.startNs = trace.startNs();
    s.spanNs = trace.spanNs();
    s.slices = trace.sliceCount();
    s.tracks = trace.tracks().size();
    s.steps = trace.steps().size();
    s.syntheticSteps = s.steps == 1 && trace.steps().front().synthetic;
    s.startupNs = result.startupNs;
    s.warmupStep = result.warmupStep;
    s.warmupExcluded = result.warmupExcluded;
    s.warmupNs = result.warmupNs;
    TimeNs stepTotal = 0;
    for (const model::Step& step : trace.steps())
        stepTotal += step.duration();
    s.meanStepNs = s.steps > 0 ? stepTotal / static_cast<TimeNs>(s.steps) : 0;
    s.analysedNs = result.analysedNs > 0 ? result.analysedNs : stepTotal;
    s.syntheticTimestamps = meta.syntheticTimestamps;
    s.warnings.assign(trace.warnings().begin(), trace.warnings().end());

    m.findings = result.findings;
    m.notAssessed = result.notAssessed;
    m.cancelled = result.cancelled;

    for (const analysis::Finding& f : m.findings)
        s.lostNs = model::saturatingAdd(s.lostNs, f.lostNs);
    s.lostFraction = s.analysedNs > 0 ? static_cast<double>(s.lostNs) / static_cast<double>(s.analysedNs) : 0.0;

    analysis::Breakdown breakdown = analysis::computeBreakdown(trace, m.findings, s.analysedNs, options.topOperators,
                                                               options.analysisOptions.includeWarmup);
    m.steps = std::move(breakdown.steps);
    m.operatorScope = std::move(breakdown.topOperators.scope);
    m.topOperators = std::move(breakdown.topOperators.operators);
    m.lostByKind = std::move(breakdown.lostByKind);
    m.device = std::move(breakdown.device);
    m.communication = analysis::computeCommunicationProfile(trace, analysis::StepClock(trace), analysis::CancelToken());

    m.trackNames.reserve(trace.tracks().size());
    for (const model::Track& t : trace.tracks())
        m.trackNames.push_back(model::trackDisplayName(trace, t));
    m.analysisJson = analysisReportJson(trace, result, options.analysisOptions);
    return m;
}

} // namespace timesink::report
