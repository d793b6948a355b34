// SPDX-License-Identifier: MIT
#include "parsers/ascendcommon/ascendtracks.h"

namespace timesink::parsers {

using model::DeviceKind;
using model::TrackInfo;
using model::TrackRole;

model::TrackId AscendTracks::custom(const std::string& processKey, const std::string& threadKey, const TrackInfo& info)
{
    auto key = std::make_pair(processKey, threadKey);
    if (auto it = m_tracks.find(key); it != m_tracks.end())
        return it->second;
    TrackInfo copy = info;
    copy.processKey = processKey;
    copy.threadKey = threadKey;
    const model::TrackId id = m_builder.addTrack(copy);
    m_tracks.emplace(std::move(key), id);
    return id;
}

model::TrackId AscendTracks::deviceStream(std::int32_t device, std::int64_t stream)
{
    const std::string name = "Stream " + std::to_string(stream);
    TrackInfo info;
    info.name = name;
    info.processName = "Ascend Hardware";
    info.threadName = name;
    info.deviceKind = DeviceKind::Npu;
    info.role = TrackRole::DeviceCompute;
    info.deviceIndex = device;
    info.streamId = stream;
    info.sortIndex = 1000 + static_cast<std::int32_t>(stream & 0xffff);
    return custom("Ascend Hardware " + std::to_string(device), std::to_string(stream), info);
}

model::TrackId AscendTracks::hostThread(std::string_view process, std::int64_t pid, std::int64_t tid)
{
    const std::string name = "Thread " + std::to_string(tid);
    TrackInfo info;
    info.name = name;
    info.processName = process;
    info.threadName = name;
    info.deviceKind = DeviceKind::Cpu;
    info.role = TrackRole::HostThread;
    info.sortIndex = process == "Python" ? 0 : 500;
    return custom(std::string(process) + " " + std::to_string(pid), std::to_string(tid), info);
}

model::TrackId AscendTracks::communication(std::int32_t device, std::string_view lane)
{
    return namedLane("HCCL", device, lane, TrackRole::Communication, 2000);
}

model::TrackId AscendTracks::overlap(std::int32_t device, std::string_view lane)
{
    return namedLane("Overlap Analysis", device, lane, TrackRole::Synthetic, 3000);
}

model::TrackId AscendTracks::namedLane(std::string_view process, std::int32_t device, std::string_view lane,
                                       TrackRole role, std::int32_t sortIndex)
{
    TrackInfo info;
    info.name = lane;
    info.processName = process;
    info.threadName = lane;
    info.deviceKind = DeviceKind::Npu;
    info.role = role;
    info.deviceIndex = device;
    info.sortIndex = sortIndex;
    return custom(std::string(process) + " " + std::to_string(device), std::string(lane), info);
}

model::TrackId AscendTracks::counter(std::string_view process, std::string_view series, std::int32_t device)
{
    // "AI Core Freq (MHz)" already names its process; "HBM 0/Read (MB/s)" under "HBM" too.
    const std::string name = series.substr(0, process.size()) == process
        ? std::string(series)
        : std::string(process) + " " + std::string(series);
    TrackInfo info;
    info.name = name;
    info.processName = process;
    info.threadName = series;
    info.deviceKind = device >= 0 ? DeviceKind::Npu : DeviceKind::Cpu;
    info.role = TrackRole::Counter;
    info.deviceIndex = device;
    info.sortIndex = 4000;
    return custom(std::string(process) + " " + std::to_string(device), std::string(series), info);
}

} // namespace timesink::parsers
