// SPDX-License-Identifier: MIT
#pragma once

#include "parsers/snapshot/snapshot.h"

#include <cstdint>
#include <filesystem>
#include <string>

namespace timesink::parsers::snapshot {

/// Snapshots of recently opened traces in one directory (the app passes the user's cache directory), so that the
/// next open of the same, unchanged trace reads the snapshot instead of the source.
///
/// An entry is keyed by the source's absolute path (its file name is a hash of it) and is current while the
/// source's size, modification time and first/last-MiB hash equal those recorded in the snapshot. The directory
/// is capped in size: after each store the least recently used entries (oldest modification time; a hit touches
/// its entry) are removed until the rest fits. Several threads or processes may fill one directory at once: each
/// store writes a temporary file of its own and renames it (the last one wins), and a trim skips entries that
/// vanish under it.
///
/// The directory is a trust boundary (docs/limits.md "The snapshot cache"): it is used only while it is a folder
/// owned by the user running Timesink and writable by nobody else (a folder of ours that is group- or
/// other-writable is tightened to 0700 first), and an entry only while it is a regular file of that user, never
/// through a symlink. A new directory is created 0700.
class SnapshotCache
{
public:
    static constexpr std::uint64_t kDefaultCapacityBytes = 4ULL << 30;

    SnapshotCache(std::filesystem::path directory, std::uint64_t capacityBytes = kDefaultCapacityBytes);

    [[nodiscard]] const std::filesystem::path& directory() const { return m_directory; }
    [[nodiscard]] std::uint64_t capacityBytes() const { return m_capacity; }

    /// Success when the directory may be used (it may not exist yet); CannotRead saying why ("… is owned by another
    /// user; not used") when it must not be read or written.
    [[nodiscard]] model::Status trusted() const;

    /// Where the snapshot of `source` lives (whether or not it exists).
    [[nodiscard]] std::filesystem::path entryFor(const SourceIdentity& source) const;

    /// The trace of `source` from its snapshot when one is current; its sourcePath is `displayPath`. Otherwise a
    /// failure whose message says why (empty when there is simply no entry); a stale or unreadable entry is
    /// removed. NotRecognised: no entry, or an out-of-date one (routine); CannotRead: the directory or the entry is
    /// not trusted; Malformed: a damaged entry; Cancelled: `progress` asked to stop (the entry is kept). Callers fall
    /// back to importing the source on any failure but Cancelled.
    ImportResult load(const SourceIdentity& source, const std::string& displayPath, const ImportOptions& options,
                      ProgressSink& progress);

    /// Writes the snapshot of `trace` for `source`, then trims the directory to the capacity. Fails saying why when
    /// the entry could not be written (or does not fit the capacity at all).
    [[nodiscard]] model::Status store(const model::Trace& trace, const SourceIdentity& source);

    /// Bytes the entries take on disk.
    [[nodiscard]] std::uint64_t sizeOnDisk() const;
    /// Removes every entry; fails naming an entry that could not be removed.
    [[nodiscard]] model::Status clear();
    /// Removes least recently used entries until the directory fits the capacity.
    void trim();

private:
    [[nodiscard]] model::Status createDirectory() const;

    std::filesystem::path m_directory;
    std::uint64_t m_capacity;
};

/// The user's snapshot cache, shared by the CLI and the desktop app: $XDG_CACHE_HOME/timesink/snapshots
/// (~/.cache/timesink/snapshots without it; an XDG_CACHE_HOME that is not absolute is ignored, as the XDG spec
/// says). Empty when neither variable is usable. The first call moves the folder that Timesink 0.x used,
/// …/Timesink/Timesink/snapshots, to the new place when the new one does not exist yet (same file system: a
/// rename; otherwise the old entries are left where they are and simply not used).
[[nodiscard]] std::filesystem::path userCacheDirectory();

/// True when `path` is a regular file that starts like a snapshot. Never blocks (a FIFO is not opened).
[[nodiscard]] bool isSnapshotFile(const std::filesystem::path& path);

} // namespace timesink::parsers::snapshot
