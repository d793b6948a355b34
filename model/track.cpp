// SPDX-License-Identifier: MIT
#include "model/track.h"

#include <algorithm>

namespace timesink::model {

std::pair<std::size_t, std::size_t> Track::rangeAtDepth(std::size_t depth, TimeNs t0, TimeNs t1) const
{
    if (depth >= m_byDepth.size() || t1 < t0)
        return {0, 0};
    const auto& idx = m_byDepth[depth];
    // Slices at one depth never overlap, so their ends are sorted like their starts.
    auto first = std::partition_point(idx.begin(), idx.end(), [&](std::uint32_t i) { return end(i) < t0; });
    auto last = std::partition_point(first, idx.end(), [&](std::uint32_t i) { return m_ts[i] <= t1; });
    return {static_cast<std::size_t>(first - idx.begin()), static_cast<std::size_t>(last - idx.begin())};
}

SliceIndex Track::sliceAt(TimeNs t) const
{
    return sliceAt(t, m_byDepth.empty() ? 0 : m_byDepth.size() - 1);
}

SliceIndex Track::sliceAt(TimeNs t, std::size_t maxDepth) const
{
    if (m_byDepth.empty())
        return SliceIndex();
    for (std::size_t d = std::min(maxDepth, m_byDepth.size() - 1) + 1; d-- > 0;) {
        const auto& idx = m_byDepth[d];
        auto it = std::partition_point(idx.begin(), idx.end(), [&](std::uint32_t i) { return m_ts[i] <= t; });
        if (it == idx.begin())
            continue;
        const std::uint32_t i = *(it - 1);
        if (t < end(i) || t == m_ts[i])
            return SliceIndex(i);
    }
    return SliceIndex();
}

std::size_t Track::bytesUsed() const
{
    std::size_t bytes = m_ts.capacity() * sizeof(TimeNs) + m_dur.capacity() * sizeof(TimeNs)
        + m_name.capacity() * sizeof(StringId) + m_rawCategory.capacity() * sizeof(StringId)
        + m_parent.capacity() * 4 + m_args.capacity() * 4 + m_depth.capacity() * 2 + m_category.capacity()
        + m_flags.capacity() + m_counterTs.capacity() * sizeof(TimeNs) + m_counterValues.capacity() * sizeof(double);
    for (const auto& d : m_byDepth)
        bytes += d.capacity() * sizeof(std::uint32_t);
    for (const auto& d : m_summaries)
        for (const auto& level : d)
            bytes += level.capacity() * sizeof(SummaryBucket);
    return bytes;
}

} // namespace timesink::model
