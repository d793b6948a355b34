// SPDX-License-Identifier: MIT
#pragma once

#include "model/tracebuilder.h"
#include "parsers/ascendcsv/ascendcsvtables.h"
#include "parsers/chromejson/chromeeventreader.h"

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace timesink::parsers {

class AscendTracks;

/// The torch_npu `trace_view.json` / msprof `msprof_*.json` dialect of the Chrome trace format, read with the
/// shared streaming ChromeEventReader (the same path as Kineto). One instance reads one timeline, possibly
/// sliced into several files (`msprof_slice_0_….json`, `msprof_slice_1_….json`), then finish() adds it to the
/// builder.
///
/// Processes are named by `process_name` M events, which these writers emit *after* many of the events they
/// name, so events are kept compactly until finish() (memory stays proportional to the model):
///   Python (cpu_op / python_function / enqueue / dequeue) → host threads (HostOp, PythonFrame, Step, Dataloader);
///   CANN (`AscendCL@…`) → host threads, RuntimeApi;
///   Ascend Hardware → one DeviceCompute Npu track per stream, category from `Task Type` joined with
///     kernel_details / op_summary (same start ns and name) for the accelerator core and op type;
///   HCCL → Communication tracks;  Overlap Analysis → Synthetic tracks;  `C` events → Counter tracks;
///   flows `HostToDevice` (string ids, may exceed 64 bits), `async_npu`, `async_task_queue`, `fwdbwd`.
///
/// Example: {"name":"MEMCPY_ASYNC","pid":9,"tid":2,"ts":"1736408883700059.821","dur":840.07675,
///           "args":{"Task Type":"PCIE_DMA_SQE"},"ph":"X"} with pid 9 named "Ascend Hardware"
///   → Memcpy slice at 1736408883700059821 ns, 840077 ns long, on "Stream 2"; its direction comes from the
///     Python op that launched it (`acl_memcpy_host_to_device` → HostToDevice) through the async_npu flow.
class AscendTimeline
{
public:
    AscendTimeline(model::TraceBuilder& builder, AscendTracks& tracks, const KernelTable* kernels,
                   std::int32_t device);
    ~AscendTimeline();
    AscendTimeline(const AscendTimeline&) = delete;
    AscendTimeline& operator=(const AscendTimeline&) = delete;

    /// Streams one file of the timeline. Fatal errors (cannot read, not JSON) come back in the result; event
    /// problems and truncation are builder warnings.
    chromejson::ChromeReadResult readFile(const std::filesystem::path& path, const ImportOptions& options,
                                          ProgressSink& progress);

    /// Creates the tracks, slices, counters, flows and steps of everything read.
    void finish();

    [[nodiscard]] std::uint64_t deviceTasks() const { return m_deviceTasks; }
    [[nodiscard]] std::uint64_t fallbackTasks() const { return m_fallbackTasks; }
    [[nodiscard]] std::uint64_t steps() const { return m_steps; }
    [[nodiscard]] std::uint64_t matchedKernelRows() const { return m_matchedKernelRows; }
    [[nodiscard]] std::uint64_t kernelRowsJoinable() const { return m_kernelRowsJoinable; }
    /// Step numbers of the ProfilerStep#N markers.
    [[nodiscard]] const std::vector<std::int64_t>& stepNumbers() const { return m_stepNumbers; }
    [[nodiscard]] bool sawCann() const { return m_sawCann; }

    /// An X event kept until finish() (process names arrive late).
    struct Pending
    {
        model::TimeNs ts = 0;
        model::TimeNs dur = 0;
        std::int64_t pid = 0;
        std::int64_t tid = 0;
        model::StringId name;
        model::StringId cat;
        model::StringId taskType; // device tasks: args "Task Type"
        /// Device and HCCL tasks keep raw args in m_argPool (argBegin/argCount) because the kernel_details join
        /// extends them at finish(); every other event's args are stored at once (`args`, deduplicated).
        std::uint64_t argBegin = 0;
        std::uint32_t argCount = 0;
        bool argsInPool = false;
        bool uniqueArgs = false; // carries a per-event id (connection_id, Sequence number): never deduplicated
        model::ArgSetId args;
        bool hasLevel = false;    // CANN API slices carry args "level"
        bool hasHcclArgs = false; // HCCL tasks carry "task type"/"transport type"/"alg_type"
    };
    /// One flow's two ends (s and f), paired by category and id text.
    struct PendingFlow
    {
        bool hasStart = false;
        bool hasEnd = false;
        bool bindEnclosing = true;
        std::int64_t fromPid = 0;
        std::int64_t fromTid = 0;
        model::TimeNs fromTs = 0;
        std::int64_t toPid = 0;
        std::int64_t toTid = 0;
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
    Lane laneOf(const Pending& e) const;
    Lane laneOfProcess(const std::string& processName) const;
    model::TrackId trackFor(const Pending& e, Lane lane);
    model::TrackId makeTrack(const Pending& e, Lane lane);
    std::unordered_map<std::int64_t, Lane> m_pidLanes; // lanes of named processes, set at finish()
    std::map<std::tuple<std::int64_t, std::int64_t, Lane>, model::TrackId> m_trackCache;
    const KernelRow* joinKernel(model::TimeNs ts, std::string_view name);

    std::multimap<model::TimeNs, std::uint32_t> m_kernelByStart;
    std::vector<bool> m_kernelMatched;
    model::TraceBuilder& m_b;
    AscendTracks& m_tracks;
    const KernelTable* m_kernels;
    std::int32_t m_device;
    std::vector<Pending> m_events;
    std::vector<model::Arg> m_argPool;
    std::vector<PendingCounter> m_counters;
    /// A flow's identity: its category and its id. Ids are decimal strings that can exceed 64 bits, so a
    /// numeric id is kept exactly as a 128-bit value plus its digit count (leading zeros stay distinct);
    /// any other id text is interned. Comparing integers instead of strings keeps pairing off the profile.
    struct FlowKey
    {
        model::StringId cat;
        model::StringId text; // empty for numeric ids
        std::uint64_t hi = 0;
        std::uint64_t lo = 0;
        std::uint32_t digits = 0;
        auto operator<=>(const FlowKey&) const = default;
        bool operator==(const FlowKey&) const = default;
    };
    /// One `s` or `f` event as read; paired by key at finish() (a sort, not a hash map per event).
    struct FlowEvent
    {
        FlowKey key;
        std::int64_t pid = 0;
        std::int64_t tid = 0;
        model::TimeNs ts = 0;
        bool start = false;
        bool bindEnclosing = true;
    };
    FlowKey flowKey(std::string_view cat, std::string_view id);
    /// Pairs m_flowEvents: per key the last `s` is the start; the first `f` is the flow's end and every
    /// further `f` (one launch feeding several device tasks) becomes a flow of its own from the same start.
    std::vector<PendingFlow> pairFlows();
    std::vector<FlowEvent> m_flowEvents;
    std::unordered_map<std::int64_t, std::string> m_processNames;
    std::unordered_map<std::int64_t, std::string> m_processLabels;
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
