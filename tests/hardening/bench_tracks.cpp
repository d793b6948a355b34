// SPDX-License-Identifier: MIT
// Track creation must be O(1) amortised: a Kineto trace with N distinct pid/tid pairs (one event each) against
// the same N events on a single thread, both through the full import. The ratio stays near 1–3 whatever N is;
// before issue 12 it grew with N (quadratic lookups: 300k tracks took tens of seconds).
// Usage: bench_tracks [N=1000000] [DIR]
#include "parsers/registry/traceloader.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

void writeTrace(const std::filesystem::path& path, long n, bool distinct)
{
    std::ofstream out(path, std::ios::binary);
    out << "{\"schemaVersion\": 1, \"traceEvents\": [\n";
    for (long i = 0; i < n; ++i) {
        const long pid = distinct ? i / 1000 : 1;
        const long tid = distinct ? i : 1;
        out << (i ? ",\n" : "") << "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":" << pid
            << ",\"tid\":" << tid << ",\"ts\":" << i << ",\"dur\":1}";
    }
    out << "\n]}\n";
}

double importSeconds(const std::filesystem::path& path, std::size_t& tracks)
{
    timesink::parsers::ProgressSink progress;
    const auto start = std::chrono::steady_clock::now();
    const auto r = timesink::parsers::loadTrace(path, {}, progress);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!r.ok()) {
        std::fprintf(stderr, "bench_tracks: %s\n", r.error.c_str());
        std::exit(1);
    }
    tracks = r.trace->tracks().size();
    return s;
}

} // namespace

int main(int argc, char** argv)
{
    const long n = argc > 1 ? std::atol(argv[1]) : 1000000;
    const std::filesystem::path dir = argc > 2 ? argv[2] : std::filesystem::temp_directory_path();
    std::filesystem::create_directories(dir);
    const auto distinct = dir / "bench_tracks_distinct.json";
    const auto single = dir / "bench_tracks_single.json";
    writeTrace(distinct, n, true);
    writeTrace(single, n, false);
    std::size_t tracksSingle = 0;
    std::size_t tracksDistinct = 0;
    const double base = importSeconds(single, tracksSingle);
    const double many = importSeconds(distinct, tracksDistinct);
    std::printf("bench_tracks: %ld events on %zu track: %.2f s; on %zu tracks: %.2f s; ratio %.2f\n", n, tracksSingle,
                base, tracksDistinct, many, many / base);
    std::filesystem::remove(distinct);
    std::filesystem::remove(single);
    if (tracksDistinct != static_cast<std::size_t>(n)) {
        std::fprintf(stderr, "bench_tracks: expected %ld tracks\n", n);
        return 1;
    }
    return 0;
}
