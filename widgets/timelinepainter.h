// SPDX-License-Identifier: MIT
#pragma once

#include "model/trace.h"
#include "widgets/timelinezoom.h"
#include "widgets/tracklayout.h"

#include <QPalette>
#include <QSize>

#include <optional>
#include <utility>
#include <vector>

class QPainter;

namespace timesink::widgets {

class TimelineSearch;

/// What is drawn on top of the slices: selection, a finding's events, search matches, a time range.
struct TimelineDecorations
{
    model::SliceRef selected;
    std::vector<model::SliceRef> highlighted; // events of the selected finding
    const TimelineSearch* search = nullptr;
    model::SliceRef currentMatch;
    std::optional<std::pair<model::TimeNs, model::TimeNs>> timeSelection;
    bool shadeSteps = true;
};

/// The one painter for every track (as in Qt Creator's timeline): a label column on the left, a time
/// ruler on top, tracks below. It reads the model only through the range API:
///  * culling: Track::rangeAtDepth() (binary search) gives the slices intersecting the view;
///  * merging: consecutive slices narrower than kMergeWidthPx are folded into one run;
///  * summaries: when a depth has more slices in view than pixels, Track::summaries() buckets are drawn
///    instead of slices, so the cost follows the view width, not the slice count.
class TimelinePainter
{
public:
    static constexpr int kLabelWidth = 220;
    static constexpr int kRulerHeight = 24;
    /// Slices narrower than this (in pixels) are merged with their neighbours.
    static constexpr double kMergeWidthPx = 3.0;
    /// Names are drawn inside slices at least this wide.
    static constexpr int kLabelMinPx = 28;

    struct Stats
    {
        std::size_t slicesVisited = 0;  // individual slices looked at
        std::size_t bucketsVisited = 0; // summary buckets looked at
        std::size_t rectsDrawn = 0;     // rectangles filled (slices, runs, buckets)
    };

    /// Paints the timeline into a device of `size` pixels with the view scrolled down by `scrollY`.
    /// `zoom` must already have width size.width() - kLabelWidth.
    Stats paint(QPainter& painter, QSize size, const model::Trace& trace, const TimelineZoom& zoom,
                const TrackLayout& layout, int scrollY, const TimelineDecorations& decorations,
                const QPalette& palette) const;

    /// The time-area rectangle (x relative to the time area) of a slice on screen, if its track is visible.
    static std::optional<QRectF> sliceRect(const model::Trace& trace, const TimelineZoom& zoom,
                                           const TrackLayout& layout, int scrollY, model::SliceRef slice);
};

} // namespace timesink::widgets
