// SPDX-License-Identifier: MIT
#pragma once

// Helpers shared by the Ascend importer tests: writing small files, importing through the loader, and a
// canonical text dump of the imported model.

#include "model/trace.h"
#include "parsers/common/importer.h"

#include <QByteArray>
#include <QTemporaryDir>

#include <filesystem>
#include <string>

namespace ascendtest {

/// Writes `content` to `dir/relative` (creating folders) and returns the absolute path.
std::filesystem::path writeFile(const QTemporaryDir& dir, const std::string& relative, const QByteArray& content);

/// Imports `path` with the Ascend importer (probing first, as the loader does).
timesink::parsers::ImportResult importAscend(const std::filesystem::path& path);

/// Imports through the loader (all registered importers): what `timesink-cli info` sees.
timesink::parsers::ImportResult loadAny(const std::filesystem::path& path);

/// Canonical dump: tracks (sorted by process/name) with their slices (relative ts, dur, depth, category, name,
/// chosen args and the memcpy direction), flows, steps and warnings. Counter tracks list their sample count.
std::string dumpTrace(const timesink::model::Trace& trace);

/// Slices on tracks whose role is DeviceCompute.
std::size_t deviceTaskCount(const timesink::model::Trace& trace);
/// Number of counter samples over all counter tracks.
std::size_t counterSampleCount(const timesink::model::Trace& trace);
/// Memcpy slices with the given direction.
std::size_t memcpyCount(const timesink::model::Trace& trace, timesink::model::MemcpyDirection direction);
/// The metadata property `key`, or "" when absent.
std::string metaProperty(const timesink::model::Trace& trace, const std::string& key);
/// Count of warnings of `kind` (0 when none), and whether some warning message contains `text`.
std::uint64_t warningCount(const timesink::model::Trace& trace, const std::string& kind);
bool warningMentions(const timesink::model::Trace& trace, const std::string& text);

} // namespace ascendtest
