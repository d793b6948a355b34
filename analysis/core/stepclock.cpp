// SPDX-License-Identifier: MIT
#include "analysis/core/stepclock.h"

#include "analysis/core/deviceactivity.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <string_view>

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

/// N of "ProfilerStep#N", or nothing.
std::optional<std::int64_t> profilerStepNumber(std::string_view name)
{
    constexpr std::string_view kPrefix = "ProfilerStep#";
    if (name.substr(0, kPrefix.size()) != kPrefix)
        return std::nullopt;
    const std::string_view digits = name.substr(kPrefix.size());
    if (digits.empty() || digits.size() > 18)
        return std::nullopt;
    std::int64_t number = 0;
    for (const char ch : digits) {
        if (ch < '0' || ch > '9')
            return std::nullopt;
        number = number * 10 + (ch - '0');
    }
    return number;
}

} // namespace

StepClock::StepClock(const model::Trace& trace, bool includeWarmup)
    : m_trace(trace)
    , m_includeWarmup(includeWarmup)
{
    const auto steps = trace.steps();
    m_host.reserve(steps.size());
    model::TimeNs floor = steps.empty() ? 0 : steps.front().start;
    for (std::size_t i = 0; i < steps.size(); ++i) {
        // The model sorts steps by start; a window never reaches past the next step's start or
        // back before the previous window's end, which keeps the list canonical (empty windows allowed).
        model::TimeNs s = std::max(steps[i].start, floor);
        model::TimeNs e = std::max(s, steps[i].end);
        if (i + 1 < steps.size())
            e = std::min(e, std::max(s, steps[i + 1].start));
        m_host.push_back({s, e});
        floor = e;
    }
    // Start-up: without step markers, the run starts with the first device activity (laid-out timestamps have
    // no start-up to leave out).
    if (steps.size() == 1 && steps.front().synthetic && !trace.metadata().syntheticTimestamps) {
        const Interval extent = deviceExtent(trace);
        Interval& w = m_host.front();
        if (extent.end > extent.start && extent.start < w.end && extent.end > w.start) {
            m_startupNs = std::max<model::TimeNs>(0, extent.start - w.start);
            w = {std::max(w.start, extent.start), std::min(w.end, extent.end)};
        }
    }
    m_hostFull = m_host;
    findDeviceWindows();

    // Analysis windows: the host windows moved to follow a lagging device (see the header).
    m_windows.reserve(m_host.size());
    constexpr model::TimeNs kNone = std::numeric_limits<model::TimeNs>::min();
    model::TimeNs deviceEndSoFar = m_queuedBeforeEnd.value_or(kNone); // D(N−1); before the first step: D(−1)
    std::vector<model::TimeNs> starts(m_host.size());
    for (std::size_t i = 0; i < m_host.size(); ++i) {
        model::TimeNs earlier = deviceEndSoFar;
        if (m_hasDevice[i] && earlier != kNone)
            earlier = std::min(earlier, m_device[i].start);
        starts[i] = std::max(m_host[i].start, earlier);
        if (m_hasDevice[i])
            deviceEndSoFar = std::max(deviceEndSoFar, m_device[i].end);
    }
    floor = starts.empty() ? 0 : starts.front();
    deviceEndSoFar = kNone;
    for (std::size_t i = 0; i < m_host.size(); ++i) {
        if (m_hasDevice[i])
            deviceEndSoFar = std::max(deviceEndSoFar, m_device[i].end);
        const model::TimeNs s = std::max(starts[i], floor);
        model::TimeNs e = std::max({s, m_host[i].end, deviceEndSoFar});
        if (i + 1 < m_host.size())
            e = std::min(e, std::max(s, starts[i + 1]));
        m_windows.push_back({s, e});
        floor = e;
    }
    m_full = m_windows;

    // Warm-up: a first host step far longer than the steady state.
    m_warmup = m_host.size();
    if (m_host.size() >= 3 && !steps.front().synthetic) {
        std::vector<model::TimeNs> others;
        for (std::size_t i = 1; i < m_host.size(); ++i)
            others.push_back(m_host[i].length());
        std::nth_element(others.begin(), others.begin() + static_cast<std::ptrdiff_t>(others.size() / 2), others.end());
        const model::TimeNs median = others[others.size() / 2];
        if (median > 0 && m_host.front().length() > 2 * median) {
            m_warmup = 0;
            if (!includeWarmup) {
                m_host.front().end = m_host.front().start;
                m_windows.front().end = m_windows.front().start;
            }
        }
    }
    for (const Interval& w : m_windows)
        m_analysed += w.length();
}

void StepClock::findDeviceWindows()
{
    const std::size_t n = m_hostFull.size();
    m_device.assign(n, Interval {0, 0});
    m_hasDevice.assign(n, false);
    const auto extend = [&](std::size_t s, model::TimeNs start, model::TimeNs end) {
        m_device[s] = m_hasDevice[s] ? Interval {std::min(m_device[s].start, start), std::max(m_device[s].end, end)}
                                     : Interval {start, end};
        m_hasDevice[s] = true;
    };
    // The step whose host window (before the warm-up rule: a warm-up step left out still gets its device
    // window) holds the launch call. Every pass builds a StepClock, so this loop is kept lean: flows are sorted
    // by source, so on one host track the launch times rise and the step is found by walking forward.
    std::size_t cursor = 0;
    model::TimeNs lastTs = std::numeric_limits<model::TimeNs>::min();
    model::TrackId lastTrack;
    for (const model::Flow& f : m_trace.flows()) {
        if (!isDeviceLaunch(m_trace, f))
            continue;
        const model::Track& host = m_trace.track(f.from.track);
        const model::Track& device = m_trace.track(f.to.track);
        const model::TimeNs t = host.ts(f.from.index.value);
        if (f.from.track != lastTrack || t < lastTs) {
            cursor = static_cast<std::size_t>(std::partition_point(m_hostFull.begin(), m_hostFull.end(),
                                                                   [t](const Interval& w) { return w.end <= t; })
                                              - m_hostFull.begin());
            lastTrack = f.from.track;
        }
        lastTs = t;
        while (cursor < n && m_hostFull[cursor].end <= t)
            ++cursor;
        if (cursor < n && m_hostFull[cursor].start <= t)
            extend(cursor, device.ts(f.to.index.value), device.end(f.to.index.value));
    }
    // A device-side ProfilerStep#N annotation is the device's own account of the step (ROCm writes ones shorter
    // than the work it launched): the window covers both.
    const auto steps = m_trace.steps();
    for (const model::Track& t : m_trace.tracks()) {
        if (t.deviceKind == model::DeviceKind::Cpu || t.role == model::TrackRole::HostThread)
            continue;
        for (std::uint32_t i = 0; i < t.size(); ++i) {
            const model::SliceCategory c = t.category(i);
            if (c != model::SliceCategory::Annotation && c != model::SliceCategory::Step)
                continue;
            const std::optional<std::int64_t> number = profilerStepNumber(m_trace.str(t.sliceName(i)));
            if (!number)
                continue;
            for (std::size_t s = 0; s < n; ++s) {
                if (steps[s].number == *number && !steps[s].synthetic)
                    extend(s, t.ts(i), t.end(i));
            }
        }
    }
    findQueuedBefore();
}

void StepClock::findQueuedBefore()
{
    // Only the first step can meet work that no earlier step accounts for; a trace without launch flows has no
    // device window to tell the step's own work from the rest by, and keeps its host window.
    if (m_hostFull.empty() || !m_hasDevice[0] || m_trace.steps().front().synthetic)
        return;
    // An operation without a launch flow was launched before the trace began only when it says so: it carries the
    // launch's correlation id (Kineto keeps args.correlation on an activity whose runtime call is not in the file).
    // One without any (an msprof MEMCPY_ASYNC, which the database links to no call) may be the step's own.
    const model::StringId correlationKey = m_trace.strings().find("correlation");
    const model::TimeNs ownStart = m_device[0].start;
    const model::TimeNs hostStart = m_hostFull[0].start;
    // The device operations that started before the first step's own work and ran into its host window, by
    // (track, index). Tracks are sorted by start, so they are a prefix of each device track: usually none.
    std::vector<std::uint64_t> early;
    for (const model::Track& t : m_trace.tracks()) {
        if (!model::isDeviceTrack(t))
            continue;
        for (std::uint32_t i = 0; i < t.size() && t.ts(i) < ownStart; ++i) {
            if (isBusyCategory(t.category(i)) && t.dur(i) > 0 && t.end(i) > hostStart)
                early.push_back((std::uint64_t(t.id.value) << 32) | i);
        }
    }
    if (early.empty())
        return;
    std::sort(early.begin(), early.end());
    // Launched from before the first step: queued before it. Launched from its start on: a step's own work.
    std::vector<std::uint64_t> launchedBefore;
    std::vector<std::uint64_t> launchedLater;
    for (const model::Flow& f : m_trace.flows()) {
        if (!isDeviceLaunch(m_trace, f))
            continue;
        const std::uint64_t key = (std::uint64_t(f.to.track.value) << 32) | f.to.index.value;
        if (!std::binary_search(early.begin(), early.end(), key))
            continue;
        (m_trace.track(f.from.track).ts(f.from.index.value) < hostStart ? launchedBefore : launchedLater)
            .push_back(key);
    }
    std::sort(launchedBefore.begin(), launchedBefore.end());
    std::sort(launchedLater.begin(), launchedLater.end());
    for (const std::uint64_t key : early) {
        if (std::binary_search(launchedLater.begin(), launchedLater.end(), key))
            continue;
        const model::Track& t = m_trace.track(model::TrackId(static_cast<std::uint32_t>(key >> 32)));
        const auto i = static_cast<std::uint32_t>(key & 0xffffffffu);
        if (!std::binary_search(launchedBefore.begin(), launchedBefore.end(), key)
            && (correlationKey.isEmpty() || !m_trace.argStore().find(t.args(i), correlationKey)))
            continue;
        m_queuedBeforeEnd = std::max(m_queuedBeforeEnd.value_or(t.end(i)), t.end(i));
    }
}

std::size_t StepClock::indexIn(const IntervalList& windows, model::TimeNs t)
{
    auto it = std::partition_point(windows.begin(), windows.end(), [t](const Interval& w) { return w.end <= t; });
    if (it != windows.end() && it->start <= t && t < it->end)
        return static_cast<std::size_t>(it - windows.begin());
    return windows.size();
}

} // namespace timesink::analysis
