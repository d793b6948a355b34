// SPDX-License-Identifier: MIT
#include "parsers/ascendcommon/ascendtasktype.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <string>

namespace timesink::parsers {

using model::MemcpyDirection;
using model::SliceCategory;

namespace {

bool equalsAny(std::string_view s, std::initializer_list<std::string_view> options)
{
    return std::find(options.begin(), options.end(), s) != options.end();
}

std::string lower(std::string_view s)
{
    std::string out(s);
    for (char& c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

bool contains(std::string_view haystack, std::string_view needle)
{
    return haystack.find(needle) != std::string_view::npos;
}

/// The accelerator view (kernel_details / COMPUTE_TASK_INFO) is the most specific; 0 = not decided by it.
bool classifyCore(std::string_view core, AscendTaskClass& out)
{
    if (equalsAny(core, {"AI_CPU", "AICPU", "KERNEL_AICPU"})) {
        out.category = SliceCategory::FallbackOp;
        return true;
    }
    if (equalsAny(core,
                  {"AI_CORE", "AI_VECTOR_CORE", "MIX_AIC", "MIX_AIV", "KERNEL_AICORE", "KERNEL_AIVEC", "KERNEL_MIX_AIC",
                   "KERNEL_MIX_AIV", "AIC", "AIV", "DSA_SQE", "DSA", "FFTS_PLUS"})) {
        // DSA (data-stream accelerator) tasks are op kernels too (dropout masks, random numbers).
        out.category = SliceCategory::Kernel;
        return true;
    }
    if (equalsAny(core, {"HCCL", "COMMUNICATION"})) {
        out.category = SliceCategory::Communication;
        return true;
    }
    return false;
}

} // namespace

AscendTaskClass classifyAscendTask(std::string_view taskType, std::string_view coreType, std::string_view name)
{
    AscendTaskClass c;
    // Copies first: MEMCPY_ASYNC tasks carry an engine in Task Type that the core view does not know.
    const bool memcpyName = name == "MEMCPY_ASYNC" || name == "MEMCPY" || taskType == "MEMCPY_ASYNC";
    if (taskType == "PCIE_DMA_SQE" || taskType == "PCIE_DMA") {
        c.category = SliceCategory::Memcpy;
        c.hostDeviceCopy = true;
        return c;
    }
    if (equalsAny(taskType, {"SDMA_SQE", "SDMA", "Memcpy", "MEMCPY_D2D"})) {
        c.category = SliceCategory::Memcpy;
        c.direction = MemcpyDirection::DeviceToDevice;
        return c;
    }
    if (memcpyName) {
        // The DB's TASK.taskType says MEMCPY_ASYNC without the engine: host↔device unless the launcher says.
        c.category = SliceCategory::Memcpy;
        c.hostDeviceCopy = true;
        return c;
    }
    if (classifyCore(coreType, c) || classifyCore(taskType, c))
        return c;
    if (equalsAny(taskType,
                  {"EVENT_RECORD_SQE", "EVENT_WAIT_SQE", "EVENT_RECORD", "EVENT_WAIT", "EVENT_RESET", "Notify Wait",
                   "Notify Record", "Notify_Wait", "Notify_Record", "NOTIFY_WAIT_SQE", "NOTIFY_RECORD_SQE",
                   "Write Value", "WRITE_VALUE_SQE", "STREAM_WAIT"})
        || equalsAny(name,
                     {"EVENT_RECORD", "EVENT_WAIT", "Notify Wait", "Notify_Wait", "Notify_Record", "Write Value"})) {
        c.category = SliceCategory::Sync;
        return c;
    }
    if (equalsAny(taskType, {"Reduce_Inline", "Reduce_TBE", "Inline_Reduce"})) {
        c.category = SliceCategory::Communication;
        return c;
    }
    if (taskType == "Other" || taskType.empty()) {
        // Jan-2024 traces name only AI_CPU; the rest are op kernels unless the name is a known runtime task.
        if (contains(name, "AiCpu") || contains(name, "AICPU")) {
            c.category = SliceCategory::FallbackOp;
            return c;
        }
        if (!name.empty() && !equalsAny(name, {"PROFILING_ENABLE", "PROFILING_DISABLE", "PLACE_HOLDER"}))
            c.category = SliceCategory::Kernel;
        return c;
    }
    return c; // PLACE_HOLDER_SQE, PROFILING_ENABLE/DISABLE, STARS_COMMON … stay Other
}

MemcpyDirection copyDirectionFromLauncher(std::string_view launcherName)
{
    const std::string n = lower(launcherName);
    if (contains(n, "host_to_device") || contains(n, "hosttodevice") || contains(n, "h2d"))
        return MemcpyDirection::HostToDevice;
    if (contains(n, "device_to_host") || contains(n, "devicetohost") || contains(n, "d2h"))
        return MemcpyDirection::DeviceToHost;
    if (contains(n, "device_to_device") || contains(n, "devicetodevice") || contains(n, "d2d"))
        return MemcpyDirection::DeviceToDevice;
    return MemcpyDirection::None;
}

std::int64_t profilerStepNumber(std::string_view name)
{
    constexpr std::string_view kPrefix = "ProfilerStep#";
    if (name.substr(0, kPrefix.size()) != kPrefix)
        return -1;
    const std::string_view digits = name.substr(kPrefix.size());
    std::int64_t n = -1;
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (ec != std::errc() || ptr != digits.data() + digits.size() || n < 0)
        return -1;
    return n;
}

SliceCategory classifyAscendHostOp(std::string_view name, std::string_view rawCategory)
{
    if (profilerStepNumber(name) >= 0)
        return SliceCategory::Step;
    if (name.substr(0, 22) == "enumerate(DataLoader)#" || contains(name, "DataLoaderIter.__next__"))
        return SliceCategory::Dataloader;
    if (rawCategory == "python_function")
        return SliceCategory::PythonFrame;
    return SliceCategory::HostOp;
}

} // namespace timesink::parsers
