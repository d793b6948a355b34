// SPDX-License-Identifier: MIT
#include "parsers/chromejson/kinetoclassify.h"

namespace timesink::parsers::chromejson {

using model::SliceCategory;

namespace {

bool startsWith(std::string_view s, std::string_view p)
{
    return s.substr(0, p.size()) == p;
}

bool contains(std::string_view s, std::string_view p)
{
    return s.find(p) != std::string_view::npos;
}

model::MemcpyDirection direction(std::string_view s)
{
    using model::MemcpyDirection;
    if (contains(s, "HtoD"))
        return MemcpyDirection::HostToDevice;
    if (contains(s, "DtoH"))
        return MemcpyDirection::DeviceToHost;
    if (contains(s, "DtoD"))
        return MemcpyDirection::DeviceToDevice;
    if (contains(s, "PtoP") || contains(s, "Peer"))
        return MemcpyDirection::PeerToPeer;
    return MemcpyDirection::None;
}

} // namespace

bool isCommunicationName(std::string_view name)
{
    return startsWith(name, "nccl") || startsWith(name, "rccl") || contains(name, "ncclKernel")
        || contains(name, "ncclDevKernel") || startsWith(name, "record_param_comms") || startsWith(name, "c10d::")
        || startsWith(name, "gloo:");
}

Classified classify(std::string_view cat, std::string_view name)
{
    if (cat == "kernel" || cat == "Kernel")
        return {isCommunicationName(name) ? SliceCategory::Communication : SliceCategory::Kernel,
                Placement::DeviceStream};
    if (cat == "gpu_memcpy" || cat == "Memcpy")
        return {SliceCategory::Memcpy, Placement::DeviceStream};
    if (cat == "gpu_memset" || cat == "Memset")
        return {SliceCategory::Memset, Placement::DeviceStream};
    if (cat == "cuda_sync")
        return {SliceCategory::Sync, Placement::DeviceSync};
    if (cat == "gpu_user_annotation")
        return {SliceCategory::Annotation, Placement::DeviceAnnotation};
    if (cat == "mtia_ccp_events")
        return {SliceCategory::Kernel, Placement::DeviceStream};
    // Host side: names decide steps and dataloader whatever the category (older builds used cpu_op, the
    // legacy exporter has no category at all).
    if (startsWith(name, "ProfilerStep#"))
        return {SliceCategory::Step, Placement::Host};
    if (startsWith(name, "enumerate(DataLoader)"))
        return {SliceCategory::Dataloader, Placement::Host};
    if (cat != "python_function" && isCommunicationName(name))
        return {SliceCategory::Communication, Placement::Host};
    if (cat == "cuda_runtime" || cat == "cuda_driver" || cat == "Runtime" || cat == "mtia_runtime")
        return {SliceCategory::RuntimeApi, Placement::Host};
    if (cat == "python_function")
        return {SliceCategory::PythonFrame, Placement::Host};
    if (cat == "cpu_op" || cat == "user_annotation" || cat.empty() || cat == "Operator") {
        return {cat == "user_annotation" ? SliceCategory::Annotation : SliceCategory::HostOp, Placement::Host};
    }
    return {SliceCategory::Other, Placement::Host};
}

MemcpyKind memcpyKind(std::string_view name, std::string_view kindArg)
{
    using model::HostMemoryKind;
    MemcpyKind out;
    out.direction = direction(name);
    if (out.direction == model::MemcpyDirection::None)
        out.direction = direction(kindArg);
    out.memory = contains(name, "Pageable") ? HostMemoryKind::Pageable
        : contains(name, "Pinned")          ? HostMemoryKind::Pinned
                                            : HostMemoryKind::Unknown;
    return out;
}

} // namespace timesink::parsers::chromejson
