// SPDX-License-Identifier: MIT
#include "analysis/core/bandwidth.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace timesink::analysis {

namespace {

std::string lowered(std::string_view s)
{
    std::string out;
    out.reserve(s.size());
    for (const char c : s)
        out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    return out;
}

bool has(std::string_view haystack, std::string_view needle)
{
    return haystack.find(needle) != std::string_view::npos;
}

} // namespace

int collectiveElementBytes(std::string_view dtype)
{
    std::string t = lowered(dtype);
    if (t.rfind("c10::", 0) == 0)
        t = t.substr(5);
    if (has(t, "float8") || t == "byte" || t == "char" || t == "unsigned char" || t == "signed char" || t == "int8"
        || t == "uint8" || t == "bool")
        return 1;
    if (t == "half" || t == "bfloat16" || t == "short" || t == "short int" || t == "int16" || t == "float16")
        return 2;
    if (t == "float" || t == "int" || t == "int32" || t == "float32" || t == "uint32")
        return 4;
    if (t == "double" || t == "long" || t == "long int" || t == "long long int" || t == "int64" || t == "float64"
        || t == "complexfloat")
        return 8;
    return 0;
}

std::int64_t collectiveBytes(std::int64_t inNelems, std::int64_t outNelems, int elementBytes)
{
    const std::int64_t n = std::max(inNelems, outNelems);
    // 2^52 bytes bounds any real buffer and keeps the product far from overflow.
    if (n <= 0 || elementBytes <= 0 || n > (std::int64_t(1) << 52) / elementBytes)
        return -1;
    return n * elementBytes;
}

double busBandwidthFactor(std::string_view opKind, std::int32_t ranks)
{
    if (opKind == "broadcast" || opKind == "reduce" || opKind == "send" || opKind == "recv" || opKind == "sendrecv")
        return 1.0;
    if (ranks < 1)
        return 0.0;
    const double n = ranks;
    if (opKind == "allreduce")
        return 2.0 * (n - 1.0) / n;
    if (opKind == "allgather" || opKind == "reducescatter" || opKind == "alltoall")
        return (n - 1.0) / n;
    return 0.0;
}

namespace {

// Per direction, per GPU: NVIDIA quotes NVLink as the bidirectional total of all of a GPU's links (V100 300 GB/s,
// A100 600, H100 900, B200 1800; A800 and H800, the export parts, 400), so one direction is half. NCCL-tests'
// busbw on an NVLink all-reduce approaches the one-direction figure (about 230 of 300 GB/s on A100), which is why
// it is the peak busbw is held against. PCIe x16 per direction after encoding: gen3 15.75, gen4 31.5, gen5 63 GB/s.
struct GpuLinkRow
{
    std::string_view match; // lower-case substring of the device name
    bool pcieBoard;         // the row is the PCIe board of that chip
    std::string_view link;
    double gbps;
};

constexpr std::string_view kNvidiaSource = "NVIDIA datasheet NVLink bandwidth (bidirectional) / 2";
constexpr std::string_view kPcieSource = "PCI-SIG x16 per direction after encoding";

constexpr std::array<GpuLinkRow, 14> kGpuLinks = {{
    {"gb200", false, "NVLink5", 900.0},
    {"b200", false, "NVLink5", 900.0},
    {"b100", false, "NVLink5", 900.0},
    {"h800", true, "PCIe5 x16", 63.0},
    {"h800", false, "NVLink4", 200.0},
    {"h100", true, "PCIe5 x16", 63.0},
    {"h100", false, "NVLink4", 450.0},
    {"h200", false, "NVLink4", 450.0},
    {"h20", false, "NVLink4", 450.0},
    {"a800", false, "NVLink3", 200.0},
    {"a100", true, "PCIe4 x16", 31.5},
    {"a100", false, "NVLink3", 300.0},
    {"v100", true, "PCIe3 x16", 15.75},
    {"v100", false, "NVLink2", 150.0},
}};

} // namespace

std::optional<LinkPeak> gpuLinkPeak(std::string_view deviceName)
{
    const std::string name = lowered(deviceName);
    if (name.empty())
        return std::nullopt;
    const bool pcie = has(name, "pcie");
    for (const GpuLinkRow& r : kGpuLinks) {
        if (!has(name, r.match))
            continue;
        // A PCIe row only for a PCIe board; an NVLink row only for the others (SXM, the mezzanine names).
        if (r.pcieBoard != pcie)
            continue;
        return LinkPeak {std::string(r.link), r.gbps, std::string(r.pcieBoard ? kPcieSource : kNvidiaSource)};
    }
    return std::nullopt;
}

std::optional<LinkPeak> ascendLinkPeak(std::string_view transport, std::string_view deviceName)
{
    const std::string t = lowered(transport);
    const std::string chip = lowered(deviceName);
    // Atlas 800T A2 (Ascend 910B): 8 NPUs in a full HCCS mesh, 7 links of 56 GB/s each (392 GB/s per NPU);
    // communication.json's per-transport "Bandwidth(GB/s)" is per link, so the per-link figure is its peak.
    if (t == "hccs" && has(chip, "910b"))
        return LinkPeak {"HCCS", 56.0, "Huawei Atlas 800T A2: HCCS 392 GB/s over 7 links"};
    // Across servers each Atlas A2 NPU has one 200 GE RoCE port: 25 GB/s per direction.
    if (t == "rdma" && has(chip, "910b"))
        return LinkPeak {"RoCE 200G", 25.0, "Huawei Atlas 800T A2: 200 GE RoCE per NPU"};
    return std::nullopt;
}

std::string acceleratorName(const model::TraceMetadata& metadata)
{
    for (const model::Device& d : metadata.devices) {
        if ((d.kind == model::DeviceKind::Gpu || d.kind == model::DeviceKind::Npu) && !d.name.empty())
            return d.name;
    }
    return {};
}

} // namespace timesink::analysis
