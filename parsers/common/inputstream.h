// SPDX-License-Identifier: MIT
#pragma once

#include "parsers/common/importer.h"

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

namespace timesink::parsers {

/// Reads a file as a stream of bytes, transparently unwrapping gzip (1f 8b) or zstd (28 b5 2f fd),
/// detected by magic number, never by extension. Decompression is streamed: memory stays constant.
///
/// Errors do not throw: read() returns fewer bytes, and error() / truncated() say why. A compressed stream
/// that ends early reads every byte before the cut and then reports truncated().
/// Bounds on what one compressed file may inflate to (a decompression bomb stops at them; see docs/limits.md).
struct DecompressionLimits
{
    /// Absolute cap on decompressed bytes of one file.
    std::uint64_t maxBytes = kDefaultMaxBytes;
    /// Cap on decompressed / compressed size; applies once the output passes `ratioFloorBytes`.
    std::uint64_t maxRatio = kDefaultMaxRatio;
    std::uint64_t ratioFloorBytes = 256ULL << 20;
    /// A run of nothing but whitespace this long stops reading with an error (no trace holds one; a bomb does).
    std::uint64_t maxWhitespaceRun = 16ULL << 20;

    static constexpr std::uint64_t kDefaultMaxBytes = ImportOptions {}.maxDecompressedBytes;
    static constexpr std::uint64_t kDefaultMaxRatio = ImportOptions {}.maxDecompressedRatio;

    /// The limits an import was given.
    static DecompressionLimits from(const ImportOptions& options)
    {
        DecompressionLimits l;
        l.maxBytes = options.maxDecompressedBytes;
        l.maxRatio = options.maxDecompressedRatio;
        return l;
    }
};

class InputStream
{
public:
    enum class Compression : std::uint8_t { None, Gzip, Zstd };

    ~InputStream();
    InputStream(const InputStream&) = delete;
    InputStream& operator=(const InputStream&) = delete;

    /// Opens `path`; on failure returns nullptr and sets `error` ("cannot open …: No such file or directory",
    /// "cannot read …: not a regular file (it is a FIFO)"). Only regular files are opened: a FIFO or a device
    /// would block or never end.
    static std::unique_ptr<InputStream> open(const std::filesystem::path& path, std::string& error,
                                             const DecompressionLimits& limits = {});

    /// Reads up to `size` decompressed bytes; returns 0 at the end or on error.
    std::size_t read(char* buffer, std::size_t size);

    [[nodiscard]] Compression compression() const { return m_compression; }
    [[nodiscard]] static const char* compressionName(Compression c);
    /// Bytes of the file consumed so far (compressed bytes for compressed files) — for progress.
    [[nodiscard]] std::uint64_t fileBytesRead() const { return m_fileBytesRead; }
    [[nodiscard]] std::uint64_t fileSize() const { return m_fileSize; }
    /// Decompressed bytes produced so far.
    [[nodiscard]] std::uint64_t bytesProduced() const { return m_produced; }
    /// The compressed stream ended before its end marker (a cut .gz/.zst).
    [[nodiscard]] bool truncated() const { return m_truncated; }
    /// A read or decompression error (corrupt data); empty when none.
    [[nodiscard]] const std::string& error() const { return m_error; }
    /// Reading stopped at a DecompressionLimits bound; limitMessage() says which, with the numbers.
    [[nodiscard]] bool limitHit() const { return !m_limitMessage.empty(); }
    [[nodiscard]] const std::string& limitMessage() const { return m_limitMessage; }
    /// Bytes of the compressed stream consumed before it was cut (for "truncated after N bytes").
    [[nodiscard]] bool compressed() const { return m_compression != Compression::None; }

private:
    InputStream() = default;
    std::size_t readRaw(char* buffer, std::size_t size);
    std::size_t readGzip(char* buffer, std::size_t size);
    std::size_t readZstd(char* buffer, std::size_t size);
    bool refill();
    /// Reads up to `size` bytes of the file into `buffer`, noting its end and read errors.
    std::size_t readFile(char* buffer, std::size_t size);
    /// How many of `size` more output bytes the limits allow; sets the limit message at the bound.
    std::size_t allowance(std::size_t size);
    void checkWhitespace(const char* data, std::size_t n);

    struct Codec;
    std::FILE* m_file = nullptr;
    Compression m_compression = Compression::None;
    std::unique_ptr<Codec> m_codec;
    std::string m_in; // compressed input buffer
    std::size_t m_inPos = 0;
    std::size_t m_inLen = 0;
    bool m_fileEof = false;
    bool m_streamEnded = false;
    bool m_truncated = false;
    std::string m_error;
    std::string m_limitMessage;
    DecompressionLimits m_limits;
    std::filesystem::path m_path;
    std::uint64_t m_whitespaceRun = 0;
    std::uint64_t m_fileBytesRead = 0;
    std::uint64_t m_fileSize = 0;
    std::uint64_t m_produced = 0;
};

} // namespace timesink::parsers
