// SPDX-License-Identifier: MIT
#include "analysis/stepclock.h"

#include "analysis/deviceactivity.h"

#include <algorithm>

namespace timesink::analysis {

namespace {

/// [first start, last end) of the busy slices of device tracks, or an empty interval.
Interval deviceExtent(const model::Trace& trace)
{
    Interval extent {0, 0};
    bool any = false;
    for (const model::Track& t : trace.tracks()) {
        if (!model::isDeviceTrack(t))
            continue;
        for (std::uint32_t i = 0; i < t.size(); ++i) {
            if (!isBusyCategory(t.category(i)) || t.dur(i) <= 0)
                continue;
            extent.start = any ? std::min(extent.start, t.ts(i)) : t.ts(i);
            extent.end = any ? std::max(extent.end, t.end(i)) : t.end(i);
            any = true;
        }
    }
    return extent;
}

} // namespace

StepClock::StepClock(const model::Trace& trace, bool includeWarmup)
    : m_trace(trace)
    , m_includeWarmup(includeWarmup)
{
    const auto steps = trace.steps();
    m_windows.reserve(steps.size());
    model::TimeNs floor = steps.empty() ? 0 : steps.front().start;
    for (std::size_t i = 0; i < steps.size(); ++i) {
        // The model sorts steps by start; a window never reaches past the next step's start or
        // back before the previous window's end, which keeps the list canonical (empty windows allowed).
        model::TimeNs s = std::max(steps[i].start, floor);
        model::TimeNs e = std::max(s, steps[i].end);
        if (i + 1 < steps.size())
            e = std::min(e, std::max(s, steps[i + 1].start));
        m_windows.push_back({s, e});
        floor = e;
    }
    // Start-up: without step markers, the run starts with the first device activity (laid-out timestamps have
    // no start-up to leave out).
    if (steps.size() == 1 && steps.front().synthetic && !trace.metadata().syntheticTimestamps) {
        const Interval extent = deviceExtent(trace);
        Interval& w = m_windows.front();
        if (extent.end > extent.start && extent.start < w.end && extent.end > w.start) {
            m_startupNs = std::max<model::TimeNs>(0, extent.start - w.start);
            w = {std::max(w.start, extent.start), std::min(w.end, extent.end)};
        }
    }
    m_full = m_windows;
    // Warm-up: a first step far longer than the steady state.
    m_warmup = m_windows.size();
    if (m_windows.size() >= 3 && !steps.front().synthetic) {
        std::vector<model::TimeNs> others;
        for (std::size_t i = 1; i < m_windows.size(); ++i)
            others.push_back(m_windows[i].length());
        std::nth_element(others.begin(), others.begin() + static_cast<std::ptrdiff_t>(others.size() / 2), others.end());
        const model::TimeNs median = others[others.size() / 2];
        if (median > 0 && m_windows.front().length() > 2 * median) {
            m_warmup = 0;
            if (!includeWarmup)
                m_windows.front().end = m_windows.front().start;
        }
    }
    for (const Interval& w : m_windows)
        m_analysed += w.length();
}

std::size_t StepClock::stepAt(model::TimeNs t) const
{
    auto it = std::partition_point(m_windows.begin(), m_windows.end(), [t](const Interval& w) { return w.end <= t; });
    if (it != m_windows.end() && it->start <= t && t < it->end)
        return static_cast<std::size_t>(it - m_windows.begin());
    return m_windows.size();
}

} // namespace timesink::analysis
