// SPDX-License-Identifier: MIT
#pragma once

#include "model/argstore.h"
#include "model/tracebuilder.h"
#include "parsers/ascendcsv/ascendcsvtables.h"

#include <vector>

namespace timesink::parsers {

/// The kernel_details / op_summary columns a device task slice carries as args, under the names the Ascend
/// tools show, whichever path built the slice (trace_view.json joined with the table, or the CSV tables alone).
/// Keys are interned once per trace; empty cells and a missing Block Dim (-1) add nothing:
///
///   KernelRow {opType "Conv2D", coreType "AI_CORE", inputShapes "", blockDim 8}
///     → "OP Type" = "Conv2D", "Accelerator Core" = "AI_CORE", "Block Dim" = 8
class AscendKernelArgs
{
public:
    explicit AscendKernelArgs(model::TraceBuilder& b);

    /// Appends the row's args to `args` in the order above (OP Type, Accelerator Core, Input Shapes, Block Dim).
    void append(const KernelRow& k, std::vector<model::Arg>& args) const;

    /// "OP Type", for slices that carry only the op type (HCCL lanes).
    [[nodiscard]] model::StringId opTypeKey() const { return m_opType; }

private:
    model::TraceBuilder& m_b;
    model::StringId m_opType;
    model::StringId m_core;
    model::StringId m_shapes;
    model::StringId m_block;
};

} // namespace timesink::parsers
