// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/pass.h"

namespace timesink::analysis {

/// `low_mac_usage` (RKNN traces): convolutions (op types starting "Conv") that use the NPU's multiply-accumulate
/// units far less than the model's other convolutions do — MacUsage u below a quarter of the median m of the
/// frame's convolutions — and are not memory-bound (NPU cycles ≥ DDR cycles; memory-bound ones are
/// `memory_bound`'s). The 3-channel (≤ 4) input convolution is named apart. Lost time: at the median MAC rate
/// the layer would take t · u / m, so lost = t · (1 − u / m). Other platforms get none.
class LowMacUsagePass : public Pass
{
public:
    [[nodiscard]] std::string_view kind() const override { return "low_mac_usage"; }
    [[nodiscard]] PassOutput run(const AnalysisContext& context) const override;
};

} // namespace timesink::analysis
