// SPDX-License-Identifier: MIT
#pragma once

#include "model/types.h"

namespace timesink::widgets {

/// The pure time <-> pixel mapping of a timeline: which time range [start, end] is shown across `width`
/// pixels. No widgets, no painting, so it is testable on its own (like Qt Creator's TimelineZoomControl).
///
/// Pixel x covers [timeAt(x), timeAt(x + 1)). The view is kept inside the trace range (with the whole
/// trace as the widest view) and never narrower than kMinSpanNs.
///
/// Example: trace [0, 1000] ns over 100 px → fitAll() gives 10 ns per px; xAt(250) == 25.0;
///          zoomAround(2.0, 0) keeps t = 0 under x = 0 and shows [0, 500].
class TimelineZoom
{
public:
    /// The narrowest view: 10 ns across the whole width (below that the integer clock shows nothing new).
    static constexpr model::TimeNs kMinSpanNs = 10;

    /// The trace extent the view may move in. Resets the view to the whole range.
    void setTraceRange(model::TimeNs start, model::TimeNs end);
    /// Width in pixels of the area that shows time (without the label column).
    void setWidth(int widthPx);

    [[nodiscard]] model::TimeNs traceStart() const { return m_traceStart; }
    [[nodiscard]] model::TimeNs traceEnd() const { return m_traceEnd; }
    [[nodiscard]] model::TimeNs start() const { return m_start; }
    [[nodiscard]] model::TimeNs end() const { return m_end; }
    [[nodiscard]] model::TimeNs span() const { return m_end - m_start; }
    [[nodiscard]] int width() const { return m_width; }
    [[nodiscard]] double nsPerPixel() const { return static_cast<double>(span()) / m_width; }

    /// Pixel position of time t (fractional; may lie outside [0, width]).
    [[nodiscard]] double xAt(model::TimeNs t) const;
    /// Time under pixel position x (x may be fractional).
    [[nodiscard]] model::TimeNs timeAt(double x) const;

    /// Shows the whole trace.
    void fitAll();
    /// Shows [t0, t1] (clamped to the trace, widened to kMinSpanNs).
    void setRange(model::TimeNs t0, model::TimeNs t1);
    /// Shows [t0, t1] with `marginFraction` of its length added on both sides, so the range is not glued
    /// to the edges (used to show a finding's evidence).
    void showRange(model::TimeNs t0, model::TimeNs t1, double marginFraction = 0.05);
    /// Zooms by `factor` (> 1 zooms in) keeping the time under pixel x fixed.
    void zoomAround(double factor, double x);
    /// Moves the view by `dx` pixels (positive moves to later times).
    void panPixels(double dx);

    friend bool operator==(const TimelineZoom&, const TimelineZoom&) = default;

private:
    void clamp();

    model::TimeNs m_traceStart = 0;
    model::TimeNs m_traceEnd = 1;
    model::TimeNs m_start = 0;
    model::TimeNs m_end = 1;
    int m_width = 1;
};

} // namespace timesink::widgets
