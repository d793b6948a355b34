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

/// Writes the unified trace as a Perfetto protobuf trace (`.pftrace`) that ui.perfetto.dev and
/// trace_processor open: one process track per model process, one child track per model track (slices as
/// TYPE_SLICE_BEGIN/END pairs at exact ns timestamps, args as debug annotations, flows as flow ids), counter
/// tracks, and a "Timesink findings" track group with one track per finding whose slices are its evidence ranges.
///
/// Streaming: a Trace message is `repeated TracePacket packet = 1`, so each packet is serialised on its own
/// and appended as (0x0A, varint length, bytes); memory stays proportional to one packet, not the trace.
/// Names, categories and arg keys are interned on one packet sequence (iid = the model's StringId), so a
/// kernel name is written once however often it runs.
///
/// Perfetto timestamps are unsigned: a trace with negative timestamps is refused with an error (Chrome JSON
/// can carry it).
///
/// Example:
///   std::ofstream out("run.pftrace", std::ios::binary);
///   PerfettoExporter exporter(*trace, result.findings);
///   if (!exporter.write(out, error)) …
class PerfettoExporter
{
public:
    PerfettoExporter(const model::Trace& trace, std::span<const analysis::Finding> findings,
                     TraceExportOptions options = {});

    bool write(std::ostream& out, std::string& error);

    [[nodiscard]] std::uint64_t packetsWritten() const { return m_packets; }

private:
    const model::Trace& m_trace;
    std::span<const analysis::Finding> m_findings;
    TraceExportOptions m_options;
    std::uint64_t m_packets = 0;
};

} // namespace timesink::exporters
