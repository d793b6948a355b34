// SPDX-License-Identifier: MIT
#pragma once

namespace timesink::exporters {

/// What the trace exporters (Perfetto protobuf, Chrome JSON) include besides the slices themselves.
struct TraceExportOptions
{
    bool includeArgs = true;     // slice args as debug annotations / "args"
    bool includeFlows = true;    // launch → kernel and forward → backward arrows
    bool includeCounters = true; // counter tracks
    bool includeFindings = true; // a "Timesink findings" track group with one track per finding
};

} // namespace timesink::exporters
