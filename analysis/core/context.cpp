// SPDX-License-Identifier: MIT
#include "analysis/core/context.h"

#include <algorithm>

namespace timesink::analysis {

AnalysisContext::AnalysisContext(const model::Trace& trace, const AnalysisOptions& options, const CancelToken& cancel)
    : m_trace(trace)
    , m_options(options)
    , m_cancel(cancel)
    , m_clock(trace, options.includeWarmup)
{
}

const DeviceActivity& AnalysisContext::activity() const
{
    if (!m_activity)
        m_activity = computeDeviceActivity(m_trace, m_options, m_cancel);
    return *m_activity;
}

const IdleAttribution& AnalysisContext::idle() const
{
    // Only the pipeline-bubble pass reads the rest pieces, and only those from its threshold on; the other kinds'
    // pieces do not depend on the threshold.
    if (!m_idle)
        m_idle = attributeIdle(m_clock, activity(), m_cancel, m_options.bubbleThresholdNs);
    return *m_idle;
}

std::string_view AnalysisContext::noHostTimelineReason() const
{
    if (m_trace.metadata().syntheticTimestamps)
        return "timestamps were laid out by the importer, not measured, so there is no host timeline to relate to the "
               "device";
    return {};
}

bool AnalysisContext::hasStepMarkers() const
{
    const auto steps = m_trace.steps();
    return std::any_of(steps.begin(), steps.end(), [](const model::Step& s) { return !s.synthetic; });
}

} // namespace timesink::analysis
