// SPDX-License-Identifier: MIT
#include "model/trace.h"

#include <algorithm>

namespace timesink::model {

const ArgValue* Trace::arg(SliceRef slice, std::string_view key) const
{
    const StringId k = m_strings.find(key);
    if (k.isEmpty() || !slice.isValid())
        return nullptr;
    return m_args.find(m_tracks[slice.track.value].args(slice.index.value), k);
}

std::span<const Flow> Trace::flowsFrom(SliceRef slice) const
{
    auto [lo, hi] = std::equal_range(m_flows.begin(), m_flows.end(), Flow {slice, {}, FlowKind::Launch},
                                     [](const Flow& a, const Flow& b) { return a.from < b.from; });
    return {lo, hi};
}

std::vector<std::uint32_t> Trace::flowsTo(SliceRef slice) const
{
    auto lo = std::partition_point(m_flowsByTarget.begin(), m_flowsByTarget.end(),
                                   [&](std::uint32_t i) { return m_flows[i].to < slice; });
    std::vector<std::uint32_t> out;
    for (auto it = lo; it != m_flowsByTarget.end() && m_flows[*it].to == slice; ++it)
        out.push_back(*it);
    return out;
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
