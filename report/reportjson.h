// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/pass.h"
#include "model/types.h"

#include <nlohmann/json.hpp>

namespace timesink::report {

/// Schema tag of the analysis report object.
inline constexpr const char* kReportSchema = "timesink.report/1";

struct ReportModel;

/// One finding of a report model, `index` into ReportModel::findings (rank = index + 1):
/// {"rank", "kind", "title", "lost_ns", "lost_fraction", "occurrences", "platform",
///  "per_step": [{"step", "step_index", "lost_ns", "step_ns"}],
///  "evidence": [{"track", "track_name", "start_ns", "end_ns"}], "evidence_omitted",
///  "events": [{"track", "index", "name", "start_ns", "end_ns"}],
///  "details": {key: value, … in the pass's order}, "explanation", "recommendation", "first_ts"}.
/// Example: {"rank": 1, "kind": "cpu_fallback", "title": "CPU fallback of Transpose layer: 0.590 ms (1 layer)",
///           "lost_ns": 590000, …, "details": {"op": "Transpose", "source": "cpu_layer", …}}
/// Strings copied from the trace may hold invalid UTF-8: dump with error_handler_t::replace.
nlohmann::ordered_json findingJson(const ReportModel& model, std::size_t index);

/// Sum of the findings' lost time. Idle-based kinds never overlap each other; a copy or chain kernel can
/// also appear in another kind, so this is an upper bound of what fixing everything would save.
model::TimeNs totalLostNs(const analysis::AnalysisResult& result);
/// totalLostNs / analysed wall time (0 when nothing was analysed).
double totalLostFraction(const analysis::AnalysisResult& result);

} // namespace timesink::report
