// SPDX-License-Identifier: MIT
#pragma once

#include "model/types.h"

#include <cstdint>
#include <string_view>

namespace timesink::parsers::chromejson {

/// Where a Kineto event goes: a host thread, a device stream, or one of a device's synthetic tracks (annotations
/// and sync events get their own so that they do not nest the kernels of a stream).
enum class Placement : std::uint8_t { Host, DeviceStream, DeviceAnnotation, DeviceSync };

/// The model category of a Kineto event and where it is placed.
struct Classified
{
    model::SliceCategory category = model::SliceCategory::Other;
    Placement placement = Placement::Host;
    bool operator==(const Classified&) const = default;
};

/// Whether a name is a collective or other communication: NCCL/RCCL kernels and host calls, PyTorch's
/// `record_param_comms`, `c10d::` ops and gloo calls.
[[nodiscard]] bool isCommunicationName(std::string_view name);

/// Classifies an event by its `cat` and `name` (the rules of KinetoImporter; see its header for the table):
/// device categories first (kernel, gpu_memcpy, gpu_memset, cuda_sync, gpu_user_annotation, mtia_ccp_events, and
/// the legacy exporter's capitalised ones); on the host, names decide steps (`ProfilerStep#`), dataloader
/// (`enumerate(DataLoader)`) and communication (except in python_function frames), then the category.
[[nodiscard]] Classified classify(std::string_view cat, std::string_view name);

/// A copy's direction and host memory.
struct MemcpyKind
{
    model::MemcpyDirection direction = model::MemcpyDirection::None;
    model::HostMemoryKind memory = model::HostMemoryKind::Unknown;
    bool operator==(const MemcpyKind&) const = default;
};

/// The direction and host memory of a copy from its name ("Memcpy HtoD (Pageable -> Device)"); when the name
/// says no direction, from `kindArg`, the text of its `kind` arg (ROCm writes "HtoD" there; empty when absent).
[[nodiscard]] MemcpyKind memcpyKind(std::string_view name, std::string_view kindArg);

} // namespace timesink::parsers::chromejson
