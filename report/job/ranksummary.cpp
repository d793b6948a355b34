// SPDX-License-Identifier: MIT
#include "report/job/ranksummary.h"

#include "analysis/core/bandwidth.h"
#include "model/importwarning.h"
#include "report/job/ranklimits.h"

#include <cmath>

namespace timesink::report {

namespace {

/// A step of the model as a report step: its breakdown, its exposed communication, its collectives and device
/// activity relative to the step start (analysisjson.cpp writes the same fields).
DraftStep draftStep(const ReportModel& m, std::size_t i)
{
    const StepBreakdown& s = m.steps[i];
    const analysis::StepCommunication* comm = i < m.communication.steps.size() ? &m.communication.steps[i] : nullptr;
    DraftStep d;
    analysis::RankStep& step = d.step;
    step.number = s.number;
    step.startNs = s.startNs;
    step.durationNs = s.durationNs;
    step.computeNs = s.computeNs;
    step.communicationNs = s.communicationNs;
    step.idleNs = s.idleNs;
    step.communicationWaitNs = comm ? comm->waitNs : 0;
    step.communicationTransferNs = comm ? comm->transferNs : 0;
    step.communicationIdleNs = comm ? comm->idleNs : 0;
    if (comm) {
        d.collectivesGiven = comm->collectives.size();
        if (d.collectivesGiven <= kMaxStepCollectives) {
            step.collectives.reserve(d.collectivesGiven);
            for (const analysis::CollectiveOp& c : comm->collectives) {
                analysis::RankCollective rc {c.opKind,
                                             c.start - s.startNs,
                                             c.end - s.startNs,
                                             {},
                                             c.group,
                                             c.groupRanks,
                                             c.seq,
                                             c.peer,
                                             c.bytes,
                                             c.groupSize,
                                             c.linkTransport,
                                             c.linkTransitNs};
                rc.exposed.reserve(c.exposed.size());
                for (const analysis::Interval& e : c.exposed)
                    rc.exposed.push_back({e.start - s.startNs, e.end - s.startNs});
                step.collectives.push_back(std::move(rc));
            }
        }
    }
    if (i < m.stepActivity.size()) {
        step.hasActivity = true;
        step.activity = m.stepActivity[i];
    }
    if (comm) {
        step.hostBeforeFirst = comm->hostBeforeFirst;
        step.hostBeforeFirstNs = comm->hostBeforeFirstNs;
    }
    return d;
}

} // namespace

model::Expected<analysis::RankSummary> rankSummaryFromModel(const ReportModel& m)
{
    const model::TraceMetadata& meta = m.trace.metadata;
    RankReportDraft d;
    analysis::RankSummary& sum = d.summary;
    sum.format = meta.format;
    sum.platform = analysis::platformKey(meta.platform);
    sum.tracePath = meta.sourcePath;
    sum.generator = m.generator;
    sum.analysedNs = m.summary.analysedNs;
    sum.backend = analysis::commBackendKey(m.communication.backend);
    sum.device = analysis::acceleratorName(meta);
    sum.waitFromCommunicationJson = m.communication.communicationJsonOps > 0;
    sum.waitFromTasks = m.communication.waitFromTasks || sum.waitFromCommunicationJson;
    model::mergeRankLinks(sum.links, meta.rankLinks);
    d.rank = meta.rank;
    d.worldSize = meta.worldSize;
    d.traceStartNs = m.trace.startNs;
    d.traceSpanNs = m.trace.spanNs;
    for (const model::ImportWarning& w : m.trace.warnings) {
        if (model::isSeriousImportWarning(w.kind))
            d.seriousImportWarnings.push_back(w.message);
    }
    d.stepsGiven = m.steps.size();
    d.steps.reserve(std::min(m.steps.size(), kMaxReportSteps));
    for (std::size_t i = 0; i < m.steps.size() && i < kMaxReportSteps; ++i)
        d.steps.push_back(draftStep(m, i));
    d.findingsGiven = m.findings.size();
    d.findings.reserve(std::min(m.findings.size(), kMaxReportFindings));
    for (std::size_t i = 0; i < m.findings.size() && i < kMaxReportFindings; ++i) {
        const analysis::Finding& f = m.findings[i];
        // A fraction that is not a number is written as null, which a reader takes as not given (0).
        d.findings.push_back(
            {f.kind, f.title, f.lostNs, std::isfinite(f.lostFraction) ? f.lostFraction : 0.0, f.occurrences});
    }
    return limitRankReport(std::move(d), meta.sourcePath);
}

} // namespace timesink::report
