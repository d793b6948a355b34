// SPDX-License-Identifier: MIT
#include "parsers/snapshot/snapshotcache.h"

#include "parsers/common/regularfile.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace timesink::parsers::snapshot {

namespace fs = std::filesystem;

namespace {

struct Entry
{
    fs::path path;
    std::uint64_t size;
    fs::file_time_type used;
};

bool isEntry(const fs::directory_entry& e)
{
    // symlink_status: a symlink named like an entry is never followed (nor counted, nor trimmed through).
    std::error_code ec;
    return fs::is_regular_file(e.symlink_status(ec)) && e.path().extension() == kExtension;
}

/// The directory or an entry must not be used (docs/limits.md "The snapshot cache").
model::Status untrusted(std::string why)
{
    return {model::StatusKind::CannotRead, std::move(why)};
}

std::vector<Entry> entries(const fs::path& dir)
{
    std::vector<Entry> out;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        if (!isEntry(*it))
            continue;
        std::error_code e2;
        const auto size = it->file_size(e2);
        const auto used = it->last_write_time(e2);
        if (!e2)
            out.push_back(Entry {it->path(), size, used});
    }
    return out;
}

} // namespace

SnapshotCache::SnapshotCache(fs::path directory, std::uint64_t capacityBytes)
    : m_directory(std::move(directory))
    , m_capacity(capacityBytes)
{
}

fs::path SnapshotCache::entryFor(const SourceIdentity& source) const
{
    char name[32];
    std::snprintf(name, sizeof name, "%016llx", static_cast<unsigned long long>(hash64(source.path)));
    return m_directory / (std::string(name) + std::string(kExtension));
}

model::Status SnapshotCache::trusted() const
{
    struct stat st
    {
    };
    if (::stat(m_directory.c_str(), &st) != 0)
        return {}; // not there yet: store() creates it, private
    if (!S_ISDIR(st.st_mode))
        return untrusted("the snapshot cache " + m_directory.string() + " is not a folder; not used");
    if (st.st_uid != ::geteuid())
        return untrusted("the snapshot cache " + m_directory.string() + " is owned by another user; not used");
    if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0 && ::chmod(m_directory.c_str(), st.st_mode & 0700) != 0) {
        return untrusted("the snapshot cache " + m_directory.string()
                         + " can be written by other users and its permissions cannot be tightened; not used");
    }
    return {};
}

model::Status SnapshotCache::createDirectory() const
{
    std::error_code ec;
    const bool created = fs::create_directories(m_directory, ec);
    if (ec) {
        return {model::StatusKind::Failed,
                "cannot create the snapshot cache " + m_directory.string() + ": " + ec.message()};
    }
    if (created)
        ::chmod(m_directory.c_str(), 0700);
    return trusted();
}

// NOLINTNEXTLINE(readability-make-member-function-const): it removes stale entries, which changes the cache
ImportResult SnapshotCache::load(const SourceIdentity& source, const std::string& displayPath,
                                 const ImportOptions& options, ProgressSink& progress)
{
    const fs::path entry = entryFor(source);
    std::error_code ec;
    const fs::file_status status = fs::symlink_status(entry, ec);
    if (ec || !fs::exists(status))
        return model::Status(model::StatusKind::NotRecognised, {});
    if (model::Status why = trusted(); !why.ok())
        return why;
    if (!fs::is_regular_file(status)) {
        // A symlink or a special file under an entry's name was not written by Timesink: it is never followed
        // (it could lead to a FIFO, a device or another user's file), and the name is freed for a real entry.
        fs::remove(entry, ec);
        return untrusted("the cache entry " + entry.string() + " is not a regular file; removed");
    }
    struct stat st
    {
    };
    if (::lstat(entry.c_str(), &st) != 0 || st.st_uid != ::geteuid())
        return untrusted("the cache entry " + entry.string() + " belongs to another user; not used");
    std::string writer;
    const model::Expected<SourceIdentity> header = readSnapshotSource(entry, &writer);
    if (!header.ok()) {
        // Whatever is wrong with the header (unreadable, no snapshot, damaged), the entry is damaged.
        fs::remove(entry, ec);
        return model::Status(model::StatusKind::Malformed, header.status().message());
    }
    const SourceIdentity& recorded = header.value();
    if (recorded.path != source.path || !recorded.sameContents(source)) {
        // The source changed since (or, rarely, another path hashes to the same name): the entry is stale.
        fs::remove(entry, ec);
        return model::Status(model::StatusKind::NotRecognised,
                             "the cached snapshot of " + displayPath + " is out of date");
    }
    if (writer != writerIdentity()) {
        // Another build of Timesink made it: its importers may have read the source differently (a fix since, or
        // a newer version). A cache must give what importing the source would give now.
        fs::remove(entry, ec);
        return model::Status(model::StatusKind::NotRecognised,
                             "the cached snapshot of " + displayPath + " was made by another Timesink build (" + writer
                                 + ")");
    }
    ImportResult r = readSnapshot(entry, options, progress, displayPath);
    if (!r.ok()) {
        if (!r.status().cancelled())
            fs::remove(entry, ec);
        return r;
    }
    fs::last_write_time(entry, fs::file_time_type::clock::now(), ec); // most recently used
    return r;
}

model::Status SnapshotCache::store(const model::Trace& trace, const SourceIdentity& source)
{
    if (model::Status created = createDirectory(); !created.ok())
        return created;
    const fs::path entry = entryFor(source);
    if (model::Status written = writeSnapshot(trace, source, entry); !written.ok())
        return written;
    trim();
    std::error_code ec;
    if (!fs::exists(entry, ec))
        return {model::StatusKind::Failed, "the snapshot of " + source.path + " is larger than the cache's capacity"};
    return {};
}

std::uint64_t SnapshotCache::sizeOnDisk() const
{
    std::uint64_t total = 0;
    for (const Entry& e : entries(m_directory))
        total += e.size;
    return total;
}

model::Status SnapshotCache::clear()
{
    model::Status result;
    for (const Entry& e : entries(m_directory)) {
        std::error_code ec;
        if (!fs::remove(e.path, ec) && ec) // the others are still removed; the last failure is said
            result = {model::StatusKind::Failed, "cannot remove " + e.path.string() + ": " + ec.message()};
    }
    return result;
}

void SnapshotCache::trim()
{
    std::vector<Entry> all = entries(m_directory);
    std::uint64_t total = 0;
    for (const Entry& e : all)
        total += e.size;
    std::sort(all.begin(), all.end(), [](const Entry& a, const Entry& b) { return a.used < b.used; });
    for (const Entry& e : all) {
        if (total <= m_capacity)
            break;
        std::error_code ec;
        if (fs::remove(e.path, ec))
            total -= e.size;
    }
}

fs::path userCacheDirectory()
{
    fs::path base;
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg == '/')
        base = xdg;
    else if (const char* home = std::getenv("HOME"); home && *home)
        base = fs::path(home) / ".cache";
    else
        return {};
    fs::path dir = base / "timesink" / "snapshots";
    // Timesink 0.x kept its snapshots where QStandardPaths put them for organisation and application "Timesink".
    const fs::path legacyApp = base / "Timesink" / "Timesink";
    const fs::path legacy = legacyApp / "snapshots";
    std::error_code ec;
    if (!fs::exists(dir, ec) && fs::is_directory(fs::symlink_status(legacy, ec))) {
        fs::create_directories(dir.parent_path(), ec);
        if (!ec) {
            fs::rename(legacy, dir, ec);
            if (!ec) {
                fs::remove(legacyApp, ec); // only when empty, like the one above it
                fs::remove(legacyApp.parent_path(), ec);
            }
        }
    }
    return dir;
}

bool isSnapshotFile(const fs::path& path)
{
    std::string error;
    const int fd = openRegularFile(path, error);
    if (fd < 0)
        return false;
    char head[8] = {};
    const ssize_t n = ::read(fd, head, sizeof head);
    ::close(fd);
    return n == static_cast<ssize_t>(sizeof head) && looksLikeSnapshot(std::string_view(head, sizeof head));
}

} // namespace timesink::parsers::snapshot
