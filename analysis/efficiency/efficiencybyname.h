// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/efficiency/efficiency.h"

#include <optional>
#include <string>
#include <vector>

namespace timesink::analysis::efficiency {

/// The operators of an EfficiencyReport summed by name over their shapes and data types: what one row of the
/// GUI's operator table (one row per name) shows beside its times.
struct NameEfficiency
{
    std::string name;
    std::uint64_t calls = 0;
    double flops = 0.0;
    double bytes = 0.0;
    model::TimeNs deviceNs = 0; // device time of its assessed calls
    double tflopsPerS = 0.0;    // flops / deviceNs
    double tbPerS = 0.0;        // bytes / deviceNs
    /// Σ roofline time / Σ device time over the shapes that have a roofline, i.e. their fractions weighted by device
    /// time; clamped (and flagged with the first shape's reason) when one of them was.
    std::optional<BoundedFraction> rooflineFraction;
    /// "compute" or "memory": the bound of the shapes with the most device time; empty without a known device.
    std::string bound;
    std::optional<BoundedFraction> measured; // the chip's own counter, weighted by device time, where it has one
};

/// One entry per operator name, by device time (longest first), then name.
std::vector<NameEfficiency> efficiencyByName(const EfficiencyReport& report);

} // namespace timesink::analysis::efficiency
