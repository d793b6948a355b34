// SPDX-License-Identifier: MIT
#include "plantedjob.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>

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
        // The DLRM-style front of a step at t (plantedjob.h); returns its length B (0 without one).
        const auto front = [&](std::int64_t t) -> std::int64_t {
            if (job.allToAllNs <= 0)
                return 0;
            const std::int64_t e = job.embedNs + (r == job.allToAllStraggler ? job.allToAllLateNs : 0);
            const std::int64_t a = job.embedNs + job.allToAllLateNs + job.allToAllNs;
            kernel("void embedding_forward_kernel<float>", 7, t, e);
            std::string world;
            for (int q = 0; q < job.ranks; ++q)
                world += (q ? ", " : "") + std::to_string(q);
            // The host: record_param_comms around the launch of the send/recv kernel (correlation `corr`).
            out << ",\n{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"record_param_comms\", \"pid\": " << pid
                << ", \"tid\": " << pid << ", \"ts\": " << us(t + 100'000) << ", \"dur\": 50.000, \"args\": "
                << "{\"Collective name\": \"all_to_all\", \"Process Group Name\": \"0\", \"Process Group Ranks\": \"["
                << world << "]\", \"Group size\": " << job.ranks << ", \"dtype\": \"Float\"}}";
            out << ",\n{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": " << pid
                << ", \"tid\": " << pid << ", \"ts\": " << us(t + 110'000) << ", \"dur\": 5.000, \"args\": "
                << "{\"correlation\": " << corr << ", \"cbid\": 211}}";
            kernel("ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)", 20, t + e, a - e);
            if (job.tpSize <= 1)
                return a;
            const int g = r / job.tpSize;
            const std::int64_t m = job.tpComputeNs + (r == job.tpStraggler ? job.tpLateNs : 0);
            const std::int64_t b = a + job.tpComputeNs + job.tpLateNs + job.tpNs;
            kernel("ampere_sgemm_64x32_tn", 7, t + a, m);
            std::string members;
            for (int q = g * job.tpSize; q < std::min(job.ranks, (g + 1) * job.tpSize); ++q)
                members += (q > g * job.tpSize ? ", " : "") + std::to_string(q);
            out << ",\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclDevKernel_AllReduce_Sum_f32_RING_LL\", "
                   "\"pid\": 0, \"tid\": 22, \"ts\": "
                << us(t + a + m) << ", \"dur\": " << us(b - a - m)
                << ", \"args\": {\"device\": 0, \"stream\": 22, \"correlation\": " << corr++
                << ", \"Collective name\": \"allreduce\", \"Process Group Name\": \"tp" << g
                << "\", \"Process Group Ranks\": \"[" << members << "]\", \"Group size\": " << job.tpSize;
            if (job.tpNelems > 0)
                out << ", \"In msg nelems\": " << job.tpNelems << ", \"Out msg nelems\": " << job.tpNelems
                    << ", \"dtype\": \"Float\"";
            out << "}}";
            return b;
        };
        // The pipeline of a step at t (plantedjob.h); returns its length (0 without one).
        const auto pipeline = [&](std::int64_t t, int k) -> std::int64_t {
            if (job.pipelineComputeNs <= 0)
                return 0;
            const std::int64_t f = job.pipelineComputeNs;
            const std::int64_t x = job.pipelineTransferNs;
            const auto stageCompute = [&](int q) { return f + (q == job.pipelineSlowStage ? job.pipelineSlowNs : 0); };
            std::int64_t ready = t; // R_r
            for (int q = 0; q < r; ++q)
                ready += stageCompute(q) + x;
            std::string members;
            for (int q = 0; q < job.ranks; ++q)
                members += (q ? ", " : "") + std::to_string(q);
            const auto p2p = [&](const char* op, int peer, std::int64_t start, std::int64_t end) {
                out << ",\n{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"record_param_comms\", \"pid\": " << pid
                    << ", \"tid\": " << pid << ", \"ts\": " << us(start - 60'000) << ", \"dur\": 20.000, \"args\": "
                    << "{\"Collective name\": \"" << op << "\", \"Process Group Name\": \"pp\", "
                    << "\"Process Group Ranks\": \"[" << members << "]\", \"Group size\": " << job.ranks
                    << ", \"Rank\": " << peer << ", \"Seq\": " << k << ", \"dtype\": \"Float\"}}";
                out << ",\n{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": " << pid
                    << ", \"tid\": " << pid << ", \"ts\": " << us(start - 55'000) << ", \"dur\": 5.000, \"args\": "
                    << "{\"correlation\": " << corr << ", \"cbid\": 211}}";
                kernel("ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)", 23, start, end - start);
            };
            if (r > 0 && !(r == job.pipelineDropRecvRank && k == job.pipelineDropRecvStep))
                p2p("recv", r - 1, t + r * f + (r - 1) * x, ready);
            kernel("ampere_sgemm_32x32_sliced1x4_tn", 7, ready, stageCompute(r));
            if (r + 1 < job.ranks)
                p2p("send", r + 1, ready + stageCompute(r), ready + stageCompute(r) + x);
            return job.ranks * f + (job.ranks - 1) * x + job.pipelineSlowNs;
        };
        const bool slow = r == job.straggler;
        const std::int64_t c = slow ? job.stragglerComputeNs : job.computeNs;
        for (int k = 1; k <= job.steps; ++k) {
            // t0: where the step would start; a late starter begins `late` after it and ends with the others.
            const std::int64_t t0
                = base + r * job.rankOffsetNs + (k - 1) * job.stepNs + std::int64_t(k) * r * job.driftNs;
            const std::int64_t late = r == job.lateStartRank ? job.lateStartNs : 0;
            std::int64_t t = t0 + late;
            out << ",\n{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#" << k
                << "\", \"pid\": " << pid << ", \"tid\": " << pid << ", \"ts\": " << us(t)
                << ", \"dur\": " << us(job.stepNs - late) << ", \"args\": {}}";
            t += front(t);
            t += pipeline(t, k);
            if (job.copyNs > 0)
                out << ",\n{\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy HtoD (Pinned -> Device)\", "
                       "\"pid\": 0, \"tid\": 21, \"ts\": "
                    << us(t) << ", \"dur\": " << us(job.copyNs)
                    << ", \"args\": {\"device\": 0, \"stream\": 21, \"correlation\": " << corr++
                    << ", \"bytes\": 268435456}}";
            kernel("ampere_sgemm_128x64_tn", 7, t + job.copyNs + job.idleNs, c - job.copyNs - job.idleNs);
            kernel("void multi_tensor_apply_kernel<TensorListMetadata<4>, AdamFunctor<float>>", 8, t + c, job.tailNs);
            kernel("ncclKernel_AllReduce_RING_LL_Sum_float", 20, t + c, t0 + job.stepNs - t - c);
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
