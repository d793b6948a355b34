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

SliceIndex Track::sliceAt(TimeNs t, Cursor& cursor) const
{
    if (m_byDepth.empty())
        return SliceIndex();
    cursor.position.resize(m_byDepth.size(), 0);
    for (std::size_t d = m_byDepth.size(); d-- > 0;) {
        const auto& idx = m_byDepth[d];
        const auto notAfter = [&](std::uint32_t i) { return m_ts[i] <= t; };
        // Gallop from the last position to bracket the partition point, then binary-search the bracket.
        std::size_t lo = 0;
        std::size_t hi = idx.size();
        const std::size_t from = std::min(cursor.position[d], idx.size());
        if (from > 0 && !notAfter(idx[from - 1])) {
            hi = from - 1; // the point lies before `from`
            for (std::size_t step = 1; hi > 0; step *= 2) {
                const std::size_t probe = hi > step ? hi - step : 0;
                if (notAfter(idx[probe])) {
                    lo = probe + 1;
                    break;
                }
                hi = probe;
            }
        } else {
            lo = from; // the point lies at or after `from`
            for (std::size_t step = 1; lo < idx.size(); step *= 2) {
                const std::size_t probe = std::min(lo + step - 1, idx.size() - 1);
                if (!notAfter(idx[probe])) {
                    hi = probe;
                    break;
                }
                lo = probe + 1;
            }
        }
        const auto it = std::partition_point(idx.begin() + static_cast<std::ptrdiff_t>(lo),
                                             idx.begin() + static_cast<std::ptrdiff_t>(std::max(lo, hi)), notAfter);
        const auto point = static_cast<std::size_t>(it - idx.begin());
        cursor.position[d] = point;
        if (point == 0)
            continue;
        const std::uint32_t i = idx[point - 1];
        if (t < end(i) || t == m_ts[i])
            return SliceIndex(i);
    }
    return SliceIndex();
}

std::size_t Track::bytesUsed() const
{
    std::size_t bytes = m_ts.capacity() * sizeof(TimeNs) + m_dur.capacity() * sizeof(TimeNs)
        + m_name.capacity() * sizeof(StringId) + m_rawCategory.capacity() * sizeof(StringId) + m_parent.capacity() * 4
        + m_args.capacity() * 4 + m_depth.capacity() * 2 + m_category.capacity() + m_flags.capacity()
        + m_counterTs.capacity() * sizeof(TimeNs) + m_counterValues.capacity() * sizeof(double);
    for (const auto& d : m_byDepth)
        bytes += d.capacity() * sizeof(std::uint32_t);
    for (const auto& d : m_summaries)
        for (const auto& level : d)
            bytes += level.capacity() * sizeof(SummaryBucket);
    return bytes;
}

} // namespace timesink::model
