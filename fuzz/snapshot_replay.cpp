// SPDX-License-Identifier: MIT
// Runs the snapshot reader's fuzz target (fuzz_snapshot.cpp) without libFuzzer, as a ctest: on the snapshot
// of each fixture given, on every prefix of it (every 97th byte), and on 3000 copies with a few bytes changed
// (a fixed pseudo-random sequence, so failures reproduce). A crash or a sanitizer report fails the test.
//
//   fuzz_snapshot_replay FIXTURE...
#include "parsers/registry/traceloader.h"
#include "parsers/snapshot/snapshot.h"

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {
int run(const std::string& bytes)
{
    return LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
}
} // namespace

int main(int argc, char** argv)
{
    using namespace timesink;
    const std::filesystem::path scratch = std::filesystem::temp_directory_path()
        / ("timesink-fuzz-snapshot-" + std::to_string(static_cast<long long>(::getpid())) + ".tsnap");
    std::uint64_t state = 0x9e3779b97f4a7c15ULL;
    auto next = [&state] {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        return state;
    };
    std::size_t inputs = 0;
    for (int a = 1; a < argc; ++a) {
        parsers::ProgressSink progress;
        const parsers::ImportResult r = parsers::loadTrace(argv[a], {}, progress);
        if (!r.ok()) {
            std::fprintf(stderr, "fuzz_snapshot_replay: %s\n", r.status().message().c_str());
            return 1;
        }
        if (const model::Status written = parsers::snapshot::writeSnapshot(*r.value(), {}, scratch); !written.ok()) {
            std::fprintf(stderr, "fuzz_snapshot_replay: %s\n", written.message().c_str());
            return 1;
        }
        std::ifstream in(scratch, std::ios::binary);
        const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        std::filesystem::remove(scratch);
        run(bytes);
        for (std::size_t n = 0; n < bytes.size(); n += 97, ++inputs)
            run(bytes.substr(0, n));
        for (int m = 0; m < 3000; ++m, ++inputs) {
            std::string mutated = bytes;
            const int changes = 1 + static_cast<int>(next() % 4);
            for (int c = 0; c < changes; ++c)
                mutated[next() % mutated.size()] = static_cast<char>(next());
            run(mutated);
        }
    }
    std::printf("fuzz_snapshot_replay: %zu inputs, no crash\n", inputs);
    return 0;
}
