// SPDX-License-Identifier: MIT
#include "parsers/common/regularfile.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <system_error>
#include <unistd.h>

namespace timesink::parsers {

namespace {

const char* typeName(mode_t mode)
{
    if (S_ISFIFO(mode))
        return "a FIFO";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISSOCK(mode))
        return "a socket";
    if (S_ISDIR(mode))
        return "a folder";
    return "a special file";
}

std::string notRegular(const std::filesystem::path& path, mode_t mode)
{
    return "cannot read " + path.string() + ": not a regular file (it is " + typeName(mode) + ")";
}

} // namespace

std::string notRegularFileReason(const std::filesystem::path& path, bool allowDirectory)
{
    struct stat st
    {
    };
    if (::stat(path.c_str(), &st) != 0)
        return {};
    if (S_ISREG(st.st_mode) || (allowDirectory && S_ISDIR(st.st_mode)))
        return {};
    return notRegular(path, st.st_mode);
}

int openRegularFile(const std::filesystem::path& path, std::string& error)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        error = "cannot open " + path.string() + ": " + std::strerror(errno);
        return -1;
    }
    struct stat st
    {
    };
    if (::fstat(fd, &st) != 0) {
        error = "cannot read " + path.string() + ": " + std::strerror(errno);
        ::close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        error = S_ISDIR(st.st_mode) ? "cannot read " + path.string() + ": it is a directory, expected a file"
                                    : notRegular(path, st.st_mode);
        ::close(fd);
        return -1;
    }
    // A regular file never blocks; clear the flag so reads behave as usual.
    if (const int flags = ::fcntl(fd, F_GETFL); flags >= 0)
        ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    return fd;
}

bool readSmallRegularFile(const std::filesystem::path& path, std::uint64_t maxBytes, std::string_view what,
                          std::string& out, std::string& error)
{
    out.clear();
    const int fd = openRegularFile(path, error);
    if (fd < 0) {
        // "cannot open PATH: …" → "cannot open operator map PATH: …"
        for (std::string_view verb : {"cannot open ", "cannot read "}) {
            if (error.rfind(verb, 0) == 0) {
                error.insert(verb.size(), std::string(what) + " ");
                break;
            }
        }
        return false;
    }
    char buffer[1 << 16];
    for (;;) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            error = std::string(what) + ": cannot read " + path.string() + ": " + std::strerror(errno);
            ::close(fd);
            return false;
        }
        if (n == 0)
            break;
        if (out.size() + static_cast<std::uint64_t>(n) > maxBytes) {
            error = std::string(what) + " " + path.string() + " is larger than " + std::to_string(maxBytes >> 20)
                + " MB, the limit for an " + std::string(what) + "; is it the right file?";
            ::close(fd);
            out.clear();
            return false;
        }
        out.append(buffer, static_cast<std::size_t>(n));
    }
    ::close(fd);
    return true;
}

} // namespace timesink::parsers
