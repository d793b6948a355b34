// SPDX-License-Identifier: MIT
// The snapshot reader (.tsnap) on bytes from memory. Any refusal is fine; a crash, a hang, or a trace whose
// indexes lead out of its columns is not, so an accepted trace is walked the way the analyses and widgets walk
// it. In fuzzing builds (FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION) the reader skips the header hash and the zstd
// checksums, so that mutations reach the checks behind them.
#include "parsers/snapshot/snapshot.h"

#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace timesink;
    parsers::ImportOptions options;
    options.threads = 1;
    options.maxDecompressedBytes = 64ULL << 20;
    const auto r = parsers::snapshot::readSnapshotBuffer(std::string_view(reinterpret_cast<const char*>(data), size),
                                                         options, "fuzz.tsnap");
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
