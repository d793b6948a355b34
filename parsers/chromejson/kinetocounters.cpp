// SPDX-License-Identifier: MIT
// KinetoSink (kinetosink.h): counter events (C) → counter tracks, memory counters per device.
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

model::TrackId KinetoSink::counterTrack(std::string_view pid, const std::string& name, std::int64_t device)
{
    std::string key = "c";
    key.append(pid);
    key.push_back('\x1f');
    key.append(name);
    auto it = m_tracks.find(key);
    if (it != m_tracks.end())
        return it->second;
    model::TrackInfo info;
    info.name = name;
    info.processKey = pid;
    info.threadKey = name;
    info.threadName = name;
    info.role = model::TrackRole::Counter;
    info.deviceKind = device >= 0 ? model::DeviceKind::Gpu : model::DeviceKind::Cpu;
    info.deviceIndex = static_cast<std::int32_t>(device);
    const model::TrackId id = m_b.addTrack(info);
    m_tracks.emplace(std::move(key), id);
    m_trackMeta.push_back(TrackMeta {std::string(pid), name, Placement::Host, true});
    return id;
}

void KinetoSink::counter(const ChromeEvent& e)
{
    if (!e.hasTs) {
        m_b.warn(model::ImportWarningKind::MissingTs, "a counter event without a usable ts was skipped");
        return;
    }
    const model::TrackId described = m_described ? describedTrack(e.pid, e.tid) : model::TrackId();
    for (const ChromeArg& a : e.args) {
        if (a.kind != ChromeArg::Kind::Int && a.kind != ChromeArg::Kind::Double)
            continue;
        if (described.isValid()) {
            m_b.addCounterSample(described, model::saturatingAdd(e.ts, m_base),
                                 a.kind == ChromeArg::Kind::Int ? double(a.i) : a.d);
            ++m_useful;
            continue;
        }
        const std::string name
            = e.args.size() == 1 ? std::string(e.name) : std::string(e.name) + " " + std::string(a.key);
        const model::TrackId t = counterTrack(e.pid, name, -1);
        m_b.addCounterSample(t, model::saturatingAdd(e.ts, m_base), a.kind == ChromeArg::Kind::Int ? double(a.i) : a.d);
        ++m_useful;
    }
}

} // namespace timesink::parsers::chromejson::kineto
