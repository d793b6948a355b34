// SPDX-License-Identifier: MIT
#include "widgets/timelinezoom.h"

#include <algorithm>
#include <cmath>

namespace timesink::widgets {

void TimelineZoom::setTraceRange(model::TimeNs start, model::TimeNs end)
{
    m_traceStart = start;
    // An empty or one-instant trace still gets a drawable range.
    m_traceEnd = std::max(end, start + kMinSpanNs);
    fitAll();
}

void TimelineZoom::setWidth(int widthPx)
{
    m_width = std::max(1, widthPx);
}

double TimelineZoom::xAt(model::TimeNs t) const
{
    // Differences first: absolute epoch nanoseconds (~1.7e18) do not survive a trip through double.
    return static_cast<double>(t - m_start) * m_width / static_cast<double>(span());
}

model::TimeNs TimelineZoom::timeAt(double x) const
{
    return m_start + static_cast<model::TimeNs>(std::floor(x * static_cast<double>(span()) / m_width));
}

void TimelineZoom::fitAll()
{
    m_start = m_traceStart;
    m_end = m_traceEnd;
}

void TimelineZoom::setRange(model::TimeNs t0, model::TimeNs t1)
{
    if (t1 < t0)
        std::swap(t0, t1);
    m_start = t0;
    m_end = t1;
    clamp();
}

void TimelineZoom::showRange(model::TimeNs t0, model::TimeNs t1, double marginFraction)
{
    if (t1 < t0)
        std::swap(t0, t1);
    const auto margin = static_cast<model::TimeNs>(static_cast<double>(std::max<model::TimeNs>(t1 - t0, kMinSpanNs))
                                                   * marginFraction);
    setRange(t0 - margin, t1 + margin);
}

void TimelineZoom::zoomAround(double factor, double x)
{
    if (!(factor > 0.0))
        return;
    const model::TimeNs anchor = timeAt(x);
    const double newSpan = std::max(static_cast<double>(kMinSpanNs), static_cast<double>(span()) / factor);
    const double fraction = std::clamp(x / m_width, 0.0, 1.0);
    const auto before = static_cast<model::TimeNs>(std::llround(newSpan * fraction));
    m_start = anchor - before;
    m_end = m_start + static_cast<model::TimeNs>(std::llround(newSpan));
    clamp();
}

void TimelineZoom::panPixels(double dx)
{
    const auto dt = static_cast<model::TimeNs>(std::llround(dx * nsPerPixel()));
    const model::TimeNs s = span();
    m_start += dt;
    m_end = m_start + s;
    clamp();
}

void TimelineZoom::clamp()
{
    const model::TimeNs full = m_traceEnd - m_traceStart;
    model::TimeNs s = std::clamp<model::TimeNs>(m_end - m_start, std::min(kMinSpanNs, full), full);
    // Shift (not shrink) a view that slid past an edge, so panning stops at the trace ends.
    m_start = std::clamp(m_start, m_traceStart, m_traceEnd - s);
    m_end = m_start + s;
}

} // namespace timesink::widgets
