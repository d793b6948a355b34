// SPDX-License-Identifier: MIT
#pragma once

#include "model/argstore.h"
#include "model/tracebuilder.h"
#include "parsers/ascendcsv/ascendcsvtables.h"

#include <array>
#include <vector>

namespace timesink::parsers {

/// The kernel_details / op_summary columns a device task slice carries as args, under the names the Ascend
/// tools show, whichever path built the slice (trace_view.json joined with the table, or the CSV tables alone).
/// Keys are interned once per trace; empty cells and a missing Block Dim (-1) add nothing:
///
///   KernelRow {opType "Conv2D", coreType "AI_CORE", inputShapes "", blockDim 8, inputDataTypes "FLOAT"}
///     → "OP Type" = "Conv2D", "Accelerator Core" = "AI_CORE", "Block Dim" = 8, "Input Data Types" = "FLOAT"
/// The data types and formats tell the analyses which tasks only convert (TransData NCHW → NC1HWC0, Cast
/// FLOAT → FLOAT16) and which matmuls run in FP32.
class AscendKernelArgs
{
public:
    explicit AscendKernelArgs(model::TraceBuilder& b);

    /// Appends the row's args to `args` in the order above (OP Type, Accelerator Core, Input Shapes, Block Dim),
    /// then Input Data Types, Input Formats, Output Data Types, Output Formats, Output Shapes (the efficiency
    /// analysis reads a matmul's M and N and a convolution's output from it), then the AI-core PMU counters the
    /// row has (aicore_time(us), aic_total_cycles, aic_mac_ratio, …: numbers under the column names, see
    /// model/argnames.h; their keys are interned on first use, so a table without them adds no strings).
    void append(const KernelRow& k, std::vector<model::Arg>& args) const;

    /// The PMU counters of one task as args (the database's TASK_PMU_INFO goes through here too).
    void appendPmu(const KernelPmu& pmu, std::vector<model::Arg>& args) const;

    /// "OP Type", for slices that carry only the op type (HCCL lanes).
    [[nodiscard]] model::StringId opTypeKey() const { return m_opType; }

private:
    model::TraceBuilder& m_b;
    model::StringId m_opType;
    model::StringId m_core;
    model::StringId m_shapes;
    model::StringId m_block;
    model::StringId m_inTypes;
    model::StringId m_inFormats;
    model::StringId m_outTypes;
    model::StringId m_outFormats;
    model::StringId m_outShapes;
    mutable std::array<model::StringId, 7> m_pmu {}; // in KernelPmu's order, interned on first use
};

} // namespace timesink::parsers
