// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/pass.h"
#include "model/types.h"

namespace timesink::analysis {

/// Sum of the findings' lost time. Idle-based kinds never overlap each other; a copy or chain kernel can
/// also appear in another kind, so this is an upper bound of what fixing everything would save. `slow_link` is
/// not added: its time lies inside the exposed communication it explains.
model::TimeNs totalLostNs(const AnalysisResult& result);
/// totalLostNs / analysed wall time (0 when nothing was analysed). `analyze --fail-above` gates on it.
double totalLostFraction(const AnalysisResult& result);

} // namespace timesink::analysis
