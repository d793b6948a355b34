// SPDX-License-Identifier: MIT
#pragma once

#include "parsers/common/importer.h"

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace timesink::parsers {

/// All importers Timesink knows, in the order they are asked. The one list of formats: everything that names
/// formats to people (usage texts, open dialogs, the "not a trace" error) is built from their descriptions.
std::vector<std::unique_ptr<Importer>> allImporters();

/// Every importer's FormatDescription, in registry order.
std::vector<FormatDescription> supportedFormats();
/// The formats as one sentence part: "A, B, C or D" (each description's name).
std::string supportedFormatsSentence();
/// The file-name patterns of every format, each once, in registry order: "*.json", "*.json.gz", …
std::vector<std::string> supportedFilePatterns();
/// The folder-name patterns of the profiler bundles: "*_ascend_pt", "PROF_*".
std::vector<std::string> supportedFolderPatterns();

/// Builds the detection view of `path` (directory listing or decompressed first bytes); CannotRead, naming the
/// path, when it cannot be read.
[[nodiscard]] model::Expected<SourceProbe> probeSource(const std::filesystem::path& path);

/// The id of the importer that would read `path` (a file or a bundle directory), or "" when none recognises it
/// or it cannot be read. Reads only what detection reads (the listing, the first decompressed bytes); never blocks
/// on a FIFO. `job` uses it to pick the traces out of a folder.
std::string recogniseSource(const std::filesystem::path& path);

/// Detects the format of `path` (a file or a bundle directory) and imports it.
ImportResult loadTrace(const std::filesystem::path& path, const ImportOptions& options, ProgressSink& progress);

} // namespace timesink::parsers
