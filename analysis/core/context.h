// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/communication.h"
#include "analysis/core/deviceactivity.h"
#include "analysis/core/pass.h"
#include "analysis/core/rknnlayers.h"
#include "analysis/core/stepclock.h"
#include "model/trace.h"

#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace timesink::analysis {

/// What the passes of one analyze() share, built once: the step clock (with the options' warm-up rule), when the
/// device was busy and what the host did meanwhile (DeviceActivity), and the device idle time split between the
/// idle-based kinds (IdleAttribution; rest pieces kept from the bubble threshold on). The platform is the trace's
/// own (TraceMetadata::platform). The activity and the idle split are computed on first use and kept, so a trace
/// without device work, or a pass that needs neither, pays nothing for them.
/// Thread-safe: analyze() runs the passes side by side on one context; what is computed on first use is computed
/// once (the first caller computes it, the others wait for it).
/// Example:
///   AnalysisContext context(trace, options, cancel);
///   for (const auto& pass : passRegistry())
///       PassOutput out = pass->run(context);
class AnalysisContext
{
public:
    AnalysisContext(const model::Trace& trace, const AnalysisOptions& options, const CancelToken& cancel);
    /// The context keeps a reference to the options: a temporary would dangle.
    AnalysisContext(const model::Trace& trace, AnalysisOptions&& options, const CancelToken& cancel) = delete;
    AnalysisContext(const AnalysisContext&) = delete;
    AnalysisContext& operator=(const AnalysisContext&) = delete;

    [[nodiscard]] const model::Trace& trace() const { return m_trace; }
    [[nodiscard]] const AnalysisOptions& options() const { return m_options; }
    [[nodiscard]] const CancelToken& cancel() const { return m_cancel; }
    [[nodiscard]] const StepClock& clock() const { return m_clock; }
    [[nodiscard]] const DeviceActivity& activity() const;
    [[nodiscard]] const IdleAttribution& idle() const;
    /// True when a device track has busy work (analysis::hasDeviceWork), computed once.
    [[nodiscard]] bool hasDeviceWork() const;
    /// "no device work in this trace (host-only run), so <consequence>", or empty when there is device work: the
    /// one wording of why a device-side kind is not assessed.
    [[nodiscard]] std::string noDeviceWorkReason(std::string_view consequence) const;
    /// "timestamps were laid out by the importer, not measured, so <consequence>", or empty when they were
    /// measured: kinds that measure time between events are not assessed on laid-out traces.
    [[nodiscard]] std::string notMeasuredReason(std::string_view consequence) const;
    /// notMeasuredReason for the kinds that blame host activity for device idle time: host calls cannot be
    /// related to the device timeline.
    [[nodiscard]] std::string noHostTimelineReason() const;
    /// True when the trace has step markers (not only the synthetic whole-trace step).
    [[nodiscard]] bool hasStepMarkers() const;
    /// The RKNN layer rows (readRknnLayers), read once for every edge-NPU pass.
    [[nodiscard]] const RknnLayerTable& rknnLayers() const;
    /// The collectives over the context's clock (computeCommunicationProfile), for the communication pass and the
    /// result's communication section alike.
    [[nodiscard]] const CommunicationProfile& communication() const;
    /// Frees the device activity and the idle split once nothing will read them again (analyze(): after the passes
    /// and the step lanes, before the re-timing, which needs neither: at 10 GB they are ~0.3 GB). Reading either
    /// afterwards is a bug; not thread-safe against readers.
    void releaseActivity();

private:
    const model::Trace& m_trace;
    const AnalysisOptions& m_options;
    const CancelToken& m_cancel;
    StepClock m_clock;
    mutable std::optional<DeviceActivity> m_activity;
    mutable std::optional<IdleAttribution> m_idle;
    mutable std::optional<bool> m_hasDeviceWork;
    mutable std::optional<RknnLayerTable> m_rknnLayers;
    mutable std::optional<CommunicationProfile> m_communication;
    mutable std::once_flag m_activityOnce;
    mutable std::once_flag m_idleOnce;
    mutable std::once_flag m_hasDeviceWorkOnce;
    mutable std::once_flag m_rknnLayersOnce;
    mutable std::once_flag m_communicationOnce;
};

} // namespace timesink::analysis
