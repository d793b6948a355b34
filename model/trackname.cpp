// SPDX-License-Identifier: MIT
#include "model/trackname.h"

namespace timesink::model {

std::string trackName(const Trace& trace, const Track& track)
{
    if (!track.name.isEmpty())
        return std::string(trace.str(track.name));
    if (!track.threadName.isEmpty())
        return std::string(trace.str(track.threadName));
    if (!track.threadKey.isEmpty())
        return "thread " + std::string(trace.str(track.threadKey));
    return "track " + std::to_string(track.id.value);
}

std::string trackDisplayName(const Trace& trace, const Track& track)
{
    const std::string_view process = trace.str(track.processName);
    return process.empty() ? trackName(trace, track) : std::string(process) + " / " + trackName(trace, track);
}

} // namespace timesink::model
