// SPDX-License-Identifier: MIT
#pragma once

// Where each column stream of a snapshot lands in the model: the header's counts checked against each other and
// against the section table before anything is allocated, then every column allocated at its final size and
// listed as the target of its stream's bytes. The string pool's two streams are staged and interned afterwards.

#include "model/trace.h"
#include "parsers/snapshot/snapshotframing.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace timesink::parsers::snapshot {

/// Where bytes [streamOffset, streamOffset + bytes) of a column stream go.
struct Target
{
    std::uint64_t streamOffset;
    char* data;
    std::size_t bytes;
};

/// The string pool as stored: one length per string (id 0, the empty string, included), then all their bytes.
struct StagedStrings
{
    std::vector<std::uint32_t> lengths;
    std::unique_ptr<char[]> bytes;
    std::uint64_t size = 0;
};

struct ColumnPlan
{
    std::array<std::vector<Target>, kKindCount> targets; // per kind (index = Kind value), in stream order
    std::vector<const pb::Section*> sections;            // the header's, by kind and stream offset
    std::uint64_t totalRaw = 0;                          // bytes of every stream together
    StagedStrings strings;
};

/// Checks the header's counts against each other and against the sections (which must lie before `sectionsEnd`
/// and cover each stream exactly once), and their total against `maxBytes`; then allocates every column of
/// `trace` and fills `plan`. Returns what is wrong, or nothing.
[[nodiscard]] std::string planColumns(const pb::Header& h, std::uint64_t sectionsEnd, std::uint64_t maxBytes,
                                      model::Trace& trace, ColumnPlan& plan);

/// Interns the decoded strings into the trace's pool, in id order: each non-empty and new, together exactly the
/// bytes. Releases `strings`. Returns what is wrong, or nothing.
[[nodiscard]] std::string restoreStrings(StagedStrings& strings, model::Trace& trace);

/// "the snapshot is corrupt (WHAT)".
[[nodiscard]] std::string corruptSnapshot(const std::string& what);

} // namespace timesink::parsers::snapshot
