// SPDX-License-Identifier: MIT
// The snapshot reader (.tsnap) on bytes from memory. Any refusal is fine; a crash, a hang, or a trace whose
// indexes lead out of its columns is not, so an accepted trace is walked the way the analyses and widgets walk
// it. A mutated header could never get past the header's checksum, so the harness writes the checksum of whatever
// header the input holds into its preamble first (the product reader keeps its check in every build: the tests of a
// fuzzing build still see a flipped byte refused).
#include "parsers/snapshot/snapshot.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace {

std::uint64_t getU64(const char* p)
{
    std::uint64_t v = 0;
    std::memcpy(&v, p, sizeof v); // the preamble is little-endian, as are the machines the fuzzers run on
    return v;
}

/// The input with its preamble's header checksum (bytes 32..39) made to match its header, where the preamble's
/// header offset and size (bytes 16..31) lie inside the input; otherwise the input as it is.
std::string withHeaderChecksum(std::string_view input)
{
    using timesink::parsers::snapshot::kPreambleBytes;
    std::string bytes(input);
    if (bytes.size() < kPreambleBytes)
        return bytes;
    const std::uint64_t offset = getU64(bytes.data() + 16);
    const std::uint64_t size = getU64(bytes.data() + 24);
    if (offset < kPreambleBytes || size > bytes.size() || offset > bytes.size() - size)
        return bytes;
    const std::uint64_t hash = timesink::parsers::snapshot::hash64(std::string_view(bytes).substr(offset, size), 0);
    std::memcpy(bytes.data() + 32, &hash, sizeof hash);
    return bytes;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace timesink;
    parsers::ImportOptions options;
    options.threads = 1;
    options.maxDecompressedBytes = 64ULL << 20;
    const std::string input = withHeaderChecksum(std::string_view(reinterpret_cast<const char*>(data), size));
    const auto r = parsers::snapshot::readSnapshotBuffer(input, options, "fuzz.tsnap");
    if (!r.ok())
        return 0;
    const model::Trace& t = *r.value();
    std::uint64_t sum = 0;
    for (const model::Track& track : t.tracks()) {
        sum += t.str(track.name).size() + t.str(track.processName).size();
        for (std::uint32_t i = 0; i < track.size(); ++i) {
            sum += t.str(track.sliceName(i)).size() + t.str(track.rawCategory(i)).size();
            sum += t.args(track.args(i)).size();
            if (track.parent(i).isValid())
                sum += track.depth(track.parent(i).value);
        }
        for (std::size_t d = 0; d < track.depthCount(); ++d) {
            for (const std::uint32_t i : track.slicesAtDepth(d))
                sum += static_cast<std::uint64_t>(track.ts(i));
            for (const auto& level : track.summaries(d))
                sum += level.size();
        }
        sum += track.sliceAt(track.startNs()).isValid();
    }
    for (const model::Flow& f : t.flows()) {
        sum += t.track(f.from.track).ts(f.from.index.value) != 0;
        sum += t.flowsTo(f.to).size() + t.flowsFrom(f.from).size();
    }
    for (const model::Step& s : t.steps())
        sum += t.str(s.name).size() + (s.marker.isValid() ? t.track(s.marker.track).size() : 0);
    if (sum == 0xdeadbeefULL)
        __builtin_trap(); // keeps the walk
    return 0;
}
