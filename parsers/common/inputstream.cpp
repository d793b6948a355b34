// SPDX-License-Identifier: MIT
#include "parsers/common/inputstream.h"

#include <zlib.h>
#include <zstd.h>

#include <cerrno>
#include <cstring>

namespace timesink::parsers {

namespace {
constexpr std::size_t kInputChunk = 1 << 20;
}

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

std::unique_ptr<InputStream> InputStream::open(const std::filesystem::path& path, std::string& error)
{
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
        error = "cannot read " + path.string() + ": it is a directory, expected a file";
        return nullptr;
    }
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) {
        error = "cannot open " + path.string() + ": " + std::strerror(errno);
        return nullptr;
    }
    std::unique_ptr<InputStream> s(new InputStream());
    s->m_file = f;
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
    } else if (s->m_inLen >= 4 && b[0] == 0x28 && b[1] == 0xb5 && b[2] == 0x2f && b[3] == 0xfd) {
        s->m_compression = Compression::Zstd;
        s->m_codec = std::make_unique<Codec>();
        s->m_codec->zstd = ZSTD_createDStream();
        if (!s->m_codec->zstd || ZSTD_isError(ZSTD_initDStream(s->m_codec->zstd))) {
            error = "cannot read " + path.string() + ": zstd initialisation failed";
            return nullptr;
        }
    }
    return s;
}

bool InputStream::refill()
{
    if (m_fileEof)
        return false;
    m_inLen = std::fread(m_in.data(), 1, m_in.size(), m_file);
    m_inPos = 0;
    m_fileBytesRead += m_inLen;
    if (m_inLen < m_in.size()) {
        if (std::ferror(m_file))
            m_error = std::string("read error: ") + std::strerror(errno);
        m_fileEof = true;
    }
    return m_inLen > 0;
}

std::size_t InputStream::read(char* buffer, std::size_t size)
{
    if (size == 0 || !m_error.empty())
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
    m_produced += n;
    return n;
}

std::size_t InputStream::readRaw(char* buffer, std::size_t size)
{
    std::size_t done = 0;
    while (done < size) {
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
            m_error = std::string("corrupt zstd data: ") + ZSTD_getErrorName(hint);
            break;
        }
        m_streamEnded = hint == 0;
    }
    return done;
}

} // namespace timesink::parsers
