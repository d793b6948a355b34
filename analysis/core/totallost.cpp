// SPDX-License-Identifier: MIT
#include "analysis/core/totallost.h"

#include "model/checkedmath.h"

namespace timesink::analysis {

model::TimeNs totalLostNs(const AnalysisResult& result)
{
    model::TimeNs total = 0;
    for (const Finding& f : result.findings)
        total = model::saturatingAdd(total, f.lostNs);
    return total;
}

double totalLostFraction(const AnalysisResult& result)
{
    return result.analysedNs > 0 ? double(totalLostNs(result)) / double(result.analysedNs) : 0.0;
}

} // namespace timesink::analysis
