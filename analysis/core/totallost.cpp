// SPDX-License-Identifier: MIT
#include "analysis/core/totallost.h"

#include "model/checkedmath.h"

namespace timesink::analysis {

model::TimeNs totalLostNs(const AnalysisResult& result)
{
    model::TimeNs total = 0;
    for (const Finding& f : result.findings) {
        // A slow link is why part of the exposed communication took long: that time is the communication
        // finding's already (the slow_link pass caps it there), counted once.
        if (f.kind == "slow_link")
            continue;
        total = model::saturatingAdd(total, f.lostNs);
    }
    return total;
}

double totalLostFraction(const AnalysisResult& result)
{
    return result.analysedNs > 0 ? double(totalLostNs(result)) / double(result.analysedNs) : 0.0;
}

} // namespace timesink::analysis
