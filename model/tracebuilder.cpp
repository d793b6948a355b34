// SPDX-License-Identifier: MIT
#include "model/tracebuilder.h"

#include "model/checkedmath.h"
#include "model/tracerules.h"
#include "model/utf8.h"
#include "model/varint.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <functional>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>

namespace timesink::model {

namespace {

// Sorts [first, last) stably by merging its ascending runs bottom-up: linear for data that is a few sorted runs
// (the usual shape of trace columns); data that is mostly unordered goes to std::stable_sort instead of merging
// thousands of tiny runs.
template <typename It, typename Less> void sortRuns(It first, It last, Less less)
{
    const auto n = static_cast<std::size_t>(std::distance(first, last));
    std::vector<It> runs {first};
    for (It i = first; i != last && std::next(i) != last; ++i) {
        if (less(*std::next(i), *i)) {
            runs.push_back(std::next(i));
            if (runs.size() > 64 && runs.size() > n / 16) {
                std::stable_sort(first, last, less);
                return;
            }
        }
    }
    runs.push_back(last);
    while (runs.size() > 2) {
        std::vector<It> merged {runs.front()};
        for (std::size_t r = 0; r + 2 < runs.size(); r += 2) {
            std::inplace_merge(runs[r], runs[r + 1], runs[r + 2], less);
            merged.push_back(runs[r + 2]);
        }
        if (runs.size() % 2 == 0)
            merged.push_back(runs.back()); // an odd run out waits for the next pass
        runs = std::move(merged);
    }
}

// Threads finalize may use: a few, and only for work big enough to pay for starting them.
std::size_t finalizeThreads(std::size_t items, std::size_t perThread)
{
    return std::clamp<std::size_t>(std::min<std::size_t>(items / perThread, hardwareThreads()), 1, 4);
}

constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
constexpr std::size_t kMaxDepth = std::numeric_limits<std::uint16_t>::max();

template <typename Column> // PodBuffer or std::vector
void permute(Column& column, const ColumnVector<std::uint32_t>& order)
{
    Column sorted;
    sorted.reserve(column.size());
    for (std::uint32_t i : order)
        sorted.push_back(column[i]);
    column = std::move(sorted);
}

SliceCategory dominantOf(const std::array<TimeNs, kSliceCategoryCount>& time)
{
    std::size_t best = static_cast<std::size_t>(SliceCategory::Other);
    TimeNs bestTime = -1;
    for (std::size_t c = 0; c < time.size(); ++c) {
        if (time[c] > bestTime) {
            bestTime = time[c];
            best = c;
        }
    }
    return static_cast<SliceCategory>(best);
}
} // namespace

TraceBuilder::TraceBuilder()
    : m_trace(new Trace())
{
}

TraceBuilder::~TraceBuilder() = default;

TrackId TraceBuilder::addTrack(const TrackInfo& info)
{
    Track t;
    t.id = TrackId(static_cast<std::uint32_t>(m_trace->m_tracks.size()));
    t.name = intern(info.name);
    t.processName = intern(info.processName);
    t.threadName = intern(info.threadName);
    t.processKey = intern(info.processKey);
    t.threadKey = intern(info.threadKey);
    t.deviceKind = info.deviceKind;
    t.role = info.role;
    t.deviceIndex = info.deviceIndex;
    t.streamId = info.streamId;
    t.sortIndex = info.sortIndex;
    m_trace->m_tracks.push_back(std::move(t));
    return m_trace->m_tracks.back().id;
}

void TraceBuilder::setTrackNames(TrackId id, std::string_view name, std::string_view processName,
                                 std::string_view threadName)
{
    Track& t = m_trace->m_tracks[id.value];
    t.name = intern(name);
    t.processName = intern(processName);
    t.threadName = intern(threadName);
}

void TraceBuilder::setTrackSortIndex(TrackId id, std::int32_t sortIndex)
{
    m_trace->m_tracks[id.value].sortIndex = sortIndex;
}

SliceRef TraceBuilder::addSlice(TrackId trackId, const SliceInput& s)
{
    // The import boundary for time: a slice must start and end inside the representable range, so spans and
    // differences computed later never overflow. Importers add their offsets with saturatingAdd(), which pushes
    // an overflowing time out of the range, and it is dropped here.
    if (!sliceTimesInRange(s.ts, std::max<TimeNs>(0, s.dur))) {
        warnTimeOutOfRange();
        return {};
    }
    Track& t = m_trace->m_tracks[trackId.value];
    const auto index = static_cast<std::uint32_t>(t.m_ts.size());
    if (index == 0) {
        // A track's first slice gets columns of one: a trace of 100,000s of single-slice tracks then needs no
        // shrinking in finalize (a realloc and a freed remainder per column and track); a second slice grows them
        // to the usual first block.
        t.m_ts.reserve(1);
        t.m_dur.reserve(1);
        t.m_name.reserve(1);
        t.m_rawCategory.reserve(1);
        t.m_args.reserve(1);
        t.m_category.reserve(1);
        t.m_flags.reserve(1);
    }
    t.m_ts.push_back(s.ts);
    t.m_dur.push_back(std::max<TimeNs>(0, s.dur));
    t.m_name.push_back(s.name);
    t.m_rawCategory.push_back(s.rawCategory);
    t.m_args.push_back(s.args.value);
    t.m_category.push_back(static_cast<std::uint8_t>(s.category));
    t.m_flags.push_back(s.flags);
    ++m_sliceCount;
    return SliceRef {trackId, SliceIndex(index)};
}

void TraceBuilder::addCounterSample(TrackId trackId, TimeNs ts, double value)
{
    if (!timeInRange(ts)) {
        warnTimeOutOfRange();
        return;
    }
    Track& t = m_trace->m_tracks[trackId.value];
    t.m_counterTs.push_back(ts);
    t.m_counterValues.push_back(value);
}

void TraceBuilder::addFlow(SliceRef from, SliceRef to, FlowKind kind)
{
    if (from.isValid() && to.isValid())
        m_trace->m_flows.push_back(Flow {from, to, kind});
}

void TraceBuilder::addFlowAt(TrackId fromTrack, TimeNs fromTs, TrackId toTrack, TimeNs toTs, FlowKind kind,
                             bool bindEnclosing)
{
    m_flowsAt.push(PendingFlowAt {fromTrack, fromTs, toTrack, toTs, kind, bindEnclosing});
}

namespace {
constexpr std::uint8_t kFlowKindMask = 0x07;
constexpr std::uint8_t kFlowBindEnclosing = 0x08;
constexpr std::uint8_t kFlowSameFromTrack = 0x10;
constexpr std::uint8_t kFlowSameToTrack = 0x20;
static_assert(static_cast<unsigned>(FlowKind::Other) <= kFlowKindMask, "a flow's kind fits its tag bits");
} // namespace

void TraceBuilder::PendingFlows::push(const PendingFlowAt& flow)
{
    if (m_count % kChunk == 0) {
        m_chunkOffsets.push_back(m_bytes.size());
        m_previous = PendingFlowAt {};
    }
    // Written in place, as FlowRecordList::push does: a copy of a variable length is a call to memcpy a flow.
    const std::size_t before = m_bytes.size();
    std::uint8_t* const bytes = m_bytes.extend(1 + 4 * varint::kMaxBytes);
    std::uint8_t* out = bytes + 1;
    auto tag = static_cast<std::uint8_t>(static_cast<std::uint8_t>(flow.kind) & kFlowKindMask);
    if (flow.bindEnclosing)
        tag |= kFlowBindEnclosing;
    if (flow.fromTrack == m_previous.fromTrack)
        tag |= kFlowSameFromTrack;
    else
        out = varint::put(out, flow.fromTrack.value);
    if (flow.toTrack == m_previous.toTrack)
        tag |= kFlowSameToTrack;
    else
        out = varint::put(out, flow.toTrack.value);
    out = varint::put(out, varint::zigzag(flow.fromTs, m_previous.fromTs));
    out = varint::put(out, varint::zigzag(flow.toTs, flow.fromTs));
    bytes[0] = tag;
    m_bytes.truncate(before + static_cast<std::size_t>(out - bytes));
    m_previous = flow;
    ++m_count;
}

template <typename Fn>
void TraceBuilder::PendingFlows::decodeChunks(std::size_t firstChunk, std::size_t endChunk, Fn&& fn) const
{
    for (std::size_t c = firstChunk; c < endChunk && c < m_chunkOffsets.size(); ++c) {
        const std::uint8_t* p = m_bytes.data() + m_chunkOffsets[c];
        const std::size_t first = c * kChunk;
        const std::size_t end = std::min(first + kChunk, m_count);
        PendingFlowAt f {};
        for (std::size_t i = first; i < end; ++i) {
            const std::uint8_t tag = *p++;
            f.kind = static_cast<FlowKind>(tag & kFlowKindMask);
            f.bindEnclosing = (tag & kFlowBindEnclosing) != 0;
            if (!(tag & kFlowSameFromTrack))
                f.fromTrack = TrackId(static_cast<std::uint32_t>(varint::get(p)));
            if (!(tag & kFlowSameToTrack))
                f.toTrack = TrackId(static_cast<std::uint32_t>(varint::get(p)));
            f.fromTs = varint::unzigzag(f.fromTs, varint::get(p));
            f.toTs = varint::unzigzag(f.fromTs, varint::get(p));
            fn(i, std::as_const(f));
        }
    }
}

void TraceBuilder::PendingFlows::append(PendingFlows&& other)
{
    if (m_count == 0) {
        *this = std::move(other);
        return;
    }
    other.decodeChunks(0, other.chunkCount(), [this](std::size_t, const PendingFlowAt& f) { push(f); });
    other = PendingFlows();
}

void TraceBuilder::joinFlowJob()
{
    if (!m_flowJob)
        return;
    const std::unique_ptr<WorkerGroup> job = std::move(m_flowJob);
    const std::unique_ptr<FlowFeed> feed = std::move(m_flowFeed);
    job->join(); // rethrows what the job threw
    m_flowsAt.append(std::move(feed->m_flows));
    for (const FlowFeed::Warning& w : feed->m_warnings)
        warn(w.kind, w.message, w.count);
}

void TraceBuilder::addStep(std::int64_t number, StringId name, TimeNs start, TimeNs end, SliceRef marker)
{
    if (!timeInRange(start) || !timeInRange(end)) {
        warnTimeOutOfRange();
        return;
    }
    m_trace->m_steps.push_back(Step {number, name, start, std::max(start, end), marker, false});
}

void TraceBuilder::warn(ImportWarningKind kind, std::string_view message, std::uint64_t count)
{
    const std::string_view k = key(kind);
    auto it = m_warningIndex.find(k);
    if (it == m_warningIndex.end()) {
        m_warningIndex.emplace(std::string(k), m_trace->m_warnings.size());
        m_trace->m_warnings.push_back(ImportWarning {std::string(k), count, std::string(message)});
        return;
    }
    m_trace->m_warnings[it->second].count += count;
}

void TraceBuilder::warnTimeOutOfRange()
{
    warn(ImportWarningKind::TimeOutOfRange,
         "events whose time lies beyond ±146 years of the clock's zero (or overflows when added to the time base) "
         "were dropped");
}

void TraceBuilder::makeTextValidUtf8()
{
    Trace& trace = *m_trace;
    std::size_t changed = trace.m_strings.makeValidUtf8();
    for (ImportWarning& w : trace.m_warnings)
        changed += static_cast<std::size_t>(makeValidUtf8(w.kind)) + static_cast<std::size_t>(makeValidUtf8(w.message));
    TraceMetadata& m = trace.m_metadata;
    for (std::string* text : {&m.format, &m.formatVersion, &m.sourcePath, &m.profilerLevel})
        changed += static_cast<std::size_t>(makeValidUtf8(*text));
    for (Device& d : m.devices)
        changed += static_cast<std::size_t>(makeValidUtf8(d.name));
    for (auto& [key, value] : m.properties)
        changed += static_cast<std::size_t>(makeValidUtf8(key)) + static_cast<std::size_t>(makeValidUtf8(value));
    if (changed > 0) {
        warn(ImportWarningKind::InvalidUtf8,
             "names or messages held bytes that are not UTF-8 (e.g. a GBK console log); they were replaced by U+FFFD",
             changed);
    }
}

std::uint64_t TraceBuilder::warningCount(ImportWarningKind kind) const
{
    auto it = m_warningIndex.find(key(kind));
    return it == m_warningIndex.end() ? 0 : m_trace->m_warnings[it->second].count;
}

void TraceBuilder::finalizeTrack(Track& t, ColumnVector<std::uint32_t>& oldToNew)
{
    const std::size_t n = t.m_ts.size();
    oldToNew.clear();

    // Sort by (ts, -dur); the stable sort keeps the source order of identical slices.
    bool sorted = true;
    for (std::size_t i = 1; i < n && sorted; ++i)
        sorted = t.m_ts[i - 1] < t.m_ts[i] || (t.m_ts[i - 1] == t.m_ts[i] && t.m_dur[i - 1] >= t.m_dur[i]);
    if (!sorted) {
        ColumnVector<std::uint32_t> order(n);
        std::iota(order.begin(), order.end(), 0U);
        // Usually a few sorted runs (a parent written after its children, a step marker at the end).
        sortRuns(order.begin(), order.end(), [&t](std::uint32_t a, std::uint32_t b) {
            if (t.m_ts[a] != t.m_ts[b])
                return t.m_ts[a] < t.m_ts[b];
            return t.m_dur[a] > t.m_dur[b];
        });
        permute(t.m_ts, order);
        permute(t.m_dur, order);
        permute(t.m_name, order);
        permute(t.m_rawCategory, order);
        permute(t.m_args, order);
        permute(t.m_category, order);
        permute(t.m_flags, order);
        oldToNew.resize(n);
        for (std::uint32_t k = 0; k < n; ++k)
            oldToNew[order[k]] = k;
    }

    // Depth and parent with a stack of open slices. A slice that starts inside the top but ends after it
    // (a partial overlap, which only broken sources produce) goes one level deeper without a parent, which
    // keeps the invariant that slices of one depth never overlap.
    t.m_depth.assign(n, 0);
    t.m_parent.assign(n, kNone);
    t.m_byDepth.clear();
    thread_local std::vector<std::uint32_t> stack; // kept between tracks: one allocation per thread, not per track
    stack.clear();
    for (std::uint32_t i = 0; i < n; ++i) {
        const TimeNs ts = t.m_ts[i];
        const TimeNs end = ts + t.m_dur[i];
        while (!stack.empty()) {
            const std::uint32_t top = stack.back();
            const TimeNs topEnd = t.m_ts[top] + t.m_dur[top];
            if (topEnd > ts)
                break;
            stack.pop_back();
        }
        if (stack.size() >= kMaxDepth)
            stack.resize(kMaxDepth - 1);
        for (std::size_t k = stack.size(); k-- > 0;) {
            const std::uint32_t cand = stack[k];
            if (t.m_ts[cand] + t.m_dur[cand] >= end) {
                t.m_parent[i] = cand;
                break;
            }
        }
        if (!stack.empty() && t.m_parent[i] != stack.back())
            t.m_flags[i] |= SliceFlags::kPartialOverlap;
        const auto depth = static_cast<std::uint16_t>(stack.size());
        t.m_depth[i] = depth;
        if (t.m_byDepth.size() <= depth)
            t.m_byDepth.resize(depth + 1);
        t.m_byDepth[depth].push_back(i);
        stack.push_back(i);
    }

    // Summaries: level 0 merges kSummaryFanout consecutive slices of one depth, each further level merges
    // kSummaryFanout buckets of the level below, until a level has a single bucket.
    t.m_summaries.assign(t.m_byDepth.size(), {});
    for (std::size_t d = 0; d < t.m_byDepth.size(); ++d) {
        const auto& idx = t.m_byDepth[d];
        if (idx.size() <= kSummaryFanout)
            continue;
        auto& levels = t.m_summaries[d];
        ColumnVector<SummaryBucket> level;
        level.reserve(idx.size() / kSummaryFanout + 1);
        for (std::size_t b = 0; b < idx.size(); b += kSummaryFanout) {
            std::array<TimeNs, kSliceCategoryCount> time {};
            SummaryBucket bucket;
            bucket.start = t.m_ts[idx[b]];
            const std::size_t e = std::min(idx.size(), b + kSummaryFanout);
            for (std::size_t k = b; k < e; ++k) {
                const std::uint32_t i = idx[k];
                bucket.end = std::max(bucket.end, t.m_ts[i] + t.m_dur[i]);
                bucket.busyNs += t.m_dur[i];
                time[t.m_category[i]] += std::max<TimeNs>(1, t.m_dur[i]);
            }
            bucket.count = static_cast<std::uint32_t>(e - b);
            bucket.dominant = dominantOf(time);
            level.push_back(bucket);
        }
        levels.push_back(std::move(level));
        while (levels.back().size() > 1) {
            const auto& below = levels.back();
            ColumnVector<SummaryBucket> up;
            up.reserve(below.size() / kSummaryFanout + 1);
            for (std::size_t b = 0; b < below.size(); b += kSummaryFanout) {
                std::array<TimeNs, kSliceCategoryCount> time {};
                SummaryBucket bucket;
                bucket.start = below[b].start;
                const std::size_t e = std::min(below.size(), b + kSummaryFanout);
                for (std::size_t k = b; k < e; ++k) {
                    bucket.end = std::max(bucket.end, below[k].end);
                    bucket.busyNs += below[k].busyNs;
                    bucket.count += below[k].count;
                    time[static_cast<std::size_t>(below[k].dominant)] += std::max<TimeNs>(1, below[k].busyNs);
                }
                bucket.dominant = dominantOf(time);
                up.push_back(bucket);
            }
            levels.push_back(std::move(up));
        }
    }

    // Counter samples sorted by time.
    if (!std::is_sorted(t.m_counterTs.begin(), t.m_counterTs.end())) {
        ColumnVector<std::uint32_t> order(t.m_counterTs.size());
        std::iota(order.begin(), order.end(), 0U);
        std::stable_sort(order.begin(), order.end(),
                         [&t](std::uint32_t a, std::uint32_t b) { return t.m_counterTs[a] < t.m_counterTs[b]; });
        permute(t.m_counterTs, order);
        permute(t.m_counterValues, order);
    }

    // Extent and busy time.
    bool any = false;
    t.m_busy = 0;
    if (!t.m_byDepth.empty()) {
        for (std::uint32_t i : t.m_byDepth[0]) {
            t.m_busy += t.m_dur[i];
        }
    }
    for (std::size_t i = 0; i < n; ++i) {
        const TimeNs end = t.m_ts[i] + t.m_dur[i];
        t.m_start = any ? std::min(t.m_start, t.m_ts[i]) : t.m_ts[i];
        t.m_end = any ? std::max(t.m_end, end) : end;
        any = true;
    }
    if (!t.m_counterTs.empty()) {
        t.m_start = any ? std::min(t.m_start, t.m_counterTs.front()) : t.m_counterTs.front();
        t.m_end = any ? std::max(t.m_end, t.m_counterTs.back()) : t.m_counterTs.back();
    }

    t.m_ts.shrinkToFit();
    t.m_dur.shrinkToFit();
    t.m_name.shrinkToFit();
    t.m_rawCategory.shrinkToFit();
    t.m_args.shrinkToFit();
    t.m_category.shrinkToFit();
    t.m_flags.shrinkToFit();
    for (auto& d : t.m_byDepth)
        d.shrink_to_fit();
}

TracePtr TraceBuilder::finalize()
{
    using Clock = std::chrono::steady_clock;
    const auto nsSince = [](Clock::time_point t) {
        return static_cast<std::uint64_t>(
            std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t).count());
    };
    const Clock::time_point started = Clock::now();
    Trace& trace = *m_trace;
    std::vector<ColumnVector<std::uint32_t>> remap(trace.m_tracks.size());
    // Tracks are independent: the largest first, shared over a few threads when there is enough to sort.
    {
        std::vector<std::size_t> bySize(trace.m_tracks.size());
        std::iota(bySize.begin(), bySize.end(), std::size_t(0));
        std::sort(bySize.begin(), bySize.end(), [&](std::size_t a, std::size_t b) {
            return trace.m_tracks[a].m_ts.size() > trace.m_tracks[b].m_ts.size();
        });
        parallelFor(bySize.size(), finalizeThreads(m_sliceCount, 500000),
                    [&](std::size_t k) { finalizeTrack(trace.m_tracks[bySize[k]], remap[bySize[k]]); });
    }

    auto mapRef = [&](SliceRef r) -> SliceRef {
        if (!r.isValid() || r.track.value >= remap.size())
            return {};
        const Track& t = trace.m_tracks[r.track.value];
        if (r.index.value >= t.size())
            return {};
        const auto& m = remap[r.track.value];
        return m.empty() ? r : SliceRef {r.track, SliceIndex(m[r.index.value])};
    };

    const Clock::time_point flowsStarted = Clock::now();
    joinFlowJob(); // its flows are bound with the others; waiting for it counts as binding
    for (Flow& f : trace.m_flows) {
        f.from = mapRef(f.from);
        f.to = mapRef(f.to);
    }
    // Binding reads only the finalized tracks and is independent per flow. Flow ends arrive roughly in time order
    // per track, so cursors make each lookup a few steps; large batches (torch_npu: two flows per device task) are
    // split over a few threads with cursors of their own, each writing its flows' slots, which gives exactly what
    // one pass gives.
    auto bindChunks = [&](std::size_t firstChunk, std::size_t endChunk, Flow* out, std::uint64_t& unbound) {
        std::vector<Track::Cursor> fromCursors(trace.m_tracks.size());
        std::vector<Track::Cursor> toCursors(trace.m_tracks.size());
        m_flowsAt.decodeChunks(firstChunk, endChunk, [&](std::size_t i, const PendingFlowAt& p) {
            out[i] = Flow {}; // unbound until both ends are found; dropped below
            if (!p.fromTrack.isValid() || !p.toTrack.isValid() || p.fromTrack.value >= trace.m_tracks.size()
                || p.toTrack.value >= trace.m_tracks.size()) {
                ++unbound;
                return;
            }
            const Track& from = trace.m_tracks[p.fromTrack.value];
            const Track& to = trace.m_tracks[p.toTrack.value];
            const SliceIndex src = from.sliceAt(p.fromTs, fromCursors[p.fromTrack.value]);
            SliceIndex dst;
            if (p.bindEnclosing) {
                dst = to.sliceAt(p.toTs, toCursors[p.toTrack.value]);
            } else if (to.depthCount() > 0) {
                const auto& top = to.slicesAtDepth(0);
                auto it
                    = std::partition_point(top.begin(), top.end(), [&](std::uint32_t k) { return to.ts(k) < p.toTs; });
                if (it != top.end())
                    dst = SliceIndex(*it);
            }
            if (!src.isValid() || !dst.isValid()) {
                ++unbound;
                return;
            }
            out[i] = Flow {SliceRef {p.fromTrack, src}, SliceRef {p.toTrack, dst}, p.kind};
        });
    };
    const std::size_t pending = m_flowsAt.size();
    const std::size_t chunks = m_flowsAt.chunkCount();
    const std::size_t parts = finalizeThreads(pending, 250000);
    // Each pending flow binds into its own slot of the trace's flows, so the parts need no joining.
    const std::size_t firstPending = trace.m_flows.size();
    trace.m_flows.resize(firstPending + pending);
    Flow* const slots = trace.m_flows.data() + firstPending;
    std::vector<std::uint64_t> unbound(parts, 0);
    parallelFor(parts, parts,
                [&](std::size_t w) { bindChunks(chunks * w / parts, chunks * (w + 1) / parts, slots, unbound[w]); });
    std::uint64_t unresolved = 0;
    for (const std::uint64_t n : unbound)
        unresolved += n;
    m_flowsAt = PendingFlows();
    if (unresolved > 0)
        warn(ImportWarningKind::FlowUnresolved, "flow events whose start or end lies on no slice were dropped",
             unresolved);
    std::erase_if(trace.m_flows, [](const Flow& f) { return !f.from.isValid() || !f.to.isValid(); });
    // Flows arrive in runs by source thread; a stable order also makes "the first of two identical flows" (kept
    // by unique below) the first one added.
    sortRuns(trace.m_flows.begin(), trace.m_flows.end(),
             [](const Flow& a, const Flow& b) { return a.from != b.from ? a.from < b.from : a.to < b.to; });
    trace.m_flows.erase(std::unique(trace.m_flows.begin(), trace.m_flows.end(),
                                    [](const Flow& a, const Flow& b) { return a.from == b.from && a.to == b.to; }),
                        trace.m_flows.end());
    trace.m_flows.shrink_to_fit();
    // Flows by target, ties in flow order: bucket by target track (stable), then order each bucket by target
    // slice. Flows are sorted by source, and launches run in the same order on the device as on the host, so a
    // bucket is a few ascending runs (one per source thread: torch_npu's framework ops and CANN calls both launch
    // each device task), merged in linear passes.
    {
        std::vector<std::uint32_t> firstOfTrack(trace.m_tracks.size() + 1, 0);
        for (const Flow& f : trace.m_flows)
            ++firstOfTrack[f.to.track.value + 1];
        for (std::size_t t = 1; t < firstOfTrack.size(); ++t)
            firstOfTrack[t] += firstOfTrack[t - 1];
        trace.m_flowsByTarget.assign(trace.m_flows.size(), 0);
        std::vector<std::uint32_t> next(firstOfTrack.begin(), firstOfTrack.end() - 1);
        for (std::uint32_t i = 0; i < trace.m_flows.size(); ++i)
            trace.m_flowsByTarget[next[trace.m_flows[i].to.track.value]++] = i;
        const auto byTarget = [&](std::uint32_t a, std::uint32_t b) {
            const std::uint32_t ia = trace.m_flows[a].to.index.value;
            const std::uint32_t ib = trace.m_flows[b].to.index.value;
            return ia != ib ? ia < ib : a < b;
        };
        for (std::size_t t = 0; t + 1 < firstOfTrack.size(); ++t) {
            const auto first = trace.m_flowsByTarget.begin() + firstOfTrack[t];
            const auto last = trace.m_flowsByTarget.begin() + firstOfTrack[t + 1];
            sortRuns(first, last, byTarget);
        }
    }

    const std::uint64_t flowBindingNs = nsSince(flowsStarted);

    // Extent and counts.
    bool any = false;
    trace.m_sliceCount = 0;
    trace.m_categoryCounts.fill(0);
    for (const Track& t : trace.m_tracks) {
        trace.m_sliceCount += t.size();
        for (std::size_t i = 0; i < t.size(); ++i)
            ++trace.m_categoryCounts[t.m_category[i]];
        if (t.empty() && t.m_counterTs.empty())
            continue;
        trace.m_start = any ? std::min(trace.m_start, t.startNs()) : t.startNs();
        trace.m_end = any ? std::max(trace.m_end, t.endNs()) : t.endNs();
        any = true;
    }

    warnAboutDisjointClocks();
    // Last, so that it also covers the messages of the warnings above.
    makeTextValidUtf8();

    for (Step& s : trace.m_steps)
        s.marker = mapRef(s.marker);
    std::stable_sort(trace.m_steps.begin(), trace.m_steps.end(),
                     [](const Step& a, const Step& b) { return a.start < b.start; });
    if (trace.m_steps.empty()) {
        trace.m_steps.push_back(
            Step {0, trace.m_strings.intern("whole trace"), trace.m_start, trace.m_end, SliceRef {}, true});
    }

    // The importer says the platform when it knows it (Ascend, RKNN); a Kineto trace shows it by its devices.
    if (trace.m_metadata.platform == Platform::Generic)
        trace.m_metadata.platform = inferPlatform(trace);

    trace.m_args.shrinkToFit();
#ifndef NDEBUG
    // The rules the snapshot reader enforces on files (model/tracerules.h) hold for every trace built here; debug
    // builds (the sanitizer suite) check it on every trace the tests build.
    if (std::string issue = traceStructureIssue(trace); !issue.empty())
        throw std::logic_error("TraceBuilder::finalize broke a trace rule: " + issue);
#endif
    m_sliceCount = 0;
    m_warningIndex.clear();
    m_finalizeTimes = FinalizeTimes {nsSince(started), flowBindingNs};
    TracePtr frozen(m_trace.release());
    m_trace.reset(new Trace()); // NOLINT(modernize-make-unique): the constructor is private to friends
    return frozen;
}

void TraceBuilder::warnAboutDisjointClocks()
{
    // Track extents that cluster apart (e.g. one table of a database written on another day, or a source that
    // left timestamps at 0) stretch the span over years and squeeze the real work into a pixel. The data is kept
    // as it is; the user is told which tracks lie apart and by how much.
    struct Extent
    {
        TimeNs start;
        TimeNs end;
        std::uint32_t track;
    };
    std::vector<Extent> extents;
    for (const Track& t : m_trace->m_tracks) {
        if (!t.empty() || !t.m_counterTs.empty())
            extents.push_back(Extent {t.startNs(), t.endNs(), t.id.value});
    }
    if (extents.size() < 2)
        return;
    std::sort(extents.begin(), extents.end(), [](const Extent& a, const Extent& b) { return a.start < b.start; });
    struct Cluster
    {
        std::size_t first;
        std::size_t last; // exclusive
        TimeNs end;
        std::size_t slices;
    };
    std::vector<Cluster> clusters;
    for (std::size_t i = 0; i < extents.size(); ++i) {
        const Track& t = m_trace->m_tracks[extents[i].track];
        if (clusters.empty() || extents[i].start - clusters.back().end > kDisjointClockGapNs) {
            clusters.push_back(Cluster {i, i + 1, extents[i].end, t.size() + t.m_counterTs.size()});
        } else {
            Cluster& c = clusters.back();
            c.last = i + 1;
            c.end = std::max(c.end, extents[i].end);
            c.slices += t.size() + t.m_counterTs.size();
        }
    }
    if (clusters.size() < 2)
        return;
    const auto main = std::max_element(clusters.begin(), clusters.end(),
                                       [](const Cluster& a, const Cluster& b) { return a.slices < b.slices; });
    for (auto c = clusters.begin(); c != clusters.end(); ++c) {
        if (c == main)
            continue;
        const TimeNs startGap = extents[c->first].start - extents[main->first].start;
        std::string names;
        for (std::size_t i = c->first; i < c->last && i < c->first + 3; ++i) {
            const Track& t = m_trace->m_tracks[extents[i].track];
            names += (names.empty() ? "" : ", ") + std::string(str(t.processName)) + "/" + std::string(str(t.name));
        }
        if (c->last - c->first > 3)
            names += ", …";
        warn(ImportWarningKind::DisjointClocks,
             std::to_string(c->last - c->first) + " track(s) (" + names + ") start "
                 + std::to_string(startGap / 1'000'000'000) + " s "
                 + "from the bulk of the trace; their clock or time unit probably differs from the rest",
             c->last - c->first);
    }
}

// ---- Conveniences ----

TrackId TraceBuilder::hostThread(std::string_view name, std::int64_t pid, std::int64_t tid)
{
    const std::string pidText = std::to_string(pid);
    const std::string tidText = std::to_string(tid);
    const std::string process = "process " + pidText;
    return addTrack(
        TrackInfo {name, process, name, pidText, tidText, DeviceKind::Cpu, TrackRole::HostThread, -1, -1, 0});
}

TrackId TraceBuilder::deviceStream(std::int32_t device, std::int64_t stream, DeviceKind kind, TrackRole role)
{
    const std::string process = std::string(kind == DeviceKind::Gpu ? "GPU " : "NPU ") + std::to_string(device);
    const std::string name = "stream " + std::to_string(stream);
    return addTrack(
        TrackInfo {name, process, name, std::to_string(device), std::to_string(stream), kind, role, device, stream, 0});
}

SliceRef TraceBuilder::slice(TrackId track, SliceCategory category, std::string_view name, TimeNs ts, TimeNs dur,
                             std::span<const Arg> args)
{
    SliceInput in;
    in.ts = ts;
    in.dur = dur;
    in.name = intern(name);
    in.category = category;
    in.args = addArgs(args);
    return addSlice(track, in);
}

SliceRef TraceBuilder::memcpy(TrackId track, MemcpyDirection direction, HostMemoryKind memory, TimeNs ts, TimeNs dur,
                              std::string_view name)
{
    SliceInput in;
    in.ts = ts;
    in.dur = dur;
    in.name = intern(name.empty() ? std::string_view("Memcpy") : name);
    in.category = SliceCategory::Memcpy;
    in.setMemcpy(direction, memory);
    return addSlice(track, in);
}

SliceRef TraceBuilder::step(TrackId track, std::int64_t number, TimeNs ts, TimeNs dur)
{
    const std::string name = "ProfilerStep#" + std::to_string(number);
    const SliceRef marker = slice(track, SliceCategory::Step, name, ts, dur);
    addStep(number, intern(name), ts, ts + dur, marker);
    return marker;
}

} // namespace timesink::model
