// SPDX-License-Identifier: MIT
#pragma once

// The container around a snapshot's contents, shared by the writer and the reader: the kinds of column stream,
// the preamble that says where the header lies, the header hash, and the reader's first line of defence (the
// preamble and header of an untrusted file). The layout itself is described in snapshot.h.

#include "model/trace.h"
#include "parsers/snapshot/bytesource.h"
#include "parsers/snapshot/snapshot.h"
#include "parsers/snapshot/snapshot.pb.h"

#include <bit>
#include <cstddef>
#include <cstdint>
#include <string>

namespace timesink::parsers::snapshot {

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
inline constexpr std::size_t kKindCount = 23; // index = Kind value; 0 unused
inline constexpr std::uint64_t kMaxHeaderBytes = 256ULL << 20;

// Columns are stored as the model lays them out in memory (little-endian, these sizes): checked here so that a
// change in the model fails the build instead of writing snapshots another build misreads.
static_assert(std::endian::native == std::endian::little, "snapshots are little-endian");
static_assert(sizeof(model::StringId) == 4 && sizeof(model::SliceIndex) == 4 && sizeof(model::TrackId) == 4);
static_assert(sizeof(model::ArgKey) == 8 && offsetof(model::ArgKey, type) == 4);
static_assert(sizeof(model::SummaryBucket) == 32 && offsetof(model::SummaryBucket, count) == 16
              && offsetof(model::SummaryBucket, dominant) == 20 && offsetof(model::SummaryBucket, busyNs) == 24);
static_assert(sizeof(model::Flow) == 20 && offsetof(model::Flow, to) == 8 && offsetof(model::Flow, kind) == 16);

/// 64-bit hash for change detection (not cryptographic): 8-byte words multiplied in, then a final avalanche.
[[nodiscard]] std::uint64_t hashBytes(const void* data, std::size_t size, std::uint64_t seed);

/// The kPreambleBytes that start a snapshot of this build's format version whose header is `header`, written at
/// `headerOffset`.
void encodePreamble(char (&out)[kPreambleBytes], std::uint64_t headerOffset, std::string_view header);

/// Reads and checks the preamble and the header of an untrusted file: signature, format version, the header's
/// place inside the file and its size limit, its hash, its protobuf. Returns where the header starts, so where every
/// section must end; or what is wrong, without the file's name (NotRecognised: no signature, not a snapshot at all;
/// Malformed: anything else).
[[nodiscard]] model::Expected<std::uint64_t> readHeader(const ByteSource& source, pb::Header& header);

} // namespace timesink::parsers::snapshot
