// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/compare/compare.h"
#include "analysis/core/finding.h"
#include "model/trace.h"

#include <cstddef>
#include <span>
#include <string>

namespace timesink::report {

/// One side of a comparison as the writers need it. The compare document is the two sides, the comparison
/// (analysis::CompareResult) and CompareReportOptions.
struct CompareRun
{
    const model::Trace& trace;
    std::span<const analysis::Finding> findings; // as given to analysis::compareRuns()
};

/// Options of the compare report writers.
struct CompareReportOptions
{
    std::size_t topOperators = 30; // Markdown/HTML operator table rows (CSV lists every operator)
    std::size_t textTop = 20;      // text: operators and layers listed (`compare --top N`; JSON lists all)
    std::string generator = "timesink";
};

/// Stable key describing a run's device: "gpu NVIDIA A100-SXM4-80GB", "npu Ascend910B", "edge_npu RK3588",
/// "2× gpu NVIDIA V100" for several identical devices, "cpu" for a host-only trace.
std::string deviceDescription(const model::Trace& trace);

/// Under the findings that explain the difference, when their shares of the step-time difference add up to more
/// than 100 %: says so and why (kinds overlap: one idle stretch can be a bubble and a wait) and points to the
/// waterfall, whose parts add up exactly. Empty otherwise.
std::string explanationSharesNote(const analysis::CompareResult& result);

} // namespace timesink::report
