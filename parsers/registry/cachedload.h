// SPDX-License-Identifier: MIT
#pragma once

#include "parsers/common/importer.h"
#include "parsers/snapshot/snapshotcache.h"

#include <filesystem>
#include <optional>
#include <string>

namespace timesink::parsers {

/// The outcome of opening a path through the snapshot cache.
struct CachedLoad
{
    ImportResult result;
    bool fromSnapshot = false; // read from a current cache entry
    /// Set when the source was imported and its snapshot may be stored (a cache was given, the path is a regular
    /// file or a folder, and not itself a snapshot).
    std::optional<snapshot::SourceIdentity> store;
    std::string note;           // why a cache entry was not used (damaged, out of date, untrusted), for the log
    bool noteIsProblem = false; // the entry or the cache was damaged or untrusted (not merely out of date)
};

/// The one load policy of the CLI, the desktop app and `job`: opens `path` from its entry in `cache` when that is
/// current, else imports it (a damaged, stale or untrusted entry falls back to the source). `cache` may be null (no
/// cache). Import options with limits other than the defaults bypass the cache (entries hold default imports).
/// The path's type is checked before anything is opened: a FIFO, device or socket goes straight to
/// loadTrace(), which refuses it with an error naming it, and is never hashed, looked up or waited on.
CachedLoad loadThroughSnapshotCache(const std::filesystem::path& path, const ImportOptions& options,
                                    ProgressSink& progress, snapshot::SnapshotCache* cache);

} // namespace timesink::parsers
