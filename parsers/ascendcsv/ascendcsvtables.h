// SPDX-License-Identifier: MIT
#pragma once

#include "model/importwarning.h"
#include "model/types.h"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace timesink::parsers {

/// Problems met while reading one CSV file, counted by kind (the importer forwards them as import warnings).
/// Every message names the file.
struct CsvIssues
{
    struct Issue
    {
        model::ImportWarningKind kind;
        std::uint64_t count = 0;
        std::string message;
    };
    std::vector<Issue> issues;
    void add(model::ImportWarningKind kind, std::string message);
    [[nodiscard]] std::uint64_t count(model::ImportWarningKind kind) const;
};

/// The AI-core PMU columns of a kernel table collected with aic_metrics (Level1+): empty where the column is
/// missing or N/A. Names and units as in model/argnames.h (kAicoreTime …).
struct KernelPmu
{
    std::optional<double> aicoreTimeUs;           // aicore_time(us)
    std::optional<double> aicTotalCycles;         // aic_total_cycles
    std::optional<double> aicMacRatio;            // aic_mac_ratio (PipeUtilization)
    std::optional<double> aicMte2Ratio;           // aic_mte2_ratio
    std::optional<double> aicMacFp16Ratio;        // aic_mac_fp16_ratio (ArithmeticUtilization, older tables)
    std::optional<double> aicMacInt8Ratio;        // aic_mac_int8_ratio
    std::optional<double> cubeUtilizationPercent; // cube_utilization(%)
};

/// One device task from torch_npu's `kernel_details.csv` or msprof's `op_summary_*.csv` (the same table under
/// two sets of column names: `Name/Type/Accelerator Core/Start Time(us)` vs `Op Name/OP Type/Task Type/Task
/// Start Time(us)`). Ids are -1 when the column is missing or `N/A` (HCCL rows, Level0 files).
struct KernelRow
{
    std::int64_t stepId = -1;
    std::int32_t deviceId = -1;
    std::int64_t modelId = -1;
    std::int64_t streamId = -1;
    std::int64_t taskId = -1;
    std::string name;
    std::string opType; // "Conv2D"; empty when N/A
    std::string
        coreType; // Accelerator Core / Task Type: AI_CORE, AI_VECTOR_CORE, MIX_AIV, AI_CPU, HCCL …; empty when N/A
    model::TimeNs start = 0;
    model::TimeNs duration = 0;
    std::optional<model::TimeNs> wait;
    std::int64_t blockDim = -1;
    std::string inputShapes;    // the twice-quoted shape text with its outer quotes removed: 32,3,224,224;64
    std::string inputDataTypes; // FLOAT;FLOAT;INT64
    std::string inputFormats;   // NC1HWC0;FRACTAL_Z;NCHW
    std::string outputShapes;
    std::string outputDataTypes; // FLOAT16
    std::string outputFormats;   // NCHW
    KernelPmu pmu;
    std::uint64_t line = 0; // CSV line, for messages
};

struct KernelTable
{
    std::vector<KernelRow> rows;
    std::vector<std::string> columns;
    bool hasTaskIds = false;  // Task ID and Stream ID columns present
    bool hasCoreType = false; // Accelerator Core / Task Type column present
    CsvIssues issues;
    std::string error; // set when nothing could be read (missing required columns, unreadable file)
};

/// One row of msprof's `task_time_*.csv`: every device task, including non-kernel ones (PROFILING_ENABLE …).
struct TaskTimeRow
{
    std::int32_t deviceId = -1;
    std::string name; // empty when N/A
    std::string taskType;
    std::int64_t streamId = -1;
    std::int64_t taskId = -1;
    model::TimeNs start = 0;
    model::TimeNs duration = 0;
    std::uint64_t line = 0;
};

struct TaskTimeTable
{
    std::vector<TaskTimeRow> rows;
    CsvIssues issues;
    std::string error;
};

/// `op_statistic.csv` / `op_statistic_*.csv`: per OP Type and core type aggregates.
struct OpStatisticRow
{
    std::int32_t deviceId = -1;
    std::string opType;
    std::string coreType;
    std::int64_t count = 0;
    model::TimeNs total = 0;
    model::TimeNs min = 0;
    model::TimeNs avg = 0;
    model::TimeNs max = 0;
    std::string ratioPercent;
};

struct OpStatisticTable
{
    std::vector<OpStatisticRow> rows;
    CsvIssues issues;
    std::string error;
};

/// `step_trace_time.csv`: per step breakdown of device time (all µs in the file, ns here; -1 = column missing).
struct StepTraceRow
{
    std::string step; // usually a number ("50"); may be empty in single-step exports
    model::TimeNs computing = -1;
    model::TimeNs communicationNotOverlapped = -1;
    model::TimeNs overlapped = -1;
    model::TimeNs communication = -1;
    model::TimeNs free = -1;
    model::TimeNs stage = -1;
    model::TimeNs bubble = -1;
    model::TimeNs preparing = -1;
};

struct StepTraceTable
{
    std::vector<StepTraceRow> rows;
    CsvIssues issues;
    std::string error;
};

/// `api_statistic.csv` / `api_statistic_*.csv`: per CANN API aggregates.
struct ApiStatisticRow
{
    std::string device; // msprof: "host" or a device id; torch_npu: empty
    std::string level;  // acl, runtime, hccl, node, model
    std::string name;
    model::TimeNs total = 0;
    std::int64_t count = 0;
    model::TimeNs avg = 0;
    model::TimeNs min = 0;
    model::TimeNs max = 0;
};

struct ApiStatisticTable
{
    std::vector<ApiStatisticRow> rows;
    CsvIssues issues;
    std::string error;
};

/// One row of torch_npu's `memory_record.csv`: the memory of one component (PTA = the framework's caching
/// allocator, GE, APP = the whole process) at one time.
struct MemoryRecordRow
{
    std::string component; // "PTA", "GE", "PTA+GE", "APP"
    model::TimeNs ts = 0;
    std::optional<double> allocatedMb; // Total Allocated(MB); empty for APP rows
    std::optional<double> reservedMb;  // Total Reserved(MB)
    std::int32_t device = -1;          // from "NPU:0"; -1 when absent
};

struct MemoryRecordTable
{
    std::vector<MemoryRecordRow> rows;
    CsvIssues issues;
    std::string error;
};

/// Readers: parse by header name (never by position), tolerate missing optional columns and extra ones,
/// count bad rows as issues and skip them. A file without the required columns gives `error`.
KernelTable readKernelTable(const std::filesystem::path& path);
TaskTimeTable readTaskTime(const std::filesystem::path& path);
OpStatisticTable readOpStatistic(const std::filesystem::path& path);
StepTraceTable readStepTraceTime(const std::filesystem::path& path);
ApiStatisticTable readApiStatistic(const std::filesystem::path& path);
MemoryRecordTable readMemoryRecord(const std::filesystem::path& path);

/// torch_npu writes shapes quoted twice (`"""32,3,224,224"""` → cell `"32,3,224,224"`); strips that inner
/// pair of quotes and maps `N/A` to empty.  `"32,3"` → `32,3`; `""` → empty; `N/A` → empty.
std::string unquoteShapeCell(std::string_view cell);

} // namespace timesink::parsers
