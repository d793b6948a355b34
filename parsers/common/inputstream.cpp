// SPDX-License-Identifier: MIT
#include "parsers/common/inputstream.h"

#include "parsers/common/regularfile.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

namespace timesink::parsers {

namespace {
constexpr std::size_t kInputChunk = 1 << 20;
/// zstd refuses frames whose window exceeds 2^27 by default, but `zstd --long=31` writes 2^31 (even for small
/// content). Accept every window zstd itself writes and name the problem beyond it (a damaged or crafted frame).
constexpr int kZstdWindowLogMax = 31;

std::string megabytes(std::uint64_t bytes)
{
    if (bytes >= (1ULL << 30) && bytes % (1ULL << 30) == 0)
        return std::to_string(bytes >> 30) + " GiB";
    return std::to_string((bytes + (1ULL << 19)) >> 20) + " MiB";
}

bool isZstdMagic(const unsigned char* b, std::size_t n)
{
    if (n < 4)
        return false;
    if (b[0] == 0x28 && b[1] == 0xb5 && b[2] == 0x2f && b[3] == 0xfd)
        return true;
    // Skippable frames (0x184D2A50–0x184D2A5F, little endian) start files written by pzstd and seekable zstd.
    return (b[0] & 0xf0) == 0x50 && b[1] == 0x2a && b[2] == 0x4d && b[3] == 0x18;
}
} // namespace

struct InputStream::Codec
{
    z_stream gz {};
    bool gzInit = false;
    ZSTD_DStream* zstd = nullptr;
    ~Codec()
    {
        if (gzInit)
            inflateEnd(&gz);
        if (zstd)
            ZSTD_freeDStream(zstd);
    }
};

InputStream::~InputStream()
{
    if (m_file)
        std::fclose(m_file);
}

const char* InputStream::compressionName(Compression c)
{
    switch (c) {
    case Compression::Gzip:
        return "gzip";
    case Compression::Zstd:
        return "zstd";
    case Compression::None:
        break;
    }
    return "";
}

std::unique_ptr<InputStream> InputStream::open(const std::filesystem::path& path, std::string& error,
                                               const DecompressionLimits& limits)
{
    std::error_code ec;
    const int fd = openRegularFile(path, error);
    if (fd < 0)
        return nullptr;
    std::FILE* f = ::fdopen(fd, "rb");
    if (!f) {
        error = "cannot open " + path.string() + ": " + std::strerror(errno);
        ::close(fd);
        return nullptr;
    }
    std::unique_ptr<InputStream> s(new InputStream());
    s->m_file = f;
    s->m_limits = limits;
    s->m_path = path;
    const auto size = std::filesystem::file_size(path, ec);
    s->m_fileSize = ec ? 0 : size;
    s->m_in.resize(kInputChunk);
    s->refill();
    if (std::ferror(f)) {
        error = "cannot read " + path.string() + ": " + std::strerror(errno);
        return nullptr;
    }
    const auto* b = reinterpret_cast<const unsigned char*>(s->m_in.data());
    if (s->m_inLen >= 2 && b[0] == 0x1f && b[1] == 0x8b) {
        s->m_compression = Compression::Gzip;
        s->m_codec = std::make_unique<Codec>();
        // 16 + MAX_WBITS: expect a gzip header; concatenated members are handled in readGzip().
        if (inflateInit2(&s->m_codec->gz, 16 + MAX_WBITS) != Z_OK) {
            error = "cannot read " + path.string() + ": zlib initialisation failed";
            return nullptr;
        }
        s->m_codec->gzInit = true;
    } else if (isZstdMagic(b, s->m_inLen)) {
        s->m_compression = Compression::Zstd;
        s->m_codec = std::make_unique<Codec>();
        s->m_codec->zstd = ZSTD_createDStream();
        if (!s->m_codec->zstd || ZSTD_isError(ZSTD_initDStream(s->m_codec->zstd))
            || ZSTD_isError(ZSTD_DCtx_setParameter(s->m_codec->zstd, ZSTD_d_windowLogMax, kZstdWindowLogMax))) {
            error = "cannot read " + path.string() + ": zstd initialisation failed";
            return nullptr;
        }
    }
    return s;
}

std::size_t InputStream::readFile(char* buffer, std::size_t size)
{
    if (m_fileEof)
        return 0;
    const std::size_t n = std::fread(buffer, 1, size, m_file);
    m_fileBytesRead += n;
    if (n < size) {
        if (std::ferror(m_file))
            m_error = std::string("read error: ") + std::strerror(errno);
        m_fileEof = true;
    }
    return n;
}

bool InputStream::refill()
{
    m_inLen = readFile(m_in.data(), m_in.size());
    m_inPos = 0;
    return m_inLen > 0;
}

std::size_t InputStream::allowance(std::size_t size)
{
    if (m_compression == Compression::None)
        return size; // a plain file is its own bound
    std::uint64_t cap = m_limits.maxBytes;
    const char* why = "the absolute limit";
    if (m_produced + size > m_limits.ratioFloorBytes && m_fileSize > 0 && m_limits.maxRatio > 0) {
        const std::uint64_t byRatio = std::max(m_limits.ratioFloorBytes, m_fileSize * m_limits.maxRatio);
        if (byRatio < cap) {
            cap = byRatio;
            why = "the ratio limit";
        }
    }
    if (m_produced + size <= cap)
        return size;
    const std::size_t allowed = m_produced >= cap ? 0 : static_cast<std::size_t>(cap - m_produced);
    if (allowed == 0 && m_limitMessage.empty()) {
        m_limitMessage = m_path.string() + ": stopped decompressing after " + megabytes(cap) + " (" + why + ": at most "
            + megabytes(m_limits.maxBytes) + ", and at most " + std::to_string(m_limits.maxRatio)
            + "× the compressed size of " + megabytes(m_fileSize)
            + "); a decompression bomb, or a very large trace: raise the limit with --max-decompressed BYTES";
    }
    return allowed;
}

void InputStream::checkWhitespace(const char* data, std::size_t n)
{
    // Only the whitespace at the end of each chunk is measured: one compare for a chunk that ends in anything else,
    // the whole chunk only when it is all whitespace (the bomb case).
    const auto isSpace = [](char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; };
    std::size_t tail = 0;
    while (tail < n && isSpace(data[n - 1 - tail]))
        ++tail;
    m_whitespaceRun = tail == n ? m_whitespaceRun + n : tail;
    if (m_whitespaceRun >= m_limits.maxWhitespaceRun && m_error.empty()) {
        m_error = megabytes(m_whitespaceRun) + " of nothing but whitespace (up to byte "
            + std::to_string(m_produced + n) + " of the content); this is not a trace (reading stopped there)";
    }
}

std::size_t InputStream::read(char* buffer, std::size_t size)
{
    if (size == 0 || !m_error.empty())
        return 0;
    size = allowance(size);
    if (size == 0)
        return 0;
    std::size_t n = 0;
    switch (m_compression) {
    case Compression::None:
        n = readRaw(buffer, size);
        break;
    case Compression::Gzip:
        n = readGzip(buffer, size);
        break;
    case Compression::Zstd:
        n = readZstd(buffer, size);
        break;
    }
    checkWhitespace(buffer, n);
    m_produced += n;
    return n;
}

std::size_t InputStream::readRaw(char* buffer, std::size_t size)
{
    std::size_t done = 0;
    while (done < size) {
        if (m_inPos == m_inLen && size - done >= m_in.size()) {
            // A large read goes straight to the caller's buffer (stdio does not buffer it either): copying 1 GB
            // through m_in took 5 % of the torch_npu import's CPU.
            done += readFile(buffer + done, size - done);
            if (m_fileEof) // a short read: the end of the file, or an error readFile() noted
                break;
            continue;
        }
        if (m_inPos == m_inLen && !refill())
            break;
        const std::size_t take = std::min(size - done, m_inLen - m_inPos);
        std::memcpy(buffer + done, m_in.data() + m_inPos, take);
        m_inPos += take;
        done += take;
    }
    return done;
}

std::size_t InputStream::readGzip(char* buffer, std::size_t size)
{
    z_stream& z = m_codec->gz;
    std::size_t done = 0;
    while (done < size) {
        if (m_inPos == m_inLen && !refill()) {
            if (!m_streamEnded)
                m_truncated = true;
            break;
        }
        if (m_streamEnded) {
            // Another gzip member follows (concatenated .gz files are valid gzip).
            if (inflateReset(&z) != Z_OK) {
                m_error = "gzip: cannot reset the decompressor";
                break;
            }
            m_streamEnded = false;
        }
        z.next_in = reinterpret_cast<Bytef*>(m_in.data() + m_inPos);
        z.avail_in = static_cast<uInt>(m_inLen - m_inPos);
        z.next_out = reinterpret_cast<Bytef*>(buffer + done);
        z.avail_out = static_cast<uInt>(std::min<std::size_t>(size - done, 1U << 30));
        const uInt before = z.avail_out;
        const int rc = inflate(&z, Z_NO_FLUSH);
        m_inPos = m_inLen - z.avail_in;
        done += before - z.avail_out;
        if (rc == Z_STREAM_END) {
            m_streamEnded = true;
            continue;
        }
        if (rc != Z_OK && rc != Z_BUF_ERROR) {
            m_error = std::string("corrupt gzip data: ") + (z.msg ? z.msg : "inflate failed");
            break;
        }
        if (rc == Z_BUF_ERROR && z.avail_in > 0 && before == z.avail_out) {
            m_error = "corrupt gzip data: no progress";
            break;
        }
    }
    return done;
}

// NOLINTNEXTLINE(readability-non-const-parameter): zstd writes through ZSTD_outBuffer::dst, which tidy cannot see
std::size_t InputStream::readZstd(char* buffer, std::size_t size)
{
    std::size_t done = 0;
    while (done < size) {
        if (m_inPos == m_inLen && !refill()) {
            if (!m_streamEnded)
                m_truncated = true;
            break;
        }
        ZSTD_inBuffer in {m_in.data(), m_inLen, m_inPos};
        ZSTD_outBuffer out {buffer + done, size - done, 0};
        const std::size_t hint = ZSTD_decompressStream(m_codec->zstd, &out, &in);
        m_inPos = in.pos;
        done += out.pos;
        if (ZSTD_isError(hint)) {
            if (ZSTD_getErrorCode(hint) == ZSTD_error_frameParameter_windowTooLarge) {
                m_error = "zstd window too large: a frame asks for a window above "
                    + megabytes(1ULL << kZstdWindowLogMax)
                    + ", more decoder memory than any zstd writes (zstd --long allows 2 GiB); the file is damaged";
            } else {
                m_error = std::string("corrupt zstd data: ") + ZSTD_getErrorName(hint);
            }
            break;
        }
        m_streamEnded = hint == 0;
    }
    return done;
}

} // namespace timesink::parsers
