// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/finding.h"
#include "exporters/traceexportoptions.h"
#include "model/trace.h"

#include <cstdint>
#include <ostream>
#include <span>
#include <string>

namespace timesink::exporters {

/// Writes the unified trace as Chrome trace-event JSON (`{"traceEvents": [...]}`) that ui.perfetto.dev and
/// chrome://tracing open, in the Kineto dialect so that re-importing it gives the same trace: Kineto's top-level
/// keys (schemaVersion, deviceProperties, distributedInfo), process/thread names and sort order as "M" events,
/// slices as "X" events with their Kineto `cat` (and `device`/`stream`/`correlation` args on device activities),
/// flows as "s"/"f" pairs ("ac2g" keyed by correlation id, "fwdbwd"; the "f" binds to its enclosing slice),
/// counters as "C" events, and the findings as a "Timesink findings" process with one thread per finding, in the
/// category "timesink.finding" that the importer leaves out. docs/report-schema.md lists what a round trip keeps.
///
/// Timestamps are exact: the format counts microseconds, and each ns value is written as integer µs with a
/// three-digit fraction, never through a double: 1736408883700059821 ns → `"ts":1736408883700059.821`.
/// Strings go through nlohmann::json escaping (invalid UTF-8 replaced), so any name is safe.
/// The output is streamed event by event; slices that partially overlap on a track go to an extra thread
/// "<track> (overlap N)" so that viewers never see a broken nesting.
class ChromeJsonExporter
{
public:
    ChromeJsonExporter(const model::Trace& trace, std::span<const analysis::Finding> findings,
                       TraceExportOptions options = {});

    bool write(std::ostream& out, std::string& error);

    [[nodiscard]] std::uint64_t eventsWritten() const { return m_events; }

    /// ns as exact decimal µs: 1500 → "1.500", -1 → "-0.001", 0 → "0.000".
    static std::string formatMicros(model::TimeNs ns);

private:
    const model::Trace& m_trace;
    std::span<const analysis::Finding> m_findings;
    TraceExportOptions m_options;
    std::uint64_t m_events = 0;
};

} // namespace timesink::exporters
