// SPDX-License-Identifier: MIT
#pragma once

#include "model/trace.h"

#include <QString>

#include <cstdint>
#include <span>
#include <vector>

namespace timesink::widgets {

/// Case-insensitive substring search over slice names, with a cursor for next/previous.
///
/// Names are matched once per interned string (a trace has far fewer distinct names than slices), then the
/// slices are collected per track and depth, so the painter can cull matches with a binary search like
/// any other slice run.
///
/// Example: slices "aten::conv2d" (t=0), "cudaLaunchKernel" (t=5), "Conv_fwd" (t=9); search("CONV")
/// finds 2; next() → the slice at t=0, next() → t=9, next() wraps to t=0, previous() → t=9.
class TimelineSearch
{
public:
    void setTrace(const model::Trace* trace);
    /// Runs a new search; an empty query clears the matches. Returns the number of matches.
    std::size_t search(const QString& query);
    void clear() { search(QString()); }

    [[nodiscard]] const QString& query() const { return m_query; }
    /// All matches in time order (ties by track, then slice index).
    [[nodiscard]] const std::vector<model::SliceRef>& matches() const { return m_matches; }
    [[nodiscard]] std::size_t count() const { return m_matches.size(); }
    /// Slice indices matching on `track` at `depth`, in time order.
    [[nodiscard]] std::span<const std::uint32_t> matchesAt(model::TrackId track, std::size_t depth) const;
    [[nodiscard]] bool nameMatches(model::StringId name) const
    {
        return name.value < m_nameMatches.size() && m_nameMatches[name.value];
    }

    /// Index of the current match, or -1 before the first next()/previous().
    [[nodiscard]] int currentIndex() const { return m_current; }
    [[nodiscard]] model::SliceRef current() const;
    /// Moves to the next (previous) match, wrapping around; returns it (invalid when there are none).
    model::SliceRef next();
    model::SliceRef previous();
    /// Places the cursor so that next() returns the first match starting at or after t.
    void seek(model::TimeNs t);

private:
    const model::Trace* m_trace = nullptr;
    QString m_query;
    std::vector<bool> m_nameMatches; // by StringId
    std::vector<model::SliceRef> m_matches;
    std::vector<std::vector<std::vector<std::uint32_t>>> m_byTrackDepth; // [track][depth] → slice indices
    int m_current = -1;
};

} // namespace timesink::widgets
