// SPDX-License-Identifier: MIT
#include "parsers/snapshot/snapshot.h"

#include "model/columnvector.h"
#include "model/memoryhint.h"
#include "model/podbuffer.h"
#include "model/snapshotaccess.h"
#include "model/workers.h"
#include "parsers/common/regularfile.h"
#include "parsers/importer_revision.h"
#include "parsers/snapshot/snapshot.pb.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <limits>
#include <mutex>
#include <optional>
#include <sys/stat.h>
#include <system_error>
#include <unistd.h>
// For ZSTD_c_literalCompressionMode (below): a parameter of the experimental API, passed to the stable
// ZSTD_CCtx_setParameter(); a library that does not know it refuses it and compresses literals as before.
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>
#include <zstd_errors.h>

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

// The column streams, in the order the writer emits them. Values are stored in the header: never renumber.
enum class Kind : std::uint32_t {
    StringBytes = 1,
    StringLengths,
    Ts,
    Dur,
    Name,
    RawCategory,
    Parent,
    SliceArgs,
    Depth,
    Category,
    Flags,
    ByDepth,
    Summaries,
    CounterTs,
    CounterValues,
    ArgValues,
    ArgOffsets,
    Flows,
    FlowsByTarget,
    ArgSetSchemas, // format version 3 on: args by schema (model::ArgStore)
    ArgSchemaKeys,
    ArgSchemaOffsets,
};
constexpr std::size_t kKindCount = 23; // index = Kind value; 0 unused
constexpr std::uint64_t kMaxHeaderBytes = 256ULL << 20;

// Columns are stored as the model lays them out in memory (little-endian, these sizes): checked here so that a
// change in the model fails the build instead of writing snapshots another build misreads.
static_assert(std::endian::native == std::endian::little, "snapshots are little-endian");
static_assert(sizeof(model::StringId) == 4 && sizeof(model::SliceIndex) == 4 && sizeof(model::TrackId) == 4);
static_assert(sizeof(model::ArgKey) == 8 && offsetof(model::ArgKey, type) == 4);
static_assert(sizeof(model::SummaryBucket) == 32 && offsetof(model::SummaryBucket, count) == 16
              && offsetof(model::SummaryBucket, dominant) == 20 && offsetof(model::SummaryBucket, busyNs) == 24);
static_assert(sizeof(model::Flow) == 20 && offsetof(model::Flow, to) == 8 && offsetof(model::Flow, kind) == 16);

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

std::uint64_t rotl(std::uint64_t v, int s)
{
    return (v << s) | (v >> (64 - s));
}

/// 64-bit hash for change detection (not cryptographic): 8-byte words multiplied in, then a final avalanche.
std::uint64_t hashBytes(const void* data, std::size_t size, std::uint64_t seed)
{
    const auto* p = static_cast<const unsigned char*>(data);
    std::uint64_t h = seed ^ (size * 0x9e3779b97f4a7c15ULL);
    for (; size >= 8; size -= 8, p += 8) {
        std::uint64_t w;
        std::memcpy(&w, p, 8);
        h = rotl(h ^ (w * 0x9e3779b97f4a7c15ULL), 31) * 0xbf58476d1ce4e5b9ULL;
    }
    std::uint64_t tail = 0;
    std::memcpy(&tail, p, size);
    h = rotl(h ^ (tail * 0x9e3779b97f4a7c15ULL), 31) * 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
}

void putU32(char* p, std::uint32_t v)
{
    std::memcpy(p, &v, 4);
}
void putU64(char* p, std::uint64_t v)
{
    std::memcpy(p, &v, 8);
}
std::uint32_t getU32(const char* p)
{
    std::uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}
std::uint64_t getU64(const char* p)
{
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}

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

// ---------------------------------------------------------------------------------------------------------------
// Writing

struct Piece
{
    const void* data;
    std::size_t bytes;
};

class Writer
{
public:
    Writer(std::FILE* file, snapshot::pb::Header& header)
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
    ~Writer() { ZSTD_freeCCtx(m_cctx); }
    Writer(const Writer&) = delete;
    Writer& operator=(const Writer&) = delete;

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

void fillHeader(const model::Trace& trace, const SourceIdentity& source, std::string_view writer, pb::Header& h)
{
    h.set_format_version(kFormatVersion);
    h.set_writer(std::string(writer));
    auto* src = h.mutable_source();
    src->set_path(source.path);
    src->set_size(source.size);
    src->set_mtime_ns(source.mtimeNs);
    src->set_content_hash(source.contentHash);

    const model::TraceMetadata& meta = trace.metadata();
    h.set_format(meta.format);
    h.set_format_version_text(meta.formatVersion);
    h.set_source_path(meta.sourcePath);
    for (const model::Device& d : meta.devices) {
        auto* pd = h.add_devices();
        pd->set_kind(static_cast<std::uint32_t>(d.kind));
        pd->set_index(d.index);
        pd->set_name(d.name);
    }
    h.set_rank(meta.rank);
    h.set_world_size(meta.worldSize);
    h.set_profiler_level(meta.profilerLevel);
    h.set_synthetic_timestamps(meta.syntheticTimestamps);
    h.set_platform(std::string(model::platformKey(meta.platform)));
    for (const auto& [key, value] : meta.properties) {
        auto* p = h.add_properties();
        p->set_key(key);
        p->set_value(value);
    }
    for (const model::ImportWarning& w : trace.warnings()) {
        auto* pw = h.add_warnings();
        pw->set_kind(w.kind);
        pw->set_count(w.count);
        pw->set_message(w.message);
    }
    for (const model::Step& s : trace.steps()) {
        auto* ps = h.add_steps();
        ps->set_number(s.number);
        ps->set_name(s.name.value);
        ps->set_start(s.start);
        ps->set_end(s.end);
        ps->set_marker_track(s.marker.track.value);
        ps->set_marker_index(s.marker.index.value);
        ps->set_synthetic(s.synthetic);
    }
    for (const model::Track& t : trace.tracks()) {
        auto* pt = h.add_tracks();
        pt->set_name(t.name.value);
        pt->set_process_name(t.processName.value);
        pt->set_thread_name(t.threadName.value);
        pt->set_process_key(t.processKey.value);
        pt->set_thread_key(t.threadKey.value);
        pt->set_device_kind(static_cast<std::uint32_t>(t.deviceKind));
        pt->set_role(static_cast<std::uint32_t>(t.role));
        pt->set_device_index(t.deviceIndex);
        pt->set_stream_id(t.streamId);
        pt->set_sort_index(t.sortIndex);
        pt->set_slices(t.size());
        pt->set_counter_samples(t.counterTimes().size());
        for (const auto& d : SnapshotAccess::byDepth(t))
            pt->add_depth_sizes(d.size());
        for (const auto& levels : SnapshotAccess::summaries(t)) {
            pt->add_summary_levels(static_cast<std::uint32_t>(levels.size()));
            for (const auto& level : levels)
                pt->add_summary_sizes(level.size());
        }
        pt->set_start(t.startNs());
        pt->set_end(t.endNs());
        pt->set_busy(t.busyNs());
    }
    for (const std::uint64_t c : SnapshotAccess::categoryCounts(trace))
        h.add_category_counts(c);
    h.set_slice_count(trace.sliceCount());
    h.set_start(trace.startNs());
    h.set_end(trace.endNs());
    h.set_string_count(trace.strings().size());
    h.set_arg_value_bytes(SnapshotAccess::argValueBytes(trace.argStore()).size());
    h.set_arg_offset_count(SnapshotAccess::argOffsets(trace.argStore()).size());
    h.set_arg_schema_key_count(SnapshotAccess::argSchemaKeys(trace.argStore()).size());
    h.set_arg_schema_offset_count(SnapshotAccess::argSchemaOffsets(trace.argStore()).size());
    h.set_flow_count(trace.flows().size());
    h.set_model_bytes(trace.bytesUsed());
}

// ---------------------------------------------------------------------------------------------------------------
// Reading

class ByteSource
{
public:
    virtual ~ByteSource() = default;
    [[nodiscard]] virtual std::uint64_t size() const = 0;
    /// Reads exactly `size` bytes at `offset`; false on a short read or an error.
    virtual bool readAt(std::uint64_t offset, void* dst, std::size_t size) const = 0;
};

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

class MemorySource final : public ByteSource
{
public:
    explicit MemorySource(std::string_view bytes)
        : m_bytes(bytes)
    {
    }
    [[nodiscard]] std::uint64_t size() const override { return m_bytes.size(); }
    bool readAt(std::uint64_t offset, void* dst, std::size_t size) const override
    {
        if (offset > m_bytes.size() || size > m_bytes.size() - offset)
            return false;
        std::memcpy(dst, m_bytes.data() + offset, size);
        return true;
    }

private:
    std::string_view m_bytes;
};

/// Where bytes [streamOffset, streamOffset + bytes) of a column stream go.
struct Target
{
    std::uint64_t streamOffset;
    char* data;
    std::size_t bytes;
};

class Reader
{
public:
    Reader(const ByteSource& source, std::string name, const ImportOptions& options, ProgressSink* progress,
           std::string sourcePath = {})
        : m_source(source)
        , m_name(std::move(name))
        , m_sourcePath(std::move(sourcePath))
        , m_options(options)
        , m_progress(progress)
    {
    }

    bool readHeader(pb::Header& header)
    {
        char pre[kPreambleBytes];
        if (m_source.size() < kPreambleBytes || !m_source.readAt(0, pre, kPreambleBytes)
            || std::string_view(pre, kMagic.size()) != kMagic) {
            m_notSnapshot = true;
            return fail("not a Timesink snapshot (no .tsnap signature)");
        }
        const std::uint32_t version = getU32(pre + 8);
        if (version != kFormatVersion) {
            return fail(std::string("snapshot format ") + std::to_string(version) + " was written by "
                        + (version < kFormatVersion ? "an older" : "a newer") + " Timesink; this one reads format "
                        + std::to_string(kFormatVersion) + ". Open the source trace instead (and export a new "
                        + "snapshot from it)");
        }
        const std::uint64_t headerOffset = getU64(pre + 16);
        const std::uint64_t headerSize = getU64(pre + 24);
        const std::uint64_t headerHash = getU64(pre + 32);
        if (headerOffset < kPreambleBytes || headerSize > m_source.size()
            || headerOffset > m_source.size() - headerSize)
            return fail("the snapshot is truncated (its header lies past the end of the file)");
        // Parsing a header costs many times its size (an empty track is two bytes of protobuf); real ones are a few MB.
        if (headerSize > kMaxHeaderBytes)
            return corrupt("a header of " + std::to_string(headerSize) + " bytes");
        std::string bytes(headerSize, '\0');
        if (!m_source.readAt(headerOffset, bytes.data(), bytes.size()))
            return fail("cannot read the snapshot header");
#ifndef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
        // (A fuzzer could never get a mutated header past the hash; it should reach the checks below instead.)
        if (hashBytes(bytes.data(), bytes.size(), 0) != headerHash)
            return fail("the snapshot is corrupt (header checksum mismatch)");
#else
        (void)headerHash;
#endif
        if (!header.ParseFromString(bytes))
            return fail("the snapshot is corrupt (unreadable header)");
        if (header.format_version() != kFormatVersion)
            return fail("the snapshot is corrupt (header and preamble disagree on the format version)");
        m_sectionsEnd = headerOffset;
        return true;
    }

    model::TracePtr read()
    {
        pb::Header h;
        if (!readHeader(h))
            return nullptr;
        auto trace = SnapshotAccess::makeTrace();
        if (!shape(h, *trace) || !decompressAll() || !loadStrings(*trace) || !validate(h, *trace))
            return nullptr;
        finish(h, *trace);
        return model::TracePtr(trace.release());
    }

    [[nodiscard]] const std::string& error() const
    {
        return m_error;
    }
    [[nodiscard]] bool notSnapshot() const
    {
        return m_notSnapshot;
    }
    [[nodiscard]] bool cancelled() const
    {
        return m_cancelled;
    }

private:
    bool fail(std::string message)
    {
        if (m_error.empty())
            m_error = m_name + ": " + std::move(message);
        return false;
    }
    bool corrupt(const std::string& what)
    {
        return fail("the snapshot is corrupt (" + what + ")");
    }

    void target(Kind kind, void* data, std::size_t bytes)
    {
        const auto k = static_cast<std::size_t>(kind);
        if (bytes > 0)
            m_targets[k].push_back(Target {m_expected[k], static_cast<char*>(data), bytes});
        m_expected[k] += bytes;
    }
    // Every target is allocated at its final size and written whole by the decoders.
    template <typename T> void target(Kind kind, model::PodBuffer<T>& b)
    {
        target(kind, b.data(), b.size() * sizeof(T));
    }
    template <typename Vector> void target(Kind kind, Vector& v)
    {
        const std::size_t bytes = v.size() * sizeof(*v.data());
        target(kind, v.data(), bytes);
    }

    /// Checks the header's counts against each other and against the sections, then allocates every column.
    bool shape(const pb::Header& h, model::Trace& trace)
    {
        // Expected stream sizes first, allocating nothing, so that a lying header costs no memory.
        std::array<std::uint64_t, kKindCount> need {};
        auto add = [&](Kind k, std::uint64_t count, std::uint64_t size) {
            if (count > (std::uint64_t(1) << 40))
                return false;
            need[static_cast<std::size_t>(k)] += count * size;
            return true;
        };
        if (h.string_count() == 0 || h.string_count() > std::numeric_limits<std::uint32_t>::max())
            return corrupt("string count");
        const std::uint64_t argSets = h.arg_offset_count() == 0 ? 0 : h.arg_offset_count() - 1;
        bool sane = add(Kind::StringLengths, h.string_count(), 4) && add(Kind::ArgValues, h.arg_value_bytes(), 1)
            && add(Kind::ArgOffsets, h.arg_offset_count(), 4) && add(Kind::ArgSetSchemas, argSets, 4)
            && add(Kind::ArgSchemaKeys, h.arg_schema_key_count(), sizeof(model::ArgKey))
            && add(Kind::ArgSchemaOffsets, h.arg_schema_offset_count(), 4)
            && add(Kind::Flows, h.flow_count(), sizeof(model::Flow)) && add(Kind::FlowsByTarget, h.flow_count(), 4);
        std::uint64_t slices = 0;
        for (const pb::Track& t : h.tracks()) {
            const std::uint64_t n = t.slices();
            sane = sane && add(Kind::Ts, n, 8) && add(Kind::Dur, n, 8) && add(Kind::Name, n, 4)
                && add(Kind::RawCategory, n, 4) && add(Kind::Parent, n, 4) && add(Kind::SliceArgs, n, 4)
                && add(Kind::Depth, n, 2) && add(Kind::Category, n, 1) && add(Kind::Flags, n, 1)
                && add(Kind::ByDepth, n, 4) && add(Kind::CounterTs, t.counter_samples(), 8)
                && add(Kind::CounterValues, t.counter_samples(), 8);
            if (!sane || n > std::numeric_limits<std::uint32_t>::max() - 1)
                return corrupt("track sizes");
            slices += n;
            std::uint64_t inDepths = 0;
            for (const std::uint64_t d : t.depth_sizes()) {
                if (d == 0 || d > n)
                    return corrupt("depth index sizes");
                inDepths += d;
            }
            if (inDepths != n || t.summary_levels_size() != t.depth_sizes_size())
                return corrupt("depth index sizes");
            std::uint64_t levels = 0;
            for (const std::uint32_t l : t.summary_levels())
                levels += l;
            if (levels != static_cast<std::uint64_t>(t.summary_sizes_size()))
                return corrupt("summary sizes");
            for (const std::uint64_t s : t.summary_sizes())
                sane = sane && add(Kind::Summaries, s, sizeof(model::SummaryBucket));
        }
        if (!sane || slices != h.slice_count() || h.category_counts_size() != model::kSliceCategoryCount)
            return corrupt("counts");

        // Sections: inside the file, and together covering each stream exactly once.
        std::array<std::uint64_t, kKindCount> compressed {};
        std::vector<const pb::Section*> sections;
        for (const pb::Section& s : h.sections()) {
            if (s.kind() == 0 || s.kind() >= kKindCount || s.offset() < kPreambleBytes
                || s.compressed_size() > m_sectionsEnd || s.offset() > m_sectionsEnd - s.compressed_size()
                || s.raw_size() == 0 || s.raw_size() > kSectionRawBytes)
                return corrupt("section table");
            compressed[s.kind()] += s.compressed_size();
            sections.push_back(&s);
        }
        std::sort(sections.begin(), sections.end(), [](const pb::Section* a, const pb::Section* b) {
            return a->kind() != b->kind() ? a->kind() < b->kind() : a->raw_offset() < b->raw_offset();
        });
        std::array<std::uint64_t, kKindCount> covered {};
        for (const pb::Section* s : sections) {
            if (s->raw_offset() != covered[s->kind()])
                return corrupt("section table");
            covered[s->kind()] += s->raw_size();
        }
        // What the header alone makes us allocate counts too: an empty track or step is two bytes of protobuf.
        std::uint64_t total = static_cast<std::uint64_t>(h.tracks_size()) * sizeof(model::Track)
            + static_cast<std::uint64_t>(h.steps_size()) * sizeof(model::Step);
        for (std::size_t k = 1; k < kKindCount; ++k) {
            if (k == static_cast<std::size_t>(Kind::StringBytes))
                need[k] = covered[k]; // the lengths say how many; checked once they are read
            if (covered[k] != need[k])
                return corrupt("section sizes do not match the header");
            total += need[k];
        }
        if (total > m_options.maxDecompressedBytes) {
            return fail("the snapshot holds " + std::to_string(total) + " bytes of columns, more than the limit of "
                        + std::to_string(m_options.maxDecompressedBytes));
        }
        m_totalRaw = total;

        // Allocate, in stream order.
        auto& tracks = SnapshotAccess::tracks(trace);
        tracks.resize(static_cast<std::size_t>(h.tracks_size()));
        m_strings.lengths.resize(h.string_count());
        target(Kind::StringLengths, m_strings.lengths);
        m_strings.bytes.reset(new char[std::max<std::uint64_t>(need[1], 1)]);
        m_strings.size = need[1];
        target(Kind::StringBytes, m_strings.bytes.get(), m_strings.size);
        for (std::size_t i = 0; i < tracks.size(); ++i) {
            const pb::Track& p = h.tracks(static_cast<int>(i));
            model::Track& t = tracks[i];
            const std::size_t n = p.slices();
            SnapshotAccess::ts(t).resizeForOverwrite(n);
            SnapshotAccess::dur(t).resizeForOverwrite(n);
            SnapshotAccess::name(t).resizeForOverwrite(n);
            SnapshotAccess::rawCategory(t).resizeForOverwrite(n);
            SnapshotAccess::parent(t).resize(n);
            SnapshotAccess::sliceArgs(t).resizeForOverwrite(n);
            SnapshotAccess::depth(t).resize(n);
            SnapshotAccess::category(t).resizeForOverwrite(n);
            SnapshotAccess::flags(t).resizeForOverwrite(n);
            target(Kind::Ts, SnapshotAccess::ts(t));
            target(Kind::Dur, SnapshotAccess::dur(t));
            target(Kind::Name, SnapshotAccess::name(t));
            target(Kind::RawCategory, SnapshotAccess::rawCategory(t));
            target(Kind::Parent, SnapshotAccess::parent(t));
            target(Kind::SliceArgs, SnapshotAccess::sliceArgs(t));
            target(Kind::Depth, SnapshotAccess::depth(t));
            target(Kind::Category, SnapshotAccess::category(t));
            target(Kind::Flags, SnapshotAccess::flags(t));
            auto& byDepth = SnapshotAccess::byDepth(t);
            byDepth.resize(static_cast<std::size_t>(p.depth_sizes_size()));
            for (std::size_t d = 0; d < byDepth.size(); ++d) {
                byDepth[d].resize(p.depth_sizes(static_cast<int>(d)));
                target(Kind::ByDepth, byDepth[d]);
            }
            auto& summaries = SnapshotAccess::summaries(t);
            summaries.resize(byDepth.size());
            int level = 0;
            for (std::size_t d = 0; d < summaries.size(); ++d) {
                summaries[d].resize(p.summary_levels(static_cast<int>(d)));
                for (auto& buckets : summaries[d]) {
                    buckets.resize(p.summary_sizes(level++));
                    target(Kind::Summaries, buckets);
                }
            }
            SnapshotAccess::counterTs(t).resize(p.counter_samples());
            SnapshotAccess::counterValues(t).resize(p.counter_samples());
            target(Kind::CounterTs, SnapshotAccess::counterTs(t));
            target(Kind::CounterValues, SnapshotAccess::counterValues(t));
        }
        model::ArgStore& args = SnapshotAccess::args(trace);
        SnapshotAccess::argValueBytes(args).resizeForOverwrite(h.arg_value_bytes());
        SnapshotAccess::argOffsets(args).resizeForOverwrite(h.arg_offset_count());
        SnapshotAccess::argSetSchemas(args).resizeForOverwrite(argSets);
        SnapshotAccess::argSchemaKeys(args).resize(h.arg_schema_key_count());
        SnapshotAccess::argSchemaOffsets(args).resize(h.arg_schema_offset_count());
        target(Kind::ArgValues, SnapshotAccess::argValueBytes(args));
        target(Kind::ArgOffsets, SnapshotAccess::argOffsets(args));
        target(Kind::ArgSetSchemas, SnapshotAccess::argSetSchemas(args));
        target(Kind::ArgSchemaKeys, SnapshotAccess::argSchemaKeys(args));
        target(Kind::ArgSchemaOffsets, SnapshotAccess::argSchemaOffsets(args));
        SnapshotAccess::flows(trace).resize(h.flow_count());
        SnapshotAccess::flowsByTarget(trace).resize(h.flow_count());
        target(Kind::Flows, SnapshotAccess::flows(trace));
        target(Kind::FlowsByTarget, SnapshotAccess::flowsByTarget(trace));
        m_sections = std::move(sections);
        return true;
    }

    /// Decompresses one section into its targets. Returns an error, empty when the section decoded to exactly its
    /// raw size (zstd verifies the frame's checksum). Runs on several threads: touches only `input`, `scratch`,
    /// `dctx` and the section's targets.
    ///
    /// A section is one zstd frame of at most kSectionRawBytes, decoded in one call: straight into its column when
    /// it lies in one (most of a big trace's do), else into `scratch` and copied out piece by piece. (Streaming
    /// decompression into the pieces decodes into zstd's window and copies from there, at a few times the cost.)
    std::string decompress(const pb::Section& s, ZSTD_DCtx* dctx, model::ColumnVector<char>& input,
                           model::ColumnVector<char>& scratch) const
    {
        auto bad = [&](const std::string& what) { return m_name + ": the snapshot is corrupt (" + what + ")"; };
        input.resize(s.compressed_size());
        if (!m_source.readAt(s.offset(), input.data(), input.size()))
            return m_name + ": the snapshot is truncated (a column section lies past the end of the file)";
        const auto& targets = m_targets[s.kind()];
        auto it = std::upper_bound(targets.begin(), targets.end(), s.raw_offset(),
                                   [](std::uint64_t off, const Target& t) { return off < t.streamOffset; });
        if (it == targets.begin())
            return bad("section table");
        --it;
        std::uint64_t at = s.raw_offset();
        const std::uint64_t end = s.raw_offset() + s.raw_size();
        const auto raw = static_cast<std::size_t>(s.raw_size());
        const bool inOne = end - it->streamOffset <= it->bytes;
        char* dst = nullptr;
        if (inOne) {
            dst = it->data + (at - it->streamOffset);
            model::prefaultForWrite(dst, raw);
        } else {
            scratch.resize(raw);
            dst = scratch.data();
        }
        const std::size_t n = ZSTD_decompressDCtx(dctx, dst, raw, input.data(), input.size());
        if (ZSTD_isError(n)) {
            if (ZSTD_getErrorCode(n) == ZSTD_error_dstSize_tooSmall)
                return bad("a column section is longer than its header says");
            return bad(std::string("column data: ") + ZSTD_getErrorName(n));
        }
        if (n != raw)
            return bad("a column section ends early");
        if (inOne)
            return {};
        const char* from = scratch.data();
        while (at < end) {
            if (it == targets.end())
                return bad("section table");
            const std::uint64_t inTarget = at - it->streamOffset;
            const auto piece = static_cast<std::size_t>(std::min<std::uint64_t>(it->bytes - inTarget, end - at));
            model::prefaultForWrite(it->data + inTarget, piece);
            std::memcpy(it->data + inTarget, from, piece);
            from += piece;
            at += piece;
            ++it;
        }
        return {};
    }

    bool decompressAll()
    {
        // Largest first, over a few threads: sections are independent and their targets disjoint.
        std::vector<const pb::Section*> order = m_sections;
        std::stable_sort(order.begin(), order.end(), [](const pb::Section* a, const pb::Section* b) {
            return a->compressed_size() > b->compressed_size();
        });
        const unsigned wanted = m_options.threads > 0 ? m_options.threads : std::min(model::hardwareThreads(), 4U);
        const auto workers = static_cast<unsigned>(std::min<std::size_t>(wanted, order.size()));
        std::atomic<std::size_t> next {0};
        std::atomic<std::uint64_t> done {0};
        std::atomic<bool> stop {false};
        std::mutex errorMutex;
        std::string error;
        auto work = [&](bool reports) {
            const std::unique_ptr<ZSTD_DCtx, decltype(&ZSTD_freeDCtx)> dctx(ZSTD_createDCtx(), &ZSTD_freeDCtx);
            if (!dctx)
                throw std::bad_alloc();
            // Sections never exceed kSectionRawBytes, so a frame asking for a larger window is not ours.
            ZSTD_DCtx_setParameter(dctx.get(), ZSTD_d_windowLogMax, 22);
            // Buffers that resize() leaves as they are (std::vector zeroed every byte it grew by, then overwrote it).
            model::ColumnVector<char> input;
            model::ColumnVector<char> scratch;
            for (std::size_t i = next++; !stop && i < order.size(); i = next++) {
                std::string e = decompress(*order[i], dctx.get(), input, scratch);
                if (e.empty() && m_progress && m_progress->cancelled())
                    e = "cancelled";
                if (!e.empty()) {
                    const std::lock_guard lock(errorMutex);
                    if (error.empty())
                        error = std::move(e);
                    stop = true;
                    break;
                }
                done += order[i]->raw_size();
                if (reports && m_progress)
                    m_progress->report(done, m_totalRaw, "snapshot");
            }
        };
        // An allocation failing on any thread stops the others and reaches the caller here, after every join.
        model::WorkerGroup group([&stop] { stop = true; });
        for (unsigned w = 1; w < workers; ++w) {
            if (!group.tryStart([&work] { work(false); }))
                break; // no more threads to be had: fewer do the work, as validate() and finalize do
        }
        group.runHere([&work] { work(true); }); // the calling thread works too, and reports progress
        group.join();
        if (error == "cancelled") {
            m_cancelled = true;
            return fail("cancelled");
        }
        if (!error.empty()) {
            m_error = error;
            return false;
        }
        return true;
    }

    bool loadStrings(model::Trace& trace)
    {
        model::StringPool& pool = SnapshotAccess::strings(trace);
        SnapshotAccess::reserveStrings(pool, m_strings.lengths.size());
        if (m_strings.lengths[0] != 0)
            return corrupt("string pool");
        std::uint64_t at = 0;
        for (std::size_t i = 1; i < m_strings.lengths.size(); ++i) {
            const std::uint32_t len = m_strings.lengths[i];
            if (len == 0 || len > m_strings.size - at)
                return corrupt("string pool");
            const model::StringId id = pool.intern(std::string_view(m_strings.bytes.get() + at, len));
            if (id.value != i)
                return corrupt("string pool holds a string twice");
            at += len;
        }
        if (at != m_strings.size)
            return corrupt("string pool");
        m_strings = {};
        return true;
    }

    bool validate(const pb::Header& h, const model::Trace& trace)
    {
        // The arg sets (every value of every set decodes: the largest check) in chunks that a second thread starts
        // on at once and this one joins once the rest is checked: with the sets on the second thread alone, this
        // one waited for it through a third of the check. A thread that cannot start leaves them all to this one.
        const std::uint64_t strings = trace.strings().size();
        const model::ArgStore& store = trace.argStore();
        if (auto layout = store.layoutInconsistency(strings))
            return corrupt(*layout);
        constexpr std::size_t kSetsPerChunk = std::size_t(1) << 16;
        const std::size_t chunks = (store.setCount() + kSetsPerChunk - 1) / kSetsPerChunk;
        std::vector<std::optional<std::string>> chunkIssues(chunks);
        std::atomic<std::size_t> nextChunk {0};
        std::atomic<bool> failed {false};
        auto checkChunks = [&] {
            // Chunks are taken in order, so the first one with an issue is always checked whole: the message does
            // not depend on which thread got there first.
            for (std::size_t c = nextChunk++; c < chunks && !failed; c = nextChunk++) {
                chunkIssues[c] = store.setsInconsistency(strings, c * kSetsPerChunk, (c + 1) * kSetsPerChunk);
                if (chunkIssues[c])
                    failed = true;
            }
        };
        model::WorkerGroup helper([&failed] { failed = true; });
        if (m_options.threads != 1 && chunks > 1)
            (void)helper.tryStart(checkChunks); // without a thread, this one checks every chunk
        std::string issue;
        helper.runHere([&] {
            issue = inconsistencyBesideArgs(h, trace);
            checkChunks();
        });
        helper.join(); // rethrows what either thread threw, once both are done
        for (const std::optional<std::string>& argIssue : chunkIssues) {
            if (argIssue)
                return corrupt(*argIssue);
        }
        if (!issue.empty())
            return corrupt(issue);
        return true;
    }

    /// What validate() finds wrong outside the arg store, or nothing.
    std::string inconsistencyBesideArgs(const pb::Header& h, const model::Trace& trace) const
    {
        const std::uint64_t strings = trace.strings().size();
        auto str = [&](std::uint32_t id) { return id < strings; };
        const std::uint64_t argSets = trace.argStore().setCount();

        const auto& tracks = trace.tracks();
        for (std::size_t ti = 0; ti < tracks.size(); ++ti) {
            const model::Track& t = tracks[ti];
            if (!str(t.name.value) || !str(t.processName.value) || !str(t.threadName.value) || !str(t.processKey.value)
                || !str(t.threadKey.value) || static_cast<unsigned>(t.deviceKind) > 3
                || static_cast<unsigned>(t.role) > 5)
                return std::string("track " + std::to_string(ti));
            const std::size_t n = t.size();
            const std::size_t depths = t.depthCount();
            for (std::size_t i = 0; i < n; ++i) {
                const auto k = static_cast<std::uint32_t>(i);
                const model::SliceIndex parent = t.parent(k);
                const model::ArgSetId args = t.args(k);
                if (!str(t.sliceName(k).value) || !str(t.rawCategory(k).value)
                    || static_cast<int>(t.category(k)) >= model::kSliceCategoryCount || t.depth(k) >= depths
                    || (parent.isValid() && parent.value >= n) || (args.isValid() && args.value >= argSets))
                    return std::string("slices of track " + std::to_string(ti));
            }
            for (std::size_t d = 0; d < depths; ++d) {
                for (const std::uint32_t i : t.slicesAtDepth(d)) {
                    if (i >= n || t.depth(i) != d)
                        return std::string("depth index of track " + std::to_string(ti));
                }
                for (const auto& level : t.summaries(d)) {
                    for (const model::SummaryBucket& b : level) {
                        if (static_cast<int>(b.dominant) >= model::kSliceCategoryCount)
                            return std::string("summaries of track " + std::to_string(ti));
                    }
                }
            }
        }
        auto validRef = [&](const model::SliceRef& r) {
            return r.track.value < tracks.size() && r.index.value < tracks[r.track.value].size();
        };
        const auto& flows = trace.flows();
        for (const model::Flow& f : flows) {
            if (!validRef(f.from) || !validRef(f.to) || static_cast<unsigned>(f.kind) > 2)
                return std::string("flows");
        }
        for (const std::uint32_t i : SnapshotAccess::flowsByTarget(trace)) {
            if (i >= flows.size())
                return std::string("flow index");
        }
        for (const pb::Step& s : h.steps()) {
            const model::SliceRef marker {model::TrackId(s.marker_track()), model::SliceIndex(s.marker_index())};
            if (!str(s.name()) || (marker != model::SliceRef {} && !validRef(marker)))
                return std::string("steps");
        }
        for (const pb::Device& d : h.devices()) {
            if (d.kind() > 3)
                return std::string("devices");
        }
        return {};
    }

    void finish(const pb::Header& h, model::Trace& trace)
    {
        auto& tracks = SnapshotAccess::tracks(trace);
        for (std::size_t i = 0; i < tracks.size(); ++i) {
            const pb::Track& p = h.tracks(static_cast<int>(i));
            model::Track& t = tracks[i];
            t.id = model::TrackId(static_cast<std::uint32_t>(i));
            t.name = model::StringId(p.name());
            t.processName = model::StringId(p.process_name());
            t.threadName = model::StringId(p.thread_name());
            t.processKey = model::StringId(p.process_key());
            t.threadKey = model::StringId(p.thread_key());
            t.deviceKind = static_cast<model::DeviceKind>(p.device_kind());
            t.role = static_cast<model::TrackRole>(p.role());
            t.deviceIndex = p.device_index();
            t.streamId = p.stream_id();
            t.sortIndex = p.sort_index();
            SnapshotAccess::trackStart(t) = p.start();
            SnapshotAccess::trackEnd(t) = p.end();
            SnapshotAccess::busy(t) = p.busy();
        }
        for (const pb::Step& s : h.steps()) {
            SnapshotAccess::steps(trace).push_back(
                model::Step {s.number(), model::StringId(s.name()), s.start(), s.end(),
                             model::SliceRef {model::TrackId(s.marker_track()), model::SliceIndex(s.marker_index())},
                             s.synthetic()});
        }
        for (const pb::Warning& w : h.warnings())
            SnapshotAccess::warnings(trace).push_back(model::ImportWarning {w.kind(), w.count(), w.message()});
        model::TraceMetadata& meta = SnapshotAccess::metadata(trace);
        meta.format = h.format();
        meta.formatVersion = h.format_version_text();
        meta.sourcePath = m_sourcePath;
        for (const pb::Device& d : h.devices())
            meta.devices.push_back(model::Device {static_cast<model::DeviceKind>(d.kind()), d.index(), d.name()});
        meta.rank = h.rank();
        meta.worldSize = h.world_size();
        meta.profilerLevel = h.profiler_level();
        meta.syntheticTimestamps = h.synthetic_timestamps();
        meta.platform = model::platformFromKey(h.platform());
        for (const pb::Property& p : h.properties())
            meta.properties.emplace_back(p.key(), p.value());
        auto& counts = SnapshotAccess::categoryCounts(trace);
        for (std::size_t c = 0; c < counts.size(); ++c)
            counts[c] = h.category_counts(static_cast<int>(c));
        SnapshotAccess::sliceCount(trace) = h.slice_count();
        SnapshotAccess::start(trace) = h.start();
        SnapshotAccess::end(trace) = h.end();
    }

    const ByteSource& m_source;
    std::string m_name;
    std::string m_sourcePath; // reported as the trace's sourcePath
    ImportOptions m_options;
    ProgressSink* m_progress;
    std::string m_error;
    bool m_notSnapshot = false;
    bool m_cancelled = false;
    std::uint64_t m_sectionsEnd = 0;
    std::uint64_t m_totalRaw = 0;
    std::array<std::vector<Target>, kKindCount> m_targets;
    std::array<std::uint64_t, kKindCount> m_expected {};
    std::vector<const pb::Section*> m_sections;
    struct Strings
    {
        std::vector<std::uint32_t> lengths;
        std::unique_ptr<char[]> bytes;
        std::uint64_t size = 0;
    } m_strings;
};

} // namespace

bool identifySource(const fs::path& source, SourceIdentity& out, std::string& error)
{
    out = SourceIdentity {};
    std::error_code ec;
    const fs::path absolute = fs::absolute(source, ec);
    out.path = (ec ? source : absolute.lexically_normal()).string();
    const auto status = fs::status(source, ec);
    if (ec || !fs::exists(status)) {
        error = "cannot open " + source.string() + ": no such file or directory";
        return false;
    }
    // A FIFO, device or socket has no identity to cache by, and opening one to hash it could block forever.
    if (std::string why = notRegularFileReason(source, true); !why.empty()) {
        error = std::move(why);
        return false;
    }
    if (fs::is_directory(status)) {
        // A bundle: every regular file below it, in name order, by name, size, time and ends.
        std::vector<fs::path> files;
        for (fs::recursive_directory_iterator it(source, fs::directory_options::skip_permission_denied, ec), end;
             !ec && it != end; it.increment(ec)) {
            if (it->is_regular_file(ec))
                files.push_back(it->path());
        }
        if (ec) {
            error = "cannot read directory " + source.string() + ": " + ec.message();
            return false;
        }
        std::sort(files.begin(), files.end());
        std::uint64_t hash = 0;
        for (const fs::path& f : files) {
            const std::uint64_t size = fs::file_size(f, ec);
            const std::int64_t mtime = ec ? 0 : mtimeNs(f, ec);
            if (ec) {
                error = "cannot read " + f.string() + ": " + ec.message();
                return false;
            }
            const std::string name = fs::relative(f, source, ec).generic_string();
            hash = hashBytes(name.data(), name.size(), hash);
            if (!hashEnds(f, size, hash, error))
                return false;
            out.size += size;
            out.mtimeNs = std::max(out.mtimeNs, mtime);
        }
        out.contentHash = hash;
        return true;
    }
    out.size = fs::file_size(source, ec);
    if (!ec)
        out.mtimeNs = mtimeNs(source, ec);
    if (ec) {
        error = "cannot read " + source.string() + ": " + ec.message();
        return false;
    }
    return hashEnds(source, out.size, out.contentHash, error);
}

std::uint64_t hash64(std::string_view bytes, std::uint64_t seed)
{
    return hashBytes(bytes.data(), bytes.size(), seed);
}

bool looksLikeSnapshot(std::string_view head)
{
    return head.substr(0, kMagic.size()) == kMagic;
}

bool writeSnapshot(const model::Trace& trace, const SourceIdentity& source, const fs::path& file, std::string& error,
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
    std::FILE* f = createTemporaryBeside(file, temp, error);
    if (!f)
        return false;
    char preamble[kPreambleBytes] = {};
    bool ok = std::fwrite(preamble, 1, sizeof preamble, f) == sizeof preamble;
    Writer w(f, header);
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
    std::memcpy(preamble, kMagic.data(), kMagic.size());
    putU32(preamble + 8, kFormatVersion);
    putU32(preamble + 12, 0);
    putU64(preamble + 16, w.position());
    putU64(preamble + 24, headerBytes.size());
    putU64(preamble + 32, hashBytes(headerBytes.data(), headerBytes.size(), 0));
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
        error = "cannot write " + file.string() + ": " + std::strerror(savedErrno ? savedErrno : EIO);
        return false;
    }
    return true;
}

namespace {

std::unique_ptr<FileSource> openSource(const fs::path& file, std::string& error, ImportErrorKind& kind)
{
    // openRegularFile never blocks on a FIFO (a cache entry or a user's path replaced by one).
    const int fd = openRegularFile(file, error);
    struct stat st
    {
    };
    if (fd < 0 || ::fstat(fd, &st) != 0) {
        if (fd >= 0) {
            error = "cannot open " + file.string() + ": " + std::strerror(errno);
            ::close(fd);
        }
        kind = ImportErrorKind::CannotRead;
        return nullptr;
    }
    return std::make_unique<FileSource>(fd, static_cast<std::uint64_t>(st.st_size));
}

ImportResult readFrom(const ByteSource& source, const std::string& name, const ImportOptions& options,
                      ProgressSink* progress, const std::string& sourcePath)
{
    Reader reader(source, name, options, progress, sourcePath);
    model::TracePtr trace = reader.read();
    if (!trace) {
        return ImportResult::failure(reader.cancelled()         ? ImportErrorKind::Cancelled
                                         : reader.notSnapshot() ? ImportErrorKind::NotRecognised
                                                                : ImportErrorKind::Malformed,
                                     reader.error());
    }
    return ImportResult::success(std::move(trace));
}

} // namespace

std::string writerIdentity()
{
    return "timesink " TIMESINK_IMPORTER_VERSION " importer " TIMESINK_IMPORTER_REVISION;
}

bool readSnapshotSource(const fs::path& file, SourceIdentity& source, std::string& error, std::string* writer)
{
    ImportErrorKind kind = ImportErrorKind::None;
    auto f = openSource(file, error, kind);
    if (!f)
        return false;
    Reader reader(*f, file.string(), ImportOptions {}, nullptr);
    pb::Header header;
    if (!reader.readHeader(header)) {
        error = reader.error();
        return false;
    }
    source.path = header.source().path();
    source.size = header.source().size();
    source.mtimeNs = header.source().mtime_ns();
    source.contentHash = header.source().content_hash();
    if (writer)
        *writer = header.writer();
    return true;
}

ImportResult readSnapshot(const fs::path& file, const ImportOptions& options, ProgressSink& progress,
                          const std::string& sourcePathOverride)
{
    std::string error;
    ImportErrorKind kind = ImportErrorKind::None;
    auto f = openSource(file, error, kind);
    if (!f)
        return ImportResult::failure(kind, error);
    return readFrom(*f, file.string(), options, &progress,
                    sourcePathOverride.empty() ? file.string() : sourcePathOverride);
}

ImportResult readSnapshotBuffer(std::string_view bytes, const ImportOptions& options, const std::string& name)
{
    MemorySource source(bytes);
    return readFrom(source, name, options, nullptr, name);
}

} // namespace timesink::parsers::snapshot

namespace timesink::parsers {

FormatDescription SnapshotImporter::describe() const
{
    // A snapshot records the format of the trace it was made from; its own id is never reported.
    return {"a Timesink snapshot (.tsnap, written by export or the snapshot cache)", {"*.tsnap"}, {}, {}};
}

} // namespace timesink::parsers
