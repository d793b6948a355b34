// SPDX-License-Identifier: MIT
#include "output/outputfile.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <system_error>
#include <unistd.h>
#include <vector>

namespace timesink::output {

namespace fs = std::filesystem;

namespace {

std::string quoted(const fs::path& p)
{
    return "'" + p.string() + "'";
}

/// Non-empty when `path` exists and is something other than a regular file or folder (a device node, FIFO or
/// socket, also through a symlink): renaming a report over it would replace, say, /dev/null with a plain file.
std::string specialFileError(const fs::path& path)
{
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (ec || !fs::exists(st) || fs::is_regular_file(st) || fs::is_directory(st))
        return {};
    const char* what = fs::is_fifo(st)                       ? "a FIFO"
        : fs::is_character_file(st) || fs::is_block_file(st) ? "a device"
        : fs::is_socket(st)                                  ? "a socket"
                                                             : "a special file";
    return quoted(path) + " is not a regular file (it is " + what
        + "); refusing to replace it with the output, choose a regular file";
}

/// True when `inner` lies inside the folder `outer` (both made absolute and canonical as far as they exist).
bool isInside(const fs::path& inner, const fs::path& outer)
{
    std::error_code ec;
    const fs::path a = fs::weakly_canonical(fs::absolute(inner, ec), ec);
    const fs::path b = fs::weakly_canonical(fs::absolute(outer, ec), ec);
    if (a.empty() || b.empty())
        return false;
    auto ai = a.begin();
    for (auto bi = b.begin(); bi != b.end(); ++bi, ++ai) {
        if (bi->empty() && std::next(bi) == b.end())
            break; // a trailing separator on the folder
        if (ai == a.end() || *ai != *bi)
            return false;
    }
    return ai != a.end();
}

} // namespace

AtomicFile::AtomicFile(fs::path target)
    : m_target(std::move(target))
{
}

AtomicFile::~AtomicFile()
{
    discard();
}

bool AtomicFile::open(std::string& error)
{
    discard();
    std::error_code ec;
    if (fs::is_directory(m_target, ec)) {
        error = quoted(m_target) + " is a folder; give a file name";
        return false;
    }
    if (std::string special = specialFileError(m_target); !special.empty()) {
        error = std::move(special);
        return false;
    }
    fs::path dir = m_target.parent_path();
    if (dir.empty())
        dir = ".";
    // A hidden sibling of the target: same directory, hence same file system, so rename() is atomic.
    std::string pattern = (dir / ("." + m_target.filename().string() + ".tmp-XXXXXX")).string();
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    const int fd = ::mkstemp(buffer.data());
    if (fd < 0) {
        error = "cannot create a file in " + quoted(dir) + ": " + std::strerror(errno);
        return false;
    }
    m_temporary = fs::path(buffer.data());
    // mkstemp makes 0600; a report is meant to be shared, and a rewritten file keeps its mode.
    struct stat existing
    {
    };
    const mode_t mode = ::stat(m_target.c_str(), &existing) == 0 ? (existing.st_mode & 07777) : 0644;
    ::fchmod(fd, mode);
    ::close(fd);
    m_stream.open(m_temporary, std::ios::binary | std::ios::trunc);
    if (!m_stream) {
        error = "cannot open " + quoted(m_temporary) + ": " + std::strerror(errno);
        fs::remove(m_temporary, ec);
        m_temporary.clear();
        return false;
    }
    m_open = true;
    return true;
}

bool AtomicFile::commit(std::string& error)
{
    if (!m_open) {
        error = "internal error: " + quoted(m_target) + " was not opened";
        return false;
    }
    m_stream.flush();
    const bool written = static_cast<bool>(m_stream);
    const int writeErrno = errno;
    m_stream.close();
    if (!written || m_stream.fail()) {
        error = "cannot write " + quoted(m_target) + ": " + std::strerror(writeErrno ? writeErrno : EIO);
        discard();
        return false;
    }
    // Without fsync a crash right after the rename can leave an empty file under the final name.
    if (const int fd = ::open(m_temporary.c_str(), O_RDONLY); fd >= 0) {
        const int rc = ::fsync(fd);
        const int syncErrno = errno;
        ::close(fd);
        if (rc != 0) {
            error = "cannot write " + quoted(m_target) + ": " + std::strerror(syncErrno);
            discard();
            return false;
        }
    }
    if (::rename(m_temporary.c_str(), m_target.c_str()) != 0) {
        error = "cannot replace " + quoted(m_target) + ": " + std::strerror(errno);
        discard();
        return false;
    }
    m_temporary.clear();
    m_open = false;
    return true;
}

void AtomicFile::discard()
{
    if (m_stream.is_open())
        m_stream.close();
    m_stream.clear();
    if (!m_temporary.empty()) {
        std::error_code ec;
        fs::remove(m_temporary, ec);
        m_temporary.clear();
    }
    m_open = false;
}

std::string lowerExtension(const fs::path& path)
{
    std::string ext = path.extension().string();
    if (!ext.empty() && ext[0] == '.')
        ext.erase(0, 1);
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return ext;
}

bool sameFile(const fs::path& a, const fs::path& b)
{
    std::error_code ec;
    const bool same = fs::equivalent(a, b, ec);
    return !ec && same;
}

bool checkOutputPath(const fs::path& output, std::span<const fs::path> inputs, std::string& error)
{
    std::error_code ec;
    if (output.empty()) {
        error = "no output file given";
        return false;
    }
    if (fs::is_directory(output, ec)) {
        error = quoted(output) + " is a folder; give a file name";
        return false;
    }
    if (std::string special = specialFileError(output); !special.empty()) {
        error = std::move(special);
        return false;
    }
    for (const fs::path& input : inputs) {
        if (fs::is_directory(input, ec) && isInside(output, input)) {
            error = "refusing to write inside the input folder " + quoted(input)
                + " (the report would replace or mix with the profiler's output); choose a file outside it";
            return false;
        }
        // equivalent() catches symlinks and hard links of existing files; the canonical-path comparison
        // also catches a spelling such as "dir/../run.json" when equivalent() cannot stat one side.
        const fs::path a = fs::weakly_canonical(fs::absolute(output, ec), ec);
        const fs::path b = fs::weakly_canonical(fs::absolute(input, ec), ec);
        if (sameFile(output, input) || (!a.empty() && a == b)) {
            error = "refusing to overwrite the input " + quoted(input) + "; choose another output file";
            return false;
        }
    }
    return true;
}

} // namespace timesink::output
