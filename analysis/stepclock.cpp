// SPDX-License-Identifier: MIT
#include "analysis/stepclock.h"

#include <algorithm>

namespace timesink::analysis {

StepClock::StepClock(const model::Trace& trace)
    : m_trace(trace)
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
        m_analysed += e - s;
    }
}

std::size_t StepClock::stepAt(model::TimeNs t) const
{
    auto it = std::partition_point(m_windows.begin(), m_windows.end(), [t](const Interval& w) { return w.end <= t; });
    if (it != m_windows.end() && it->start <= t && t < it->end)
        return static_cast<std::size_t>(it - m_windows.begin());
    return m_windows.size();
}

} // namespace timesink::analysis
