// SPDX-License-Identifier: MIT
// Writes the seed corpus of fuzz_snapshot: the snapshot (.tsnap) of each fixture given, into OUTDIR. The fuzzing
// build has no timesink-cli, and a snapshot can only be made from an imported trace.
//
//   fuzz_snapshot_seeds OUTDIR FIXTURE...
#include "parsers/registry/traceloader.h"
#include "parsers/snapshot/snapshot.h"

#include <cstdio>
#include <filesystem>
#include <string>

int main(int argc, char** argv)
{
    using namespace timesink;
    if (argc < 3) {
        std::fprintf(stderr, "usage: fuzz_snapshot_seeds OUTDIR FIXTURE...\n");
        return 1;
    }
    const std::filesystem::path out = argv[1];
    std::error_code ec;
    std::filesystem::create_directories(out, ec);
    int written = 0;
    for (int a = 2; a < argc; ++a) {
        parsers::ProgressSink progress;
        const parsers::ImportResult r = parsers::loadTrace(argv[a], {}, progress);
        if (!r.ok()) {
            std::fprintf(stderr, "fuzz_snapshot_seeds: %s\n", r.status().message().c_str());
            return 1;
        }
        const auto target = out / (std::to_string(a - 1) + ".tsnap");
        if (const model::Status written = parsers::snapshot::writeSnapshot(*r.value(), {}, target); !written.ok()) {
            std::fprintf(stderr, "fuzz_snapshot_seeds: %s\n", written.message().c_str());
            return 1;
        }
        ++written;
    }
    std::printf("fuzz_snapshot_seeds: %d snapshots in %s\n", written, out.c_str());
    return 0;
}
