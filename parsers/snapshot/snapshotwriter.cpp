// SPDX-License-Identifier: MIT
// Writing a snapshot: each column stream cut into zstd frames of at most kSectionRawBytes, then the header, then the
// preamble that points at it, into a temporary file renamed over the target when complete.
#include "model/snapshotaccess.h"
#include "parsers/importer_revision.h"
#include "parsers/snapshot/snapshot.h"
#include "parsers/snapshot/snapshotframing.h"
#include "parsers/snapshot/snapshotheader.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <system_error>
#include <unistd.h>
#include <vector>
// For ZSTD_c_literalCompressionMode (below): a parameter of the experimental API, passed to the stable
// ZSTD_CCtx_setParameter(); a library that does not know it refuses it and compresses literals as before.
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

namespace timesink::parsers::snapshot {

namespace {

using model::SnapshotAccess;
namespace fs = std::filesystem;

/// Creates a new temporary file beside `file` ("NAME.tmp-PID-N") for writing: never an existing file or a symlink
/// planted under that name (O_EXCL | O_NOFOLLOW), and a name of its own for each writer, also for two threads of
/// one process filling the same cache entry. Mode 0644 less the umask, like any file the user creates.
std::FILE* createTemporaryBeside(const fs::path& file, fs::path& temp, std::string& error)
{
    static std::atomic<std::uint64_t> counter {0};
    for (int attempt = 0; attempt < 16; ++attempt) {
        temp = fs::path(file).concat(".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter.fetch_add(1)));
        const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0 && errno == EEXIST)
            continue;
        std::FILE* f = fd < 0 ? nullptr : ::fdopen(fd, "wb");
        if (!f) {
            error = "cannot write " + file.string() + ": " + std::strerror(errno);
            if (fd >= 0) {
                ::close(fd);
                std::error_code ec;
                fs::remove(temp, ec);
            }
            return nullptr;
        }
        return f;
    }
    error = "cannot write " + file.string() + ": no free temporary name beside it";
    return nullptr;
}

/// Padding bytes inside an element, zeroed when written so that a snapshot's bytes depend only on the trace.
struct Padding
{
    std::size_t elementSize = 1;
    std::size_t offset = 0;
    std::size_t length = 0;
};
Padding paddingOf(Kind kind)
{
    switch (kind) {
    case Kind::ArgSchemaKeys:
        return {sizeof(model::ArgKey), 5, 3}; // after ArgKey::type
    case Kind::Summaries:
        return {sizeof(model::SummaryBucket), 21, 3}; // after dominant
    case Kind::Flows:
        return {sizeof(model::Flow), 17, 3}; // after kind
    default:
        return {};
    }
}

struct Piece
{
    const void* data;
    std::size_t bytes;
};

/// Compresses column streams into sections: one zstd frame (with checksum) per kSectionRawBytes of a stream,
/// each recorded in the header's section table.
class SectionWriter
{
public:
    SectionWriter(std::FILE* file, snapshot::pb::Header& header)
        : m_file(file)
        , m_header(header)
        , m_out(ZSTD_CStreamOutSize())
    {
        m_cctx = ZSTD_createCCtx();
        ZSTD_CCtx_setParameter(m_cctx, ZSTD_c_compressionLevel, 1);
        ZSTD_CCtx_setParameter(m_cctx, ZSTD_c_checksumFlag, 1);
        // Literals stored as they are, not Huffman-coded: the model's columns are mostly unique values (packed
        // args, times), whose literals decoding them spent most of the reopen's zstd time on. 1 GB torch_npu
        // trace, six paired reopens: user time 0.17-0.25 -> 0.13-0.14 s, wall 0.15-0.23 -> 0.14-0.15 s, for a
        // snapshot of 61 MB instead of 47 MB.
        ZSTD_CCtx_setParameter(m_cctx, ZSTD_c_literalCompressionMode, ZSTD_ps_disable);
        // A section is at most kSectionRawBytes: a window that covers it is all a frame can use.
        ZSTD_CCtx_setParameter(m_cctx, ZSTD_c_windowLog, 21);
    }
    ~SectionWriter() { ZSTD_freeCCtx(m_cctx); }
    SectionWriter(const SectionWriter&) = delete;
    SectionWriter& operator=(const SectionWriter&) = delete;

    [[nodiscard]] bool ok() const { return m_ok; }
    [[nodiscard]] std::uint64_t position() const { return m_pos; }
    void setPosition(std::uint64_t pos) { m_pos = pos; }

    void write(Kind kind, const std::vector<Piece>& pieces)
    {
        m_kind = kind;
        m_total = 0;
        for (const Piece& p : pieces)
            m_total += p.bytes;
        m_rawOffset = 0;
        if (m_total == 0)
            return;
        startFrame();
        const Padding pad = paddingOf(kind);
        if (pad.length == 0) {
            for (const Piece& p : pieces)
                feed(static_cast<const char*>(p.data), p.bytes);
        } else {
            // Copy whole elements into a buffer, zero their padding, compress the copy.
            const std::size_t perChunk = (1 << 20) / pad.elementSize;
            std::vector<char> staging(perChunk * pad.elementSize);
            for (const Piece& p : pieces) {
                const auto* src = static_cast<const char*>(p.data);
                for (std::size_t done = 0; done < p.bytes;) {
                    const std::size_t n = std::min(staging.size(), p.bytes - done);
                    std::memcpy(staging.data(), src + done, n);
                    for (std::size_t e = 0; e + pad.elementSize <= n; e += pad.elementSize)
                        std::memset(staging.data() + e + pad.offset, 0, pad.length);
                    feed(staging.data(), n);
                    done += n;
                }
            }
        }
    }

private:
    void startFrame()
    {
        ZSTD_CCtx_reset(m_cctx, ZSTD_reset_session_only);
        m_frameTarget = std::min<std::uint64_t>(kSectionRawBytes, m_total - m_rawOffset);
        ZSTD_CCtx_setPledgedSrcSize(m_cctx, m_frameTarget);
        m_frameStart = m_pos;
        m_frameRaw = 0;
    }
    void feed(const char* data, std::size_t size)
    {
        while (size > 0 && m_ok) {
            const std::size_t take = std::min<std::uint64_t>(size, m_frameTarget - m_frameRaw);
            compress(data, take, ZSTD_e_continue);
            m_frameRaw += take;
            data += take;
            size -= take;
            if (m_frameRaw == m_frameTarget)
                endFrame();
        }
    }
    void endFrame()
    {
        compress(nullptr, 0, ZSTD_e_end);
        auto* s = m_header.add_sections();
        s->set_kind(static_cast<std::uint32_t>(m_kind));
        s->set_offset(m_frameStart);
        s->set_compressed_size(m_pos - m_frameStart);
        s->set_raw_offset(m_rawOffset);
        s->set_raw_size(m_frameRaw);
        m_rawOffset += m_frameRaw;
        if (m_rawOffset < m_total)
            startFrame();
    }
    void compress(const char* data, std::size_t size, ZSTD_EndDirective mode)
    {
        ZSTD_inBuffer in {data, size, 0};
        for (;;) {
            ZSTD_outBuffer out {m_out.data(), m_out.size(), 0};
            const std::size_t ret = ZSTD_compressStream2(m_cctx, &out, &in, mode);
            if (ZSTD_isError(ret)) {
                m_ok = false;
                return;
            }
            if (out.pos > 0) {
                if (std::fwrite(m_out.data(), 1, out.pos, m_file) != out.pos) {
                    m_ok = false;
                    return;
                }
                m_pos += out.pos;
            }
            if (mode == ZSTD_e_end ? ret == 0 : in.pos == in.size)
                return;
        }
    }

    std::FILE* m_file;
    snapshot::pb::Header& m_header;
    std::vector<char> m_out;
    ZSTD_CCtx* m_cctx = nullptr;
    Kind m_kind = Kind::StringBytes;
    std::uint64_t m_pos = 0;
    std::uint64_t m_total = 0;
    std::uint64_t m_rawOffset = 0;
    std::uint64_t m_frameStart = 0;
    std::uint64_t m_frameRaw = 0;
    std::uint64_t m_frameTarget = 0;
    bool m_ok = true;
};

template <typename Buffer> Piece pieceOf(const Buffer& b)
{
    return Piece {b.data(), b.size() * sizeof(*b.data())};
}

template <typename Get> std::vector<Piece> trackColumn(const model::Trace& trace, Get get)
{
    std::vector<Piece> pieces;
    for (const model::Track& t : SnapshotAccess::tracks(trace)) {
        Piece p = pieceOf(get(t));
        if (p.bytes > 0)
            pieces.push_back(p);
    }
    return pieces;
}

} // namespace

std::string writerIdentity()
{
    return "timesink " TIMESINK_IMPORTER_VERSION " importer " TIMESINK_IMPORTER_REVISION;
}

model::Status writeSnapshot(const model::Trace& trace, const SourceIdentity& source, const fs::path& file,
                            std::string_view writer)
{
    pb::Header header;
    fillHeader(trace, source, writer.empty() ? writerIdentity() : writer, header);

    // The string pool as lengths plus bytes (id 0, the empty string, included).
    const model::StringPool& pool = trace.strings();
    std::vector<std::uint32_t> lengths(pool.size());
    std::size_t stringBytes = 0;
    for (std::size_t i = 0; i < pool.size(); ++i) {
        lengths[i] = static_cast<std::uint32_t>(pool.view(model::StringId(static_cast<std::uint32_t>(i))).size());
        stringBytes += lengths[i];
    }
    std::string bytes;
    bytes.reserve(stringBytes);
    for (std::size_t i = 0; i < pool.size(); ++i)
        bytes += pool.view(model::StringId(static_cast<std::uint32_t>(i)));

    fs::path temp;
    std::string error;
    std::FILE* f = createTemporaryBeside(file, temp, error);
    if (!f)
        return {model::StatusKind::Failed, error};
    char preamble[kPreambleBytes] = {};
    bool ok = std::fwrite(preamble, 1, sizeof preamble, f) == sizeof preamble;
    SectionWriter w(f, header);
    w.setPosition(kPreambleBytes);
    using A = SnapshotAccess;
    w.write(Kind::StringBytes, {Piece {bytes.data(), bytes.size()}});
    w.write(Kind::StringLengths, {pieceOf(lengths)});
    w.write(Kind::Ts,
            trackColumn(
                trace, [](const model::Track& t) -> auto& { return A::ts(t); }));
    w.write(Kind::Dur,
            trackColumn(
                trace, [](const model::Track& t) -> auto& { return A::dur(t); }));
    w.write(Kind::Name,
            trackColumn(
                trace, [](const model::Track& t) -> auto& { return A::name(t); }));
    w.write(Kind::RawCategory,
            trackColumn(
                trace, [](const model::Track& t) -> auto& { return A::rawCategory(t); }));
    w.write(Kind::Parent,
            trackColumn(
                trace, [](const model::Track& t) -> auto& { return A::parent(t); }));
    w.write(Kind::SliceArgs,
            trackColumn(
                trace, [](const model::Track& t) -> auto& { return A::sliceArgs(t); }));
    w.write(Kind::Depth,
            trackColumn(
                trace, [](const model::Track& t) -> auto& { return A::depth(t); }));
    w.write(Kind::Category,
            trackColumn(
                trace, [](const model::Track& t) -> auto& { return A::category(t); }));
    w.write(Kind::Flags,
            trackColumn(
                trace, [](const model::Track& t) -> auto& { return A::flags(t); }));
    std::vector<Piece> byDepth;
    std::vector<Piece> summaries;
    for (const model::Track& t : trace.tracks()) {
        for (const auto& d : A::byDepth(t))
            byDepth.push_back(pieceOf(d));
        for (const auto& levels : A::summaries(t)) {
            for (const auto& level : levels)
                summaries.push_back(pieceOf(level));
        }
    }
    w.write(Kind::ByDepth, byDepth);
    w.write(Kind::Summaries, summaries);
    w.write(Kind::CounterTs,
            trackColumn(
                trace, [](const model::Track& t) -> auto& { return A::counterTs(t); }));
    w.write(Kind::CounterValues,
            trackColumn(
                trace, [](const model::Track& t) -> auto& { return A::counterValues(t); }));
    w.write(Kind::ArgValues, {pieceOf(A::argValueBytes(trace.argStore()))});
    w.write(Kind::ArgOffsets, {pieceOf(A::argOffsets(trace.argStore()))});
    w.write(Kind::ArgSetSchemas, {pieceOf(A::argSetSchemas(trace.argStore()))});
    w.write(Kind::ArgSchemaKeys, {pieceOf(A::argSchemaKeys(trace.argStore()))});
    w.write(Kind::ArgSchemaOffsets, {pieceOf(A::argSchemaOffsets(trace.argStore()))});
    w.write(Kind::Flows, {pieceOf(A::flows(trace))});
    w.write(Kind::FlowsByTarget, {pieceOf(A::flowsByTarget(trace))});
    ok = ok && w.ok();

    std::string headerBytes;
    ok = ok && header.SerializeToString(&headerBytes)
        && std::fwrite(headerBytes.data(), 1, headerBytes.size(), f) == headerBytes.size();
    encodePreamble(preamble, w.position(), headerBytes);
    ok = ok && std::fseek(f, 0, SEEK_SET) == 0 && std::fwrite(preamble, 1, sizeof preamble, f) == sizeof preamble;
    ok = (std::fflush(f) == 0) && ok;
    const int savedErrno = errno;
    ok = (std::fclose(f) == 0) && ok;
    std::error_code ec;
    if (ok) {
        fs::rename(temp, file, ec);
        ok = !ec;
    }
    if (!ok) {
        fs::remove(temp, ec);
        return {model::StatusKind::Failed,
                "cannot write " + file.string() + ": " + std::strerror(savedErrno ? savedErrno : EIO)};
    }
    return {};
}

} // namespace timesink::parsers::snapshot
