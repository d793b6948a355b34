// SPDX-License-Identifier: MIT
#include "parsers/snapshot/bytesource.h"

#include "parsers/common/regularfile.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace timesink::parsers::snapshot {

namespace {

class FileSource final : public ByteSource
{
public:
    FileSource(int fd, std::uint64_t size)
        : m_fd(fd)
        , m_size(size)
    {
    }
    ~FileSource() override { ::close(m_fd); }
    FileSource(const FileSource&) = delete;
    FileSource& operator=(const FileSource&) = delete;
    [[nodiscard]] std::uint64_t size() const override { return m_size; }
    bool readAt(std::uint64_t offset, void* dst, std::size_t size) const override
    {
        auto* p = static_cast<char*>(dst);
        while (size > 0) {
            const ssize_t n = ::pread(m_fd, p, size, static_cast<off_t>(offset));
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                return false;
            p += n;
            offset += static_cast<std::uint64_t>(n);
            size -= static_cast<std::size_t>(n);
        }
        return true;
    }

private:
    int m_fd;
    std::uint64_t m_size;
};

} // namespace

bool MemorySource::readAt(std::uint64_t offset, void* dst, std::size_t size) const
{
    if (offset > m_bytes.size() || size > m_bytes.size() - offset)
        return false;
    std::memcpy(dst, m_bytes.data() + offset, size);
    return true;
}

model::Expected<std::unique_ptr<ByteSource>> openFileSource(const std::filesystem::path& file)
{
    // openRegularFile never blocks on a FIFO (a cache entry or a user's path replaced by one).
    std::string error;
    const int fd = openRegularFile(file, error);
    struct stat st
    {
    };
    if (fd < 0 || ::fstat(fd, &st) != 0) {
        if (fd >= 0) {
            error = "cannot open " + file.string() + ": " + std::strerror(errno);
            ::close(fd);
        }
        return model::Status(model::StatusKind::CannotRead, error);
    }
    return std::unique_ptr<ByteSource>(std::make_unique<FileSource>(fd, static_cast<std::uint64_t>(st.st_size)));
}

} // namespace timesink::parsers::snapshot
