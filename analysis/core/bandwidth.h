// SPDX-License-Identifier: MIT
#pragma once

#include "model/trace.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace timesink::analysis {

/// Bytes per element of a collective's `dtype` as Kineto writes it on `record_param_comms` and NCCL kernels
/// (c10 ScalarType names: "Float" → 4, "BFloat16" → 2, "Half" → 2, "Long" → 8, "Byte" → 1, "Float8_e4m3fn" → 1)
/// or as `Input type` spells it ("float", "unsigned char", "long int", "c10::BFloat16"); 0 when unknown.
int collectiveElementBytes(std::string_view dtype);

/// The size NCCL-tests reports for a collective, in bytes, from its element counts (`In msg nelems`,
/// `Out msg nelems`): the larger of the two buffers. For all-reduce, broadcast and reduce they are equal; for
/// all-gather it is the output (n × the input), for reduce-scatter the input (n × the output); for all-to-all
/// the whole send buffer. −1 when neither count is known or the element size is 0.
/// Example: all-gather, in 25136, out 201088, BFloat16 → 402176 bytes.
std::int64_t collectiveBytes(std::int64_t inNelems, std::int64_t outNelems, int elementBytes);

/// NCCL-tests' bus bandwidth factor for `opKind` (collectiveOpKind()) over `ranks` ranks: all-reduce 2(n−1)/n;
/// all-gather, reduce-scatter and all-to-all (n−1)/n; broadcast, reduce, send/recv 1. busbw = algbw × factor, the
/// rate the busiest link moved data at, which is what compares with a link's peak. 0 when the kind is not a
/// data-moving collective (barrier, an unnamed "collective") or `ranks` < 1 for a kind that needs it.
/// Example: allreduce over 8 ranks → 1.75.
double busBandwidthFactor(std::string_view opKind, std::int32_t ranks);

/// A link's peak rate in one direction, GB/s (10^9 bytes per second), and what it is.
struct LinkPeak
{
    std::string link;   // "NVLink3", "PCIe4 x16", "HCCS", "RoCE 200G"
    double gbps = 0.0;  // per direction, per device (NVLink: all of a GPU's links together)
    std::string source; // where the figure comes from, for people
};

/// The peak of the link a GPU's collectives ride, from its name as Kineto's deviceProperties say it:
/// SXM/NVLink parts by NVLink generation (V100 → NVLink2 150, A100 → NVLink3 300, A800 → 200, H100/H200/H20 →
/// NVLink4 450, H800 → 200, B100/B200/GB200 → NVLink5 900 GB/s per direction), PCIe boards by PCIe generation x16
/// (gen3 15.75, gen4 31.5, gen5 63 GB/s). Nothing for a name the table does not know.
std::optional<LinkPeak> gpuLinkPeak(std::string_view deviceName);

/// The peak of an Ascend transport as communication.json names it ("HCCS", "RDMA", "PCIE", "SIO"), for the chip
/// `deviceName` ("Ascend910B…"): HCCS 56 GB/s per link on Atlas A2 (910B), RDMA RoCE 200G = 25 GB/s; nothing for
/// PCIE/SIO and unknown chips.
std::optional<LinkPeak> ascendLinkPeak(std::string_view transport, std::string_view deviceName);

/// The name of the trace's first GPU/NPU ("" none), the key of the tables above.
std::string acceleratorName(const model::TraceMetadata& metadata);

} // namespace timesink::analysis
