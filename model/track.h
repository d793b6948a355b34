// SPDX-License-Identifier: MIT
#pragma once

#include "model/columnvector.h"
#include "model/podbuffer.h"
#include "model/types.h"

#include <span>
#include <type_traits>
#include <utility>
#include <vector>

namespace timesink::model {

class SnapshotAccess;

class TraceBuilder;

/// A run of consecutive slices of one depth, merged for drawing at coarse zoom levels.
/// Level 0 groups kSummaryFanout slices; level k groups kSummaryFanout buckets of level k-1.
struct SummaryBucket
{
    TimeNs start = 0;
    TimeNs end = 0;
    std::uint32_t count = 0;                       // slices covered
    SliceCategory dominant = SliceCategory::Other; // category covering the most time
    TimeNs busyNs = 0;                             // sum of the covered slice durations
};
inline constexpr std::size_t kSummaryFanout = 16;
/// The summary levels of one depth, finest first.
using SummaryLevels = std::vector<ColumnVector<SummaryBucket>>;

/// One timeline row: a host thread, a device stream / NPU queue, a copy engine, a communication plane
/// or a counter. Slices are stored as columns sorted by (ts, -dur); at every depth they do not overlap,
/// so a time range maps to an index range by binary search.
class Track
{
public:
    TrackId id;
    StringId name;        // display label, e.g. "stream 7" or "thread 1234 (python)"
    StringId processName; // e.g. "GPU 0", "python (1234)", "Ascend Hardware"
    StringId threadName;
    StringId processKey; // the raw process id as text ("1234", "CPU functions")
    StringId threadKey;  // the raw thread id as text
    DeviceKind deviceKind = DeviceKind::Cpu;
    TrackRole role = TrackRole::HostThread;
    std::int32_t deviceIndex = -1;
    std::int64_t streamId = -1;
    std::int32_t sortIndex = 0;

    [[nodiscard]] std::size_t size() const { return m_ts.size(); }
    [[nodiscard]] bool empty() const { return m_ts.empty(); }
    [[nodiscard]] TimeNs ts(std::uint32_t i) const { return m_ts[i]; }
    [[nodiscard]] TimeNs dur(std::uint32_t i) const { return m_dur[i]; }
    [[nodiscard]] TimeNs end(std::uint32_t i) const { return m_ts[i] + m_dur[i]; }
    [[nodiscard]] StringId sliceName(std::uint32_t i) const { return m_name[i]; }
    [[nodiscard]] SliceCategory category(std::uint32_t i) const { return static_cast<SliceCategory>(m_category[i]); }
    [[nodiscard]] StringId rawCategory(std::uint32_t i) const { return m_rawCategory[i]; }
    [[nodiscard]] std::uint16_t depth(std::uint32_t i) const { return m_depth[i]; }
    /// Enclosing slice on this track, or an invalid index at top level.
    [[nodiscard]] SliceIndex parent(std::uint32_t i) const { return SliceIndex(m_parent[i]); }
    [[nodiscard]] ArgSetId args(std::uint32_t i) const { return ArgSetId(m_args[i]); }
    [[nodiscard]] std::uint8_t flags(std::uint32_t i) const { return m_flags[i]; }
    [[nodiscard]] MemcpyDirection direction(std::uint32_t i) const
    {
        return static_cast<MemcpyDirection>(m_flags[i] & SliceFlags::kDirectionMask);
    }
    [[nodiscard]] HostMemoryKind hostMemory(std::uint32_t i) const
    {
        return static_cast<HostMemoryKind>((m_flags[i] & SliceFlags::kMemoryMask) >> SliceFlags::kMemoryShift);
    }

    [[nodiscard]] std::span<const TimeNs> timestamps() const { return {m_ts.data(), m_ts.size()}; }
    [[nodiscard]] std::span<const TimeNs> durations() const { return {m_dur.data(), m_dur.size()}; }

    /// Number of depth levels (0 when the track has no slices).
    [[nodiscard]] std::size_t depthCount() const { return m_byDepth.size(); }
    /// Slice indices at `depth`, in time order, non-overlapping.
    [[nodiscard]] std::span<const std::uint32_t> slicesAtDepth(std::size_t depth) const { return m_byDepth[depth]; }
    /// Half-open range [first, last) into slicesAtDepth(depth) of slices intersecting [t0, t1].
    [[nodiscard]] std::pair<std::size_t, std::size_t> rangeAtDepth(std::size_t depth, TimeNs t0, TimeNs t1) const;
    /// Calls f(index) for every slice intersecting [t0, t1] as rangeAtDepth() counts it (a slice that only touches
    /// t0 or t1 included), depth by depth from `fromDepth` (the descendants of a slice at depth d: d + 1), so a
    /// slice's parent comes before it. f may return bool: false stops. The one depth-by-depth range walk; callers
    /// clip to the range themselves.
    template <typename F> void forEachInRange(TimeNs t0, TimeNs t1, F&& f, std::size_t fromDepth = 0) const
    {
        for (std::size_t d = fromDepth; d < depthCount(); ++d) {
            const auto [first, last] = rangeAtDepth(d, t0, t1);
            const std::span<const std::uint32_t> indices = slicesAtDepth(d);
            for (std::size_t k = first; k < last; ++k) {
                if constexpr (std::is_same_v<std::invoke_result_t<F&, std::uint32_t>, bool>) {
                    if (!f(indices[k]))
                        return;
                } else {
                    f(indices[k]);
                }
            }
        }
    }
    /// As forEachInRange, without the slices that only touch the range (nothing of them inside it); a zero-length
    /// slice inside the range is visited (0 ns of it).
    template <typename F> void forEachInside(TimeNs t0, TimeNs t1, F&& f) const
    {
        forEachInRange(t0, t1, [&](std::uint32_t i) {
            if (end(i) < t0 || ts(i) > t1 || (dur(i) > 0 && (end(i) == t0 || ts(i) == t1))) {
                if constexpr (std::is_same_v<std::invoke_result_t<F&, std::uint32_t>, bool>)
                    return true;
                else
                    return;
            }
            return f(i);
        });
    }
    /// Summary levels of `depth`: level 0 is the finest (kSummaryFanout slices a bucket).
    [[nodiscard]] const SummaryLevels& summaries(std::size_t depth) const { return m_summaries[depth]; }
    /// The deepest slice containing time t (ts <= t < end, or t == ts for zero-length slices), if any.
    [[nodiscard]] SliceIndex sliceAt(TimeNs t) const;
    /// The deepest slice containing t at or above `maxDepth`.
    [[nodiscard]] SliceIndex sliceAt(TimeNs t, std::size_t maxDepth) const;

    /// Where the previous sliceAt(t, cursor) call left off at each depth. Lookups at nearby times (a batch
    /// sorted or mostly sorted by time, as flow ends are) then cost a few steps instead of a binary search
    /// over the whole depth each; any order gives the same answers as sliceAt(t).
    struct Cursor
    {
        std::vector<std::size_t> position;
    };
    [[nodiscard]] SliceIndex sliceAt(TimeNs t, Cursor& cursor) const;

    /// Earliest start and latest end of the slices (and counter samples) on this track.
    [[nodiscard]] TimeNs startNs() const { return m_start; }
    [[nodiscard]] TimeNs endNs() const { return m_end; }
    /// Union of top-level slice time (time the track is busy).
    [[nodiscard]] TimeNs busyNs() const { return m_busy; }

    // Counter tracks: samples sorted by time.
    [[nodiscard]] std::span<const TimeNs> counterTimes() const { return m_counterTs; }
    [[nodiscard]] std::span<const double> counterValues() const { return m_counterValues; }

    /// Bytes the slice columns and indexes of this track take.
    [[nodiscard]] std::size_t bytesUsed() const;

private:
    friend class TraceBuilder;
    friend class SnapshotAccess;
    PodBuffer<TimeNs> m_ts;
    PodBuffer<TimeNs> m_dur;
    PodBuffer<StringId> m_name;
    PodBuffer<StringId> m_rawCategory;
    ColumnVector<std::uint32_t> m_parent;
    PodBuffer<std::uint32_t> m_args;
    ColumnVector<std::uint16_t> m_depth;
    PodBuffer<std::uint8_t> m_category;
    PodBuffer<std::uint8_t> m_flags;
    std::vector<ColumnVector<std::uint32_t>> m_byDepth;
    std::vector<SummaryLevels> m_summaries; // [depth][level][bucket]
    ColumnVector<TimeNs> m_counterTs;
    ColumnVector<double> m_counterValues;
    TimeNs m_start = 0;
    TimeNs m_end = 0;
    TimeNs m_busy = 0;
};

/// A track whose slices are device work: a GPU/NPU stream, copy engine or communication plane of a device.
/// Host threads, counters and annotation lanes are not, and neither is a "communication" row of a CPU (host
/// collectives are host work). The one definition every layer uses.
[[nodiscard]] inline bool isDeviceTrack(const Track& track)
{
    return track.deviceKind != DeviceKind::Cpu
        && (track.role == TrackRole::DeviceCompute || track.role == TrackRole::DeviceCopy
            || track.role == TrackRole::Communication);
}

/// Bytes each slice costs in the columns plus the per-depth index (summaries add about 1/kSummaryFanout more).
inline constexpr std::size_t kBytesPerSlice = sizeof(TimeNs) * 2 + sizeof(StringId) * 2 + sizeof(std::uint32_t) * 2
    + sizeof(std::uint16_t) + sizeof(std::uint8_t) * 2 + sizeof(std::uint32_t);
static_assert(kBytesPerSlice + sizeof(SummaryBucket) / kSummaryFanout < 64,
              "a slice must cost well under 64 bytes including indexes");

} // namespace timesink::model
