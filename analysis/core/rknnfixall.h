// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/finding.h"
#include "analysis/core/stepclock.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace timesink::analysis {

/// "Fix all" of laid-out layers (RKNN perf tables: no timestamps to re-time; docs/analysis.md "RKNN: fixing
/// everything"). Each finding says, per layer it touches, how much of the layer's time its own fix saves
/// (WhatIf::layerSavings). The fixes compose per layer: each leaves a share of the layer's time (1 − s_k / t), a
/// layer with every fix applied takes t · Π_k (1 − s_k / t), and the frame's "fix all" is the sum over its layers of
/// what they give back. So a layer's time is saved once, never below 0, however many findings touch it; with one
/// finding the figure is that finding's own saving. Example: a 12 ms single-core layer on 3 cores that is also
/// DDR-stalled for 3 ms: core_imbalance alone saves 8 ms, memory_bound alone 3 ms, both 12 − 9 · 1/3 = 9 ms.
struct LayerFixAll
{
    /// Per step (parallel to StepClock's steps): the time every layer fix composed gives back; -1 where the step
    /// broke a bound (below): the composed figure is not reported, the step keeps the findings' lost times.
    std::vector<model::TimeNs> savingNs;
    /// Per step: Σ lost time of the findings that carry layer savings (what the "fix all" replaces).
    std::vector<model::TimeNs> lostNs;
    /// Steps that broke a physical bound (a layer saving above the layer's time or below 0, a finding saving more
    /// than the layers it touches, or a step saving more than its window): a bug, never a figure.
    std::size_t inconsistentSteps = 0;
    std::string firstViolation; // what the first violation was, for the warning
    /// True when some finding carries layer savings (an RKNN run with layer findings).
    bool any = false;
};

/// Composes the layer savings of `findings` per layer and step. Findings without layer savings are not counted.
LayerFixAll composeLayerSavings(std::span<const Finding> findings, const StepClock& clock);

} // namespace timesink::analysis
