// SPDX-License-Identifier: MIT
#include "analysis/platform.h"

#include "analysis/deviceactivity.h"

namespace timesink::analysis {

namespace {

bool contains(std::string_view text, std::string_view needle)
{
    return text.find(needle) != std::string_view::npos;
}

} // namespace

Platform detectPlatform(const model::Trace& trace)
{
    const std::string& format = trace.metadata().format;
    if (format == "rknn")
        return Platform::Rknn;
    if (contains(format, "npu") || contains(format, "msprof") || contains(format, "ascend"))
        return Platform::TorchNpuCann;

    bool anyDevice = false;
    bool npu = false;
    bool edge = false;
    for (const model::Track& t : trace.tracks()) {
        if (!isDeviceTrack(t) || t.empty())
            continue;
        anyDevice = true;
        npu = npu || t.deviceKind == model::DeviceKind::Npu;
        edge = edge || t.deviceKind == model::DeviceKind::EdgeNpu;
    }
    if (edge)
        return Platform::Rknn;
    if (npu)
        return Platform::TorchNpuCann;
    for (const model::Device& d : trace.metadata().devices) {
        if (contains(d.name, "AMD") || contains(d.name, "Radeon") || contains(d.name, "Instinct"))
            return Platform::PyTorchRocm;
        if (d.kind == model::DeviceKind::Npu)
            return Platform::TorchNpuCann;
        if (d.kind == model::DeviceKind::EdgeNpu)
            return Platform::Rknn;
    }
    if (!anyDevice)
        return format.empty() ? Platform::Generic : Platform::Cpu;
    // ROCm traces reuse the CUDA categories; the runtime call names give them away.
    const model::StringId hip = trace.strings().find("hipLaunchKernel");
    const model::StringId hipCopy = trace.strings().find("hipMemcpyAsync");
    if (!hip.isEmpty() || !hipCopy.isEmpty())
        return Platform::PyTorchRocm;
    return Platform::PyTorchCuda;
}

} // namespace timesink::analysis
