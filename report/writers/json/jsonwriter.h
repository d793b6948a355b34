// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/collectivebandwidth.h"
#include "analysis/job/job.h"
#include "model/trace.h"
#include "report/analysis/reportmodel.h"
#include "report/analysis/tracesummary.h"
#include "report/compare/comparedocument.h"
#include "report/core/schemas.h"
#include "report/jobcompare/jobcomparedocument.h"

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

// The JSON writer: every document as its schema's object (docs/report-schema.md), written with two-space indents and
// invalid UTF-8 from the traces replaced by U+FFFD.
namespace timesink::report {

// ---- analysis (timesink.report/1) ----

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
/// The `communication.bandwidth` list of reportJson() (and of a job's): per collective kind
/// {"op", "collectives", "bytes", "transfer_ns", "transfer_source", "algbw_gbps", "busbw_gbps", "link", "peak_gbps"},
/// null for a rate or link that is not known.
nlohmann::ordered_json bandwidthJson(const std::vector<analysis::BandwidthSummary>& summaries);

/// Writes reportJson() indented by two spaces, invalid UTF-8 from the trace replaced by U+FFFD.
void writeJsonReport(const ReportModel& model, std::ostream& out);

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

/// What `timesink-cli info --format json` prints, and the "trace" object of every report:
/// {format, format_version, path, devices: [{kind, index, name}], span_ns, start_ns, slices, steps, tracks,
///  flows (linked ones, Flow::isLinked()), unlinked_flows, counts: {host_op, python, runtime, kernel, memcpy, memset,
///  sync, communication, dataloader, step, annotation, fallback_op, other}, warnings: [{kind, count, message}], rank,
///  world_size, profiler_level, synthetic_timestamps, properties: {…}}
nlohmann::ordered_json traceSummaryJson(const TraceSummary& summary);
/// traceSummaryJson(summarizeTrace(trace)).
nlohmann::ordered_json traceSummaryJson(const model::Trace& trace);

// ---- compare (timesink.compare/1) ----

/// The `timesink.compare/1` document (docs/compare.md):
/// {"schema": "timesink.compare/1",
///  "baseline": {"path", "format", "device", "operator_time": "device"|"host", "step_ns": [paired steps],
///               "step_numbers": [...], "operator_ns", "work_slices", "attributed_slices",
///               "findings": [{"rank", "kind", "title", "lost_ns", "compared_lost_ns", "lost_fraction",
///                             "occurrences", "platform", "recommendation"}],
///               "device_breakdown": {"window_ns", "compute_ns", "exposed_communication_ns", "exposed_copy_ns",
///                                    "idle_ns"} (null without device work)},
///  "candidate": {…},
///  "steps": [{"baseline_step", "candidate_step", "baseline_index", "candidate_index", "baseline_ns",
///             "candidate_ns", "delta_ns"}],
///  "totals": {"baseline_ns", "candidate_ns", "delta_ns"},
///  "operators": [{"name", "baseline_ns", "candidate_ns", "delta_ns", "ratio" (null when the baseline is 0),
///                 "baseline_calls", "candidate_calls", "baseline_names", "candidate_names"}],
///  "classes": [{"class", "label", "baseline_ns", "candidate_ns", "delta_ns", "baseline_calls", "candidate_calls"}],
///  "waterfall": [{"part", "label", "kind": "compute"|"communication"|"copy"|"idle"|"remainder", "baseline_ns",
///                 "candidate_ns", "delta_ns"}] (the deltas add up to totals.delta_ns),
///  "explanations": [{"status": "candidate_only"|"baseline_only"|"grew"|"shrank", "kind", "title",
///                    "counterpart_title", "baseline_lost_ns", "candidate_lost_ns", "delta_ns",
///                    "share_of_step_delta", "baseline_rank", "candidate_rank"}],
///  "layers": null, or for two RKNN layer tables (edge runs) {"matched": {"name", "path", "op_order",
///             "baseline_only", "candidate_only"}, "placement_changed", "shape_changed", "slower", "faster",
///             "baseline_cores_used", "candidate_cores_used",
///             "op_types": [{"op_type", "baseline_ns", "candidate_ns", "delta_ns", "ratio", "baseline_layers",
///                           "candidate_layers", "baseline_split_layers", "candidate_split_layers",
///                           "placement_changed"}] (by delta, slower first),
///             "layers": [{"match": "name"|"path"|"op_order"|"baseline_only"|"candidate_only", "baseline_id",
///                         "candidate_id", "op_type", "baseline_op_type", "name", "baseline_name", "baseline_target",
///                         "candidate_target", "baseline_cores": [0], "candidate_cores": [0, 1, 2],
///                         "baseline_workload", "candidate_workload", "placement_changed", "baseline_input_shape",
///                         "candidate_input_shape", "baseline_ns", "candidate_ns", "delta_ns", "ratio"}]
///                         (by delta, slower first)},
///  "notes": [...]}
/// Times are integer ns. Trace-derived text is cleaned (invalid UTF-8 replaced) so the document always
/// serialises.
/// The "layers" member of the document (null when the comparison has no layer table).
nlohmann::ordered_json compareLayersJson(const analysis::CompareLayers& layers);

nlohmann::ordered_json compareJson(const CompareRun& baseline, const CompareRun& candidate,
                                   const analysis::CompareResult& result);
/// Writes compareJson() indented by two spaces.
void writeCompareJson(const CompareRun& baseline, const CompareRun& candidate, const analysis::CompareResult& result,
                      std::ostream& out);

// ---- job (timesink.job/1) ----

/// The `timesink.job/1` object (docs/report-schema.md).
nlohmann::ordered_json jobJson(const analysis::JobResult& job, const std::string& generator);
/// Writes jobJson() indented by two spaces.
void writeJobJson(const analysis::JobResult& job, const std::string& generator, std::ostream& out);

// ---- job compare (timesink.jobcompare/1) ----

/// The `timesink.jobcompare/1` object (docs/compare.md "Job vs job"):
/// {"schema", "generator", "baseline": {"path", "world_size", "ranks", "steps", "stragglers": [ranks], "warnings"},
///  "candidate": {…}, "figures": [{"figure", "label", "baseline_ns", "candidate_ns", "delta_ns"}],
///  "ranks": [{"rank", "baseline_steps", "candidate_steps", "baseline_step_ns", "candidate_step_ns", "delta_ns",
///             "baseline_wait_ns", "candidate_wait_ns", "baseline_communication_ns", "candidate_communication_ns",
///             "baseline_caused_wait_ns", "candidate_caused_wait_ns", "baseline_straggler", "candidate_straggler"}],
///  "lost_by_kind": [{"kind", "baseline_lost_ns", "candidate_lost_ns", "delta_ns"}], "notes": [...]}
nlohmann::ordered_json jobCompareJson(const JobCompareInput& in);
/// Writes jobCompareJson() indented by two spaces.
void writeJobCompareJson(const JobCompareInput& in, std::ostream& out);

} // namespace timesink::report
