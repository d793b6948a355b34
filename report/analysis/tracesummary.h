// SPDX-License-Identifier: MIT
#pragma once

#include "model/trace.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace timesink::report {

/// The facts `info` and every report show about a trace, computed once from it and holding copies (no pointers into
/// the trace), so a report model that carries one outlives the trace.
struct TraceSummary
{
    model::TraceMetadata metadata; // format, version, path, devices (all listed), rank, world size, properties …
    model::TimeNs startNs = 0;
    model::TimeNs spanNs = 0;
    std::size_t slices = 0;
    std::size_t steps = 0;
    std::size_t tracks = 0;
    std::size_t flows = 0;         // linked ones (Flow::isLinked())
    std::size_t unlinkedFlows = 0; // the rest, also a warning below
    std::array<std::uint64_t, model::kSliceCategoryCount> counts {};
    std::vector<model::ImportWarning> warnings; // the importer's, then "unlinked_flows" when there are any
};

TraceSummary summarizeTrace(const model::Trace& trace);

/// The devices as `info` writes them: up to `listUpTo` devices, one line grouping them by kind and name
/// ("2× gpu NVIDIA A100-SXM4-80GB, 1× npu Ascend910B"); more than that, one line per kind with the count and the
/// index ranges, at most `maxRanges` of them ("4,096 GPU devices (0–4,095)", "200 GPU devices (0–99, 200–299)"),
/// followed by the names when the kind has at most three distinct ones ("…; 4,096× NVIDIA H100"). No devices: none.
/// How many devices `info` and the reports name one by one; more are summarised (deviceSummaryLines).
inline constexpr std::size_t kDevicesListed = 32;

std::vector<std::string> deviceSummaryLines(const std::vector<model::Device>& devices,
                                            std::size_t listUpTo = kDevicesListed, std::size_t maxRanges = 8);

/// `n` with a comma between groups of three digits: 4095 → "4,095", -12000 → "-12,000".
std::string groupDigits(std::int64_t n);

/// The warning `info` gives for flows that link nothing.
std::string unlinkedFlowsMessage(std::size_t unlinked);

} // namespace timesink::report
