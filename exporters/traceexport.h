// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/finding.h"
#include "exporters/traceexportoptions.h"
#include "model/trace.h"

#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace timesink::exporters {

/// The file formats of an exported trace.
enum class TraceFormat : std::uint8_t { Perfetto, ChromeJson };

/// "pftrace"/"perfetto" → Perfetto, "json"/"chrome" → ChromeJson.
std::optional<TraceFormat> traceFormatFromName(std::string_view name);
/// ".pftrace", ".perfetto-trace", ".pb" → Perfetto; ".json" → ChromeJson; otherwise nullopt.
std::optional<TraceFormat> traceFormatFromPath(const std::filesystem::path& path);

/// Save-dialog name filters for exported traces, Perfetto first: "Perfetto trace (*.pftrace)",
/// "Chrome trace JSON (*.json)".
std::vector<std::string> traceFileFilters();

/// Exports the unified trace (with `findings` as an annotation track) to `path`, atomically, refusing to
/// overwrite any of `inputs`. Returns false with a message naming the file on failure.
/// Example (GUI, File → Export trace…):
///   exportTrace(*trace, result.findings, TraceFormat::Perfetto, "run.pftrace", {inputPath}, error);
bool exportTrace(const model::Trace& trace, std::span<const analysis::Finding> findings, TraceFormat format,
                 const std::filesystem::path& path, std::span<const std::filesystem::path> inputs, std::string& error,
                 const TraceExportOptions& options = {});

} // namespace timesink::exporters
