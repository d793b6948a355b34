// SPDX-License-Identifier: MIT
#pragma once

#include "report/reportmodel.h"

#include <nlohmann/json.hpp>
#include <ostream>

namespace timesink::report {

/// The complete timesink.report/1 object of a report model, written from the model alone (no trace): "schema",
/// "trace" (traceSummaryJson), "platform", "analysed_ns", "total_lost_ns", "total_lost_fraction", "options",
/// "startup_ns", "warmup_*", "cancelled", "findings" (findingJson, rank order), "not_assessed", "device_summary",
/// followed by
///   "steps":         [{"step", "synthetic", "start_ns", "duration_ns", "compute_ns", "communication_ns",
///                      "copy_ns", "dataloader_ns", "idle_ns"}]            (see StepBreakdown)
///   "lost_by_kind":  [{"kind", "lost_ns", "lost_fraction", "findings"}]   by lost time, descending
///   "operator_scope": "device" | "host",
///   "top_operators": [{"name", "category", "count", "total_ns", "fraction"}]
/// Field by field in docs/report-schema.md.
nlohmann::ordered_json reportJson(const ReportModel& model);
/// The `device_summary` object of reportJson().
nlohmann::ordered_json deviceSummaryJson(const DeviceSummary& d);

/// Writes reportJson() indented by two spaces, invalid UTF-8 from the trace replaced by U+FFFD.
void writeJsonReport(const ReportModel& model, std::ostream& out);

} // namespace timesink::report
