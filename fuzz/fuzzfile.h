// SPDX-License-Identifier: MIT
#pragma once

// Shared by the fuzz targets: the importers read files (never memory), so each input is written to a file in a
// per-process temporary folder under the name that selects the reader, then imported on one thread.

#include "parsers/registry/traceloader.h"

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>
#include <unistd.h>

namespace timesink::fuzz {

inline const std::filesystem::path& scratchDir()
{
    static const std::filesystem::path dir = [] {
        std::filesystem::path d
            = std::filesystem::temp_directory_path() / ("timesink-fuzz-" + std::to_string(::getpid()));
        std::filesystem::create_directories(d);
        return d;
    }();
    return dir;
}

/// Writes `data` to scratchDir()/`name` (replacing it) and returns the path.
inline std::filesystem::path writeInput(std::string_view name, const std::uint8_t* data, std::size_t size)
{
    const std::filesystem::path path = scratchDir() / std::string(name);
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (f) {
        if (size > 0)
            std::fwrite(data, 1, size, f);
        std::fclose(f);
    }
    return path;
}

/// Import options for fuzzing: one worker thread, a small decompression cap (bombs are cheap to write).
inline parsers::ImportOptions fuzzOptions()
{
    parsers::ImportOptions o;
    o.threads = 1;
    o.maxDecompressedBytes = 64ULL << 20;
    return o;
}

/// Imports `path` through detection, as the CLI does; every outcome but a crash is fine.
inline void importPath(const std::filesystem::path& path)
{
    parsers::ProgressSink progress;
    const parsers::ImportResult r = parsers::loadTrace(path, fuzzOptions(), progress);
    // Touch the result so the optimiser keeps the work.
    if (r.ok() && r.value()->spanNs() < 0)
        __builtin_trap(); // spans never wrap (issue 12)
}

} // namespace timesink::fuzz
