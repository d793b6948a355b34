// SPDX-License-Identifier: MIT
#pragma once

#include "model/importwarning.h"
#include "model/trace.h"
#include "model/types.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace timesink::parsers {

/// One row of an RKNN per-layer performance table, whatever the toolkit generation.
/// Text cells are kept as printed (trimmed); numbers are parsed. Times are integer ns
/// ("375" µs → 375000 ns; a CSV "12.5" µs → 12500 ns).
struct RknnLayer
{
    std::int64_t id = -1;   // `ID` / `Layer ID`
    std::string opType;     // `OpType` (toolkit2, fused RKNN op, e.g. "ConvRelu") or `Operator` (v1, "CONVOLUTION")
    std::string fullName;   // `FullName` ("Conv:/model.0/conv/Conv") or v1 `Name` (continuation lines joined)
    std::string dataType;   // "INT8", "UINT8", … (empty in v1)
    std::string target;     // "NPU", "CPU", "GPU" upper-cased; empty when the table has no Target column (v1)
    std::string inputShape; // "(1,3,640,640),(16,3,3,3),(16)", "\" for none
    std::string outputShape;
    std::optional<std::int64_t> ddrCycles;
    std::optional<std::int64_t> npuCycles;
    std::optional<std::int64_t> totalCycles; // max(DDR, NPU) as printed, not the sum
    model::TimeNs timeNs = 0;
    std::string macUsage;        // "2.32/0.00/0.00", "\" or empty (non-MAC ops)
    std::string workload;        // "100.0%/0.0%/0.0%"
    std::string workloadImprove; // toolkit2 1.x "- Up:0.0%" part, as "0.0%"
    std::optional<double> rwKb;
    std::optional<std::int64_t> uid; // v1 only
    /// Columns the importer has no field for (`Task Number`, `Lut Number`, unknown ones): (arg key, cell).
    std::vector<std::pair<std::string, std::string>> extra;
    std::uint64_t line = 0; // 1-based line of the row in the source
};

/// One row of the "Operator Time Consuming Ranking" table (per op type totals).
struct RknnRankingRow
{
    std::string opType; // "Total" for the 2.x summary row
    std::optional<std::int64_t> calls;
    model::TimeNs cpuNs = 0;
    model::TimeNs gpuNs = 0;
    model::TimeNs npuNs = 0;
    model::TimeNs totalNs = 0;
};

/// One inference as printed: a layer table and/or a summary (one table = one frame).
struct RknnFrame
{
    /// "toolkit1", "toolkit2-1.x", "toolkit2-2.x", "rknpu2-runtime", "summary-only" or "csv".
    std::string formatVersion;
    bool hasLayerTable = false;
    std::uint64_t headerLine = 0;
    std::vector<RknnLayer> layers;
    std::vector<RknnRankingRow> ranking;
    std::optional<RknnRankingRow> rankingTotal;
    /// `Total Operator Elapsed (Per Frame) Time(us)` (toolkit2 / rknpu2).
    std::optional<model::TimeNs> elapsedTotalNs;
    /// `Total Time(us)` (v1 footer, or the whole output of a `perf_debug=False` run).
    std::optional<model::TimeNs> totalTimeNs;
    std::string fps;      // "58.08" as printed
    std::string memoryRw; // "39024.07 KB" / "0 MB" as printed, with its unit
    bool elided = false;  // rows were left out with a "..." line
};

/// A problem met while reading, counted by kind; the importer forwards it as an import warning.
struct RknnWarning
{
    model::ImportWarningKind kind;
    std::uint64_t count = 0;
    std::string message; // the first occurrence
};

/// Everything read from one text source.
struct RknnPerfReport
{
    std::vector<RknnFrame> frames;
    std::string deviceName; // "RK3588" when the log names the chip
    /// Facts from around the tables (frequency lists, versions, the tool's perf_debug warning), in order.
    std::vector<std::pair<std::string, std::string>> properties;
    std::vector<RknnWarning> warnings;
};

} // namespace timesink::parsers
