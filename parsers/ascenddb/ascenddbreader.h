// SPDX-License-Identifier: MIT
#pragma once

#include "parsers/common/importer.h"

#include <cstdint>
#include <filesystem>
#include <string>

namespace timesink::model {
class TraceBuilder;
}

namespace timesink::parsers {

class AscendTracks;

/// What readAscendDb() found, for metadata and tests.
struct AscendDbSummary
{
    model::Status status;  // a failure's message names the file
    bool torchNpu = false; // has PYTORCH_API (torch_npu's ascend_pytorch_profiler_*.db)
    std::string schemaVersion;
    std::uint64_t tasks = 0;
    std::uint64_t cannApis = 0;
    std::uint64_t frameworkApis = 0;
    std::uint64_t communicationOps = 0;
    std::uint64_t steps = 0;
    std::uint64_t flows = 0;
    [[nodiscard]] bool ok() const { return status.ok(); }
};

/// Reads the unified msprof SQLite export (`msprof_*.db`, torch_npu's `ascend_pytorch_profiler_*.db`) into
/// `builder`, read-only (see SqliteDb): TASK (+COMPUTE_TASK_INFO, COMMUNICATION_TASK_INFO) on one track per NPU
/// stream, COMMUNICATION_OP and HCCL sub-tasks on HCCL tracks, CANN_API and PYTORCH_API on host threads,
/// STEP_TIME as steps, connection ids (CONNECTION_IDS/connectionCats) as flows, OVERLAP_ANALYSIS lanes,
/// AICORE_FREQ/HBM/NPU_MEM counters, NPU_INFO devices, META_DATA schema version, RANK_DEVICE_MAP rank.
///
/// Columns are discovered with PRAGMA table_info, so camelCase and snake_case schemas both load; optional
/// tables may be missing. Rows with unusable times are counted as warnings and skipped. A file that is not a
/// database, or a database with none of TASK / CANN_API / PYTORCH_API, is an error naming the file.
AscendDbSummary readAscendDb(const std::filesystem::path& path, model::TraceBuilder& builder, AscendTracks& tracks,
                             ProgressSink& progress);

/// True when the path looks like one of the SQLite exports by name (msprof_*.db, ascend_pytorch_profiler*.db).
bool isAscendDbName(const std::filesystem::path& path);

} // namespace timesink::parsers
