// SPDX-License-Identifier: MIT
#include "model/types.h"

#include <array>

namespace timesink::model {

namespace {
constexpr std::array<std::string_view, kSliceCategoryCount> kCategoryKeys = {
    "host_op",       "python",     "runtime", "kernel",     "memcpy",      "memset", "sync",
    "communication", "dataloader", "step",    "annotation", "fallback_op", "other",
};
constexpr std::array<std::string_view, kSliceCategoryCount> kCategoryLabels = {
    "Host op",       "Python",     "Runtime API", "Kernel",     "Memcpy",      "Memset", "Sync",
    "Communication", "Dataloader", "Step",        "Annotation", "Fallback op", "Other",
};
} // namespace

std::string_view categoryKey(SliceCategory c)
{
    const auto i = static_cast<std::size_t>(c);
    return i < kCategoryKeys.size() ? kCategoryKeys[i] : std::string_view("other");
}

std::string_view categoryLabel(SliceCategory c)
{
    const auto i = static_cast<std::size_t>(c);
    return i < kCategoryLabels.size() ? kCategoryLabels[i] : std::string_view("Other");
}

std::string_view directionKey(MemcpyDirection d)
{
    switch (d) {
    case MemcpyDirection::HostToDevice:
        return "htod";
    case MemcpyDirection::DeviceToHost:
        return "dtoh";
    case MemcpyDirection::DeviceToDevice:
        return "dtod";
    case MemcpyDirection::PeerToPeer:
        return "p2p";
    case MemcpyDirection::None:
        break;
    }
    return {};
}

std::string_view platformKey(Platform p)
{
    switch (p) {
    case Platform::PyTorchCuda:
        return "pytorch_cuda";
    case Platform::PyTorchRocm:
        return "pytorch_rocm";
    case Platform::TorchNpuCann:
        return "torch_npu_cann";
    case Platform::Rknn:
        return "rknn";
    case Platform::Cpu:
        return "cpu";
    case Platform::Generic:
        break;
    }
    return "generic";
}

Platform platformFromKey(std::string_view key)
{
    for (const Platform p :
         {Platform::PyTorchCuda, Platform::PyTorchRocm, Platform::TorchNpuCann, Platform::Rknn, Platform::Cpu}) {
        if (platformKey(p) == key)
            return p;
    }
    return Platform::Generic;
}

std::string_view deviceKindKey(DeviceKind k)
{
    switch (k) {
    case DeviceKind::Cpu:
        return "cpu";
    case DeviceKind::Gpu:
        return "gpu";
    case DeviceKind::Npu:
        return "npu";
    case DeviceKind::EdgeNpu:
        return "edge_npu";
    }
    return "cpu";
}

std::string_view trackRoleKey(TrackRole r)
{
    switch (r) {
    case TrackRole::HostThread:
        return "host_thread";
    case TrackRole::DeviceCompute:
        return "device_compute";
    case TrackRole::DeviceCopy:
        return "device_copy";
    case TrackRole::Communication:
        return "communication";
    case TrackRole::Counter:
        return "counter";
    case TrackRole::Synthetic:
        return "synthetic";
    }
    return "synthetic";
}

std::string_view flowKindKey(FlowKind k)
{
    switch (k) {
    case FlowKind::Launch:
        return "launch";
    case FlowKind::ForwardBackward:
        return "fwdbwd";
    case FlowKind::Other:
        break;
    }
    return "other";
}

} // namespace timesink::model
