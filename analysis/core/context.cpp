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
    std::call_once(m_activityOnce, [this] { m_activity = computeDeviceActivity(m_trace, m_options, m_cancel); });
    return *m_activity;
}

void AnalysisContext::releaseActivity()
{
    m_idle.reset();
    m_activity.reset();
}

const RknnLayerTable& AnalysisContext::rknnLayers() const
{
    std::call_once(m_rknnLayersOnce, [this] { m_rknnLayers = readRknnLayers(m_trace); });
    return *m_rknnLayers;
}

const IdleAttribution& AnalysisContext::idle() const
{
    // Only the pipeline-bubble pass reads the rest pieces, and only those from its threshold on; the other kinds'
    // pieces do not depend on the threshold.
    std::call_once(m_idleOnce,
                   [this] { m_idle = attributeIdle(m_clock, activity(), m_cancel, m_options.bubbleThresholdNs); });
    return *m_idle;
}

const CommunicationProfile& AnalysisContext::communication() const
{
    std::call_once(m_communicationOnce,
                   [this] { m_communication = computeCommunicationProfile(m_trace, m_clock, m_cancel); });
    return *m_communication;
}

bool AnalysisContext::hasDeviceWork() const
{
    std::call_once(m_hasDeviceWorkOnce, [this] { m_hasDeviceWork = analysis::hasDeviceWork(m_trace); });
    return *m_hasDeviceWork;
}

std::string AnalysisContext::noDeviceWorkReason(std::string_view consequence) const
{
    if (hasDeviceWork())
        return {};
    return "no device work in this trace (host-only run), so " + std::string(consequence);
}

std::string AnalysisContext::notMeasuredReason(std::string_view consequence) const
{
    if (!m_trace.metadata().syntheticTimestamps)
        return {};
    return "timestamps were laid out by the importer, not measured, so " + std::string(consequence);
}

std::string AnalysisContext::noHostTimelineReason() const
{
    return notMeasuredReason("there is no host timeline to relate to the device");
}

bool AnalysisContext::hasStepMarkers() const
{
    const auto steps = m_trace.steps();
    return std::any_of(steps.begin(), steps.end(), [](const model::Step& s) { return !s.synthetic; });
}

} // namespace timesink::analysis
