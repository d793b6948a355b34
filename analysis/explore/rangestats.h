// SPDX-License-Identifier: MIT
#pragma once

#include "model/trace.h"

#include <optional>
#include <string>
#include <vector>

namespace timesink::analysis {

/// What an area selection covers: a time range and, optionally, only some tracks.
struct RangeSelection
{
    model::TimeNs start = 0;
    model::TimeNs end = 0;
    /// Empty: every track. Otherwise only these (a selection of tracks within the range).
    std::vector<model::TrackId> tracks;
};

/// How the rows of RangeStats are keyed.
enum class RangeGroupBy : std::uint8_t { Name, Category, Track };

/// One row of the statistics of a range: every slice that intersects the range counted by its part inside
/// the range (a slice crossing an edge counts only the time inside), as Perfetto's area selection.
///   total = Σ clipped duration, self = total − Σ clipped durations of its direct children,
///   mean = total / count, max = the longest clipped duration (maxSlice is that slice).
struct RangeStatsRow
{
    std::string key;                                             // the name, the category label or the track id as text
    model::SliceCategory category = model::SliceCategory::Other; // of the first slice counted (Name rows)
    model::TrackId track; // Track rows: the track; otherwise the track of maxSlice
    std::uint64_t count = 0;
    model::TimeNs totalNs = 0;
    model::TimeNs selfNs = 0;
    model::TimeNs maxNs = 0;
    model::SliceRef maxSlice;
    [[nodiscard]] model::TimeNs meanNs() const { return count ? totalNs / static_cast<model::TimeNs>(count) : 0; }
};

struct RangeStats
{
    RangeGroupBy groupBy = RangeGroupBy::Name;
    std::vector<RangeStatsRow> rows; // by total, descending, then key
    std::uint64_t sliceCount = 0;
    model::TimeNs totalNs = 0;
};

/// Aggregates the slices of `selection` (counter samples are not slices and are left out).
/// Example: [0, 1000) over host "aten::conv2d" [100, 300) > "cudaLaunchKernel" [120, 140) gives
///   {aten::conv2d: count 1, total 200, self 180}, {cudaLaunchKernel: count 1, total 20, self 20}.
RangeStats computeRangeStats(const model::Trace& trace, const RangeSelection& selection,
                             RangeGroupBy groupBy = RangeGroupBy::Name);

/// The slices of `selection` that make up the row keyed `key` (as computeRangeStats keys it), in time order
/// (ties by track): what "select all of these" highlights and "find next" steps through.
std::vector<model::SliceRef> rangeStatsInstances(const model::Trace& trace, const RangeSelection& selection,
                                                 RangeGroupBy groupBy, const std::string& key);

} // namespace timesink::analysis
