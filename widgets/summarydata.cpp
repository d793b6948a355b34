// SPDX-License-Identifier: MIT
#include "widgets/summarydata.h"

#include "analysis/core/stepclock.h"

namespace timesink::widgets {

const char* SummaryData::activityLabel(Activity a)
{
    switch (a) {
    case Compute:
        return "Compute";
    case Communication:
        return "Communication";
    case Copies:
        return "Copies";
    case Dataloader:
        return "Dataloader";
    case Idle:
        return "Idle";
    case ActivityCount:
        break;
    }
    return "";
}

SummaryData SummaryData::compute(const model::Trace& trace, const analysis::AnalysisResult& result,
                                 std::size_t topOperatorCount)
{
    SummaryData out;
    out.steps.reserve(result.stepBreakdown.size());
    for (const analysis::StepBreakdown& s : result.stepBreakdown) {
        StepBreakdown sb;
        sb.number = s.number;
        sb.durationNs = s.durationNs;
        sb.ns[Compute] = s.computeNs;
        sb.ns[Communication] = s.communicationNs;
        sb.ns[Copies] = s.copyNs;
        sb.ns[Dataloader] = s.dataloaderNs;
        sb.ns[Idle] = s.idleNs;
        out.steps.push_back(sb);
    }
    for (const analysis::KindLoss& k : analysis::computeLostByKind(result.findings, result.analysedNs))
        out.lostByKind.push_back(NamedTime {k.kind, k.lostNs, k.findings});
    const analysis::TopOperators top = analysis::computeTopOperators(trace, topOperatorCount);
    out.operatorScope = top.scope;
    for (const analysis::OperatorTime& op : top.operators)
        out.topOperators.push_back(NamedTime {op.name, op.totalNs, op.count});
    out.device = result.device;
    out.deviceHeadline = analysis::busyHeadline(result.device);
    return out;
}

} // namespace timesink::widgets
