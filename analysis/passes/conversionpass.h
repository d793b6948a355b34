// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/pass.h"

namespace timesink::analysis {

/// `conversion`: device work whose only job is to change a tensor's layout or data type:
///   * Ascend `TransData` tasks (private-format conversions such as NCHW → NC1HWC0 / FRACTAL_Z),
///     `Cast` tasks, and `Transpose`/`TransposeD` tasks whose input and output formats or data types differ
///     (kernel_details.csv `Input/Output Formats` and `Data Types`, kept as slice args);
///   * GPU layout kernels (`nchwToNhwcKernel`, `nhwcToNchwKernel`) and device dtype casts: kernels whose
///     outermost ATen op is `aten::to`/`aten::_to_copy`/`aten::type_as`/`aten::float`/`aten::half`/
///     `aten::bfloat16`/`aten::double` — casts the model asks for. Casts autocast inserts run inside the op
///     they feed (`aten::linear`) and are not counted: they are the price of mixed precision.
/// AI_CPU conversions are left to cpu_fallback. Lost time = the conversions' device time inside steps.
/// Grouped by the framework op that caused them (the outermost `aten::` op around the launch, else the
/// call site): one finding per op.
class ConversionPass : public Pass
{
public:
    [[nodiscard]] std::string_view kind() const override { return "conversion"; }
    [[nodiscard]] PassOutput run(const AnalysisContext& context) const override;
};

} // namespace timesink::analysis
