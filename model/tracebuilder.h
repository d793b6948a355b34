// SPDX-License-Identifier: MIT
#pragma once

#include "model/columnvector.h"
#include "model/importwarning.h"
#include "model/podbuffer.h"
#include "model/trace.h"
#include "model/workers.h"

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace timesink::model {

/// Everything about a track that an importer knows when it first meets it.
struct TrackInfo
{
    std::string_view name;
    std::string_view processName;
    std::string_view threadName;
    std::string_view processKey;
    std::string_view threadKey;
    DeviceKind deviceKind = DeviceKind::Cpu;
    TrackRole role = TrackRole::HostThread;
    std::int32_t deviceIndex = -1;
    std::int64_t streamId = -1;
    std::int32_t sortIndex = 0;
};

/// A complete slice as an importer hands it over.
struct SliceInput
{
    TimeNs ts = 0;
    TimeNs dur = 0;
    StringId name;
    SliceCategory category = SliceCategory::Other;
    StringId rawCategory;
    ArgSetId args;
    std::uint8_t flags = 0;

    SliceInput& setMemcpy(MemcpyDirection d, HostMemoryKind m)
    {
        flags = static_cast<std::uint8_t>((flags & ~(SliceFlags::kDirectionMask | SliceFlags::kMemoryMask))
                                          | static_cast<std::uint8_t>(d)
                                          | (static_cast<std::uint8_t>(m) << SliceFlags::kMemoryShift));
        return *this;
    }
};

/// Builds a Trace: importers (and tests) add tracks, slices, flows, steps and warnings in any order,
/// then finalize() sorts, nests, indexes and freezes it.
///
/// Slice references returned by the builder are *pre-sort* handles: they stay valid for addFlow()
/// and addStep() and are remapped to final indices by finalize().
///
/// Test example:
///   TraceBuilder b;
///   auto host = b.hostThread("main");
///   auto gpu = b.deviceStream(0, 7);
///   auto launch = b.slice(host, SliceCategory::RuntimeApi, "cudaLaunchKernel", 0, 10);
///   auto k = b.slice(gpu, SliceCategory::Kernel, "conv", 20, 100);
///   b.addFlow(launch, k);
///   TracePtr t = b.finalize();
class TraceBuilder
{
public:
    TraceBuilder();
    TraceBuilder(const TraceBuilder&) = delete;
    TraceBuilder& operator=(const TraceBuilder&) = delete;
    ~TraceBuilder();

    StringId intern(std::string_view text) { return m_trace->m_strings.intern(text); }
    [[nodiscard]] std::string_view str(StringId id) const { return m_trace->m_strings.view(id); }
    ArgSetId addArgs(std::span<const Arg> args) { return m_trace->m_args.add(args); }
    /// For arg sets that carry a per-event id and can never repeat (see ArgStore::addUnique).
    ArgSetId addUniqueArgs(std::span<const Arg> args) { return m_trace->m_args.addUnique(args); }
    TraceMetadata& metadata() { return m_trace->m_metadata; }

    TrackId addTrack(const TrackInfo& info);
    [[nodiscard]] std::size_t trackCount() const { return m_trace->m_tracks.size(); }
    [[nodiscard]] const Track& track(TrackId id) const { return m_trace->m_tracks[id.value]; }
    /// Renames a track (thread names often arrive after the first events).
    void setTrackNames(TrackId id, std::string_view name, std::string_view processName, std::string_view threadName);
    void setTrackSortIndex(TrackId id, std::int32_t sortIndex);

    /// Adds a slice; a slice that starts or ends outside ±kMaxTimeNs (model/checkedmath.h) is dropped, counted as
    /// the warning "time_out_of_range", and an invalid ref is returned.
    SliceRef addSlice(TrackId track, const SliceInput& slice);
    [[nodiscard]] std::size_t sliceCount() const { return m_sliceCount; }
    void addCounterSample(TrackId track, TimeNs ts, double value);

    void addFlow(SliceRef from, SliceRef to, FlowKind kind = FlowKind::Launch);
    /// A flow given by its endpoints' times (Chrome `s`/`f` events). The source binds to the deepest
    /// slice enclosing `fromTs` on `fromTrack`; the target binds to the enclosing slice when
    /// `bindEnclosing` (Chrome `"bp": "e"`), else to the next slice starting at or after `toTs`.
    /// Unresolvable flows are counted as the warning "flow_unresolved".
    void addFlowAt(TrackId fromTrack, TimeNs fromTs, TrackId toTrack, TimeNs toTs, FlowKind kind, bool bindEnclosing);

    class FlowFeed;
    /// Runs `job(FlowFeed&)` on a thread of its own, starting now, while the importer goes on and finalize()
    /// sorts the tracks: for a long walk that pairs flow events into time-addressed flows. The job may use only
    /// the FlowFeed it is given and data it owns (no other call of this builder). finalize() waits for it once the
    /// tracks are sorted and binds its flows after those added by addFlowAt(), as if it had added them then; an
    /// exception thrown by the job is rethrown there. One job at a time: another call first waits for the last.
    template <typename Job> void addFlowsConcurrently(Job&& job);

    void addStep(std::int64_t number, StringId name, TimeNs start, TimeNs end, SliceRef marker = {});

    /// Counts one (or `count`) occurrence of a warning kind; the first message is kept.
    void warn(ImportWarningKind kind, std::string_view message, std::uint64_t count = 1);
    [[nodiscard]] std::uint64_t warningCount(ImportWarningKind kind) const;
    /// The warnings so far (for an importer's error when nothing usable was read).
    [[nodiscard]] std::span<const ImportWarning> warnings() const { return m_trace->m_warnings; }

    /// Sorts, computes depth/parent, builds indexes and summaries, resolves flows, creates the
    /// synthetic step when there are none, and freezes the trace. The builder is empty afterwards.
    TracePtr finalize();

    /// How long the last finalize() took, and the part of it that bound time-addressed flows (for benchmarks).
    struct FinalizeTimes
    {
        std::uint64_t totalNs = 0;
        std::uint64_t flowBindingNs = 0;
    };
    [[nodiscard]] const FinalizeTimes& lastFinalizeTimes() const { return m_finalizeTimes; }

    // ---- Conveniences for tests and simple importers ----
    TrackId hostThread(std::string_view name = "main", std::int64_t pid = 1, std::int64_t tid = 1);
    TrackId deviceStream(std::int32_t device, std::int64_t stream, DeviceKind kind = DeviceKind::Gpu,
                         TrackRole role = TrackRole::DeviceCompute);
    SliceRef slice(TrackId track, SliceCategory category, std::string_view name, TimeNs ts, TimeNs dur,
                   std::span<const Arg> args = {});
    SliceRef memcpy(TrackId track, MemcpyDirection direction, HostMemoryKind memory, TimeNs ts, TimeNs dur,
                    std::string_view name = {});
    /// A ProfilerStep#N marker slice on `track` plus the step it defines.
    SliceRef step(TrackId track, std::int64_t number, TimeNs ts, TimeNs dur);

private:
    struct PendingFlowAt
    {
        TrackId fromTrack;
        TimeNs fromTs;
        TrackId toTrack;
        TimeNs toTs;
        FlowKind kind;
        bool bindEnclosing;
    };
    /// The time-addressed flows until finalize() binds them, packed: ~7 bytes a flow instead of PendingFlowAt's
    /// 32 (a 1 GB torch_npu trace holds 1.7 M, whose 56 MB of fresh pages were zeroed and faulted in on the sink
    /// thread). Each flow is a tag byte (kind, bindEnclosing, and whether each track is the previous flow's), the
    /// tracks that changed as varints, fromTs as a zigzag varint of its difference from the previous flow's, and
    /// toTs as one of its difference from fromTs. Every kChunk flows the differences start again from zero, so
    /// finalize() decodes chunks on several threads.
    class PendingFlows
    {
    public:
        static constexpr std::size_t kChunk = 4096;
        void push(const PendingFlowAt& flow);
        /// Adds `other`'s flows after these (taken as they are when this holds none).
        void append(PendingFlows&& other);
        [[nodiscard]] std::size_t size() const { return m_count; }
        [[nodiscard]] std::size_t chunkCount() const { return m_chunkOffsets.size(); }
        /// Calls fn(index, const PendingFlowAt&) for the flows of chunks [firstChunk, endChunk), in order.
        template <typename Fn> void decodeChunks(std::size_t firstChunk, std::size_t endChunk, Fn&& fn) const;

    private:
        PodBuffer<std::uint8_t> m_bytes;
        std::vector<std::size_t> m_chunkOffsets; // where each chunk's first flow starts in m_bytes
        PendingFlowAt m_previous {};
        std::size_t m_count = 0;
    };

public:
    /// What a job of addFlowsConcurrently() adds, kept apart from the builder until finalize() takes it.
    class FlowFeed
    {
    public:
        /// As TraceBuilder::addFlowAt().
        void addFlowAt(TrackId fromTrack, TimeNs fromTs, TrackId toTrack, TimeNs toTs, FlowKind kind,
                       bool bindEnclosing)
        {
            m_flows.push(PendingFlowAt {fromTrack, fromTs, toTrack, toTs, kind, bindEnclosing});
        }
        /// As TraceBuilder::warn(), once the job is done.
        void warn(ImportWarningKind kind, std::string message, std::uint64_t count = 1)
        {
            m_warnings.push_back(Warning {kind, std::move(message), count});
        }

    private:
        friend class TraceBuilder;
        struct Warning
        {
            ImportWarningKind kind;
            std::string message;
            std::uint64_t count;
        };
        PendingFlows m_flows;
        std::vector<Warning> m_warnings;
    };

private:
    /// Waits for the job of addFlowsConcurrently(), if any, and takes what it added.
    void joinFlowJob();
    void finalizeTrack(Track& track, ColumnVector<std::uint32_t>& oldToNew);
    void warnAboutDisjointClocks();
    void warnTimeOutOfRange();
    /// Replaces ill-formed UTF-8 in every string of the trace (pool, warnings, metadata) and says so once as the
    /// warning "invalid_utf8", so every writer can trust the text it is given.
    void makeTextValidUtf8();

    /// Track extents further apart than this (one day) are reported as the warning "disjoint_clocks".
    static constexpr TimeNs kDisjointClockGapNs = 86'400'000'000'000;

    std::unique_ptr<Trace> m_trace;
    PendingFlows m_flowsAt;                 // millions for torch_npu traces
    std::unique_ptr<FlowFeed> m_flowFeed;   // the job's, while it runs
    std::unique_ptr<WorkerGroup> m_flowJob; // after m_flowFeed: destroyed (joined) first
    std::map<std::string, std::size_t, std::less<>> m_warningIndex;
    std::size_t m_sliceCount = 0;
    FinalizeTimes m_finalizeTimes;
};

template <typename Job> void TraceBuilder::addFlowsConcurrently(Job&& job)
{
    joinFlowJob();
    m_flowFeed = std::make_unique<FlowFeed>();
    // A thread of its own when one is to be had, otherwise (a process at its thread limit) the job runs when
    // finalize() asks for its flows, with the same result.
    m_flowJob = std::make_unique<WorkerGroup>();
    m_flowJob->startOrDefer([feed = m_flowFeed.get(),
                             job = std::make_shared<std::decay_t<Job>>(std::forward<Job>(job))] { (*job)(*feed); });
}

} // namespace timesink::model
