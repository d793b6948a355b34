// SPDX-License-Identifier: MIT
// Writes a synthetic but realistic torch.profiler/Kineto trace of a given size, for the import benchmark.
//
//   gen_kineto OUT.json SIZE_MB [--gzip]
//
// Shape per training step: a ProfilerStep#N annotation, a DataLoader span, then operators: each `cpu_op`
// (aten::…, with the `Input Dims` and `Input type` args of record_shapes=True, one shape per operator name) launches a
// kernel through `cudaLaunchKernel` (correlation, External id, cbid), linked by an `ac2g` s/f flow pair, and the kernel
// runs on one of two streams of GPU 0 with the usual CUPTI args (grid, block, registers, occupancy …). Every 50th
// operator copies memory (cudaMemcpyAsync + "Memcpy HtoD (Pinned -> Device)"). Times are epoch µs with three decimals,
// as recent Kineto writes them. Output is deterministic. With --gzip the same text is also written to OUT.gz.
#include <algorithm>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <zlib.h>

namespace {

const char* const kOps[] = {"aten::linear", "aten::addmm", "aten::relu",       "aten::conv2d",  "aten::batch_norm",
                            "aten::add_",   "aten::mul",   "aten::layer_norm", "aten::softmax", "aten::matmul"};
// What record_shapes=True writes for each of kOps (the `Input Dims` and `Input type` args), as JSON text.
const char* const kShapes[] = {
    R"("Input Dims": [[64, 1024], [4096, 1024], [4096]], "Input type": ["float", "float", "float"])",
    R"("Input Dims": [[4096], [64, 1024], [1024, 4096], [], []], "Input type": ["float", "float", "float", "Scalar", "Scalar"])",
    R"("Input Dims": [[64, 4096]], "Input type": ["float"])",
    R"("Input Dims": [[32, 64, 56, 56], [64, 64, 3, 3], [], [], [], [], []], "Input type": ["float", "float", "", "ScalarList", "ScalarList", "ScalarList", "Int"])",
    R"("Input Dims": [[32, 64, 56, 56], [64], [64], [64], [64], [], [], [], []], "Input type": ["float", "float", "float", "float", "float", "Scalar", "Scalar", "Scalar", "Scalar"])",
    R"("Input Dims": [[64, 4096], [64, 4096], []], "Input type": ["float", "float", "Scalar"])",
    R"("Input Dims": [[64, 4096], [64, 4096]], "Input type": ["float", "float"])",
    R"("Input Dims": [[64, 4096], [], [4096], [4096], [], []], "Input type": ["float", "ScalarList", "float", "float", "Scalar", "Scalar"])",
    R"("Input Dims": [[64, 16, 128, 128], [], []], "Input type": ["float", "Scalar", ""])",
    R"("Input Dims": [[64, 16, 128, 64], [64, 16, 64, 128]], "Input type": ["float", "float"])",
};
const char* const kKernels[] = {
    "void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl<at::native::AddFunctor<float> >(at::"
    "TensorIteratorBase&, at::native::AddFunctor<float> const&)::{lambda(int)#1}>(int, at::native::AddFunctor<float>)",
    "ampere_sgemm_128x64_tn",
    "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::launch_clamp_scalar(at::"
    "TensorIteratorBase&, c10::Scalar, c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}::operator()() const",
    "void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 512, true, 1>(cudnnTensorStruct, float const*, float*)",
    "sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize128x128x16_stage4_warpsize2x2x1",
    "void (anonymous namespace)::softmax_warp_forward<float, float, float, 10, false, false>(float*, float const*, "
    "int, int, int, bool const*, int, bool)"};

class Writer
{
public:
    Writer(const char* path, bool gzip)
        : m_file(std::fopen(path, "wb"))
    {
        if (!m_file) {
            std::perror(path);
            std::exit(1);
        }
        if (gzip) {
            const std::string gz = std::string(path) + ".gz";
            m_gz = gzopen(gz.c_str(), "wb1");
            if (!m_gz) {
                std::perror(gz.c_str());
                std::exit(1);
            }
            gzbuffer(m_gz, 1 << 20);
        }
        m_buf.reserve(1 << 22);
    }
    ~Writer()
    {
        flush();
        std::fclose(m_file);
        if (m_gz)
            gzclose(m_gz);
    }
    void put(const char* s) { m_buf.append(s); }
    void printf(const char* fmt, ...) __attribute__((format(printf, 2, 3)))
    {
        char tmp[4096];
        va_list ap;
        va_start(ap, fmt);
        const int n = std::vsnprintf(tmp, sizeof tmp, fmt, ap);
        va_end(ap);
        m_buf.append(tmp, static_cast<std::size_t>(n));
        if (m_buf.size() > (4U << 20))
            flush();
    }
    [[nodiscard]] std::uint64_t written() const { return m_written + m_buf.size(); }
    void flush()
    {
        std::fwrite(m_buf.data(), 1, m_buf.size(), m_file);
        if (m_gz)
            gzwrite(m_gz, m_buf.data(), static_cast<unsigned>(m_buf.size()));
        m_written += m_buf.size();
        m_buf.clear();
    }

private:
    std::FILE* m_file;
    gzFile m_gz = nullptr;
    std::string m_buf;
    std::uint64_t m_written = 0;
};

// Times are kept as integer ns and printed as µs with three decimals.
std::string us(std::int64_t ns)
{
    char b[48];
    std::snprintf(b, sizeof b, "%" PRId64 ".%03" PRId64, ns / 1000, ns % 1000);
    return b;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s OUT.json SIZE_MB [--gzip]\n", argv[0]);
        return 1;
    }
    const std::uint64_t target = std::strtoull(argv[2], nullptr, 10) << 20;
    const bool gzip = argc > 3 && std::strcmp(argv[3], "--gzip") == 0;
    Writer w(argv[1], gzip);
    w.put("{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [\n");
    for (int d = 0; d < 8; ++d) {
        w.printf("    {\"id\": %d, \"name\": \"NVIDIA A100-SXM4-80GB\", \"totalGlobalMem\": 85097971712, "
                 "\"computeMajor\": 8, \"computeMinor\": 0, \"maxThreadsPerBlock\": 1024, \"numSms\": 108}%s\n",
                 d, d < 7 ? "," : "");
    }
    w.put("  ],\n  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 0, \"world_size\": 8},\n");
    w.put("  \"traceEvents\": [\n");
    const int pid = 4242;
    const int tid = 4242;
    w.printf("  {\"name\": \"process_name\", \"ph\": \"M\", \"ts\": 0, \"pid\": %d, \"tid\": 0, \"args\": "
             "{\"name\": \"python3\"}},\n",
             pid);
    w.printf("  {\"name\": \"thread_name\", \"ph\": \"M\", \"ts\": 0, \"pid\": %d, \"tid\": %d, \"args\": "
             "{\"name\": \"thread %d (python3)\"}},\n",
             pid, tid, tid);

    std::uint64_t rng = 0x9e3779b97f4a7c15ULL;
    auto next = [&rng] {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        return rng;
    };
    std::int64_t hostNs = 1712195495505582988LL;
    std::int64_t gpuNs = hostNs;
    std::int64_t corr = 1000;
    std::int64_t ext = 1;
    std::uint64_t events = 0;
    const int opsPerStep = 20000;
    for (int step = 100; w.written() < target; ++step) {
        // The step and dataloader spans are written first with their final duration: the ops are generated
        // from the same RNG sequence, so compute the step length in a dry run over a copy of the state.
        const std::int64_t stepStart = hostNs;
        std::uint64_t saved = rng;
        std::int64_t probeNs = hostNs + 40000;
        for (int i = 0; i < opsPerStep; ++i) {
            probeNs += 9000 + static_cast<std::int64_t>(next() % 4000) + 1000;
            (void)next();
            (void)next();
        }
        rng = saved;
        const std::int64_t stepEnd = probeNs + 5000;
        w.printf("  {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#%d\", \"pid\": %d, "
                 "\"tid\": %d, \"ts\": %s, \"dur\": %s, \"args\": {\"External id\": %" PRId64 "}},\n",
                 step, pid, tid, us(stepStart).c_str(), us(stepEnd - stepStart).c_str(), ext++);
        w.printf("  {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": "
                 "\"enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__\", \"pid\": %d, \"tid\": %d, "
                 "\"ts\": %s, \"dur\": %s, \"args\": {\"External id\": %" PRId64 "}},\n",
                 pid, tid, us(stepStart + 1000).c_str(), us(35000).c_str(), ext++);
        events += 2;
        hostNs += 40000;
        for (int i = 0; i < opsPerStep; ++i) {
            const std::int64_t opDur = 9000 + static_cast<std::int64_t>(next() % 4000);
            const std::uint64_t r = next();
            const char* op = kOps[r % 10];
            const char* shapes = kShapes[r % 10];
            const bool copy = (i % 50) == 0;
            const char* kernel = kKernels[(r >> 8) % 6];
            const int stream = (r >> 16) % 4 == 0 ? 13 : 7;
            const std::int64_t launchTs = hostNs + 2000;
            const std::int64_t launchDur = 4000 + static_cast<std::int64_t>(next() % 1500);
            w.printf("  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"%s\", \"pid\": %d, \"tid\": %d, \"ts\": %s, "
                     "\"dur\": %s, \"args\": {\"External id\": %" PRId64
                     ", \"Record function id\": 0, \"Ev Idx\": %" PRIu64 ", %s}},\n",
                     op, pid, tid, us(hostNs).c_str(), us(opDur).c_str(), ext, events, shapes);
            w.printf("  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"%s\", \"pid\": %d, \"tid\": %d, "
                     "\"ts\": %s, \"dur\": %s, \"args\": {\"External id\": %" PRId64
                     ", \"cbid\": %d, \"correlation\": %" PRId64 "}},\n",
                     copy ? "cudaMemcpyAsync" : "cudaLaunchKernel", pid, tid, us(launchTs).c_str(),
                     us(launchDur).c_str(), ext, copy ? 41 : 211, corr);
            w.printf("  {\"ph\": \"s\", \"id\": %" PRId64 ", \"pid\": %d, \"tid\": %d, \"ts\": %s, \"cat\": \"ac2g\", "
                     "\"name\": \"ac2g\"},\n",
                     corr, pid, tid, us(launchTs).c_str());
            gpuNs = std::max(gpuNs + 500, launchTs + 6000);
            const std::int64_t kDur = 3000 + static_cast<std::int64_t>(r % 9000);
            if (copy) {
                w.printf("  {\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy HtoD (Pinned -> Device)\", "
                         "\"pid\": 0, \"tid\": %d, \"ts\": %s, \"dur\": %s, \"args\": {\"External id\": %" PRId64
                         ", \"device\": 0, \"context\": 1, \"stream\": %d, \"correlation\": %" PRId64
                         ", \"bytes\": 4194304, \"memory bandwidth (GB/s)\": 21.0}},\n",
                         stream, us(gpuNs).c_str(), us(kDur).c_str(), ext, stream, corr);
            } else {
                w.printf(
                    "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": %d, \"ts\": %s, "
                    "\"dur\": %s, \"args\": {\"External id\": %" PRId64 ", \"queued\": 0, \"device\": 0, "
                    "\"context\": 1, \"stream\": %d, \"correlation\": %" PRId64 ", \"registers per thread\": %d, "
                    "\"shared memory\": 0, \"blocks per SM\": %.6f, \"warps per SM\": %.6f, \"grid\": [%d, 1, 1], "
                    "\"block\": [128, 1, 1], \"est. achieved occupancy %%\": %d}},\n",
                    kernel, stream, us(gpuNs).c_str(), us(kDur).c_str(), ext, stream, corr,
                    static_cast<int>(16 + (r % 4) * 8), 4.740741, 18.962963, static_cast<int>(512 << (r % 3)),
                    static_cast<int>(25 + r % 50));
            }
            w.printf("  {\"ph\": \"f\", \"id\": %" PRId64 ", \"pid\": 0, \"tid\": %d, \"ts\": %s, \"cat\": \"ac2g\", "
                     "\"name\": \"ac2g\", \"bp\": \"e\"},\n",
                     corr, stream, us(gpuNs).c_str());
            gpuNs += kDur;
            hostNs += opDur + 1000;
            ++corr;
            ++ext;
            events += 5;
        }
        hostNs = stepEnd + 1000;
    }
    w.printf("  {\"name\": \"Record Window End\", \"ph\": \"i\", \"s\": \"g\", \"pid\": \"\", \"tid\": \"\", "
             "\"ts\": %s}\n",
             us(hostNs).c_str());
    w.put("  ],\n  \"traceName\": \"bench.pt.trace.json\",\n  \"displayTimeUnit\": \"ms\"\n}\n");
    w.flush();
    std::fprintf(stderr, "gen_kineto: %" PRIu64 " events, %.1f MB\n", events + 3, double(w.written()) / (1 << 20));
    return 0;
}
