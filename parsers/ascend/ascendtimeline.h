// SPDX-License-Identifier: MIT
#pragma once

#include "model/podbuffer.h"
#include "model/tracebuilder.h"
#include "parsers/ascendcommon/ascendtasktype.h"
#include "parsers/ascendcsv/ascendcsvtables.h"
#include "parsers/chromejson/chromeeventreader.h"
#include "parsers/common/beginend.h"
#include "parsers/common/flowpairing.h"

#include <array>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace timesink::parsers {

class AscendKernelArgs;
class CommunicationOpJoin;
class AscendTracks;

/// The last N answers of a lookup whose keys come back in a short cycle (torch_npu's events alternate between a
/// few processes and threads): a scan of N pairs instead of a hash lookup, the oldest answer replaced first.
template <typename Key, typename Value, std::size_t N = 4> class RecentAnswers
{
public:
    [[nodiscard]] const Value* find(const Key& key) const
    {
        for (std::size_t i = 0; i < m_filled; ++i) {
            if (m_keys[i] == key)
                return &m_values[i];
        }
        return nullptr;
    }
    void remember(const Key& key, const Value& value)
    {
        m_keys[m_next] = key;
        m_values[m_next] = value;
        m_next = (m_next + 1) % N;
        if (m_filled < N)
            ++m_filled; // slots fill in order
    }

private:
    std::array<Key, N> m_keys {};
    std::array<Value, N> m_values {};
    std::size_t m_filled = 0; // slots [0, m_filled) hold answers
    std::size_t m_next = 0;
};

/// The torch_npu `trace_view.json` / msprof `msprof_*.json` dialect of the Chrome trace format, read with the
/// shared streaming ChromeEventReader (the same path as Kineto). One instance reads one timeline, possibly
/// sliced into several files (`msprof_slice_0_….json`, `msprof_slice_1_….json`), then finish() completes it.
///
/// Lanes and categories:
///   Python (cpu_op / python_function / enqueue / dequeue) → host threads (HostOp, PythonFrame, Step, Dataloader);
///   CANN (`AscendCL@…`) → host threads, RuntimeApi;
///   Ascend Hardware → one DeviceCompute Npu track per stream, category from `Task Type` joined with
///     kernel_details / op_summary (same start ns and name) for the accelerator core and op type;
///   HCCL → Communication tracks;  Overlap Analysis → Synthetic tracks;  `C` events → Counter tracks;
///   flows `HostToDevice` (string ids, may exceed 64 bits), `async_npu`, `async_task_queue`, `fwdbwd`.
///   `B`/`E` pairs (matched per thread by the shared BeginEndMatcher) become slices as X events do;
///   an `E` with nothing open is skipped, a `B` never closed ends at the timeline's last timestamp (kUnmatched).
///
/// Events go into the builder as they stream, like Kineto's. A process is named by a `process_name` M event
/// that the writers put after many of its events (torch_npu: after the whole Python section; the generated
/// benchmark file: at the very end), so an event of a process not yet named is placed by what it says itself
/// (`Task Type` → device, `level` or `AscendCL@` → CANN, cat `cpu_op` … → Python). When the name arrives and
/// contradicts such a guess, needsReplay() turns true and the importer reads the files again with every name
/// known from the start (processNames()). Events whose track needs a name that may still come (HCCL and
/// overlap lanes are named by `thread_name`, unnamed processes by `process_name`) and host↔device copies
/// (their direction comes from the launching op through flows) are kept compactly until finish().
///
/// Example: {"name":"MEMCPY_ASYNC","pid":9,"tid":2,"ts":"1736408883700059.821","dur":840.07675,
///           "args":{"Task Type":"PCIE_DMA_SQE"},"ph":"X"} with pid 9 named "Ascend Hardware"
///   → Memcpy slice at 1736408883700059821 ns, 840077 ns long, on "Stream 2"; its direction comes from the
///     Python op that launched it (`acl_memcpy_host_to_device` → HostToDevice) through the async_npu flow.
class AscendTimeline
{
public:
    /// Process names by pid, as the `process_name` M events give them.
    using ProcessNames = std::unordered_map<std::int64_t, std::string>;

    /// `knownNames`: the names of a first read of the same files (replay); their M events are then ignored.
    AscendTimeline(model::TraceBuilder& builder, AscendTracks& tracks, const KernelTable* kernels, std::int32_t device,
                   const ProcessNames* knownNames = nullptr);
    ~AscendTimeline();
    AscendTimeline(const AscendTimeline&) = delete;
    AscendTimeline& operator=(const AscendTimeline&) = delete;

    /// Streams one file of the timeline. Fatal errors (cannot read, not JSON) come back in the result; event
    /// problems and truncation are builder warnings.
    chromejson::ChromeReadResult readFile(const std::filesystem::path& path, const ImportOptions& options,
                                          ProgressSink& progress);

    /// Adds what was kept back (unnamed processes, HCCL/overlap lanes, copies, counters) and the flows.
    void finish();

    /// A process name arrived that contradicts how its earlier events were placed (or renamed a process whose
    /// name was already used): the builder holds misplaced slices, so the import must start again with a fresh
    /// builder and `AscendTimeline(…, &processNames())`. Never true for a timeline constructed with names.
    [[nodiscard]] bool needsReplay() const { return m_needsReplay; }
    [[nodiscard]] const ProcessNames& processNames() const { return m_processNames; }

    [[nodiscard]] std::uint64_t deviceTasks() const { return m_deviceTasks; }
    [[nodiscard]] std::uint64_t fallbackTasks() const { return m_fallbackTasks; }
    [[nodiscard]] std::uint64_t steps() const { return m_steps; }
    [[nodiscard]] std::uint64_t matchedKernelRows() const { return m_matchedKernelRows; }
    [[nodiscard]] std::uint64_t kernelRowsJoinable() const { return m_kernelRowsJoinable; }
    /// Step numbers of the ProfilerStep#N markers.
    [[nodiscard]] const std::vector<std::int64_t>& stepNumbers() const { return m_stepNumbers; }
    [[nodiscard]] bool sawCann() const { return m_sawCann; }
    /// communication.json's figures for the HCCL operations (Wait Time & co. as args of the operation slices);
    /// `join` outlives the timeline.
    void setCommunicationOps(CommunicationOpJoin* join) { m_commOps = join; }

    /// An X event as read: its fields, with its args in a separate vector (streamed) or in m_argPool (kept).
    struct Pending
    {
        model::TimeNs ts = 0;
        model::TimeNs dur = 0;
        std::int64_t pid = 0;
        std::int64_t tid = 0;
        model::StringId name;
        model::StringId cat;
        model::StringId taskType;   // device tasks: args "Task Type"
        std::uint64_t argBegin = 0; // kept events: their args in m_argPool
        std::uint32_t argCount = 0;
        bool uniqueArgs = false;  // carries a per-event id (connection_id, Sequence number): never deduplicated
        bool hasLevel = false;    // CANN API slices carry args "level"
        bool hasHcclArgs = false; // HCCL tasks carry "task type"/"transport type"/"alg_type"
        bool unmatched = false;   // a B event never closed by its E (kUnmatched)
    };
    /// One flow's two ends (s and f), paired by category and id text. Threads are indices into m_threads.
    struct PendingFlow
    {
        bool hasStart = false;
        bool hasEnd = false;
        bool bindEnclosing = true;
        std::uint32_t fromThread = 0;
        std::uint32_t toThread = 0;
        model::TimeNs fromTs = 0;
        model::TimeNs toTs = 0;
        model::StringId cat;
    };
    struct PendingCounter
    {
        std::int64_t pid = 0;
        model::TimeNs ts = 0;
        model::StringId series;
        double value = 0;
    };

private:
    friend class AscendTimelineSink;
    enum class Lane : std::uint8_t { Python, Cann, Device, Hccl, Overlap, Other };
    static constexpr std::uint8_t bit(Lane l) { return static_cast<std::uint8_t>(1U << static_cast<unsigned>(l)); }
    /// What is known of a pid while streaming.
    struct PidState
    {
        bool named = false;
        Lane namedLane = Lane::Other;
        bool nameUsed = false;    // something was placed using the name
        std::uint8_t guesses = 0; // lanes given to its events before it was named (bits)
    };
    PidState& pidState(std::int64_t pid);
    void onProcessName(std::int64_t pid, std::string_view name);
    /// Streams `e` (args in `args`) into the builder, or keeps it for finish().
    void accept(const Pending& e, std::vector<model::Arg>& args);
    /// Adds one slice; `args` are its raw args, extended by the kernel join.
    void emit(const Pending& e, Lane lane, std::vector<model::Arg>& args);
    void acceptCounter(const PendingCounter& c);
    void emitCounter(const PendingCounter& c);
    /// The lane an event's own fields point to (for pids without a process name).
    Lane contentLane(const Pending& e) const;
    Lane laneOf(const Pending& e) const;
    static Lane laneOfProcess(std::string_view processName);
    bool isHostDeviceCopy(const Pending& e) const;
    /// classifyAscendTask() of a task without a kernel row's core type, remembered by (Task Type, name): a
    /// trace has a few hundred such pairs and millions of tasks, and the classification is a few dozen string
    /// compares.
    AscendTaskClass taskClass(model::StringId taskType, model::StringId name) const;
    model::TrackId trackFor(const Pending& e, Lane lane);
    model::TrackId makeTrack(const Pending& e, Lane lane);
    const KernelRow* joinKernel(model::TimeNs ts, std::string_view name);

    struct TrackKey
    {
        std::int64_t pid = 0;
        std::int64_t tid = 0;
        Lane lane = Lane::Other;
        bool operator==(const TrackKey&) const = default;
    };
    struct TrackKeyHash
    {
        std::size_t operator()(const TrackKey& k) const;
    };
    std::unordered_map<TrackKey, model::TrackId, TrackKeyHash> m_trackCache;
    TrackKey m_lastTrackKey;
    model::TrackId m_lastTrack;
    std::unordered_map<std::int64_t, PidState> m_pids;
    /// The last few pids asked for: events alternate between three or four processes (framework, CANN, device).
    RecentAnswers<std::int64_t, PidState*> m_recentPids; // node-based map: the pointers stay valid
    const ProcessNames* m_knownNames = nullptr;
    bool m_needsReplay = false;

    /// kernel_details / op_summary rows by start (stable: equal starts keep table order).
    std::vector<std::pair<model::TimeNs, std::uint32_t>> m_kernelByStart;
    std::vector<bool> m_kernelMatched;
    model::TraceBuilder& m_b;
    AscendTracks& m_tracks;
    const KernelTable* m_kernels;
    std::int32_t m_device;
    model::StringId m_cpuOp;
    struct TaskClassSlot
    {
        std::uint64_t key = ~std::uint64_t {0}; // (Task Type << 32) | name; no pair of string ids is all ones
        AscendTaskClass cls;
    };
    mutable std::array<TaskClassSlot, 256> m_taskClasses {};
    model::StringId m_keyLauncher;
    std::unique_ptr<AscendKernelArgs> m_kernelArgs;
    CommunicationOpJoin* m_commOps = nullptr;

    std::vector<Pending> m_kept; // events placed at finish()
    /// A B event waiting for its E, with its args (B/E pairs span slice files, so the matcher lives here).
    struct OpenBegin
    {
        Pending event;
        std::vector<model::Arg> args;
    };
    BeginEndMatcher<OpenBegin> m_open; // by thread index
    model::TimeNs m_endTs = 0;         // the latest ts (or X end) read, where an unclosed B ends
    std::vector<model::Arg> m_argPool; // their args
    std::vector<PendingCounter> m_keptCounters;
    std::unordered_map<std::uint64_t, model::TrackId> m_counterTracks; // (pid, series) → track

    /// (pid, tid) pairs seen by flows and host calls, numbered densely so the per-event records stay small.
    std::uint32_t threadIndex(std::int64_t pid, std::int64_t tid);
    struct PairHash
    {
        std::size_t operator()(const std::pair<std::int64_t, std::int64_t>& k) const;
    };
    std::vector<std::pair<std::int64_t, std::int64_t>> m_threads;
    std::unordered_map<std::pair<std::int64_t, std::int64_t>, std::uint32_t, PairHash> m_threadIndex;
    RecentAnswers<std::pair<std::int64_t, std::int64_t>, std::uint32_t> m_recentThreads;

    /// Framework ops (lane Python, cat cpu_op) and CANN calls, to name what launched a host↔device copy.
    struct HostCall
    {
        std::uint32_t thread = 0;
        model::StringId name;
        model::TimeNs ts = 0;
        model::TimeNs dur = 0;
    };
    model::PodBuffer<HostCall> m_pythonOps;
    std::vector<HostCall> m_cannCalls; // only the APIs that say a copy's direction or that it is synchronous
    /// Whether a CANN API name says a copy's direction or is the synchronous aclrtMemcpy, by name id (-1: not
    /// yet known).
    bool isCopyApi(model::StringId name);
    std::vector<std::int8_t> m_copyApi;
    /// Set in finish() before copies are placed: copy (thread, ts) → the flow start that launched it.
    struct CopyLaunchers;
    std::unique_ptr<CopyLaunchers> m_copyLaunchers;
    void prepareCopyLaunchers(const std::vector<std::size_t>& copies);
    std::string_view enclosingPythonOp(std::uint32_t thread, model::TimeNs ts) const;

    /// Flow events by category and id (FlowPairing in this dialect: the last `s` of an id starts
    /// the flow, `t` is one more end). Categories walk by their interned id, text ids are interned in the pool.
    static constexpr FlowDialect kFlowDialect {FlowDialect::Start::Last, true};
    FlowPairing m_flows {kFlowDialect};
    /// Calls `fn(const PendingFlow&)` for each flow of `flows`, ordered by (category id, flow id): per id the last `s`
    /// is the start; the first `f` is the flow's end and every further `f` (one launch feeding several device tasks)
    /// becomes a flow of its own from the same start. `release` frees each category's events once it is done (the last
    /// pass).
    template <typename Fn> static void forEachFlow(FlowPairing& flows, Fn&& fn, bool release);
    ProcessNames m_processNames;
    std::map<std::pair<std::int64_t, std::int64_t>, std::string> m_threadNames;
    std::vector<std::int64_t> m_stepNumbers;
    std::uint64_t m_deviceTasks = 0;
    std::uint64_t m_fallbackTasks = 0;
    std::uint64_t m_steps = 0;
    std::uint64_t m_matchedKernelRows = 0;
    std::uint64_t m_kernelRowsJoinable = 0;
    bool m_sawCann = false;
};

} // namespace timesink::parsers
