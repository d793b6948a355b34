// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/finding.h"
#include "model/trace.h"

namespace timesink::analysis {

/// The part of the timeline a finding needs on screen: the span of its evidence ranges or, lacking them, of its
/// events (looked up in `trace` when given; refs the trace does not hold are skipped), and the track of its earliest
/// piece, to scroll to. `valid` is false when the finding points nowhere. The GUI shows this range when a finding is
/// selected. Example: evidence [5,9) on track 2 and [1,3) on track 4 → {1, 9, track 4, valid}.
struct FindingExtent
{
    model::TimeNs start = 0;
    model::TimeNs end = 0;
    model::TrackId firstTrack;
    bool valid = false;
};
FindingExtent findingExtent(const Finding& finding, const model::Trace* trace);

} // namespace timesink::analysis
