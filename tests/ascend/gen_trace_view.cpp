// SPDX-License-Identifier: MIT
// Writes a synthetic torch_npu trace_view.json of about SIZE_MB megabytes for the import benchmark: per
// iteration a Python cpu_op with its async_npu flow, a CANN AscendCL launch with a HostToDevice flow (string id
// beyond 64 bits), an AI_CORE device task, every 16th an AI_CPU task, counters; process names at the end as
// the real writer puts them.  Usage: gen_trace_view OUT.json SIZE_MB
#include <cstdio>
#include <cstdlib>
#include <string>

int main(int argc, char** argv)
{
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s OUT.json SIZE_MB\n", argv[0]);
        return 1;
    }
    std::FILE* out = std::fopen(argv[1], "wb");
    if (!out) {
        std::perror(argv[1]);
        return 1;
    }
    const long long target = std::atoll(argv[2]) * 1024LL * 1024LL;
    long long written = std::fprintf(out, "[\n");
    const long long base = 1736408883000000LL; // epoch µs
    long long i = 0;
    char buf[2048];
    for (; written < target; ++i) {
        const long long t = base + i * 20;
        const int frac = static_cast<int>((i * 7919) % 1000);
        int n = std::snprintf(
            buf, sizeof buf,
            "{\"ph\":\"X\",\"name\":\"aten::conv2d\",\"cat\":\"cpu_op\",\"pid\":3096504,\"tid\":3096504,"
            "\"ts\":\"%lld.%03d\",\"dur\":12.5,\"args\":{\"Sequence number\":%lld,\"Input Dims\":\"[[32, 3, 224, "
            "224]]\"}},\n"
            "{\"ph\":\"s\",\"name\":\"torch_to_npu\",\"cat\":\"async_npu\",\"id\":%lld,\"pid\":3096504,\"tid\":3096504,"
            "\"ts\":\"%lld.%03d\",\"bp\":\"e\"},\n"
            "{\"ph\":\"X\",\"name\":\"AscendCL@aclnnConvolution\",\"pid\":3170820320,\"tid\":3099702,\"ts\":\"%lld.%"
            "03d\","
            "\"dur\":3.25,\"args\":{\"Thread "
            "Id\":3099702,\"Mode\":\"ACL_OP\",\"level\":\"acl\",\"connection_id\":%lld}},\n"
            "{\"ph\":\"s\",\"name\":\"HostToDevice4000463106929%07lld\",\"cat\":\"HostToDevice\",\"id\":"
            "\"4000463106929%07lld\","
            "\"pid\":3170820320,\"tid\":3099702,\"ts\":\"%lld.%03d\"},\n",
            t, frac, i, (t + 10) * 1000 + frac, t, frac, t + 1, frac, i, i % 10000000, i % 10000000, t + 1, frac);
        written += static_cast<long long>(std::fwrite(buf, 1, static_cast<std::size_t>(n), out));
        n = std::snprintf(
            buf, sizeof buf,
            "{\"ph\":\"f\",\"name\":\"HostToDevice4000463106929%07lld\",\"cat\":\"HostToDevice\",\"id\":"
            "\"4000463106929%07lld\","
            "\"pid\":3170820512,\"tid\":2,\"ts\":\"%lld.%03d\",\"bp\":\"e\"},\n"
            "{\"ph\":\"f\",\"name\":\"torch_to_npu\",\"cat\":\"async_npu\",\"id\":%lld,\"pid\":3170820512,\"tid\":2,"
            "\"ts\":\"%lld.%03d\",\"bp\":\"e\"},\n"
            "{\"ph\":\"X\",\"name\":\"%s\",\"pid\":3170820512,\"tid\":2,\"ts\":\"%lld.%03d\",\"dur\":8.75,"
            "\"args\":{\"Model Id\":4294967295,\"Task Type\":\"%s\",\"Physic Stream Id\":2,\"Task Id\":%lld,"
            "\"Batch Id\":0,\"Subtask Id\":4294967295,\"connection_id\":%lld}},\n",
            i % 10000000, i % 10000000, t + 10, frac, (t + 10) * 1000 + frac, t + 10, frac,
            i % 16 == 0 ? "aclnnCast_CastAiCpu_Cast" : "Conv2D", t + 10, frac, i % 16 == 0 ? "AI_CPU" : "AI_CORE",
            i % 65536, i);
        written += static_cast<long long>(std::fwrite(buf, 1, static_cast<std::size_t>(n), out));
        if (i % 64 == 0) {
            n = std::snprintf(
                buf, sizeof buf,
                "{\"name\":\"AI Core "
                "Freq\",\"ts\":\"%lld.000\",\"pid\":3170820544,\"tid\":0,\"args\":{\"MHz\":1800},\"ph\":\"C\"},\n",
                t);
            written += static_cast<long long>(std::fwrite(buf, 1, static_cast<std::size_t>(n), out));
        }
    }
    std::fprintf(out,
                 "{\"ph\":\"X\",\"name\":\"ProfilerStep#1\",\"cat\":\"cpu_op\",\"pid\":3096504,\"tid\":3096504,\"ts\":"
                 "\"%lld.000\",\"dur\":%lld},\n"
                 "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":3096504,\"tid\":0,\"args\":{\"name\":\"Python\"}},\n"
                 "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":3170820320,\"tid\":0,\"args\":{\"name\":\"CANN\"}},\n"
                 "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":3170820512,\"tid\":0,\"args\":{\"name\":\"Ascend "
                 "Hardware\"}},\n"
                 "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":3170820544,\"tid\":0,\"args\":{\"name\":\"AI Core "
                 "Freq\"}}\n]\n",
                 base - 1, i * 20 + 100);
    std::fclose(out);
    std::printf("%lld iterations, %lld device tasks, %lld AI_CPU\n", i, i, (i + 15) / 16);
    return 0;
}
