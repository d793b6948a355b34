// SPDX-License-Identifier: MIT
#pragma once

#include "model/expected.h"
#include "parsers/common/importer.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace timesink::parsers::snapshot {

/// A snapshot (.tsnap) is a finalized trace written as it sits in memory, so that reopening it costs a read and a
/// zstd decompression instead of a parse. Layout (little-endian):
///
///   magic "\x89TSNAP\r\n" (8) | format version u32 | reserved u32 | header offset u64 | header size u64 |
///   header hash u64 | sections: one zstd frame each (with checksum) … | header (protobuf, snapshot.proto)
///
/// The header holds everything small (metadata, warnings, steps, track descriptors, the source's identity) and
/// where each section lies. A section is up to kSectionRawBytes of one column stream: a column of every track
/// concatenated in track order (ts, dur, …), the string pool, the arg store, the flows and their indexes. Columns
/// are stored with the model's in-memory layout, so a section decompresses straight into the final buffer.
///
/// A snapshot is a cache: another format version is refused (never migrated); the source trace stays the truth.
/// Version 2: the header carries the platform (TraceMetadata::platform).
/// Version 3: args stored by schema (model::ArgStore): values, one schema per set, the schemas' keys.
/// Version 4: arg values packed (model::argcoding), sets' offsets in bytes.
/// Version 5: devices carry their AI-core count and clock (model::Device), Ascend kernels their PMU counters: a
/// version-4 snapshot of an Ascend trace would lack what the importer now keeps.
/// Version 6: devices carry the SM/CU count and memory a Kineto trace states (model::Device::computeUnits,
/// memoryBytes), by which the efficiency analysis tells chips apart: a version-5 snapshot would lack them.
inline constexpr std::uint32_t kFormatVersion = 6;
inline constexpr std::string_view kMagic {"\x89TSNAP\r\n", 8};
inline constexpr std::string_view kExtension = ".tsnap";
inline constexpr std::size_t kPreambleBytes = 40;
/// Raw bytes per section: bounds the reader's buffers (and zstd's window) while leaving enough sections for
/// several threads.
inline constexpr std::size_t kSectionRawBytes = 2 << 20;

/// What identifies the contents of a source trace cheaply: size, modification time and a hash of the first and
/// last MiB (for a directory: sizes summed, the latest time, and the hash over every file's name and ends).
struct SourceIdentity
{
    std::string path; // absolute
    std::uint64_t size = 0;
    std::int64_t mtimeNs = 0;
    std::uint64_t contentHash = 0;
    [[nodiscard]] bool sameContents(const SourceIdentity& other) const
    {
        return size == other.size && mtimeNs == other.mtimeNs && contentHash == other.contentHash;
    }
};

/// 64-bit hash for change detection and cache keys (not cryptographic).
[[nodiscard]] std::uint64_t hash64(std::string_view bytes, std::uint64_t seed = 0);

/// The identity of a file or directory; CannotRead, naming it, when it cannot be read (or is a FIFO, device or
/// socket, which is never opened).
[[nodiscard]] model::Expected<SourceIdentity> identifySource(const std::filesystem::path& source);

/// True when `head` (the first bytes of a file) starts like a snapshot.
[[nodiscard]] bool looksLikeSnapshot(std::string_view head);

/// Writes `trace` to `file` (a temporary file beside it, renamed when complete). `source` is recorded in the
/// header, and `writer` (empty: this build's writerIdentity(); tests record others). Fails with a message naming
/// the file when it cannot be written.
[[nodiscard]] model::Status writeSnapshot(const model::Trace& trace, const SourceIdentity& source,
                                          const std::filesystem::path& file, std::string_view writer = {});

/// Who writes snapshots: "timesink VERSION importer REVISION", where REVISION is a hash of the model and importer
/// sources of this build (cmake/ImporterRevision.cmake). Recorded in every snapshot's header.
[[nodiscard]] std::string writerIdentity();

/// Reads the header only: the format version, the identity of the source it was made from and, when `writer` is
/// given, the writerIdentity() of the build that wrote it. Fails with a message naming the file (CannotRead,
/// NotRecognised when it is no snapshot, Malformed).
[[nodiscard]] model::Expected<SourceIdentity> readSnapshotSource(const std::filesystem::path& file,
                                                                 std::string* writer = nullptr);

/// Reads a snapshot back into a trace. The trace's metadata().sourcePath is `file`, or `sourcePathOverride`
/// when it is not empty (the snapshot cache reports the trace the user opened). A snapshot of another format
/// version, a truncated or corrupt one, is refused with an error naming the file (Malformed; a file that is no
/// snapshot at all: NotRecognised; Cancelled when `progress` asked to stop).
ImportResult readSnapshot(const std::filesystem::path& file, const ImportOptions& options, ProgressSink& progress,
                          const std::string& sourcePathOverride = {});

/// Reads a snapshot held in memory (the fuzz target's entry point; same checks as readSnapshot).
ImportResult readSnapshotBuffer(std::string_view bytes, const ImportOptions& options, const std::string& name);

} // namespace timesink::parsers::snapshot

namespace timesink::parsers {

/// Opens snapshots wherever a trace is expected: detection by the signature, never by the extension.
class SnapshotImporter final : public Importer
{
public:
    [[nodiscard]] std::string_view id() const override { return "snapshot"; }
    [[nodiscard]] FormatDescription describe() const override;
    [[nodiscard]] int probe(const SourceProbe& source) const override
    {
        return !source.isDirectory && source.compression.empty() && snapshot::looksLikeSnapshot(source.head) ? 100 : 0;
    }
    ImportResult import(const SourceProbe& source, const ImportOptions& options, ProgressSink& progress) override
    {
        return snapshot::readSnapshot(source.path, options, progress);
    }
};

} // namespace timesink::parsers
