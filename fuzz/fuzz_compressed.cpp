// SPDX-License-Identifier: MIT
// gzip / zstd input: InputStream reads the whole stream under the decompression limits, then the file goes through
// detection and import like any trace (the seeds are compressed fixtures).
#include "fuzzfile.h"
#include "parsers/common/inputstream.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const auto path = timesink::fuzz::writeInput("trace.json.gz", data, size);
    std::string error;
    timesink::parsers::DecompressionLimits limits;
    limits.maxBytes = 64ULL << 20;
    limits.ratioFloorBytes = 1ULL << 20;
    if (auto stream = timesink::parsers::InputStream::open(path, error, limits)) {
        static char buffer[1 << 16];
        std::uint64_t total = 0;
        for (std::size_t n; (n = stream->read(buffer, sizeof buffer)) > 0;)
            total += n;
        if (total > limits.maxBytes)
            __builtin_trap(); // the cap is a cap
    }
    timesink::fuzz::importPath(path);
    return 0;
}
