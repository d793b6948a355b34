// SPDX-License-Identifier: MIT
#pragma once

// The synthetic timeline of an RKNN report (its tables have no timestamps): frames one after the other from 0,
// each frame's layers end to end in ID order, and each frame as long as its printed total when that is longer
// than its layers.

#include "model/types.h"
#include "parsers/rknn/rknnperfreport.h"

#include <optional>
#include <vector>

namespace timesink::parsers::rknntimeline {

/// Where one frame and its layers lie.
struct FrameLayout
{
    std::vector<model::TimeNs> durations; // per layer, in the frame's (ID) order; see layerDurations()
    model::TimeNs layerSum = 0;           // the printed layer times added up
    std::optional<model::TimeNs> printed; // the frame's printed total, if any
    model::TimeNs start = 0;
    model::TimeNs end = 0;
    /// The printed total is longer than the layers: only a counter can show the frame's span.
    [[nodiscard]] bool needsCounter() const { return end - start > layerSum; }
};

/// Each layer's slice length: its printed time, except that a layer printed as 0 µs (below the table's
/// resolution) lasts 1 ns taken from the next layer longer than 1 ns (else the previous one), so that it stays in
/// sequence at depth 0 instead of nesting under its neighbour, and the frame still adds up to its total. With
/// nothing to borrow from it stays 0 ns.
[[nodiscard]] std::vector<model::TimeNs> layerDurations(const std::vector<RknnLayer>& layers);

/// The frame's printed total: `Total Operator Elapsed (Per Frame) Time`, else `Total Time`, else, for a ranking
/// table alone, the ranking's total (printed or summed).
[[nodiscard]] std::optional<model::TimeNs> printedTotal(const RknnFrame& frame);

/// Sorts each frame's layers by ID (stable) and lays the frames out one after the other from 0.
[[nodiscard]] std::vector<FrameLayout> layOutFrames(std::vector<RknnFrame>& frames);

} // namespace timesink::parsers::rknntimeline
