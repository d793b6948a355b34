// SPDX-License-Identifier: MIT
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace timesink::parsers {

/// The files of one Ascend profiler output found under a path, by role. Paths are absolute (joined to the root).
///
/// Accepted roots: a torch_npu rank folder (`*_ascend_pt/`), its `ASCEND_PROFILER_OUTPUT/`, an msprof `PROF_*/`
/// folder or its `mindstudio_profiler_output/`, a folder holding one of these, or a single file (trace_view.json,
/// msprof_*.json, kernel_details.csv, op_summary_*.csv, task_time_*.csv, *.db).
///
///   rank0_ascend_pt/ → traceView = …/ASCEND_PROFILER_OUTPUT/trace_view.json,
///                      kernelDetails = …/kernel_details.csv, profilerInfo = …/profiler_info_0.json, …
///   PROF_001/        → msprofJson = {…/msprof_slice_0_1.json, …/msprof_slice_1_1.json} (slices in order), …
struct AscendBundle
{
    std::filesystem::path root;
    std::filesystem::path traceView;               // torch_npu trace_view.json
    std::vector<std::filesystem::path> msprofJson; // msprof_*.json, slices in slice order
    std::filesystem::path kernelDetails;           // kernel_details.csv
    std::vector<std::filesystem::path> opSummary;  // op_summary_*.csv (slices)
    std::vector<std::filesystem::path> taskTime;   // task_time_*.csv (slices)
    std::filesystem::path opStatistic;
    std::filesystem::path apiStatistic;
    std::filesystem::path stepTraceTime;
    std::filesystem::path database;            // ascend_pytorch_profiler_*.db or msprof_*.db
    std::filesystem::path profilerInfo;        // profiler_info_<rank>.json
    std::filesystem::path memoryRecord;        // memory_record.csv (profile_memory=True): allocator counters only
    std::filesystem::path communication;       // communication.json (Level1+, distributed): per-op wait and transit
    std::filesystem::path communicationMatrix; // communication_matrix.json (Level1+, distributed): rank-pair links
    std::filesystem::path deviceInfo;          // PROF_*/device_N/info.json.N: the chip's AI-core count and clock
    std::vector<std::string> notes;            // e.g. "3 rank folders found; imported rank0_ascend_pt"

    /// torch_npu (trace_view / kernel_details / profiler_info / ascend_pytorch_profiler db) vs plain msprof.
    [[nodiscard]] bool isTorchNpu() const;
    [[nodiscard]] bool hasTextTimeline() const { return !traceView.empty() || !msprofJson.empty(); }
    [[nodiscard]] bool hasDeviceCsv() const
    {
        return !kernelDetails.empty() || !opSummary.empty() || !taskTime.empty();
    }
    [[nodiscard]] bool empty() const
    {
        return !hasTextTimeline() && !hasDeviceCsv() && database.empty() && opStatistic.empty()
            && stepTraceTime.empty();
    }
};

/// Classifies a relative path as an Ascend output file role; empty when it is none (for detection).
/// "ASCEND_PROFILER_OUTPUT/kernel_details.csv" → "kernel_details"; "x/msprof_slice_0_1.json" → "msprof_json".
std::string ascendFileRole(const std::filesystem::path& relative);

/// msprof's device facts file: "PROF_001/device_0/info.json.0" (or "…/device_3/info.json") → true.
bool isDeviceInfoName(const std::filesystem::path& relative);

/// Classifies a CSV file by its header line when its name says nothing (a renamed kernel_details.csv):
/// "Step Id,Name,Type,Accelerator Core,Start Time(us),…" → "kernel_details"; "Device_id,…,Op Name,…,Task Start
/// Time(us),…" → "op_summary"; "…kernel_type,…,task_start(us)…" → "task_time"; unknown → empty.
std::string ascendCsvRoleFromHeader(std::string_view head);

/// Collects the bundle under `root` from a (recursive, relative) listing of it; `root` may be a file.
AscendBundle collectAscendBundle(const std::filesystem::path& root, bool isDirectory,
                                 const std::vector<std::filesystem::path>& entries);

} // namespace timesink::parsers
