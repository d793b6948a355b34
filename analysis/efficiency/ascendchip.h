// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/efficiency/peaktable.h"
#include "model/trace.h"

#include <cstdint>
#include <optional>
#include <string>

namespace timesink::analysis::efficiency {

/// An Ascend chip's AI-core count and AI-core clock, the two facts its cube peak follows from
/// (ascendPeakFlops), each with where it came from. The importer's facts (a PROF folder's info.json, the msprof
/// database's AICORE_FREQ) come first; what is still missing is derived from the PMU counters of the AI-core tasks:
///
///   clock  = aic_total_cycles / (aicore_time × Block Dim): the cycles of all the task's cores over its time per
///            core and its cores (1800 MHz on every AI-core task of the msinsight and msprof-analyze fixtures);
///   cores  = aic_total_cycles / (Duration × clock × cube_utilization(%) / 100): msprof writes cube_utilization as
///            the cycles over what the whole chip could run in the task's duration (24 on the msinsight ResNet run,
///            20 on msprof-analyze's 2025 table).
///
/// Each is the median over the tasks that have the columns, kept only when there are at least 3 and 80 % of them
/// agree within 1 % (and, for the core count, the median is within 2 % of a whole number): counters that disagree,
/// or too few tasks, give no figure.
struct AscendChipFacts
{
    std::int32_t aiCores = 0; // 0: unknown
    double clockMHz = 0.0;    // 0: unknown
    std::string coresFrom;    // "info.json.0 (ai_core_num 24)", "cube_utilization(%) of 23 AI-core tasks: …"
    std::string clockFrom;
    [[nodiscard]] bool complete() const { return aiCores > 0 && clockMHz > 0.0; }
};

/// Whether `device` of `trace` is an Ascend NPU (the trace's platform is CANN, or the name says Ascend).
bool isAscendDevice(const model::Trace& trace, const model::Device& device);

/// The facts for `device`, from the device itself and the PMU counters of the trace's device slices.
AscendChipFacts ascendChipFacts(const model::Trace& trace, const model::Device& device);

/// The chip's peaks from complete facts: FP16/BF16 and INT8 by ascendPeakFlops, FP32 matrix work judged at the
/// FP16 cube rate (msprof-analyze's operator_mfu does the same: the cube has no FP32 figure of its own), no FP32
/// vector rate. The memory bandwidth is the table row's where the trace's name selects one (the AI-core count and
/// clock do not tell it; "Ascend910B" and "Ascend NPU" select none, so no memory roofline), and `source` says where
/// every number came from.
DevicePeaks ascendDevicePeaks(const std::string& traceName, const AscendChipFacts& facts, const DevicePeaks* row);

/// Why an Ascend device gets no roofline: which of the two facts are missing and what the trace did say.
/// `row`: the table row the name selects, when it has no figures (910B1).
std::string ascendNotResolved(const std::string& traceName, const AscendChipFacts& facts, const DevicePeaks* row);

} // namespace timesink::analysis::efficiency
