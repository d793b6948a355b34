// SPDX-License-Identifier: MIT
#pragma once

#include "model/trace.h"

#include <string>

namespace timesink::model {

/// The name people see for a track: its own name, else its thread's name, else "thread KEY", else "track N".
/// The timeline's labels, reports and exports all use it.
std::string trackName(const Trace& trace, const Track& track);

/// trackName with the process in front when there is one, so the name is unambiguous on its own (in a finding's
/// evidence, the device summary, an exported annotation): "GPU 0 / stream 7", "python3 / MainThread".
std::string trackDisplayName(const Trace& trace, const Track& track);

} // namespace timesink::model
