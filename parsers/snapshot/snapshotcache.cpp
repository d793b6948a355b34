// SPDX-License-Identifier: MIT
#include "parsers/snapshot/snapshotcache.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
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
    std::error_code ec;
    return e.is_regular_file(ec) && e.path().extension() == kExtension;
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

// NOLINTNEXTLINE(readability-make-member-function-const): it removes stale entries, which changes the cache
ImportResult SnapshotCache::load(const SourceIdentity& source, const std::string& displayPath,
                                 const ImportOptions& options, ProgressSink& progress)
{
    const fs::path entry = entryFor(source);
    std::error_code ec;
    if (!fs::exists(entry, ec))
        return ImportResult::failure(ImportErrorKind::NotRecognised, {});
    SourceIdentity recorded;
    std::string writer;
    std::string error;
    if (!readSnapshotSource(entry, recorded, error, &writer)) {
        fs::remove(entry, ec);
        return ImportResult::failure(ImportErrorKind::Malformed, error);
    }
    if (recorded.path != source.path || !recorded.sameContents(source)) {
        // The source changed since (or, rarely, another path hashes to the same name): the entry is stale.
        fs::remove(entry, ec);
        return ImportResult::failure(ImportErrorKind::NotRecognised,
                                     "the cached snapshot of " + displayPath + " is out of date");
    }
    if (writer != writerIdentity()) {
        // Another build of Timesink made it: its importers may have read the source differently (a fix since, or
        // a newer version). A cache must give what importing the source would give now.
        fs::remove(entry, ec);
        return ImportResult::failure(ImportErrorKind::NotRecognised,
                                     "the cached snapshot of " + displayPath + " was made by another Timesink build ("
                                         + writer + ")");
    }
    ImportResult r = readSnapshot(entry, options, progress, displayPath);
    if (!r.ok()) {
        if (r.errorKind != ImportErrorKind::Cancelled)
            fs::remove(entry, ec);
        return r;
    }
    fs::last_write_time(entry, fs::file_time_type::clock::now(), ec); // most recently used
    return r;
}

bool SnapshotCache::store(const model::Trace& trace, const SourceIdentity& source, std::string& error)
{
    std::error_code ec;
    fs::create_directories(m_directory, ec);
    if (ec) {
        error = "cannot create the snapshot cache " + m_directory.string() + ": " + ec.message();
        return false;
    }
    const fs::path entry = entryFor(source);
    if (!writeSnapshot(trace, source, entry, error))
        return false;
    trim();
    if (!fs::exists(entry, ec)) {
        error = "the snapshot of " + source.path + " is larger than the cache's capacity";
        return false;
    }
    return true;
}

std::uint64_t SnapshotCache::sizeOnDisk() const
{
    std::uint64_t total = 0;
    for (const Entry& e : entries(m_directory))
        total += e.size;
    return total;
}

bool SnapshotCache::clear(std::string& error)
{
    bool ok = true;
    for (const Entry& e : entries(m_directory)) {
        std::error_code ec;
        if (!fs::remove(e.path, ec) && ec) {
            error = "cannot remove " + e.path.string() + ": " + ec.message();
            ok = false;
        }
    }
    return ok;
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

} // namespace timesink::parsers::snapshot
