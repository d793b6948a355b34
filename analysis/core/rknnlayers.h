// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/stepclock.h"
#include "model/trace.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace timesink::analysis {

/// One layer of an RKNN perf table as the importer laid it out (parsers/rknn/rknnimporter.h: one slice per layer,
/// its cells as args), with the cells the edge NPU advisor reads parsed and checked.
struct RknnLayerRow
{
    model::SliceRef ref;
    model::TimeNs ts = 0;
    model::TimeNs dur = 0;
    std::int64_t layerId = -1;
    std::string_view opType;      // "ConvExSwish", v1 "CONVOLUTION"
    std::string_view fullName;    // "Conv:/model.0/conv/Conv"
    std::string_view dataType;    // "INT8"
    std::string_view inputShape;  // "(1,3,640,640),(16,3,3,3),(16)"
    std::string_view outputShape; // "(1,16,320,320)"
    std::string_view target;      // the Target cell as printed ("NPU", "CPU"), empty without the column (v1)
    bool onNpu = false;           // Target NPU, or a v1 table without a Target column
    /// Cycles(DDR/NPU/Total), absent without the column, when the layer prints 0/0/0 (not measured) and when the
    /// cells are implausible (then `problem` says why).
    std::optional<std::int64_t> ddrCycles;
    std::optional<std::int64_t> npuCycles;
    std::optional<std::int64_t> totalCycles; // max(DDR, NPU), present with the other two
    /// WorkLoad(0/1/2) shares in percent per core ({100, 0, 0}); empty without the column, when every share is 0
    /// (toolkit2 1.x prints 0.0% for NPU layers) and when the cell is implausible.
    std::vector<double> workload;
    std::string_view workloadText; // the WorkLoad cell as printed, "100.0%/0.0%/0.0%"
    /// MacUsage(%) of the cores that ran the layer (their mean); absent for "\", empty cells and without the column.
    std::optional<double> macUsage;
    /// MacUsage(%) as printed per core ({0.77, 0.77, 0.77}); empty when macUsage is absent for want of a value.
    std::vector<double> macPerCore;
    std::optional<double> rwKb;
    /// Why a cell of this layer was left out ("WorkLoad 50.0%/0.0%/0.0% adds up to 50 %, not 100 %"), or empty.
    std::string problem;
};

/// The layers of every frame of an RKNN trace, in time order, and which columns the table generation printed.
struct RknnLayerTable
{
    std::vector<RknnLayerRow> layers;
    bool hasWorkloadColumn = false;
    bool hasCyclesColumn = false;
    bool hasMacColumn = false;
    /// Parts of the WorkLoad cells: 3 for `WorkLoad(0/1/2)` (RK3588), 2 for RK3576's `WorkLoad(0/1)`, 0 without.
    std::size_t workloadParts = 0;
    /// Layers with an implausible cell (each has RknnLayerRow::problem); the first few messages.
    std::uint64_t badLayers = 0;
    std::vector<std::string> problems;
};

/// Reads the layers of an RKNN trace (metadata.platform Rknn; other traces give an empty table). A cell is
/// implausible, and left out of the layer, when a WorkLoad share is outside 0–100 % or the shares of a layer add
/// up to something else than 100 % (±1.5 points: the table rounds each to 0.1), when cycles are negative, above
/// 10^13, or Total is not max(DDR, NPU), when RW(KB) is negative or above 10^9 KB. Example:
///   layer "33.3%/33.3%/33.3%", 600 µs → workload {33.3, 33.3, 33.3}; "50.0%/0.0%/0.0%" → workload {}, problem set.
RknnLayerTable readRknnLayers(const model::Trace& trace);

/// NPU cores of a Rockchip chip by its name in the trace ("RK3588" → 3, "RK3576" → 2, "RK3568"/"RV1126" → 1), 0
/// when the name is not one we know.
int rknnPlatformCores(std::string_view chip);

/// How busy the NPU's cores were (DeviceSummary's npu_core_* fields; docs/analysis.md "RKNN"):
///   a layer of time t with WorkLoad shares w_c keeps core c busy t · w_c / max_k w_k (the most loaded core sets
///   the layer's time); a layer without shares (v1, toolkit2 1.x, 0.0% everywhere) keeps one core busy t;
///   busy fraction = Σ_c busy_c / (cores · analysed frame time).
/// `cores` = the cores the run used: the most cores one layer was split over, at least the cores of a core mask
/// printed in the log (`core_mask` property); without a WorkLoad column the mask, else the chip's core count.
struct NpuCoreUse
{
    int cores = 0;
    std::string coresSource;           // "workload", "core_mask" or "platform"
    int coresOnChip = 0;               // rknnPlatformCores of the device, 0 when unknown
    std::vector<model::TimeNs> busyNs; // per core, index = core number
    model::TimeNs coreTimeNs = 0;      // Σ busyNs
    model::TimeNs frameNs = 0;         // analysed time (sum of frame windows)
    /// Σ busyNs / (cores · frameNs); absent when no layer printed per-core shares and the run had several cores
    /// (toolkit2 1.x prints 0.0% everywhere): which cores ran what is then unknown.
    std::optional<double> busyFraction;
    std::uint64_t splitLayers = 0;  // NPU layers spread over two cores or more
    std::uint64_t singleLayers = 0; // NPU layers on one core
};
std::optional<NpuCoreUse> npuCoreUse(const model::Trace& trace, const RknnLayerTable& table, const StepClock& clock);

/// A layer as the findings name it: "#21 ConvExSwish (1,128,240,240),(64,128,1,1),(64) → (1,64,240,240)".
std::string rknnLayerText(const RknnLayerRow& layer);

/// True for op types that only move or rearrange data (Split, Concat, Reshape, Transpose, Resize, Slice, Permute,
/// Flatten, (Un)Squeeze, Upsample, DepthToSpace/SpaceToDepth, v1 TENSOR_TRANS …): the `data_movement` kind.
bool isRknnDataMovement(std::string_view opType);

/// An RKNN layer's arg (the importer's keys) as people read it, or empty when the raw value says it all:
///   ("mac_usage", "2.32/0.00/0.00") → "core 0: 2.32%, core 1: 0.00%, core 2: 0.00%";
///   ("workload", "33.3%/33.3%/33.3%") → "cores 0, 1, 2: 33.3% each"; "100.0%/0.0%/0.0%" → "core 0 only";
///   ("ddr_cycles", 1222645) → "1,222,645" (npu_cycles, total_cycles alike); ("rw_kb", 6122) → "6,122 KB (5.98 MiB)";
///   ("time_us", 9524) → "9.52 ms"; ("input_shape", "\\") → "none" (output_shape alike).
/// `text` is a string arg's value, `number` a numeric one's (the other is ignored).
std::string rknnArgText(std::string_view key, std::string_view text, std::optional<double> number);

/// "rknn-toolkit2 1.6.0" / "librknnrt 1.6.0" from the trace's properties, or empty when the log names none.
std::string rknnToolkitText(const model::Trace& trace);

/// The time of [ts, ts + dur) inside the analysed windows (0 for a layer of an excluded warm-up frame).
model::TimeNs analysedPart(const StepClock& clock, model::TimeNs ts, model::TimeNs dur);

} // namespace timesink::analysis
