// SPDX-License-Identifier: MIT
// Benchmark (label `bench`): export a synthetic 2 M-slice trace as Perfetto protobuf and as Chrome JSON, and
// show that the exporters stream: peak memory grows by far less than the output size.
// Usage: bench_traceexport [slices] [output-folder]
#include "exporters/traceexport.h"
#include "model/tracebuilder.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

using namespace timesink;

namespace {

long statusKb(const char* field)
{
    std::ifstream in("/proc/self/status");
    std::string line;
    const std::string key = std::string(field) + ":";
    while (std::getline(in, line)) {
        if (line.rfind(key, 0) == 0)
            return std::strtol(line.c_str() + key.size(), nullptr, 10);
    }
    return -1;
}

model::TracePtr makeTrace(std::size_t slices)
{
    model::TraceBuilder b;
    const model::TrackId host = b.hostThread("main", 100, 100);
    const model::TrackId gpu = b.deviceStream(0, 7);
    const char* kernels[] = {"volta_sgemm_128x64_nn", "void at::native::vectorized_elementwise_kernel<4>",
                             "ncclKernel_AllReduce_RING_LL_Sum_float", "Memcpy HtoD (Pageable -> Device)"};
    const model::Arg args[] = {{b.intern("correlation"), model::ArgValue::fromInt(1)},
                               {b.intern("grid"), model::ArgValue::fromString(b.intern("[128, 1, 1]"))}};
    const model::TimeNs base = 1736408883700059821;
    for (std::size_t i = 0; i < slices / 2; ++i) {
        const auto t = static_cast<model::TimeNs>(i) * 1000;
        const auto launch = b.slice(host, model::SliceCategory::RuntimeApi, "cudaLaunchKernel", base + t, 300);
        const auto k = b.slice(gpu, model::SliceCategory::Kernel, kernels[i % 4], base + t + 400, 500, args);
        if (i % 8 == 0)
            b.addFlow(launch, k);
    }
    return b.finalize();
}

} // namespace

int main(int argc, char** argv)
{
    const std::size_t slices = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 2'000'000;
    const std::filesystem::path dir = argc > 2 ? argv[2] : std::filesystem::temp_directory_path();
    const model::TracePtr trace = makeTrace(slices);
    std::printf("trace: %zu slices, %.1f MB in memory, VmRSS %ld KB\n", trace->sliceCount(),
                double(trace->bytesUsed()) / 1e6, statusKb("VmRSS"));
    for (const auto format : {exporters::TraceFormat::Perfetto, exporters::TraceFormat::ChromeJson}) {
        const std::filesystem::path out
            = dir / (format == exporters::TraceFormat::Perfetto ? "bench_export.pftrace" : "bench_export.json");
        // The builder's peak is above the finalized trace, so VmHWM alone would hide the export; VmRSS after the
        // export (heap kept by the allocator included) shows what it held on to.
        const long before = statusKb("VmRSS");
        const long peakBefore = statusKb("VmHWM");
        const auto start = std::chrono::steady_clock::now();
        std::string error;
        if (!exporters::exportTrace(*trace, {}, format, out, {}, error)) {
            std::fprintf(stderr, "bench_traceexport: %s\n", error.c_str());
            return 1;
        }
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const auto bytes = std::filesystem::file_size(out);
        std::printf("%-9s %8.2f s  %7.1f MB written  %6.2f M slices/s  RSS %+ld KB  peak %+ld KB\n",
                    format == exporters::TraceFormat::Perfetto ? "pftrace" : "json", seconds, double(bytes) / 1e6,
                    double(trace->sliceCount()) / seconds / 1e6, statusKb("VmRSS") - before,
                    statusKb("VmHWM") - peakBefore);
        std::filesystem::remove(out);
    }
    return 0;
}
