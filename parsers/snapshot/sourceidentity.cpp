// SPDX-License-Identifier: MIT
// What identifies a source trace's contents cheaply (SourceIdentity): the key the snapshot cache checks an entry by.
#include "parsers/common/regularfile.h"
#include "parsers/snapshot/snapshot.h"
#include "parsers/snapshot/snapshotframing.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <system_error>
#include <unistd.h>
#include <vector>

namespace timesink::parsers::snapshot {

namespace {

namespace fs = std::filesystem;

std::int64_t mtimeNs(const fs::path& path, std::error_code& ec)
{
    const auto t = fs::last_write_time(path, ec);
    return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

/// Hash of the first and last MiB of a file (the whole file when it is smaller than 2 MiB).
bool hashEnds(const fs::path& path, std::uint64_t size, std::uint64_t& hash, std::string& error)
{
    constexpr std::size_t kEnd = 1 << 20;
    // Never blocks: a FIFO swapped in after the caller's type check is refused here, not waited on.
    const int fd = openRegularFile(path, error);
    std::FILE* f = fd < 0 ? nullptr : ::fdopen(fd, "rb");
    if (!f) {
        if (fd >= 0) {
            error = "cannot open " + path.string() + ": " + std::strerror(errno);
            ::close(fd);
        }
        return false;
    }
    std::vector<char> buf(std::min<std::uint64_t>(size, 2 * kEnd));
    bool ok = true;
    if (size <= 2 * kEnd) {
        ok = std::fread(buf.data(), 1, buf.size(), f) == buf.size();
    } else {
        ok = std::fread(buf.data(), 1, kEnd, f) == kEnd && fseeko(f, static_cast<off_t>(size - kEnd), SEEK_SET) == 0
            && std::fread(buf.data() + kEnd, 1, kEnd, f) == kEnd;
    }
    std::fclose(f);
    if (!ok) {
        error = "cannot read " + path.string();
        return false;
    }
    hash = hashBytes(buf.data(), buf.size(), hash);
    return true;
}

} // namespace

model::Expected<SourceIdentity> identifySource(const fs::path& source)
{
    auto cannotRead
        = [](std::string message) { return model::Status(model::StatusKind::CannotRead, std::move(message)); };
    SourceIdentity out;
    std::error_code ec;
    const fs::path absolute = fs::absolute(source, ec);
    out.path = (ec ? source : absolute.lexically_normal()).string();
    const auto status = fs::status(source, ec);
    if (ec || !fs::exists(status)) {
        return cannotRead("cannot open " + source.string() + ": no such file or directory");
    }
    // A FIFO, device or socket has no identity to cache by, and opening one to hash it could block forever.
    if (std::string why = notRegularFileReason(source, true); !why.empty())
        return cannotRead(std::move(why));
    if (fs::is_directory(status)) {
        // A bundle: every regular file below it, in name order, by name, size, time and ends.
        std::vector<fs::path> files;
        for (fs::recursive_directory_iterator it(source, fs::directory_options::skip_permission_denied, ec), end;
             !ec && it != end; it.increment(ec)) {
            if (it->is_regular_file(ec))
                files.push_back(it->path());
        }
        if (ec)
            return cannotRead("cannot read directory " + source.string() + ": " + ec.message());
        std::sort(files.begin(), files.end());
        std::uint64_t hash = 0;
        for (const fs::path& f : files) {
            const std::uint64_t size = fs::file_size(f, ec);
            const std::int64_t mtime = ec ? 0 : mtimeNs(f, ec);
            if (ec)
                return cannotRead("cannot read " + f.string() + ": " + ec.message());
            const std::string name = fs::relative(f, source, ec).generic_string();
            hash = hashBytes(name.data(), name.size(), hash);
            if (std::string error; !hashEnds(f, size, hash, error))
                return cannotRead(std::move(error));
            out.size += size;
            out.mtimeNs = std::max(out.mtimeNs, mtime);
        }
        out.contentHash = hash;
        return out;
    }
    out.size = fs::file_size(source, ec);
    if (!ec)
        out.mtimeNs = mtimeNs(source, ec);
    if (ec)
        return cannotRead("cannot read " + source.string() + ": " + ec.message());
    if (std::string error; !hashEnds(source, out.size, out.contentHash, error))
        return cannotRead(std::move(error));
    return out;
}

} // namespace timesink::parsers::snapshot
