// SPDX-License-Identifier: MIT
// KinetoSink (kinetosink.h): threads, device streams and devices → tracks; track names and order.
#include "model/argnames.h"
#include "model/checkedmath.h"
#include "model/tracebuilder.h"
#include "parsers/chromejson/kinetosink.h"

#include <algorithm>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace timesink::parsers::chromejson::kineto {

using model::SliceCategory;
using model::TimeNs;

/// The described track of an event's thread (an overlap lane counts as its thread), or an invalid id.
model::TrackId KinetoSink::describedTrack(std::string_view pid, std::string_view tid)
{
    const std::string_view thread = threadOf(pid, tid);
    m_describedKey.assign(pid);
    m_describedKey.push_back('\x1f');
    m_describedKey.append(thread);
    const auto it = m_describedTracks.find(m_describedKey);
    return it == m_describedTracks.end() ? model::TrackId() : it->second;
}

/// The thread an event belongs to: its own, or for an overlap lane of an exported trace the lane's thread.
std::string_view KinetoSink::threadOf(std::string_view pid, std::string_view tid)
{
    if (m_laneOf.empty())
        return tid;
    m_laneKey.assign(pid);
    m_laneKey.push_back('\x1f');
    m_laneKey.append(tid);
    const auto it = m_laneOf.find(m_laneKey);
    return it == m_laneOf.end() ? tid : std::string_view(it->second);
}

model::TrackId KinetoSink::trackFor(const ChromeEvent& e, Placement placement)
{
    // Events of one thread come in runs: remember the last lookup.
    if (placement == m_lastPlacement && e.pid == m_lastPid && e.tid == m_lastTid && m_lastTrack.isValid())
        return m_lastTrack;
    if (m_described) {
        if (const model::TrackId described = describedTrack(e.pid, e.tid); described.isValid())
            return rememberTrack(e, placement, described);
    }
    const std::string_view tid = threadOf(e.pid, e.tid);
    std::string key;
    key.reserve(e.pid.size() + tid.size() + 3);
    key.push_back(static_cast<char>('0' + static_cast<int>(placement)));
    key.append(e.pid);
    key.push_back('\x1f');
    if (placement == Placement::Host || placement == Placement::DeviceStream)
        key.append(tid);
    auto it = m_tracks.find(key);
    model::TrackId id;
    if (it != m_tracks.end()) {
        id = it->second;
    } else {
        model::TrackInfo info;
        info.processKey = e.pid;
        info.threadKey = tid;
        if (placement == Placement::Host) {
            info.deviceKind = model::DeviceKind::Cpu;
            info.role = model::TrackRole::HostThread;
        } else {
            // Kineto writes the device as the pid and again as args.device, the stream as the tid and again as
            // args.stream; the args win, as a file whose pids and tids are not device and stream numbers (an
            // exported trace) still says them there.
            int device = e.pidIsNumber ? static_cast<int>(e.pidNumber) : -1;
            if (const ChromeArg* a = e.arg("device"); a && a->kind == ChromeArg::Kind::Int)
                device = static_cast<int>(a->i);
            info.deviceKind = model::DeviceKind::Gpu;
            info.deviceIndex = device;
            info.role
                = placement == Placement::DeviceStream ? model::TrackRole::DeviceCompute : model::TrackRole::Synthetic;
            info.streamId = placement == Placement::DeviceStream && e.tidIsNumber ? e.tidNumber : -1;
            if (const ChromeArg* a = e.arg("stream");
                placement == Placement::DeviceStream && a && a->kind == ChromeArg::Kind::Int)
                info.streamId = a->i;
            if (device >= 0 && m_deviceSeen.insert(device).second)
                m_deviceIndices.push_back(device);
        }
        id = m_b.addTrack(info);
        m_tracks.emplace(std::move(key), id);
        m_trackMeta.push_back(TrackMeta {std::string(e.pid), std::string(tid), placement});
    }
    return rememberTrack(e, placement, id);
}

void KinetoSink::nameTracks()
{
    for (std::size_t i = 0; i < m_trackMeta.size(); ++i) {
        const TrackMeta& m = m_trackMeta[i];
        const model::TrackId id(static_cast<std::uint32_t>(i));
        const model::Track& t = m_b.track(id);
        if (m.described)
            continue; // named and ordered by the description
        if (m.counter) {
            auto pn = m_processNames.find(m.pid);
            const std::string process = pn != m_processNames.end() ? pn->second
                : m.pid.empty()                                    ? std::string("process")
                                                                   : "process " + m.pid;
            const std::string name(m_b.str(t.name));
            m_b.setTrackNames(id, name, process, name);
            continue;
        }
        std::string process;
        std::string thread;
        const std::string threadKey = m.pid + '\x1f' + m.tid;
        if (m.placement == Placement::Host) {
            auto pn = m_processNames.find(m.pid);
            process = pn != m_processNames.end() ? pn->second
                : m.pid.empty()                  ? std::string("process")
                                                 : "process " + m.pid;
            auto tn = m_threadNames.find(threadKey);
            thread = tn != m_threadNames.end() ? tn->second : m.tid.empty() ? "thread" : "thread " + m.tid;
        } else {
            auto labels = m_processLabels.find(m.pid);
            process = labels != m_processLabels.end() ? labels->second
                : t.deviceIndex >= 0                  ? "GPU " + std::to_string(t.deviceIndex)
                                                      : "GPU " + m.pid;
            if (m.placement == Placement::DeviceStream) {
                auto tn = m_threadNames.find(threadKey);
                thread = tn != m_threadNames.end() ? tn->second
                    : t.streamId >= 0              ? "stream " + std::to_string(t.streamId)
                                                   : "stream " + m.tid;
            } else {
                thread = m.placement == Placement::DeviceAnnotation ? "annotations" : "sync";
            }
        }
        m_b.setTrackNames(id, thread, process, thread);
        // Process order first, thread order within it; Kineto uses the pid as process sort index, so the
        // combination may not fit an int32, and then the process order alone is kept.
        std::int64_t processOrder = 0;
        std::int64_t threadOrder = 0;
        if (auto ps = m_processSort.find(m.pid); ps != m_processSort.end())
            processOrder = ps->second;
        if (auto ts = m_threadSort.find(threadKey); ts != m_threadSort.end())
            threadOrder = ts->second;
        constexpr std::int64_t kMin = std::numeric_limits<std::int32_t>::min();
        constexpr std::int64_t kMax = std::numeric_limits<std::int32_t>::max();
        processOrder = std::clamp(processOrder, kMin, kMax);
        threadOrder = std::clamp(threadOrder, std::int64_t(-999), std::int64_t(999));
        std::int64_t sort = processOrder * 1000 + threadOrder;
        if (sort > kMax || sort < kMin)
            sort = processOrder;
        if (sort != 0)
            m_b.setTrackSortIndex(id, static_cast<std::int32_t>(sort));
    }
}

} // namespace timesink::parsers::chromejson::kineto
