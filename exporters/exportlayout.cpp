// SPDX-License-Identifier: MIT
#include "exporters/exportlayout.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <tuple>

namespace timesink::exporters {

namespace {

std::int32_t parsePositive(std::string_view text)
{
    std::int32_t value = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || ptr != text.data() + text.size() || value <= 0)
        return 0;
    return value;
}

} // namespace

bool ExportLayout::claim(std::int32_t id)
{
    const auto it = std::lower_bound(m_used.begin(), m_used.end(), id);
    if (it != m_used.end() && *it == id)
        return false;
    m_used.insert(it, id);
    return true;
}

std::int32_t ExportLayout::newId()
{
    while (!claim(m_next))
        ++m_next;
    return m_next++;
}

ExportLayout::ExportLayout(const model::Trace& trace)
{
    const auto tracks = trace.tracks();
    m_trackProcess.resize(tracks.size());
    m_trackTid.resize(tracks.size());
    std::map<std::tuple<std::string_view, std::string_view, int>, std::size_t> groups;
    std::vector<std::string_view> processKeys;
    for (const model::Track& t : tracks) {
        const auto key = std::make_tuple(trace.str(t.processName), trace.str(t.processKey), int(t.deviceKind));
        auto [it, inserted] = groups.emplace(key, m_processes.size());
        if (inserted) {
            ExportProcess p;
            p.name = std::string(trace.str(t.processName));
            if (p.name.empty())
                p.name = std::string(trace.str(t.processKey));
            p.sortIndex = t.sortIndex;
            m_processes.push_back(std::move(p));
            processKeys.push_back(std::get<1>(key));
        }
        m_trackProcess[t.id.value] = it->second;
    }
    // Host processes keep their real pid when it is a usable number; device "processes" (keyed by device
    // index 0, 1, …) would collide with small host pids, so they always get synthetic ids.
    std::vector<bool> hostProcess(m_processes.size(), false);
    for (const model::Track& t : tracks) {
        if (t.deviceKind == model::DeviceKind::Cpu)
            hostProcess[m_trackProcess[t.id.value]] = true;
    }
    for (std::size_t p = 0; p < m_processes.size(); ++p) {
        const std::int32_t pid = hostProcess[p] ? parsePositive(processKeys[p]) : 0;
        m_processes[p].pid = pid > 0 && claim(pid) ? pid : 0;
    }
    for (ExportProcess& p : m_processes) {
        if (p.pid == 0)
            p.pid = newId();
    }
    std::vector<std::vector<std::int32_t>> tidsOfProcess(m_processes.size());
    for (const model::Track& t : tracks) {
        const std::size_t p = m_trackProcess[t.id.value];
        std::int32_t tid = t.role == model::TrackRole::HostThread ? parsePositive(trace.str(t.threadKey)) : 0;
        auto& seen = tidsOfProcess[p];
        // Unique within the process is enough (a main thread's tid equals its pid); claim() still records it
        // so that synthetic ids never reuse it.
        if (tid > 0 && std::find(seen.begin(), seen.end(), tid) == seen.end()) {
            claim(tid);
            seen.push_back(tid);
        } else {
            tid = newId();
        }
        m_trackTid[t.id.value] = tid;
    }
}

} // namespace timesink::exporters
