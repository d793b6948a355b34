// SPDX-License-Identifier: MIT
#pragma once

// The rules every finalized trace obeys, whoever made it: TraceBuilder::finalize() builds traces that keep them,
// and the snapshot reader refuses a file whose trace breaks one (a snapshot is read back without finalize, so a
// hostile file could otherwise hand the analyses a slice that is its own parent, or a step of −9.2e18 ns).
// The analyses walk parent chains and subtract times without checks because of these rules.

#include "model/checkedmath.h"
#include "model/trace.h"

#include <string>

namespace timesink::model {

/// A slice's time rule: a non-negative duration, and a start and end inside ±kMaxTimeNs.
[[nodiscard]] constexpr bool sliceTimesInRange(TimeNs ts, TimeNs dur)
{
    return dur >= 0 && timeInRange(ts) && timeInRange(saturatingAdd(ts, dur));
}

/// An interval's time rule (steps, track and trace extents): both ends inside ±kMaxTimeNs and start ≤ end.
[[nodiscard]] constexpr bool intervalInRange(TimeNs start, TimeNs end)
{
    return timeInRange(start) && timeInRange(end) && start <= end;
}

/// What breaks the structure of `track`, or "" when nothing does. The rules:
/// - every slice obeys sliceTimesInRange();
/// - slices are sorted by (ts, −dur);
/// - a slice's parent comes before it (so parent chains end: no slice is its own ancestor), encloses it, and is
///   shallower;
/// - each depth's index lists every slice of that depth once, in order, and they do not overlap;
/// - counter samples are sorted and in range; summaries are in range;
/// - the extent (startNs, endNs) and busyNs are those of the slices and samples.
/// Indexes must already point inside the columns (the snapshot reader checks that first): this follows them.
/// Example: a slice whose parent is itself → "slice 3 of track 0 has parent 3, not an earlier slice".
[[nodiscard]] std::string trackStructureIssue(const Track& track, std::size_t trackIndex);

/// What breaks the structure of `trace`, or "": every track (trackStructureIssue), the trace's extent (that of
/// its tracks), its slice count, and every step (intervalInRange).
[[nodiscard]] std::string traceStructureIssue(const Trace& trace);

} // namespace timesink::model
