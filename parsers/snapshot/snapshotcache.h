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
/// its entry) are removed until the rest fits. Not thread-safe for one directory; two processes at worst
/// re-create an entry (entries are written to a temporary file and renamed).
class SnapshotCache
{
public:
    static constexpr std::uint64_t kDefaultCapacityBytes = 4ULL << 30;

    SnapshotCache(std::filesystem::path directory, std::uint64_t capacityBytes = kDefaultCapacityBytes);

    [[nodiscard]] const std::filesystem::path& directory() const { return m_directory; }
    [[nodiscard]] std::uint64_t capacityBytes() const { return m_capacity; }

    /// Where the snapshot of `source` lives (whether or not it exists).
    [[nodiscard]] std::filesystem::path entryFor(const SourceIdentity& source) const;

    /// The trace of `source` from its snapshot when one is current; its sourcePath is `displayPath`. Otherwise a
    /// failed result whose error says why (empty when there is simply no entry); a stale or unreadable entry is
    /// removed. Callers fall back to importing the source either way.
    ImportResult load(const SourceIdentity& source, const std::string& displayPath, const ImportOptions& options,
                      ProgressSink& progress);

    /// Writes the snapshot of `trace` for `source`, then trims the directory to the capacity. False with `error`
    /// when the entry could not be written (or does not fit the capacity at all).
    bool store(const model::Trace& trace, const SourceIdentity& source, std::string& error);

    /// Bytes the entries take on disk.
    [[nodiscard]] std::uint64_t sizeOnDisk() const;
    /// Removes every entry; false with `error` when one could not be removed.
    bool clear(std::string& error);
    /// Removes least recently used entries until the directory fits the capacity.
    void trim();

private:
    std::filesystem::path m_directory;
    std::uint64_t m_capacity;
};

} // namespace timesink::parsers::snapshot
