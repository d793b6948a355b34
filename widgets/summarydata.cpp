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

SummaryData SummaryData::compute(const model::Trace& trace, const std::vector<analysis::Finding>& findings,
                                 std::size_t topOperatorCount)
{
    SummaryData out;
    const analysis::Breakdown b
        = analysis::computeBreakdown(trace, findings, analysis::StepClock(trace).analysedNs(), topOperatorCount);
    out.steps.reserve(b.steps.size());
    for (const analysis::StepBreakdown& s : b.steps) {
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
    for (const analysis::KindLoss& k : b.lostByKind)
        out.lostByKind.push_back(NamedTime {k.kind, k.lostNs, k.findings});
    out.operatorScope = b.topOperators.scope;
    for (const analysis::OperatorTime& op : b.topOperators.operators)
        out.topOperators.push_back(NamedTime {op.name, op.totalNs, op.count});
    out.device = b.device;
    out.deviceHeadline = analysis::busyHeadline(b.device);
    return out;
}

} // namespace timesink::widgets
