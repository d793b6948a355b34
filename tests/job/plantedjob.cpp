// SPDX-License-Identifier: MIT
#include "plantedjob.h"

#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <stdexcept>

namespace timesink::testing {

namespace {

// Kineto writes epoch µs with three decimals; integer ns print exactly that way.
std::string us(std::int64_t ns)
{
    char b[48];
    std::snprintf(b, sizeof b, "%" PRId64 ".%03" PRId64, ns / 1000, ns % 1000);
    return b;
}

} // namespace

std::vector<std::filesystem::path> writePlantedJob(const std::filesystem::path& dir, const PlantedJob& job)
{
    std::filesystem::create_directories(dir);
    std::vector<std::filesystem::path> paths;
    const std::int64_t base = 1'700'000'000'000'000'000;
    for (int r = 0; r < job.ranks; ++r) {
        const std::filesystem::path path = dir / ("rank-" + std::to_string(r) + ".json");
        std::ofstream out(path, std::ios::binary);
        if (!out)
            throw std::runtime_error("cannot write " + path.string());
        out << "{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA A100-SXM4-80GB\"}],\n"
            << "\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": " << r << ", \"world_size\": " << job.ranks
            << "},\n\"traceEvents\": [\n";
        const int pid = 1000 + r;
        out << "{\"name\": \"process_name\", \"ph\": \"M\", \"ts\": 0, \"pid\": " << pid
            << ", \"tid\": 0, \"args\": {\"name\": \"python3\"}}";
        std::int64_t corr = 1;
        auto kernel = [&](const char* name, int stream, std::int64_t ts, std::int64_t dur) {
            out << ",\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"" << name
                << "\", \"pid\": 0, \"tid\": " << stream << ", \"ts\": " << us(ts) << ", \"dur\": " << us(dur)
                << ", \"args\": {\"device\": 0, \"stream\": " << stream << ", \"correlation\": " << corr++ << "}}";
        };
        const bool slow = r == job.straggler;
        const std::int64_t c = slow ? job.stragglerComputeNs : job.computeNs;
        for (int k = 1; k <= job.steps; ++k) {
            const std::int64_t t
                = base + r * job.rankOffsetNs + (k - 1) * job.stepNs + std::int64_t(k) * r * job.driftNs;
            out << ",\n{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#" << k
                << "\", \"pid\": " << pid << ", \"tid\": " << pid << ", \"ts\": " << us(t)
                << ", \"dur\": " << us(job.stepNs) << ", \"args\": {}}";
            if (job.copyNs > 0)
                out << ",\n{\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy HtoD (Pinned -> Device)\", "
                       "\"pid\": 0, \"tid\": 21, \"ts\": "
                    << us(t) << ", \"dur\": " << us(job.copyNs)
                    << ", \"args\": {\"device\": 0, \"stream\": 21, \"correlation\": " << corr++
                    << ", \"bytes\": 268435456}}";
            kernel("ampere_sgemm_128x64_tn", 7, t + job.copyNs + job.idleNs, c - job.copyNs - job.idleNs);
            kernel("void multi_tensor_apply_kernel<TensorListMetadata<4>, AdamFunctor<float>>", 8, t + c, job.tailNs);
            kernel("ncclKernel_AllReduce_RING_LL_Sum_float", 20, t + c, job.stepNs - c);
            const std::int64_t spacing = job.fillerKernels > 0 ? c / job.fillerKernels : 0;
            for (int f = 0; f < job.fillerKernels; ++f) {
                const std::int64_t ts = t + f * spacing;
                out << ",\n{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::add_\", \"pid\": " << pid
                    << ", \"tid\": " << pid << ", \"ts\": " << us(ts) << ", \"dur\": 0.400, \"args\": "
                    << "{\"External id\": " << corr << ", \"Input Dims\": [[4096], [4096], []]}}";
                out << ",\n{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": " << pid
                    << ", \"tid\": " << pid << ", \"ts\": " << us(ts + 100) << ", \"dur\": 0.200, \"args\": "
                    << "{\"correlation\": " << corr << ", \"cbid\": 211}}";
                kernel("void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>>", 9, ts + 300,
                       std::min<std::int64_t>(1000, spacing > 400 ? spacing - 400 : 1));
            }
        }
        out << "\n]}\n";
        if (!out)
            throw std::runtime_error("cannot write " + path.string());
        paths.push_back(path);
    }
    return paths;
}

} // namespace timesink::testing
