// SPDX-License-Identifier: MIT
// The Chrome JSON event reader in all its dialects: the first byte picks the file name detection sees (Kineto
// trace, torch_npu trace_view.json, msprof_*.json, legacy array), the rest is the file.
#include "fuzzfile.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    if (size == 0)
        return 0;
    static constexpr const char* kNames[] = {"trace.json", "trace_view.json", "msprof_0_1.json", "legacy.json"};
    const char* name = kNames[data[0] % 4];
    timesink::fuzz::importPath(timesink::fuzz::writeInput(name, data + 1, size - 1));
    return 0;
}
