// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/criticalpath.h"
#include "model/trace.h"
#include "widgets/timelinezoom.h"
#include "widgets/tracklayout.h"

#include <QPalette>
#include <QSize>
#include <QString>

#include <optional>
#include <utility>
#include <vector>

class QFontMetrics;
class QPainter;

namespace timesink::widgets {

class TimelineSearch;

/// The steps' critical paths as the timeline draws them: their stretches in order of start, and for each the latest
/// end among it and those before it, so that the stretches reaching into a view are found by binary search (the paths
/// of several steps may overlap where a step's path begins with work queued in the step before).
///   stretches [0, 10) [5, 40) [20, 30) [50, 60) → reach 10 40 40 60; in [35, 55]: [5, 40) … [50, 60)
class CriticalPathOverlay
{
public:
    void assign(std::vector<analysis::PathSegment> segments);
    [[nodiscard]] bool empty() const { return m_segments.empty(); }
    [[nodiscard]] const std::vector<analysis::PathSegment>& segments() const { return m_segments; }
    /// [first, last) of segments(): a range holding every stretch that intersects [t0, t1].
    [[nodiscard]] std::pair<std::size_t, std::size_t> rangeIn(model::TimeNs t0, model::TimeNs t1) const;

private:
    std::vector<analysis::PathSegment> m_segments;
    std::vector<model::TimeNs> m_reach;
};

/// What is drawn on top of the slices: selection, a finding's events, search matches, a time range.
struct TimelineDecorations
{
    model::SliceRef selected;
    std::vector<model::SliceRef> highlighted; // events of the selected finding
    const TimelineSearch* search = nullptr;
    model::SliceRef currentMatch;
    std::optional<std::pair<model::TimeNs, model::TimeNs>> timeSelection;
    std::vector<model::TrackId> selectedTracks; // picked for the range statistics: their labels are highlighted
    bool shadeSteps = true;
    /// The steps' critical paths (View → Critical Path): each stretch on its slice's row, host time on its thread's.
    CriticalPathOverlay criticalPath;
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
    /// The ruler: a strip naming the steps on top of the time ticks.
    static constexpr int kStepStripHeight = 15;
    static constexpr int kRulerHeight = kStepStripHeight + 22;
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

    /// One step's label in the ruler's step strip; x in pixels of the time area.
    struct StepLabel
    {
        std::size_t step = 0; // index into Trace::steps()
        int x0 = 0;           // the visible part of the step: [x0, x1)
        int x1 = 0;
        QString text; // "step 12", or "#12" where that does not fit, or empty where nothing fits
    };

    /// The labels of the steps in view, so the shading of the tracks can be matched to step numbers.
    /// Each label is centred on the visible part of its step; synthetic steps (a trace without step markers
    /// is one "whole trace" step) get none.
    ///   steps #1 [0, 1000) and #2 [1000, 2000) ns, zoom [500, 2000) on 300 px:
    ///   {0, x 0..100, "step 1"}, {1, x 100..300, "step 2"}
    static std::vector<StepLabel> stepLabels(const model::Trace& trace, const TimelineZoom& zoom,
                                             const QFontMetrics& metrics);

    /// The ruler at deep zoom: absolute offsets would need five or more digits ("15700 µs", "30512345 µs"), so ticks
    /// are labelled from a round base time shown in the corner ("30.51234 s +") and read "+2.5 µs", "+5 µs" … Returns
    /// the base (ns from the trace start, a multiple of a power of ten at least the view's span) or nullopt when plain
    /// offsets are short enough (fewer than 1 000 ticks from the trace start).
    ///   view [30 512 345 000, 30 512 368 000) ns from the start, ticks 2 µs apart → base 30 512 300 000 ns.
    static std::optional<model::TimeNs> rulerBase(const TimelineZoom& zoom, model::TimeNs tickStep);
    /// The corner text for a base, in the unit of its size with the decimals its power of ten needs ("15.51 ms").
    static QString rulerBaseText(model::TimeNs base, model::TimeNs span);

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
