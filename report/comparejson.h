// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/compare/compare.h"
#include "analysis/core/finding.h"
#include "model/trace.h"

#include <nlohmann/json.hpp>
#include <span>
#include <string>

namespace timesink::report {

/// One side of a comparison as the writers need it.
struct CompareRun
{
    const model::Trace& trace;
    std::span<const analysis::Finding> findings; // as given to analysis::compareRuns()
};

/// Stable key describing a run's device: "gpu NVIDIA A100-SXM4-80GB", "npu Ascend910B", "edge_npu RK3588",
/// "2× gpu NVIDIA V100" for several identical devices, "cpu" for a host-only trace.
std::string deviceDescription(const model::Trace& trace);

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

} // namespace timesink::report
