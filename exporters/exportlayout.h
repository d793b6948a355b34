// SPDX-License-Identifier: MIT
#pragma once

#include "model/trace.h"

#include <cstdint>
#include <string>
#include <vector>

namespace timesink::exporters {

/// A process row in an exported trace: the model's tracks grouped by (process name, process key, device kind).
struct ExportProcess
{
    std::string name;
    std::int32_t pid = 0;
    std::int32_t sortIndex = 0;
};

/// The integer process and thread ids an exported trace uses for the model's tracks. Trace viewers want
/// positive int32 pids/tids that are unique; the model keeps raw ids as text ("1234", "CPU functions",
/// device "0"), so a numeric, positive, not yet used id is kept (host pids stay recognisable) and everything
/// else gets a synthetic id from 100000000 up.
/// Example: host thread pid "4242" tid "4243" → pid 4242, tid 4243; GPU 0 stream 7 → pid 100000000, tid 100000001.
class ExportLayout
{
public:
    explicit ExportLayout(const model::Trace& trace);

    [[nodiscard]] const std::vector<ExportProcess>& processes() const { return m_processes; }
    /// Index into processes() of a track.
    [[nodiscard]] std::size_t processOf(model::TrackId track) const { return m_trackProcess[track.value]; }
    [[nodiscard]] std::int32_t tidOf(model::TrackId track) const { return m_trackTid[track.value]; }
    /// A fresh id, unique among every pid and tid handed out (for overlap lanes and the findings process).
    std::int32_t newId();

private:
    std::vector<ExportProcess> m_processes;
    std::vector<std::size_t> m_trackProcess;
    std::vector<std::int32_t> m_trackTid;
    std::vector<std::int32_t> m_used; // sorted
    std::int32_t m_next = 100'000'000;
    bool claim(std::int32_t id);
};

} // namespace timesink::exporters
