// SPDX-License-Identifier: MIT
// Track creation must be O(1) amortised. Three shapes of a Kineto trace with N events, one event per track:
//   single  — all N on one thread (the baseline: the same events, one track)
//   pidtid  — N distinct pid/tid pairs (host threads)
//   device  — N GPU kernels, each on its own device (pid = args.device = i), so N devices and N tracks
// Before issue 12 distinct pid/tid pairs grew quadratically (300k tracks took tens of seconds); before issue 35 a
// device per event did (300,000 took 19 s). The ratios against `single` stay near 1–3 whatever N is.
// Usage:
//   bench_tracks [N=1000000] [DIR]             the three shapes at N through the full import, ratios to `single`
//   bench_tracks --write SHAPE N PATH           writes one trace (for tracks_bench.sh, which times timesink-cli)
#include "parsers/registry/traceloader.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

enum class Shape { Single, PidTid, Device };

bool parseShape(const char* text, Shape& shape)
{
    if (std::strcmp(text, "single") == 0)
        shape = Shape::Single;
    else if (std::strcmp(text, "pidtid") == 0)
        shape = Shape::PidTid;
    else if (std::strcmp(text, "device") == 0)
        shape = Shape::Device;
    else
        return false;
    return true;
}

void writeTrace(const std::filesystem::path& path, long n, Shape shape)
{
    std::ofstream out(path, std::ios::binary);
    out << "{\"schemaVersion\": 1, \"traceEvents\": [\n";
    for (long i = 0; i < n; ++i) {
        out << (i ? ",\n" : "");
        if (shape == Shape::Device) {
            // As Kineto writes a kernel: pid and args.device the GPU, tid and args.stream the stream.
            out << "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":" << i << ",\"tid\":7,\"ts\":" << i
                << ",\"dur\":1,\"args\":{\"device\":" << i << ",\"stream\":7,\"correlation\":" << i + 1 << "}}";
        } else {
            const long pid = shape == Shape::PidTid ? i / 1000 : 1;
            const long tid = shape == Shape::PidTid ? i : 1;
            out << "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":" << pid << ",\"tid\":" << tid
                << ",\"ts\":" << i << ",\"dur\":1}";
        }
    }
    out << "\n]}\n";
}

struct Timing
{
    double import = 0;   // loadTrace, parse to frozen trace
    double teardown = 0; // releasing the trace
    std::size_t tracks = 0;
    std::size_t devices = 0;
};

Timing importSeconds(const std::filesystem::path& path)
{
    timesink::parsers::ProgressSink progress;
    Timing t;
    auto start = std::chrono::steady_clock::now();
    auto r = timesink::parsers::loadTrace(path, {}, progress);
    t.import = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!r.ok()) {
        std::fprintf(stderr, "bench_tracks: %s\n", r.status().message().c_str());
        std::exit(1);
    }
    t.tracks = r.value()->tracks().size();
    t.devices = r.value()->metadata().devices.size();
    start = std::chrono::steady_clock::now();
    r.value().reset();
    t.teardown = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return t;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc > 1 && std::strcmp(argv[1], "--write") == 0) {
        Shape shape {};
        if (argc != 5 || !parseShape(argv[2], shape)) {
            std::fprintf(stderr, "usage: bench_tracks --write single|pidtid|device N PATH\n");
            return 1;
        }
        writeTrace(argv[4], std::atol(argv[3]), shape);
        return 0;
    }
    const long n = argc > 1 ? std::atol(argv[1]) : 1000000;
    const std::filesystem::path dir = argc > 2 ? argv[2] : std::filesystem::temp_directory_path();
    std::filesystem::create_directories(dir);
    const struct
    {
        Shape shape;
        const char* name;
    } shapes[] = {{Shape::Single, "single"}, {Shape::PidTid, "pidtid"}, {Shape::Device, "device"}};
    double base = 0;
    int failures = 0;
    for (const auto& s : shapes) {
        const auto path = dir / (std::string("bench_tracks_") + s.name + ".json");
        writeTrace(path, n, s.shape);
        const Timing t = importSeconds(path);
        std::filesystem::remove(path);
        if (s.shape == Shape::Single)
            base = t.import;
        std::printf("bench_tracks: %-6s %ld events, %zu tracks, %zu devices: import %.2f s (%.2f× single), "
                    "teardown %.2f s\n",
                    s.name, n, t.tracks, t.devices, t.import, t.import / base, t.teardown);
        const std::size_t wantTracks = s.shape == Shape::Single ? 1 : static_cast<std::size_t>(n);
        const std::size_t wantDevices = s.shape == Shape::Device ? static_cast<std::size_t>(n) : 0;
        if (t.tracks != wantTracks || t.devices != wantDevices) {
            std::fprintf(stderr, "bench_tracks: %s: expected %zu tracks and %zu devices\n", s.name, wantTracks,
                         wantDevices);
            ++failures;
        }
    }
    return failures == 0 ? 0 : 1;
}
