// SPDX-License-Identifier: MIT
#pragma once

#include "parsers/common/importer.h"

namespace timesink::parsers {

/// Huawei Ascend profiler output: torch_npu bundles (`*_ascend_pt/`, `ASCEND_PROFILER_OUTPUT/`), CANN msprof
/// output (`PROF_*/`, `mindstudio_profiler_output/`), the SQLite exports (`msprof_*.db`,
/// `ascend_pytorch_profiler_*.db`) and single files (trace_view.json, msprof_*.json, kernel_details.csv,
/// op_summary_*.csv, task_time_*.csv).
///
/// A bundle is merged into one trace. The timeline comes from exactly one source, recorded as the metadata
/// property `timeline_source`:
///   1. the SQLite export when there is one (exact ns, explicit joins); a text timeline next to it is ignored
///      with the warning `export_choice`;
///   2. else the text timeline (trace_view.json or the msprof_*.json slices), joined with kernel_details.csv /
///      op_summary for op type and accelerator core;
///   3. else the device-task CSVs alone (kernel_details / op_summary / task_time), with steps from `Step Id`.
/// step_trace_time.csv, op_statistic and api_statistic are cross-checked against the timeline and summarised
/// as metadata properties; disagreements are warnings naming the files.
///
/// `metadata.format`: `torch_npu` (text), `torch_npu-db` (ascend_pytorch_profiler_*.db), `msprof` (text),
/// `msprof-db` (msprof_*.db).
class AscendImporter : public Importer
{
public:
    [[nodiscard]] std::string_view id() const override { return "ascend"; }
    [[nodiscard]] FormatDescription describe() const override;
    [[nodiscard]] int probe(const SourceProbe& source) const override;
    ImportResult import(const SourceProbe& source, const ImportOptions& options, ProgressSink& progress) override;
};

} // namespace timesink::parsers
