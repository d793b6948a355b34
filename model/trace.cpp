// SPDX-License-Identifier: MIT
#include "model/trace.h"

#include <algorithm>

namespace timesink::model {

std::optional<ArgValue> Trace::arg(SliceRef slice, std::string_view key) const
{
    const StringId k = m_strings.find(key);
    if (k.isEmpty() || !slice.isValid())
        return std::nullopt;
    return m_args.find(m_tracks[slice.track.value].args(slice.index.value), k);
}

std::span<const Flow> Trace::flowsFrom(SliceRef slice) const
{
    auto [lo, hi] = std::equal_range(m_flows.begin(), m_flows.end(), Flow {slice, {}, FlowKind::Launch},
                                     [](const Flow& a, const Flow& b) { return a.from < b.from; });
    return {lo, hi};
}

std::span<const std::uint32_t> Trace::flowIndicesTo(SliceRef slice) const
{
    const auto lo = std::partition_point(m_flowsByTarget.begin(), m_flowsByTarget.end(),
                                         [&](std::uint32_t i) { return m_flows[i].to < slice; });
    auto hi = lo;
    while (hi != m_flowsByTarget.end() && m_flows[*hi].to == slice)
        ++hi;
    return {lo, hi};
}

std::vector<std::uint32_t> Trace::flowsTo(SliceRef slice) const
{
    const std::span<const std::uint32_t> to = flowIndicesTo(slice);
    return {to.begin(), to.end()};
}

std::size_t Trace::linkedFlowCount() const
{
    return static_cast<std::size_t>(
        std::count_if(m_flows.begin(), m_flows.end(), [](const Flow& f) { return f.isLinked(); }));
}

Platform inferPlatform(const Trace& trace)
{
    const auto contains
        = [](std::string_view text, std::string_view needle) { return text.find(needle) != std::string_view::npos; };
    bool anyDevice = false;
    bool npu = false;
    bool edge = false;
    for (const Track& t : trace.tracks()) {
        if (!isDeviceTrack(t) || t.empty())
            continue;
        anyDevice = true;
        npu = npu || t.deviceKind == DeviceKind::Npu;
        edge = edge || t.deviceKind == DeviceKind::EdgeNpu;
    }
    if (edge)
        return Platform::Rknn;
    if (npu)
        return Platform::TorchNpuCann;
    for (const Device& d : trace.metadata().devices) {
        if (contains(d.name, "AMD") || contains(d.name, "Radeon") || contains(d.name, "Instinct"))
            return Platform::PyTorchRocm;
        if (d.kind == DeviceKind::Npu)
            return Platform::TorchNpuCann;
        if (d.kind == DeviceKind::EdgeNpu)
            return Platform::Rknn;
    }
    if (!anyDevice)
        return trace.metadata().format.empty() ? Platform::Generic : Platform::Cpu;
    // ROCm traces reuse the CUDA categories; the runtime call names give them away.
    if (!trace.strings().find("hipLaunchKernel").isEmpty() || !trace.strings().find("hipMemcpyAsync").isEmpty())
        return Platform::PyTorchRocm;
    return Platform::PyTorchCuda;
}

std::size_t Trace::bytesUsed() const
{
    std::size_t bytes = m_strings.bytesUsed() + m_args.bytesUsed() + m_flows.capacity() * sizeof(Flow)
        + m_flowsByTarget.capacity() * 4 + m_steps.capacity() * sizeof(Step);
    for (const Track& t : m_tracks)
        bytes += t.bytesUsed();
    return bytes;
}

} // namespace timesink::model
