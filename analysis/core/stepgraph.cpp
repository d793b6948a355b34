// SPDX-License-Identifier: MIT
#include "analysis/core/stepgraph.h"

#include "analysis/core/deviceactivity.h"
#include "analysis/core/gallop.h"
#include "analysis/core/opclassifier.h"
#include "analysis/core/rknnfixall.h"
#include "analysis/core/savingreason.h"
#include "analysis/core/unrecorded.h"
#include "model/argnames.h"
#include "model/workers.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>

namespace timesink::analysis {

std::string_view pathClassKey(PathClass c)
{
    switch (c) {
    case PathClass::HostCompute:
        return "host_compute";
    case PathClass::Python:
        return "python";
    case PathClass::Dataloader:
        return "dataloader";
    case PathClass::Launch:
        return "launch";
    case PathClass::Sync:
        return "sync";
    case PathClass::DeviceCompute:
        return "device_compute";
    case PathClass::Copy:
        return "copy";
    case PathClass::Communication:
        return "communication";
    case PathClass::Fallback:
        return "fallback";
    case PathClass::Latency:
        return "latency";
    case PathClass::Unrecorded:
        return "unrecorded";
    case PathClass::ExternalWait:
        return "external_wait";
    }
    return "host_compute";
}

namespace {

using model::SliceCategory;
using model::TimeNs;

constexpr TimeNs kNone = std::numeric_limits<TimeNs>::min();
// How far back a blocking call looks on one stream for the operations it waited for.
constexpr std::size_t kAwaitLookback = 32;
// Cross-stream waits (an event wait the trace may not record): an operation held this much past what its launch
// and its own stream allow …
constexpr TimeNs kCrossStreamMinDelay = 20'000;
// … that starts at most this long after an operation of another stream of its device ends waited for that one.
constexpr TimeNs kCrossStreamMaxLag = 50'000;
// How far back a host thread looks for a call still running when a step's window begins.
constexpr std::ptrdiff_t kStraddleLookback = 8;

std::uint64_t key(model::SliceRef r)
{
    return (std::uint64_t {r.track.value} << 32) | r.index.value;
}
std::uint64_t key(model::TrackId t, std::uint32_t i)
{
    return (std::uint64_t {t.value} << 32) | i;
}

TimeNs median(std::vector<TimeNs> v, TimeNs fallback)
{
    if (v.empty())
        return fallback;
    auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
    std::nth_element(v.begin(), mid, v.end());
    return *mid;
}

enum class NodeKind : std::uint8_t { HostGap, Call, Device };
enum class EdgeKind : std::uint8_t { Program, Launch, Stream, Wait, Queue, CrossStream, Part };

struct Node
{
    TimeNs dur = 0;
    TimeNs start0 = 0; // measured
    TimeNs end0 = 0;
    model::TrackId track;
    std::uint32_t slice = 0; // device: the operation; call: the first call of the group
    NodeKind kind = NodeKind::HostGap;
    bool blocking = false;
    PathClass cls = PathClass::HostCompute;
};

/// The slice a node stands for on its track; none for host time between calls.
model::SliceRef sliceOf(const Node& n)
{
    if (n.kind == NodeKind::HostGap)
        return {};
    return {n.track, model::SliceIndex(n.slice)};
}

struct Edge
{
    std::uint32_t from = 0;
    std::uint32_t to = 0;
    TimeNs lag = 0;
    EdgeKind kind = EdgeKind::Program;
    bool fromStart = false; // the edge leaves the start of `from` (a launch), else its end
    bool toEnd = false;     // the edge constrains the end of `to` (a wait), else its start
};

// A host thread's content, for splitting host time on a path into dataloader, framework work and Python.
struct HostContent
{
    IntervalList dataloader;
    IntervalList work; // host ops, runtime calls … outside dataloader spans
};

struct DeviceOps
{
    std::vector<std::uint32_t> ops; // outermost busy slices, in track order
    // By position in ops: the number of the call that launched it (kNoCall: nothing did; Retimer::callStart gives
    // its start): of several launch links, the one that began last (torch_npu links a task both to the framework op
    // that enqueued it and to the CANN call on the task-queue thread that submitted it).
    std::vector<std::uint32_t> launchCall;
    // … and the call that issued it: the link that began first (the enqueuing framework op); launchCall where there
    // is one link. A blocking call waits for what was issued before it, whenever the queue submitted it.
    std::vector<std::uint32_t> issueCall;
};

constexpr std::uint32_t kNoCall = std::numeric_limits<std::uint32_t>::max();
constexpr std::uint32_t kNoNode = std::numeric_limits<std::uint32_t>::max();

// What a step's graph building looks up by number (a device operation's or host call's, across the trace): which
// node holds it. Sized for the whole trace and reused from step to step (only the entries a step set are reset),
// so that building a graph costs what the step holds, not a hash map per step or a fresh trace-sized array.
struct NodeIndex
{
    std::vector<std::uint32_t> ofOp;
    std::vector<std::uint32_t> ofCall;
    std::vector<std::uint32_t> setOps;
    std::vector<std::uint32_t> setCalls;

    void clear()
    {
        for (std::uint32_t o : setOps)
            ofOp[o] = kNoNode;
        for (std::uint32_t c : setCalls)
            ofCall[c] = kNoNode;
        setOps.clear();
        setCalls.clear();
    }
};

// One NodeIndex per worker at most: a step takes one (or makes one) and gives it back.
class NodeIndexPool
{
public:
    NodeIndexPool(std::size_t ops, std::size_t calls)
        : m_ops(ops)
        , m_calls(calls)
    {
    }
    std::unique_ptr<NodeIndex> take()
    {
        {
            const std::lock_guard lock(m_mutex);
            if (!m_free.empty()) {
                std::unique_ptr<NodeIndex> x = std::move(m_free.back());
                m_free.pop_back();
                return x;
            }
        }
        auto x = std::make_unique<NodeIndex>();
        x->ofOp.assign(m_ops, kNoNode);
        x->ofCall.assign(m_calls, kNoNode);
        return x;
    }
    void give(std::unique_ptr<NodeIndex> x)
    {
        x->clear();
        const std::lock_guard lock(m_mutex);
        m_free.push_back(std::move(x));
    }

private:
    std::size_t m_ops;
    std::size_t m_calls;
    std::mutex m_mutex;
    std::vector<std::unique_ptr<NodeIndex>> m_free;
};

struct ResolvedWhatIf
{
    std::unordered_map<std::uint32_t, IntervalList> host; // per host thread (Retimer::m_thread), hostRanges merged in
    IntervalList hostAll;
    IntervalList sync;
    /// A device operation it touches (key()), what happens to it, and the share of its time it keeps when scaled.
    struct DeviceChange
    {
        std::uint64_t first = 0; // key()
        std::uint8_t second = 0; // the k…Op flags
        double scale = 1.0;
    };
    /// Sorted by key (merged with a step's own), one entry per operation.
    std::vector<DeviceChange> device;
    enum : std::uint8_t { kRemovedOp = 1, kAsyncOp = 2, kScaledOp = 4 };
};

PathClass deviceClass(SliceCategory c)
{
    switch (c) {
    case SliceCategory::Memcpy:
    case SliceCategory::Memset:
        return PathClass::Copy;
    case SliceCategory::Communication:
        return PathClass::Communication;
    case SliceCategory::FallbackOp:
        return PathClass::Fallback;
    default:
        return PathClass::DeviceCompute;
    }
}

bool isHostWork(SliceCategory c)
{
    switch (c) {
    case SliceCategory::PythonFrame:
    case SliceCategory::Dataloader:
    case SliceCategory::Step:
    case SliceCategory::Annotation:
        return false;
    default:
        return true;
    }
}

// What a host thread did inside `window` (a step's host window): its dataloader spans and its host work outside
// them, clipped to the window. Built per step, where the step's critical path needs it: held for the whole trace,
// the host work of a 10 GB trace was 139 MB through all of the analysis. Slices are sorted by start, so sweeps build
// the unions without collecting the slices; the slices that began before the window and reach into it (at most
// one per depth) come first, clipped to its start. The dataloader spans first; then the host work, each merged
// stretch written as it closes with the dataloader spans already cut out of it (the same as subtract(work,
// dataloader) without holding the work twice).
HostContent hostContent(const model::Track& t, Interval window)
{
    const std::span<const TimeNs> ts = t.timestamps();
    const auto first = static_cast<std::uint32_t>(
        std::partition_point(ts.begin(), ts.end(), [&](TimeNs x) { return x < window.start; }) - ts.begin());
    const auto last = static_cast<std::uint32_t>(
        std::partition_point(ts.begin() + first, ts.end(), [&](TimeNs x) { return x < window.end; }) - ts.begin());
    std::vector<std::uint32_t> open;
    for (std::size_t d = 0; d < t.depthCount(); ++d) {
        const auto [from, to] = t.rangeAtDepth(d, window.start, window.start);
        for (std::size_t k = from; k < to; ++k) {
            const std::uint32_t i = t.slicesAtDepth(d)[k];
            if (t.ts(i) < window.start && t.end(i) > window.start)
                open.push_back(i);
        }
    }
    const auto sweep = [&](auto&& take) {
        for (std::uint32_t i : open)
            take(i, window.start, std::min(t.end(i), window.end));
        for (std::uint32_t i = first; i < last; ++i)
            take(i, t.ts(i), std::min(t.end(i), window.end));
    };
    HostContent hc;
    sweep([&](std::uint32_t i, TimeNs s, TimeNs e) {
        if (t.category(i) == SliceCategory::Dataloader)
            appendInStartOrder(hc.dataloader, s, e);
    });
    const IntervalList& dl = hc.dataloader;
    // Reserved for the worst case (nothing merges): untouched pages cost no memory, and the list never moves.
    hc.work.reserve(open.size() + (last - first) + dl.size());
    std::size_t cursor = 0;
    Interval stretch {0, 0};
    const auto close = [&] {
        TimeNs from = stretch.start;
        while (cursor < dl.size() && dl[cursor].end <= from)
            ++cursor;
        for (std::size_t k = cursor; k < dl.size() && dl[k].start < stretch.end; ++k) {
            if (dl[k].start > from)
                hc.work.push_back({from, dl[k].start});
            from = std::max(from, dl[k].end);
        }
        if (from < stretch.end)
            hc.work.push_back({from, stretch.end});
    };
    sweep([&](std::uint32_t i, TimeNs s, TimeNs e) {
        const SliceCategory c = t.category(i);
        if (c == SliceCategory::Dataloader || !isHostWork(c) || e <= s)
            return;
        if (stretch.end > stretch.start && s <= stretch.end) {
            stretch.end = std::max(stretch.end, e);
            return;
        }
        if (stretch.end > stretch.start)
            close();
        stretch = {s, e};
    });
    if (stretch.end > stretch.start)
        close();
    return hc;
}

class Retimer
{
public:
    Retimer(const model::Trace& trace, const StepClock& clock)
        : m_trace(trace)
        , m_clock(clock)
    {
    }

    void prepare();
    [[nodiscard]] bool hasLaunches() const { return m_hasLaunches; }
    /// Operations and calls the step graphs number (the sizes of a NodeIndex).
    [[nodiscard]] std::size_t opCount() const { return m_opCount; }
    [[nodiscard]] std::size_t callCount() const { return m_callCount; }
    ResolvedWhatIf resolve(const WhatIf& w) const;
    /// Ends the preparation (the blocking-name cache stops growing); after it, the Retimer is only read, so
    /// retimeStep may run on several steps at once.
    void freeze();
    void setUnrecorded(IntervalList list) { m_unrecorded = std::move(list); }
    enum class StepOutcome : std::uint8_t { NotAssessed, Cyclic, Inconsistent, Assessed };
    StepOutcome retimeStep(std::size_t step, std::span<const ResolvedWhatIf> whatIfs, NodeIndex& index,
                           Retiming& out) const;

private:
    struct Graph
    {
        std::vector<Node> nodes;
        std::vector<Edge> edges;
        // Edges are sorted by `to`, each node's constraints on its start before those on its end: node v's are
        // [inOffsets[v], inOffsets[v+1]), of which [inEndOffsets[v], inOffsets[v+1]) constrain its end.
        std::vector<std::uint32_t> inOffsets;
        std::vector<std::uint32_t> inEndOffsets;
        // Per node, beside `nodes` (the simulation reads nothing else of a node): its earliest start (pinned), its
        // earliest end (a wait on work outside the graph); kNone where nothing sets them.
        std::vector<TimeNs> release;
        std::vector<TimeNs> endRelease;
        std::vector<std::uint32_t> order;                                 // topological
        std::vector<std::pair<std::uint64_t, std::uint32_t>> deviceByKey; // device nodes, sorted by key()
        // (task, collective): a task nothing launched that ran inside a collective of its device on another track
        // (HCCL's SDMA tasks on a hardware stream): part of it, removed or scaled with it.
        std::vector<std::pair<std::uint32_t, std::uint32_t>> partOf;
        std::size_t crossStreamWaits
            = 0; // inferred waits of an operation on another stream's (addLaunchAndStreamEdges)
        std::size_t crossStreamWaitsRecorded = 0; // recorded waits that held their operation

        /// Appends a node whose start is pinned at `pinnedAt` (kNone: not pinned).
        void addNode(const Node& n, TimeNs pinnedAt)
        {
            nodes.push_back(n);
            release.push_back(pinnedAt);
            endRelease.push_back(kNone);
        }
        void addEdge(std::uint32_t from, std::uint32_t to, TimeNs lag, EdgeKind kind, bool fromStart, bool toEnd)
        {
            edges.push_back({from, to, lag, kind, fromStart, toEnd});
        }
    };
    /// What build() collects for one step besides the graph and its index, from one phase for the next.
    struct BuildState
    {
        Graph& g;
        NodeIndex& index;
        std::vector<model::SliceRef> callOrder;           // the calls of the graph, in thread and program order
        std::vector<std::uint32_t> blockingNodes;         // the nodes of blocking calls
        std::vector<std::vector<std::uint32_t>> perTrack; // per device track: its operations' positions in the graph
        Interval window {0, 0};                           // the step's analysis window
        std::size_t linkedOutside = 0;                    // operations in the window launched by calls before it
        bool stepThread = false;                          // a thread that runs the step (m_stepThread) takes part
        std::vector<std::pair<std::uint32_t, std::uint32_t>> stepThreadNodes; // [begin, end) of each such thread
        std::vector<std::uint32_t> handoffs; // first calls of helper threads that nothing links: see addQueueEdges
    };
    struct Sim
    {
        std::vector<TimeNs> start;
        std::vector<TimeNs> end;
        std::vector<std::int64_t> startArg; // edge index, −1: release
        std::vector<std::int64_t> endArg;   // edge index, −1: own duration, −2: end release
    };
    enum : std::uint8_t { kRemoved = 1, kDetached = 2, kNoWait = 4 };
    // A wait of a stream on another that the trace records (m_recordedWaits).
    struct RecordedWait
    {
        std::uint32_t pos = 0;
        std::uint32_t fromTrack = 0;
        std::uint32_t fromPos = 0;
    };

    bool isBlockingCall(const model::Track& t, std::uint32_t i) const;
    /// A framework op that waits for the device (isSynchronisingFrameworkOp).
    bool isSynchronisingFrameworkOp(const model::Track& t, std::uint32_t i) const
    {
        return t.category(i) == SliceCategory::HostOp
            && analysis::isSynchronisingFrameworkOp(m_trace.str(t.sliceName(i)));
    }
    /// A host → host link between two threads that is not a launch: one thread queued work another takes (torch_npu's
    /// `async_task_queue` enqueue → dequeue; `fwdbwd`: a forward op → its backward op on the autograd thread).
    bool isQueueLink(const model::Flow& f) const
    {
        if (f.kind == model::FlowKind::Launch || !f.from.isValid() || !f.to.isValid())
            return false;
        const model::Track& a = m_trace.track(f.from.track);
        const model::Track& b = m_trace.track(f.to.track);
        return !isDeviceTrack(a) && !isDeviceTrack(b) && a.role == model::TrackRole::HostThread
            && b.role == model::TrackRole::HostThread && m_thread[f.from.track.value] != m_thread[f.to.track.value];
    }
    bool isOutermostBusy(const model::Track& t, std::uint32_t i) const;
    std::size_t opPosition(model::TrackId track, std::uint32_t index) const;
    /// The start of call number `call` (m_callBase numbering): its track is the last whose first number is at or
    /// below it (an empty track shares its base with the next one).
    TimeNs callStart(std::uint32_t call) const;
    /// The end of operation `pos` of device track `track`.
    TimeNs opEnd(std::uint32_t track, std::size_t pos) const
    {
        return m_trace.track(model::TrackId(track)).end(m_device[track].ops[pos]);
    }
    bool build(std::size_t step, Graph& g, NodeIndex& index, std::string& reason) const;
    /// The host threads with calls in `host`, each with its first call there (a position in its calls), and their
    /// number of calls in it (`stepCalls`).
    std::vector<std::pair<std::uint32_t, std::size_t>> threadsWithCalls(Interval host, std::size_t& stepCalls) const;
    /// One host thread's nodes in program order: a node per group of overlapping calls (on any of its `lanes`,
    /// each with its first call in the window) and per gap between them.
    void addHostThread(std::span<const std::pair<std::uint32_t, std::size_t>> lanes, Interval host,
                       BuildState& b) const;
    /// Queue edges: a dequeuing call starts after the call that queued its work (+ the measured delay).
    void addQueueEdges(BuildState& b) const;
    /// The node of operation `pos` of device track `track`, once; pinned at `release` (kNone: not pinned).
    void addDeviceOp(model::TrackId track, std::size_t pos, TimeNs release, BuildState& b) const;
    /// Nodes for the device operations the graph's calls launched; returns how many.
    std::size_t addLaunchedOps(BuildState& b) const;
    /// Nodes for the device operations in `window` that nothing in the trace launched, pinned at their start;
    /// true when there was any.
    bool addUnlaunchedOps(Interval window, BuildState& b) const;
    /// The waits of one stream on another that the trace records (m_recordedWaits), once the launches are known.
    void findRecordedWaits();
    /// The recorded wait of operation `pos` of device track `track`, or null.
    const RecordedWait* recordedWait(std::uint32_t track, std::uint32_t pos) const;
    /// Launch and stream edges of every device node, and cross-stream waits (counted in g.crossStreamWaits).
    void addLaunchAndStreamEdges(BuildState& b) const;
    /// The operation of another stream of `track`'s device that ended last in [t − kCrossStreamMaxLag, t] (after
    /// `after`): a (track, position) pair, or a track of kNoCall where none did.
    std::pair<std::uint32_t, std::size_t> crossStreamCause(std::uint32_t track, TimeNs t, TimeNs after) const;
    /// Wait edges into every blocking call, from what it waited for on each stream.
    void addBlockingWaits(BuildState& b) const;
    /// Sorts the edges as the simulation reads them and orders the nodes topologically; false on a cycle.
    static bool orderGraph(Graph& g);
    TimeNs simulate(const Graph& g, const std::vector<TimeNs>& dur, const std::vector<std::uint8_t>* flags, Sim& sim,
                    bool record) const;
    /// Walks the chain that set the step's end into `path`; `nodes` gets every node the chain passes through. Its
    /// host gaps lie in `hostWindow` (the measured run replays the measured times), where their threads' content
    /// is built.
    /// The path and its composition are clipped to the step's `window`: it is as long as the step.
    void criticalPath(const Graph& g, const Sim& sim, std::uint32_t last, Interval hostWindow, Interval window,
                      StepCriticalPath& path, std::vector<std::uint32_t>& nodes) const;

    const model::Trace& m_trace;
    const StepClock& m_clock;
    std::vector<std::vector<std::uint32_t>> m_calls;       // per host track: launching or blocking calls
    std::vector<std::vector<std::uint8_t>> m_callBlocking; // per host track, by position in m_calls: blocking?
    std::vector<std::uint32_t> m_callBase;                 // per track: the number of its first call
    // Per track: the OS thread it records, as its representative track (lanes of one thread: torch_npu's Python
    // and CANN lanes); a track's own number where it is alone.
    std::vector<std::uint32_t> m_thread;
    // Per call number: the call on another thread that queued it (an enqueue → dequeue link), kNoCall where none.
    std::vector<std::uint32_t> m_queueFrom;
    // Per thread (representative track): 1 where a lane of it records the steps (ProfilerStep#N): the thread that
    // runs the step until its end. The others (the autograd thread, a task queue) only work when given work.
    std::vector<std::uint8_t> m_stepThread;
    std::vector<DeviceOps> m_device; // per track (empty for host tracks)
    // Waits the trace records (Kineto `Stream Wait Event`: a stream waits for an event recorded on another), per
    // device track: the position of the operation that waited, and the operation it waited for. By position.
    std::vector<std::vector<RecordedWait>> m_recordedWaits; // per track; empty where the trace records none
    std::vector<std::uint32_t> m_opBase;                    // per track: the number of its first operation
    std::vector<std::uint32_t> m_deviceTracks;
    std::size_t m_opCount = 0;
    std::size_t m_callCount = 0;
    bool m_hasLaunches = false;
    // Filled while prepare() looks at every host call; after freeze() only read (names it never saw are computed).
    mutable std::unordered_map<std::uint32_t, bool> m_blockingName;
    bool m_frozen = false;
    TimeNs m_typLag = 0;
    TimeNs m_typGap = 0;
    IntervalList m_unrecorded;
};

bool Retimer::isBlockingCall(const model::Track& t, std::uint32_t i) const
{
    const SliceCategory c = t.category(i);
    const bool synchronous = (t.flags(i) & model::SliceFlags::kSynchronous) != 0;
    if (c == SliceCategory::Sync)
        return true;
    if (c == SliceCategory::Memcpy || c == SliceCategory::Memset)
        return synchronous;
    if (c != SliceCategory::RuntimeApi)
        return false;
    if (synchronous)
        return true;
    const model::StringId name = t.sliceName(i);
    auto it = m_blockingName.find(name.value);
    if (it != m_blockingName.end())
        return it->second;
    const bool blocking = isBlockingRuntimeCall(m_trace.str(name));
    if (!m_frozen)
        m_blockingName.emplace(name.value, blocking);
    return blocking;
}

bool Retimer::isOutermostBusy(const model::Track& t, std::uint32_t i) const
{
    if (!isBusyCategory(t.category(i)))
        return false;
    for (model::SliceIndex p = t.parent(i); p.isValid(); p = t.parent(p.value)) {
        if (isBusyCategory(t.category(p.value)))
            return false;
    }
    return true;
}

TimeNs Retimer::callStart(std::uint32_t call) const
{
    const auto track = static_cast<std::size_t>(std::upper_bound(m_callBase.begin(), m_callBase.end(), call)
                                                - m_callBase.begin() - 1);
    const std::uint32_t index = m_calls[track][call - m_callBase[track]];
    return m_trace.track(model::TrackId(static_cast<std::uint32_t>(track))).ts(index);
}

std::size_t Retimer::opPosition(model::TrackId track, std::uint32_t index) const
{
    const auto& ops = m_device[track.value].ops;
    return static_cast<std::size_t>(std::lower_bound(ops.begin(), ops.end(), index) - ops.begin());
}

void Retimer::prepare()
{
    const auto tracks = m_trace.tracks();
    m_calls.resize(tracks.size());
    m_callBlocking.resize(tracks.size());
    m_callBase.assign(tracks.size(), 0);
    m_device.resize(tracks.size());
    m_opBase.assign(tracks.size(), 0);
    m_thread = hostThreadsOf(m_trace);
    // The threads that run the steps: those of the steps' ProfilerStep#N markers (the trace knows them; no scan).
    m_stepThread.assign(tracks.size(), 0);
    for (const model::Step& step : m_trace.steps()) {
        if (step.marker.isValid() && step.marker.track.value < tracks.size())
            m_stepThread[m_thread[step.marker.track.value]] = 1;
    }
    // Per thread: does any lane of it record runtime calls? Where none does (a torch_npu Level0 export has no CANN
    // lane), the framework ops that synchronise are the blocking calls.
    std::vector<std::uint8_t> threadHasRuntime(tracks.size(), 0);
    for (std::uint32_t ti = 0; ti < tracks.size(); ++ti) {
        const model::Track& t = tracks[ti];
        if (isDeviceTrack(t) || threadHasRuntime[m_thread[ti]] != 0)
            continue;
        for (std::uint32_t i = 0; i < t.size(); ++i) {
            const SliceCategory c = t.category(i);
            if (c == SliceCategory::RuntimeApi || c == SliceCategory::Sync) {
                threadHasRuntime[m_thread[ti]] = 1;
                break;
            }
        }
    }
    for (const model::Flow& f : m_trace.flows()) {
        if (isDeviceLaunch(m_trace, f)) {
            m_calls[f.from.track.value].push_back(f.from.index.value);
            m_hasLaunches = true;
        } else if (isQueueLink(f)) {
            m_calls[f.from.track.value].push_back(f.from.index.value);
            m_calls[f.to.track.value].push_back(f.to.index.value);
        }
    }
    for (std::uint32_t ti = 0; ti < tracks.size(); ++ti) {
        const model::Track& t = tracks[ti];
        if (isDeviceTrack(t)) {
            // Reserved for the worst case: untouched pages cost nothing, and the list never moves.
            m_device[ti].ops.reserve(t.size());
            for (std::uint32_t i = 0; i < t.size(); ++i) {
                if (isOutermostBusy(t, i))
                    m_device[ti].ops.push_back(i);
            }
            if (!m_device[ti].ops.empty())
                m_deviceTracks.push_back(ti);
            continue;
        }
        const bool frameworkSyncs = threadHasRuntime[m_thread[ti]] == 0;
        const auto blockingAt = [&](std::uint32_t i) {
            return isBlockingCall(t, i) || (frameworkSyncs && isSynchronisingFrameworkOp(t, i));
        };
        auto& calls = m_calls[ti];
        for (std::uint32_t i = 0; i < t.size(); ++i) {
            if (blockingAt(i))
                calls.push_back(i);
        }
        std::sort(calls.begin(), calls.end());
        calls.erase(std::unique(calls.begin(), calls.end()), calls.end());
        auto& blocking = m_callBlocking[ti];
        blocking.reserve(calls.size());
        for (std::uint32_t i : calls)
            blocking.push_back(blockingAt(i) ? 1 : 0);
    }
    for (std::uint32_t ti = 0; ti < tracks.size(); ++ti) {
        m_callBase[ti] = static_cast<std::uint32_t>(m_callCount);
        m_callCount += m_calls[ti].size();
        m_opBase[ti] = static_cast<std::uint32_t>(m_opCount);
        m_opCount += m_device[ti].ops.size();
    }
    const auto callNumber = [&](model::SliceRef r) {
        const auto& calls = m_calls[r.track.value];
        const auto pos = std::lower_bound(calls.begin(), calls.end(), r.index.value) - calls.begin();
        return m_callBase[r.track.value] + static_cast<std::uint32_t>(pos);
    };
    // Enqueue → dequeue links: per dequeuing call, its first enqueue.
    const std::span<const model::Flow> flows = m_trace.flows();
    for (const model::Flow& f : flows) {
        if (!isQueueLink(f))
            continue;
        if (m_queueFrom.empty())
            m_queueFrom.assign(m_callCount, kNoCall);
        std::uint32_t& from = m_queueFrom[callNumber(f.to)];
        if (from == kNoCall)
            from = callNumber(f.from);
    }
    // Each operation's launching and issuing calls, by position in its track's operations. The flows sorted by
    // target (same targets in the trace's order) and each track's operations ascend together, so one merge finds
    // them (a table per device slice held 8 bytes a slice: 72 MB at 10 GB).
    for (std::uint32_t ti : m_deviceTracks) {
        m_device[ti].launchCall.assign(m_device[ti].ops.size(), kNoCall);
        m_device[ti].issueCall.assign(m_device[ti].ops.size(), kNoCall);
    }
    std::uint32_t currentTrack = std::numeric_limits<std::uint32_t>::max();
    std::size_t at = 0; // the position in the current track's operations
    for (const std::uint32_t k : m_trace.flowIndicesByTarget()) {
        const model::Flow& f = flows[k];
        if (!isDeviceLaunch(m_trace, f))
            continue;
        DeviceOps& d = m_device[f.to.track.value];
        if (f.to.track.value != currentTrack) {
            currentTrack = f.to.track.value;
            at = 0;
        }
        while (at < d.ops.size() && d.ops[at] < f.to.index.value)
            ++at;
        if (at == d.ops.size() || d.ops[at] != f.to.index.value)
            continue;
        const std::uint32_t call = callNumber(f.from);
        std::uint32_t& launch = d.launchCall[at];
        std::uint32_t& issue = d.issueCall[at];
        if (launch == kNoCall) {
            launch = call;
            issue = call;
            continue;
        }
        const TimeNs s = callStart(call);
        if (s > callStart(launch))
            launch = call;
        if (s < callStart(issue))
            issue = call;
    }
    findRecordedWaits();
    // Typical launch latency: operations whose stream was free when their call began. Typical stream gap:
    // operations that waited for their stream. An operation with a recorded wait on another stream says neither.
    std::vector<TimeNs> lags;
    std::vector<std::pair<TimeNs, TimeNs>> queued; // (start − call start, start − predecessor end)
    for (std::uint32_t ti : m_deviceTracks) {
        const model::Track& t = tracks[ti];
        const auto& ops = m_device[ti].ops;
        const auto& launchCall = m_device[ti].launchCall;
        for (std::size_t p = 0; p < ops.size(); ++p) {
            if (launchCall[p] == kNoCall || recordedWait(ti, static_cast<std::uint32_t>(p)) != nullptr)
                continue;
            const TimeNs s = callStart(launchCall[p]);
            const TimeNs start = t.ts(ops[p]);
            const TimeNs predEnd = p > 0 ? t.end(ops[p - 1]) : kNone;
            if (predEnd == kNone || predEnd <= s)
                lags.push_back(start - s);
            else
                queued.emplace_back(start - s, start - predEnd);
        }
    }
    m_typLag = std::max<TimeNs>(0, median(lags, 0));
    std::vector<TimeNs> gaps;
    for (const auto& [fromCall, fromPred] : queued) {
        if (fromCall > m_typLag)
            gaps.push_back(fromPred);
    }
    m_typGap = std::max<TimeNs>(0, median(std::move(gaps), 0));
}

// A Stream Wait Event (Kineto `cuda_sync`) says: stream `stream` waits, from the cudaStreamWaitEvent call on, for
// the event recorded by the call of correlation `wait_on_cuda_event_record_corr_id` on stream `wait_on_stream`.
// So the first operation launched on the waiting stream after the wait call starts after the last operation
// launched on the recorded stream before the record call ends.
void Retimer::findRecordedWaits()
{
    const auto tracks = m_trace.tracks();
    struct Wait
    {
        std::int32_t device;
        std::int64_t stream;
        std::int64_t fromStream;
        std::int64_t recordCorrelation;
        TimeNs at;
    };
    std::vector<Wait> waits;
    const auto intArg = [&](model::SliceRef r, std::string_view key) -> std::int64_t {
        const std::optional<model::ArgValue> v = m_trace.arg(r, key);
        return v && v->type == model::ArgValue::Type::Int ? v->i : -1;
    };
    // Kineto puts them on a per-device track of their own (not a stream: role Synthetic).
    for (const model::Track& t : tracks) {
        if (t.role == model::TrackRole::HostThread || t.deviceKind == model::DeviceKind::Cpu || t.deviceIndex < 0)
            continue;
        for (std::uint32_t i = 0; i < t.size(); ++i) {
            if (t.category(i) != SliceCategory::Sync)
                continue;
            const model::SliceRef r {t.id, model::SliceIndex(i)};
            const std::int64_t record = intArg(r, model::argnames::kWaitOnEventRecordCorrelation);
            const std::int64_t stream = intArg(r, model::argnames::kStream);
            const std::int64_t from = intArg(r, model::argnames::kWaitOnStream);
            if (record >= 0 && stream >= 0 && from >= 0 && stream != from) // an Event Sync (the host waits): stream −1
                waits.push_back({t.deviceIndex, stream, from, record, t.ts(i)});
        }
    }
    if (waits.empty())
        return;
    // The event-record calls' starts, by correlation.
    std::unordered_map<std::int64_t, TimeNs> recordAt;
    for (const Wait& w : waits)
        recordAt.emplace(w.recordCorrelation, kNone);
    std::unordered_map<std::uint32_t, bool> recordName; // per slice name: an event-record call?
    for (const model::Track& t : tracks) {
        if (t.role != model::TrackRole::HostThread)
            continue;
        for (std::uint32_t i = 0; i < t.size(); ++i) {
            if (t.category(i) != SliceCategory::RuntimeApi)
                continue;
            auto [it, added] = recordName.try_emplace(t.sliceName(i).value, false);
            if (added)
                it->second = m_trace.str(t.sliceName(i)).find("EventRecord") != std::string_view::npos;
            if (!it->second)
                continue;
            const std::int64_t c = intArg({t.id, model::SliceIndex(i)}, model::argnames::kCorrelation);
            if (auto r = recordAt.find(c); r != recordAt.end() && r->second == kNone)
                r->second = t.ts(i);
        }
    }
    // Per stream track, its launched operations by launch time (a stream runs its work in launch order).
    const auto streamTrack = [&](std::int32_t device, std::int64_t stream) -> std::uint32_t {
        for (const std::uint32_t ti : m_deviceTracks) {
            if (tracks[ti].deviceIndex == device && tracks[ti].streamId == stream)
                return ti;
        }
        return kNoCall;
    };
    std::unordered_map<std::uint32_t, std::vector<std::pair<TimeNs, std::uint32_t>>> launched;
    const auto byLaunch = [&](std::uint32_t ti) -> const std::vector<std::pair<TimeNs, std::uint32_t>>& {
        auto [it, added] = launched.try_emplace(ti);
        if (added) {
            const DeviceOps& d = m_device[ti];
            for (std::uint32_t p = 0; p < d.ops.size(); ++p) {
                if (d.launchCall[p] != kNoCall)
                    it->second.emplace_back(callStart(d.launchCall[p]), p);
            }
            std::stable_sort(it->second.begin(), it->second.end(),
                             [](const auto& a, const auto& b) { return a.first < b.first; });
        }
        return it->second;
    };
    m_recordedWaits.assign(tracks.size(), {});
    for (const Wait& w : waits) {
        const TimeNs recorded = recordAt[w.recordCorrelation];
        const std::uint32_t to = streamTrack(w.device, w.stream);
        const std::uint32_t from = streamTrack(w.device, w.fromStream);
        if (recorded == kNone || to == kNoCall || from == kNoCall)
            continue;
        const auto& src = byLaunch(from);
        const auto& dst = byLaunch(to);
        auto s = std::partition_point(src.begin(), src.end(), [&](const auto& e) { return e.first <= recorded; });
        const auto d = std::partition_point(dst.begin(), dst.end(), [&](const auto& e) { return e.first < w.at; });
        if (s == src.begin() || d == dst.end())
            continue;
        --s;
        // A wait the device did not keep (the waiting operation began before the awaited one ended) is not one.
        if (tracks[to].ts(m_device[to].ops[d->second]) < opEnd(from, s->second))
            continue;
        m_recordedWaits[to].push_back({d->second, from, s->second});
    }
    for (auto& list : m_recordedWaits) {
        std::sort(list.begin(), list.end(), [](const auto& a, const auto& b) { return a.pos < b.pos; });
        // Several waits of one operation: the one on the latest-ending operation holds it.
        std::size_t kept = 0;
        for (std::size_t k = 0; k < list.size(); ++k) {
            if (kept > 0 && list[kept - 1].pos == list[k].pos) {
                const RecordedWait& a = list[kept - 1];
                if (opEnd(list[k].fromTrack, list[k].fromPos) > opEnd(a.fromTrack, a.fromPos))
                    list[kept - 1] = list[k];
            } else {
                list[kept++] = list[k];
            }
        }
        list.resize(kept);
    }
}

const Retimer::RecordedWait* Retimer::recordedWait(std::uint32_t track, std::uint32_t pos) const
{
    if (track >= m_recordedWaits.size() || m_recordedWaits[track].empty())
        return nullptr;
    const auto& list = m_recordedWaits[track];
    const auto it = std::lower_bound(list.begin(), list.end(), pos,
                                     [](const RecordedWait& w, std::uint32_t p) { return w.pos < p; });
    return it != list.end() && it->pos == pos ? &*it : nullptr;
}

ResolvedWhatIf Retimer::resolve(const WhatIf& w) const
{
    ResolvedWhatIf r;
    r.hostAll = unite(w.hostRanges);
    r.sync = unite(w.syncRanges);
    std::unordered_map<std::uint32_t, IntervalList> raw;
    for (const model::SliceRef& s : w.removedHost) {
        if (!s.isValid() || s.track.value >= m_trace.tracks().size())
            continue;
        const model::Track& t = m_trace.track(s.track);
        if (s.index.value >= t.size())
            continue;
        raw[m_thread[s.track.value]].push_back({t.ts(s.index.value), t.end(s.index.value)});
    }
    for (auto& [track, list] : raw)
        r.host.emplace(track, uniteSorted(unite(std::move(list)), r.hostAll));
    r.device.reserve(w.removedDevice.size() + w.asyncCopies.size() + w.scaledDevice.size());
    for (const auto& s : w.removedDevice)
        r.device.push_back({key(s), ResolvedWhatIf::kRemovedOp, 1.0});
    for (const auto& s : w.asyncCopies)
        r.device.push_back({key(s), ResolvedWhatIf::kAsyncOp, 1.0});
    for (std::size_t i = 0; i < w.scaledDevice.size(); ++i) {
        const double scale = i < w.scales.size() ? w.scales[i] : w.scale;
        r.device.push_back({key(w.scaledDevice[i]), ResolvedWhatIf::kScaledOp,
                            std::isfinite(scale) ? std::clamp(scale, 0.0, 1.0) : 1.0});
    }
    std::sort(r.device.begin(), r.device.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    // One entry per operation, with every flag it got and the smallest scale.
    std::size_t kept = 0;
    for (std::size_t i = 0; i < r.device.size(); ++i) {
        if (kept > 0 && r.device[kept - 1].first == r.device[i].first) {
            r.device[kept - 1].second |= r.device[i].second;
            r.device[kept - 1].scale = std::min(r.device[kept - 1].scale, r.device[i].scale);
        } else {
            r.device[kept++] = r.device[i];
        }
    }
    r.device.resize(kept);
    return r;
}

bool Retimer::build(std::size_t step, Graph& g, NodeIndex& index, std::string& reason) const
{
    // One window: the graph covers the step's analysis window. The host threads take part from its start (work of
    // the host step before it belongs to the previous window and is a fixed constraint) to the end of the host step
    // (after it, the host is running the next step).
    const Interval window = m_clock.window(step);
    const Interval hostStep = m_clock.hostWindow(step);
    const Interval host {window.start, std::max(window.start, std::min(hostStep.end, window.end))};
    BuildState b {g, index, {}, {}, {}, {0, 0}, 0, false, {}, {}};
    b.window = window;
    // The threads' count of calls sizes the graph ahead: a node per call and per gap, an edge between each, and
    // about one launched operation per call (with a launch and a stream edge). A step that is the whole trace holds
    // millions of nodes; grown by doubling, its arrays were copied and their fresh pages faulted in twice.
    std::size_t stepCalls = 0;
    const std::vector<std::pair<std::uint32_t, std::size_t>> threads = threadsWithCalls(host, stepCalls);
    const std::size_t nodesAhead = 3 * stepCalls + threads.size();
    g.nodes.reserve(nodesAhead);
    g.release.reserve(nodesAhead);
    g.endRelease.reserve(nodesAhead);
    g.edges.reserve(4 * stepCalls);
    b.callOrder.reserve(stepCalls);
    for (const auto& [ti, firstPos] : threads)
        b.stepThread = b.stepThread || m_stepThread[m_thread[ti]] != 0;
    // Lanes of one OS thread are one thread: threads() lists a thread's lanes one after another.
    for (std::size_t k = 0; k < threads.size();) {
        std::size_t e = k + 1;
        while (e < threads.size() && m_thread[threads[e].first] == m_thread[threads[k].first])
            ++e;
        addHostThread(std::span(threads).subspan(k, e - k), host, b);
        k = e;
    }
    // The calls in trace order (SliceRef order), as addLaunchedOps walks them beside the flows.
    if (!std::is_sorted(b.callOrder.begin(), b.callOrder.end()))
        std::sort(b.callOrder.begin(), b.callOrder.end());
    addQueueEdges(b);
    b.perTrack.resize(m_device.size());
    const std::size_t launched = addLaunchedOps(b);
    const bool unlaunchedWork = addUnlaunchedOps(window, b);
    if (g.nodes.empty()) {
        reason = "nothing ran in this step";
        return false;
    }
    // Device work whose launches all lie outside the window (or nowhere) is pinned where it ran: nothing to re-time.
    if (launched == 0 && (unlaunchedWork || b.linkedOutside > 0)) {
        reason = "no launch links (host → device flows) in this step";
        return false;
    }
    addLaunchAndStreamEdges(b);
    addBlockingWaits(b);
    if (!orderGraph(g)) {
        reason = "the step's dependency graph has a cycle (corrupt launch flows)";
        return false;
    }
    return true;
}

std::vector<std::pair<std::uint32_t, std::size_t>> Retimer::threadsWithCalls(Interval host,
                                                                             std::size_t& stepCalls) const
{
    std::vector<std::pair<std::uint32_t, std::size_t>> threads;
    for (std::uint32_t ti = 0; ti < m_calls.size(); ++ti) {
        const auto& calls = m_calls[ti];
        const model::Track& t = m_trace.track(model::TrackId(ti));
        auto from
            = std::partition_point(calls.begin(), calls.end(), [&](std::uint32_t i) { return t.ts(i) < host.start; });
        const auto to = std::partition_point(from, calls.end(), [&](std::uint32_t i) { return t.ts(i) < host.end; });
        // A call that began before the window and is still running at its start (a synchronise waiting for the
        // previous step's work) takes part from the window's start; a few calls back are enough (nested calls).
        auto straddling = from;
        for (auto back = from; back != calls.begin() && from - back < kStraddleLookback;) {
            --back;
            if (t.end(*back) > host.start)
                straddling = back;
        }
        from = straddling;
        if (to == from || host.end <= host.start)
            continue;
        threads.emplace_back(ti, static_cast<std::size_t>(from - calls.begin()));
        stepCalls += static_cast<std::size_t>(to - from);
    }
    std::stable_sort(threads.begin(), threads.end(),
                     [&](const auto& a, const auto& b) { return m_thread[a.first] < m_thread[b.first]; });
    return threads;
}

void Retimer::addHostThread(std::span<const std::pair<std::uint32_t, std::size_t>> lanes, Interval host,
                            BuildState& b) const
{
    Graph& g = b.g;
    const std::uint32_t thread = m_thread[lanes.front().first];
    // The thread's calls in the window, every lane's, in time order (lane by lane where they start together).
    struct LaneCall
    {
        TimeNs ts;
        TimeNs end;
        std::uint32_t track;
        std::uint32_t pos; // in m_calls[track]
    };
    std::vector<LaneCall> calls;
    for (const auto& [ti, firstPos] : lanes) {
        const model::Track& t = m_trace.track(model::TrackId(ti));
        const auto& list = m_calls[ti];
        for (std::size_t p = firstPos; p < list.size() && t.ts(list[p]) < host.end; ++p)
            calls.push_back({t.ts(list[p]), t.end(list[p]), ti, static_cast<std::uint32_t>(p)});
    }
    if (lanes.size() > 1)
        std::stable_sort(calls.begin(), calls.end(), [](const LaneCall& a, const LaneCall& c) { return a.ts < c.ts; });
    std::int64_t prev = -1;
    TimeNs cursor = host.start;
    const auto firstNode = static_cast<std::uint32_t>(g.nodes.size());
    // A thread that does not run the step (the autograd thread, a worker) starts its work when the thread that runs
    // it hands it over: before its first call it waits.
    const bool helper = b.stepThread && m_stepThread[thread] == 0;
    auto append = [&](const Node& n) {
        const auto id = static_cast<std::uint32_t>(g.nodes.size());
        if (prev >= 0)
            g.addEdge(static_cast<std::uint32_t>(prev), id, 0, EdgeKind::Program, false, false);
        g.addNode(n, prev < 0 ? host.start : kNone);
        prev = id;
        return id;
    };
    // Host time between calls; `waiting`: the thread only waited for work queued to it (the time is the queue
    // edge's, addQueueEdges), so the gap takes no time of its own.
    auto addGap = [&](TimeNs a, TimeNs z, bool waiting) {
        if (z <= a)
            return;
        Node n;
        n.kind = NodeKind::HostGap;
        n.track = model::TrackId(thread);
        n.start0 = a;
        n.end0 = z;
        n.dur = waiting ? 0 : z - a;
        append(n);
    };
    for (std::size_t k = 0; k < calls.size();) {
        // A group: a call and the calls nested in or overlapping it, on any lane of the thread.
        const LaneCall& first = calls[k];
        TimeNs groupEnd = first.end;
        std::size_t e = k + 1;
        while (e < calls.size() && calls[e].ts < groupEnd) {
            groupEnd = std::max(groupEnd, calls[e].end);
            ++e;
        }
        bool blocking = false;
        bool linked = false; // work was queued to the group by another thread
        bool waited = false; // … and the thread sat idle until it arrived
        for (std::size_t m = k; m < e; ++m) {
            blocking = blocking || m_callBlocking[calls[m].track][calls[m].pos] != 0;
            if (!m_queueFrom.empty()) {
                const std::uint32_t from = m_queueFrom[m_callBase[calls[m].track] + calls[m].pos];
                linked = linked || from != kNoCall;
                waited = waited || (from != kNoCall && callStart(from) > cursor);
            }
        }
        const bool handoff = helper && k == 0 && !linked;
        addGap(cursor, std::max(cursor, first.ts), waited || handoff);
        Node n;
        n.kind = NodeKind::Call;
        n.track = model::TrackId(first.track);
        n.slice = m_calls[first.track][first.pos];
        n.start0 = std::max(first.ts, host.start); // a call running when the window began counts from there
        n.end0 = groupEnd;
        n.dur = groupEnd - n.start0;
        n.blocking = blocking;
        n.cls = blocking ? PathClass::Sync : PathClass::Launch;
        const std::uint32_t id = append(n);
        for (std::size_t m = k; m < e; ++m) {
            const std::uint32_t call = m_callBase[calls[m].track] + calls[m].pos;
            b.index.ofCall[call] = id;
            b.index.setCalls.push_back(call);
            b.callOrder.push_back(
                {model::TrackId(calls[m].track), model::SliceIndex(m_calls[calls[m].track][calls[m].pos])});
        }
        if (blocking)
            b.blockingNodes.push_back(id);
        if (handoff)
            b.handoffs.push_back(id);
        cursor = std::max(cursor, groupEnd);
        k = e;
    }
    // After its last call a thread that does not run the step waits for work that never comes in this step (the
    // thread that runs it holds the step to its end).
    addGap(cursor, host.end, helper);
    if (b.stepThread && m_stepThread[thread] != 0)
        b.stepThreadNodes.emplace_back(firstNode, static_cast<std::uint32_t>(g.nodes.size()));
}

void Retimer::addQueueEdges(BuildState& b) const
{
    Graph& g = b.g;
    // A helper thread's first call that no flow links (Kineto before `fwdbwd` flows: the autograd thread's first
    // backward op) was handed over by the thread that runs the step at that moment: an inferred queue edge from the
    // node that thread was in, so the helper moves with it.
    for (const std::uint32_t to : b.handoffs) {
        const TimeNs at = g.nodes[to].start0;
        for (const auto& [begin, end] : b.stepThreadNodes) {
            const auto it = std::partition_point(g.nodes.begin() + begin, g.nodes.begin() + end,
                                                 [&](const Node& n) { return n.start0 <= at; });
            if (it == g.nodes.begin() + begin)
                continue;
            const auto from = static_cast<std::uint32_t>(std::prev(it) - g.nodes.begin());
            if (g.nodes[from].end0 < at && it != g.nodes.begin() + end)
                continue; // not running then (cannot happen: a thread's nodes tile its time)
            g.addEdge(from, to, at - g.nodes[from].start0, EdgeKind::Queue, true, false);
            break;
        }
    }
    if (m_queueFrom.empty())
        return;
    for (const std::uint32_t call : b.index.setCalls) {
        const std::uint32_t from = m_queueFrom[call];
        if (from == kNoCall)
            continue;
        const std::uint32_t to = b.index.ofCall[call];
        const TimeNs dequeued = g.nodes[to].start0;
        const std::uint32_t src = b.index.ofCall[from];
        // The edge leaves the start of the enqueuing call's node, as a launch does; its lag is what the measured
        // run took from there (the queue's own delay).
        const TimeNs queuedAt = src != kNoNode ? g.nodes[src].start0 : callStart(from);
        const TimeNs lag = std::max<TimeNs>(0, dequeued - queuedAt);
        if (src != kNoNode && src != to)
            g.addEdge(src, to, lag, EdgeKind::Queue, true, false);
        else if (src == kNoNode) // queued before the window: a fixed constraint
            g.release[to] = std::max(g.release[to], queuedAt + lag);
    }
}

void Retimer::addDeviceOp(model::TrackId track, std::size_t pos, TimeNs release, BuildState& b) const
{
    const std::uint32_t op = m_opBase[track.value] + static_cast<std::uint32_t>(pos);
    if (b.index.ofOp[op] != kNoNode)
        return;
    b.index.ofOp[op] = static_cast<std::uint32_t>(b.g.nodes.size());
    b.index.setOps.push_back(op);
    const std::uint32_t slice = m_device[track.value].ops[pos];
    const model::Track& t = m_trace.track(track);
    Node n;
    n.kind = NodeKind::Device;
    n.track = track;
    n.slice = slice;
    n.start0 = t.ts(slice);
    n.end0 = t.end(slice);
    n.dur = t.dur(slice);
    n.cls = deviceClass(t.category(slice));
    b.g.addNode(n, release);
    b.perTrack[track.value].push_back(static_cast<std::uint32_t>(pos));
}

std::size_t Retimer::addLaunchedOps(BuildState& b) const
{
    std::size_t launched = 0;
    // callOrder ascends (threads in track order, calls in slice order) and the trace's flows are sorted by source,
    // so one cursor walks both: each call's flows are found by galloping from the last call's, not by a binary
    // search of every flow of the trace.
    const std::span<const model::Flow> flows = m_trace.flows();
    auto cursor = flows.begin();
    for (const model::SliceRef& call : b.callOrder) {
        cursor = gallopingPartitionPoint(flows.begin(), flows.end(), cursor,
                                         [&call](const model::Flow& f) { return f.from < call; });
        for (; cursor != flows.end() && cursor->from == call; ++cursor) {
            const model::Flow& f = *cursor;
            if (!isDeviceLaunch(m_trace, f) || m_device[f.to.track.value].ops.empty())
                continue;
            const model::Track& dt = m_trace.track(f.to.track);
            if (!isOutermostBusy(dt, f.to.index.value))
                continue;
            // Work of the next window (the host runs ahead) is not this step's.
            if (dt.ts(f.to.index.value) >= b.window.end || dt.end(f.to.index.value) <= b.window.start)
                continue;
            addDeviceOp(f.to.track, opPosition(f.to.track, f.to.index.value), kNone, b);
            ++launched;
        }
    }
    return launched;
}

bool Retimer::addUnlaunchedOps(Interval window, BuildState& b) const
{
    bool unlaunchedWork = false;
    for (std::uint32_t ti : m_deviceTracks) {
        const model::Track& t = m_trace.track(model::TrackId(ti));
        const auto& ops = m_device[ti].ops;
        auto it
            = std::partition_point(ops.begin(), ops.end(), [&](std::uint32_t i) { return t.end(i) <= window.start; });
        const auto& launchCall = m_device[ti].launchCall;
        for (; it != ops.end() && t.ts(*it) < window.end; ++it) {
            const auto pos = static_cast<std::size_t>(it - ops.begin());
            if (launchCall[pos] == kNoCall) {
                // Pinned where it ran unless its stream or another stream's operation held it
                // (addLaunchAndStreamEdges).
                addDeviceOp(model::TrackId(ti), pos, kNone, b);
                unlaunchedWork = true;
            } else if (b.index.ofCall[launchCall[pos]] == kNoNode) {
                // Launched before the window began: the launch is a fixed constraint (addLaunchAndStreamEdges).
                const std::uint32_t op = m_opBase[ti] + static_cast<std::uint32_t>(pos);
                if (b.index.ofOp[op] == kNoNode) {
                    addDeviceOp(model::TrackId(ti), pos, kNone, b);
                    ++b.linkedOutside;
                }
            }
        }
    }
    return unlaunchedWork;
}

// Chooses per operation which of the two held it back (the other gets the typical latency or gap, so that an
// operation can move earlier when what held it back goes).
void Retimer::addLaunchAndStreamEdges(BuildState& b) const
{
    Graph& g = b.g;
    const NodeIndex& index = b.index;
    // The step's collectives, by start: what a task nothing launched may be part of.
    std::vector<std::uint32_t> collectives;
    for (std::uint32_t i = 0; i < g.nodes.size(); ++i) {
        if (g.nodes[i].kind == NodeKind::Device && g.nodes[i].cls == PathClass::Communication)
            collectives.push_back(i);
    }
    std::sort(collectives.begin(), collectives.end(),
              [&](std::uint32_t x, std::uint32_t y) { return g.nodes[x].start0 < g.nodes[y].start0; });
    const auto collectiveHolding = [&](const Node& n) -> std::uint32_t {
        if (n.cls == PathClass::Communication)
            return kNoNode;
        const std::int32_t device = m_trace.track(n.track).deviceIndex;
        auto it = std::partition_point(collectives.begin(), collectives.end(),
                                       [&](std::uint32_t c) { return g.nodes[c].start0 <= n.start0; });
        // The innermost (latest-starting) collective around it; a few back are enough (a collective's planes).
        for (std::size_t back = 0; back < 16 && it != collectives.begin(); ++back) {
            --it;
            const Node& c = g.nodes[*it];
            if (c.track != n.track && c.end0 >= n.end0
                && (device < 0 || m_trace.track(c.track).deviceIndex < 0
                    || m_trace.track(c.track).deviceIndex == device))
                return *it;
        }
        return kNoNode;
    };
    for (std::uint32_t ti = 0; ti < b.perTrack.size(); ++ti) {
        auto& list = b.perTrack[ti];
        if (list.empty())
            continue;
        std::sort(list.begin(), list.end());
        const model::Track& t = m_trace.track(model::TrackId(ti));
        const DeviceOps& d = m_device[ti];
        const auto& ops = d.ops;
        const std::uint32_t base = m_opBase[ti];
        for (std::uint32_t pos : list) {
            const std::uint32_t id = index.ofOp[base + pos];
            g.deviceByKey.emplace_back(key(model::TrackId(ti), ops[pos]), id); // tracks and indices ascending
            Node& n = g.nodes[id];
            // Device work the trace does not record is a fixed constraint, like earlier steps' work: what ran after
            // a stretch of it in the window does not move before its end.
            if (!m_unrecorded.empty()) {
                const auto after = std::partition_point(m_unrecorded.begin(), m_unrecorded.end(),
                                                        [&](const Interval& u) { return u.end <= n.start0; });
                if (after != m_unrecorded.begin() && std::prev(after)->end > b.window.start)
                    g.release[id] = std::max(g.release[id], std::prev(after)->end);
            }
            const bool hasPred = pos > 0;
            const TimeNs predEnd = hasPred ? t.end(ops[pos - 1]) : kNone;
            std::int64_t callId = -1;
            TimeNs calledAt = 0;
            const bool linked = d.launchCall[pos] != kNoCall;
            if (linked) {
                calledAt = callStart(d.launchCall[pos]);
                // The launch edge leaves its node's start: the group's first call, or the window's start for a call
                // that began before it.
                if (const std::uint32_t c = index.ofCall[d.launchCall[pos]]; c != kNoNode) {
                    callId = c;
                    calledAt = g.nodes[c].start0;
                }
            }
            TimeNs lagL = 0;
            TimeNs lagS = 0;
            // Held past what its launch and its stream allow, right after another stream's operation ended: it
            // waited for that one (an event wait), which the edge says; its launch and stream get typical lags.
            bool crossHeld = false;
            TimeNs ready = linked ? calledAt + m_typLag : kNone;
            if (hasPred)
                ready = std::max(ready, predEnd + m_typGap);
            const bool delayed = (linked || hasPred) && n.start0 - ready > kCrossStreamMinDelay;
            // An edge from operation `cpos` of device track `ct`, or its measured end where it is not in the graph
            // (an earlier step's: a fixed constraint).
            const auto crossEdge = [&](std::uint32_t ct, std::size_t cpos, TimeNs lag) {
                if (const std::uint32_t c = index.ofOp[m_opBase[ct] + cpos]; c != kNoNode)
                    g.addEdge(c, id, lag, EdgeKind::CrossStream, false, false);
                else
                    g.release[id] = std::max(g.release[id], opEnd(ct, cpos) + lag);
            };
            // A wait the trace records is an edge whether or not it held the operation (what-ifs may make it hold);
            // it held it when the operation was late and started right after the awaited one ended.
            if (const RecordedWait* w = recordedWait(ti, pos)) {
                const TimeNs d = n.start0 - opEnd(w->fromTrack, w->fromPos); // ≥ 0: findRecordedWaits keeps no other
                crossHeld = delayed && d <= m_typGap + kCrossStreamMinDelay;
                crossEdge(w->fromTrack, w->fromPos, crossHeld ? d : std::min(d, m_typGap));
                g.crossStreamWaitsRecorded += crossHeld ? 1 : 0;
            }
            if (!crossHeld && delayed) {
                const auto [ct, cpos] = crossStreamCause(ti, n.start0, ready);
                if (ct != kNoCall) {
                    crossEdge(ct, cpos, n.start0 - opEnd(ct, cpos));
                    crossHeld = true;
                    ++g.crossStreamWaits;
                }
            }
            if (linked) {
                const TimeNs rawL = n.start0 - calledAt;
                const TimeNs rawS = hasPred ? n.start0 - predEnd : 0;
                const bool streamBound = hasPred && rawS - m_typGap <= rawL - m_typLag;
                lagL = streamBound || crossHeld ? std::min(rawL, m_typLag) : rawL;
                lagS = streamBound && !crossHeld ? rawS : std::min(rawS, m_typGap);
                if (callId >= 0)
                    g.addEdge(static_cast<std::uint32_t>(callId), id, lagL, EdgeKind::Launch, true, false);
                else // launched before the window: a fixed constraint
                    g.release[id] = std::max(g.release[id], calledAt + lagL);
            } else if (hasPred) {
                lagS = std::min(n.start0 - predEnd, m_typGap);
            }
            // Work nothing launched runs when what held it ends: an operation of another stream, or its stream's
            // previous one when it followed that closely (a collective's tasks); otherwise it stays where it ran.
            if (!linked) {
                const std::uint32_t p = hasPred ? index.ofOp[base + pos - 1] : kNoNode;
                const bool followed = p != kNoNode && n.start0 - predEnd <= m_typGap + kCrossStreamMinDelay;
                const std::uint32_t holder = collectiveHolding(n);
                if (holder != kNoNode)
                    g.partOf.emplace_back(id, holder);
                if (followed) {
                    lagS = n.start0 - predEnd;
                } else if (holder != kNoNode) { // runs when its collective got there
                    g.addEdge(holder, id, n.start0 - g.nodes[holder].start0, EdgeKind::Part, true, false);
                } else if (!crossHeld) {
                    g.release[id] = std::max(g.release[id], n.start0);
                }
            }
            if (!hasPred)
                continue;
            if (const std::uint32_t p = index.ofOp[base + pos - 1]; p != kNoNode)
                g.addEdge(p, id, lagS, EdgeKind::Stream, false, false);
            else
                g.release[id] = std::max(g.release[id], predEnd + lagS);
        }
    }
}

std::pair<std::uint32_t, std::size_t> Retimer::crossStreamCause(std::uint32_t track, TimeNs t, TimeNs after) const
{
    const std::int32_t device = m_trace.track(model::TrackId(track)).deviceIndex;
    std::pair<std::uint32_t, std::size_t> best {kNoCall, 0};
    TimeNs bestEnd = std::max(after, t - kCrossStreamMaxLag);
    for (const std::uint32_t ti : m_deviceTracks) {
        const model::Track& o = m_trace.track(model::TrackId(ti));
        if (ti == track || (device >= 0 && o.deviceIndex >= 0 && o.deviceIndex != device))
            continue;
        // A track's outermost operations do not overlap: their ends ascend with their starts.
        const auto& ops = m_device[ti].ops;
        auto it = std::partition_point(ops.begin(), ops.end(), [&](std::uint32_t i) { return o.end(i) <= t; });
        if (it == ops.begin())
            continue;
        --it;
        const TimeNs e = o.end(*it);
        if (e >= bestEnd && o.dur(*it) > 0 && e <= t) {
            bestEnd = e;
            best = {ti, static_cast<std::size_t>(it - ops.begin())};
        }
    }
    return best;
}

// Blocking calls wait, on each stream, for the last operation launched before them that ended before they
// returned.
void Retimer::addBlockingWaits(BuildState& b) const
{
    Graph& g = b.g;
    for (std::uint32_t id : b.blockingNodes) {
        Node& n = g.nodes[id];
        const TimeNs s = m_trace.track(n.track).ts(n.slice); // the call's own start (start0 is clipped to the window)
        const TimeNs e = n.end0;
        struct Awaited
        {
            std::int64_t node;
            TimeNs end;
        };
        std::vector<Awaited> awaited;
        TimeNs latest = kNone;
        for (std::uint32_t ti : m_deviceTracks) {
            const model::Track& t = m_trace.track(model::TrackId(ti));
            const DeviceOps& d = m_device[ti];
            const auto& ops = d.ops;
            auto it = std::partition_point(ops.begin(), ops.end(), [&](std::uint32_t i) { return t.ts(i) <= e; });
            for (std::size_t back = 0; back < kAwaitLookback && it != ops.begin(); ++back) {
                --it;
                const TimeNs end = t.end(*it);
                if (end > e)
                    continue;
                const auto pos = static_cast<std::size_t>(it - ops.begin());
                const std::uint32_t op = b.index.ofOp[m_opBase[ti] + pos];
                TimeNs launchStart = t.ts(*it);
                if (d.launchCall[pos] != kNoCall) {
                    // An operation the call launched or issued itself (a synchronous copy's) is part of the call's
                    // own time: a wait on it would make the graph cyclic. It waits for what its stream ran before.
                    if (b.index.ofCall[d.launchCall[pos]] == id || b.index.ofCall[d.issueCall[pos]] == id)
                        continue;
                    // Work issued before the call is awaited, whenever a task queue submitted it.
                    launchStart = callStart(d.issueCall[pos]);
                }
                if (launchStart > s)
                    continue;
                awaited.push_back({op != kNoNode ? std::int64_t(op) : -1, end});
                latest = std::max(latest, end);
                break;
            }
        }
        if (awaited.empty() || latest <= n.start0) {
            n.dur = e - n.start0;
            if (n.dur >= kUnrecordedMinNs)
                n.cls = PathClass::ExternalWait; // it waited for nothing the trace records
            continue;
        }
        const TimeNs ret = e - latest;
        n.dur = ret;
        for (const Awaited& a : awaited) {
            if (a.node >= 0)
                g.addEdge(static_cast<std::uint32_t>(a.node), id, ret, EdgeKind::Wait, false, true);
            else
                g.endRelease[id] = std::max(g.endRelease[id], a.end + ret);
        }
    }
}

// Topological order (Kahn); a cycle means corrupt links.
bool Retimer::orderGraph(Graph& g)
{
    const std::size_t count = g.nodes.size();
    g.inOffsets.assign(count + 1, 0);
    std::vector<std::uint32_t> indegree(count, 0);
    std::vector<std::uint32_t> outOffsets(count + 1, 0);
    for (const Edge& e : g.edges) {
        ++g.inOffsets[e.to + 1];
        ++outOffsets[e.from + 1];
        ++indegree[e.to];
    }
    for (std::size_t i = 0; i < count; ++i) {
        g.inOffsets[i + 1] += g.inOffsets[i];
        outOffsets[i + 1] += outOffsets[i];
    }
    // The edges in the order the simulation reads them (by `to`, each node's start constraints and then its end
    // constraints, each in their order of creation), so that it walks one array; an edge's index is its place in
    // that order from here on.
    std::vector<std::uint32_t> outEdges(g.edges.size(), 0);
    {
        std::vector<Edge> byTo(g.edges.size());
        std::vector<std::uint32_t> inFill(g.inOffsets.begin(), g.inOffsets.end() - 1);
        for (const Edge& e : g.edges) {
            if (!e.toEnd)
                byTo[inFill[e.to]++] = e;
        }
        g.inEndOffsets = inFill;
        for (const Edge& e : g.edges) {
            if (e.toEnd)
                byTo[inFill[e.to]++] = e;
        }
        g.edges = std::move(byTo);
        std::vector<std::uint32_t> outFill(outOffsets.begin(), outOffsets.end() - 1);
        for (std::uint32_t ei = 0; ei < g.edges.size(); ++ei)
            outEdges[outFill[g.edges[ei].from]++] = ei;
    }
    g.order.clear();
    g.order.reserve(count);
    for (std::uint32_t i = 0; i < count; ++i) {
        if (indegree[i] == 0)
            g.order.push_back(i);
    }
    for (std::size_t head = 0; head < g.order.size(); ++head) {
        const std::uint32_t v = g.order[head];
        for (std::uint32_t k = outOffsets[v]; k < outOffsets[v + 1]; ++k) {
            const std::uint32_t to = g.edges[outEdges[k]].to;
            if (--indegree[to] == 0)
                g.order.push_back(to);
        }
    }
    return g.order.size() == count;
}

TimeNs Retimer::simulate(const Graph& g, const std::vector<TimeNs>& dur, const std::vector<std::uint8_t>* flags,
                         Sim& sim, bool record) const
{
    const std::size_t count = g.nodes.size();
    sim.start.assign(count, 0);
    sim.end.assign(count, 0);
    if (record) {
        sim.startArg.assign(count, -1);
        sim.endArg.assign(count, -1);
    }
    TimeNs last = kNone;
    for (std::uint32_t v : g.order) {
        const std::uint8_t fl = flags ? (*flags)[v] : 0;
        TimeNs s = g.release[v];
        std::int64_t sArg = -1;
        TimeNs e = kNone;
        std::int64_t eArg = -1;
        const std::uint32_t endEdges = g.inEndOffsets[v];
        for (std::uint32_t k = g.inOffsets[v]; k < endEdges; ++k) {
            const Edge& ed = g.edges[k];
            if ((fl & kDetached) != 0 && ed.kind == EdgeKind::Stream)
                continue;
            if ((fl & kRemoved) != 0 && (ed.kind == EdgeKind::Launch || ed.kind == EdgeKind::Part))
                continue;
            const TimeNs base = ed.fromStart ? sim.start[ed.from] : sim.end[ed.from];
            if (base == kNone)
                continue;
            const TimeNs t = base + ed.lag;
            if (t > s) {
                s = t;
                sArg = k;
            }
        }
        if (s == kNone) {
            // Nothing constrains it: a removed operation whose predecessors are gone too. It holds nothing back.
            sim.start[v] = kNone;
            sim.end[v] = kNone;
            continue;
        }
        e = s + dur[v];
        if ((fl & kNoWait) == 0) {
            if (g.endRelease[v] > e) {
                e = g.endRelease[v];
                eArg = -2;
            }
            for (std::uint32_t k = endEdges; k < g.inOffsets[v + 1]; ++k) {
                const Edge& ed = g.edges[k];
                if (sim.end[ed.from] == kNone || (flags && ((*flags)[ed.from] & kDetached) != 0))
                    continue;
                const TimeNs t = sim.end[ed.from] + ed.lag;
                if (t > e) {
                    e = t;
                    eArg = k;
                }
            }
        }
        sim.start[v] = s;
        sim.end[v] = e;
        if (record) {
            sim.startArg[v] = sArg;
            sim.endArg[v] = eArg;
        }
        last = std::max(last, e);
    }
    return last;
}

void Retimer::criticalPath(const Graph& g, const Sim& sim, std::uint32_t last, Interval hostWindow, Interval window,
                           StepCriticalPath& path, std::vector<std::uint32_t>& nodes) const
{
    path.endNs = std::min(sim.end[last], window.end);
    std::uint32_t v = last;
    bool atEnd = true;
    // The walk goes backwards in time and the path keeps its first kMaxPathSegments: the last ones found. A ring of
    // that many holds them (a step's whole path is ~10^6 segments at 10 GB, and every step's was kept until the end).
    std::vector<PathSegment> segments;
    std::uint64_t found = 0;
    const auto keep = [&](PathSegment segment) {
        segment.start = std::max(segment.start, window.start);
        segment.end = std::min(segment.end, window.end);
        if (segment.end <= segment.start)
            return;
        if (segments.size() < kMaxPathSegments)
            segments.push_back(segment);
        else
            segments[found % kMaxPathSegments] = segment;
        ++found;
    };
    // A stretch [a, b) of class c, the part of it inside the window.
    auto add = [&](PathClass c, TimeNs a, TimeNs b) {
        path.byClass[static_cast<std::size_t>(c)]
            += std::max<TimeNs>(0, std::min(b, window.end) - std::max(a, window.start));
    };
    // Latency: the part over device work the trace does not record is that work's, the rest latency.
    auto addLatency = [&](TimeNs a, TimeNs b) {
        a = std::max(a, window.start);
        b = std::min(b, window.end);
        if (b <= a)
            return;
        const TimeNs unrecorded = overlapLength(m_unrecorded, a, b);
        path.byClass[static_cast<std::size_t>(PathClass::Unrecorded)] += unrecorded;
        path.byClass[static_cast<std::size_t>(PathClass::Latency)] += (b - a) - unrecorded;
    };
    // Per host thread on the path: what it did in the step (built when the path first reaches it), and where the
    // searches of it last landed: the walk moves back through each thread's time, so each starts near the last.
    struct Content
    {
        HostContent hc;
        std::array<std::size_t, 2> hints {0, 0};
    };
    std::unordered_map<std::uint32_t, Content> contents;
    std::uint32_t contentTrack = std::numeric_limits<std::uint32_t>::max();
    Content* content = nullptr;
    // Host time [a, b) of a thread (its representative track), split by what the thread did then.
    const auto addHostSpan = [&](model::TrackId track, TimeNs a, TimeNs b) {
        if (b <= a)
            return;
        if (track.value != contentTrack) {
            contentTrack = track.value;
            auto [it, added] = contents.try_emplace(contentTrack);
            if (added)
                it->second.hc = hostContent(m_trace.track(track), hostWindow);
            content = &it->second;
        }
        const TimeNs dl = overlapLength(content->hc.dataloader, a, b, content->hints[0]);
        const TimeNs work = overlapLength(content->hc.work, a, b, content->hints[1]);
        path.byClass[static_cast<std::size_t>(PathClass::Dataloader)] += dl;
        path.byClass[static_cast<std::size_t>(PathClass::HostCompute)] += work;
        path.byClass[static_cast<std::size_t>(PathClass::Python)] += (b - a) - dl - work;
        const PathClass main = dl >= work && dl * 2 >= b - a ? PathClass::Dataloader
            : work * 2 >= b - a                              ? PathClass::HostCompute
                                                             : PathClass::Python;
        keep({.start = a, .end = b, .track = track, .cls = main, .slice = {}});
    };
    // Every move goes to an earlier node or from a node's end to its start, so the walk ends; the guard is for
    // safety against a broken invariant, never reached on a valid graph.
    for (std::size_t guard = 0; guard < 2 * (g.nodes.size() + g.edges.size()) + 2; ++guard) {
        const Node& n = g.nodes[v];
        if (nodes.empty() || nodes.back() != v)
            nodes.push_back(v);
        if (atEnd) {
            const std::int64_t arg = sim.endArg[v];
            if (arg >= 0) {
                const Edge& ed = g.edges[static_cast<std::size_t>(arg)];
                add(PathClass::Sync, sim.end[ed.from], sim.end[v]);
                keep({.start = sim.end[ed.from],
                      .end = sim.end[v],
                      .track = n.track,
                      .cls = PathClass::Sync,
                      .slice = sliceOf(n)});
                v = ed.from;
                continue;
            }
            if (arg == -2) { // waited on work outside the step: the path begins there
                add(PathClass::Sync, sim.start[v], sim.end[v]);
                path.startNs = sim.start[v];
                break;
            }
            const TimeNs a = std::max(sim.start[v], window.start);
            const TimeNs b = std::max(a, std::min(sim.end[v], window.end));
            if (n.kind == NodeKind::HostGap) {
                addHostSpan(n.track, a, b);
            } else {
                add(n.cls, a, b);
                keep({.start = a, .end = b, .track = n.track, .cls = n.cls, .slice = sliceOf(n)});
            }
            atEnd = false;
            continue;
        }
        const std::int64_t arg = sim.startArg[v];
        if (arg < 0) {
            path.startNs = sim.start[v];
            break;
        }
        const Edge& ed = g.edges[static_cast<std::size_t>(arg)];
        const TimeNs from = ed.fromStart ? sim.start[ed.from] : sim.end[ed.from];
        if (ed.kind == EdgeKind::Queue) // the queuing thread's time until the work was taken: what it did then
            addHostSpan(model::TrackId(m_thread[g.nodes[ed.from].track.value]), std::max(from, window.start),
                        std::max(from, std::min(sim.start[v], window.end)));
        else
            addLatency(from, sim.start[v]);
        v = ed.from;
        atEnd = !ed.fromStart;
    }
    // One window: work before the step is a fixed constraint, so a path that began before the window starts at
    // its start; one that begins later waited for what was fixed before it (a launch before the window, the
    // previous step's work on its stream): that wait is latency.
    if (path.startNs < window.start) {
        path.startNs = window.start;
    } else if (path.startNs > window.start && path.endNs > window.start) {
        addLatency(window.start, std::min(path.startNs, path.endNs));
        path.startNs = window.start;
    }
    path.startNs = std::min(path.startNs, path.endNs);
    // Oldest kept first (the ring's next slot once it wrapped), then reversed into time order.
    if (found > kMaxPathSegments) {
        std::rotate(segments.begin(), segments.begin() + static_cast<std::ptrdiff_t>(found % kMaxPathSegments),
                    segments.end());
        path.segmentsOmitted = found - kMaxPathSegments;
    }
    std::reverse(segments.begin(), segments.end());
    path.segments = std::move(segments);
}

void Retimer::freeze()
{
    m_frozen = true;
}

Retimer::StepOutcome Retimer::retimeStep(std::size_t step, std::span<const ResolvedWhatIf> whatIfs, NodeIndex& index,
                                         Retiming& out) const
{
    StepCriticalPath& path = out.steps[step];
    Graph g;
    const bool built = build(step, g, index, path.reason);
    index.clear();
    if (!built)
        return path.reason.find("cycle") != std::string::npos ? StepOutcome::Cyclic : StepOutcome::NotAssessed;
    std::vector<TimeNs> dur(g.nodes.size());
    for (std::size_t i = 0; i < g.nodes.size(); ++i)
        dur[i] = g.nodes[i].dur;
    Sim sim;
    const TimeNs end0 = simulate(g, dur, nullptr, sim, true);
    std::uint32_t last = 0;
    for (std::uint32_t i = 0; i < g.nodes.size(); ++i) {
        if (sim.end[i] == end0) {
            last = i;
            break;
        }
    }
    std::vector<std::uint32_t> pathNodes;
    const Interval window = m_clock.window(step);
    criticalPath(g, sim, last, m_clock.hostWindow(step), window, path, pathNodes);
    path.assessed = true;
    path.crossStreamWaits = g.crossStreamWaits;
    path.crossStreamWaitsRecorded = g.crossStreamWaitsRecorded;

    const TimeNs windowLen = window.length();
    // The step ends at its last end inside the window: work reaching past it is the next step's.
    const TimeNs stepEnd = std::min(end0, window.end);
    // Physical bounds (docs/analysis.md "Invariants"): the path's composition adds up to its length, and the path
    // is as long as the step. A violation is a bug: the step is not reported, never a wrong figure.
    const auto inconsistent = [&](std::string why) {
        path = StepCriticalPath {};
        path.reason = "internal check failed (" + std::move(why)
            + "): this step's critical path and savings are not reported; please report this trace";
        for (auto& column : out.savings)
            column[step] = -1;
        return StepOutcome::Inconsistent;
    };
    TimeNs composed = 0;
    for (const TimeNs ns : path.byClass)
        composed += ns;
    if (composed != path.lengthNs())
        return inconsistent("the path's composition does not add up to its length");
    if (std::abs(path.lengthNs() - windowLen) > windowLen / 100 + 1000)
        return inconsistent("the critical path is not as long as the step");
    const std::size_t count = g.nodes.size();
    std::vector<std::uint8_t> onPathNode(count, 0);
    for (std::uint32_t i : pathNodes)
        onPathNode[i] = 1;
    // The host nodes of one thread are consecutive and in time order: runs of [begin, end) per thread (its
    // representative track).
    struct HostRun
    {
        model::TrackId track;
        std::uint32_t begin;
        std::uint32_t end;
    };
    std::vector<HostRun> hostRuns;
    for (std::uint32_t i = 0; i < count; ++i) {
        const Node& n = g.nodes[i];
        if (n.kind == NodeKind::Device)
            continue;
        const model::TrackId thread(m_thread[n.track.value]);
        if (!hostRuns.empty() && hostRuns.back().track == thread && hostRuns.back().end == i)
            ++hostRuns.back().end;
        else
            hostRuns.push_back({thread, i, i + 1});
    }
    // The work no cause removes bounds every re-timing: each host thread runs its nodes one after another from the
    // window's start, and each stream its operations of the window. Per node its group (a thread or a stream) and
    // per group the measured sum; a what-if adjusts the sums by what it changes.
    std::vector<std::uint32_t> groupOf(count, kNoNode);
    std::vector<TimeNs> groupWork;
    {
        std::unordered_map<std::uint32_t, std::uint32_t> groupOfTrack;
        for (std::uint32_t i = 0; i < count; ++i) {
            const Node& n = g.nodes[i];
            if (n.kind == NodeKind::Device && n.start0 < window.start)
                continue; // began before the window: its stream may run part of it earlier
            const std::uint32_t group = n.kind == NodeKind::Device ? n.track.value : m_thread[n.track.value];
            const auto [it, added] = groupOfTrack.try_emplace(group, std::uint32_t(groupWork.size()));
            if (added)
                groupWork.push_back(0);
            groupOf[i] = it->second;
            groupWork[it->second] += n.dur;
        }
    }
    std::vector<TimeNs> floorWork;
    std::vector<std::uint8_t> flags(count, 0);
    std::vector<std::uint8_t> deviceOp(count, 0); // the cause's ResolvedWhatIf flags per device node
    std::vector<double> deviceScale(count, 1.0);  // … and the share of its time a scaled node keeps
    std::vector<std::uint32_t> touched;
    struct Change
    {
        std::uint32_t node;
        TimeNs dur;
        std::uint8_t flags;
    };
    std::vector<Change> changes;
    for (std::size_t w = 0; w < whatIfs.size(); ++w) {
        const ResolvedWhatIf& r = whatIfs[w];
        // The step's device nodes the cause touches: a merge of two key-sorted lists, from the step's first key.
        for (std::uint32_t i : touched)
            deviceOp[i] = 0;
        touched.clear();
        if (!r.device.empty() && !g.deviceByKey.empty()) {
            auto a = std::lower_bound(r.device.begin(), r.device.end(), g.deviceByKey.front().first,
                                      [](const auto& e, std::uint64_t k) { return e.first < k; });
            auto b = g.deviceByKey.begin();
            while (a != r.device.end() && b != g.deviceByKey.end()) {
                if (a->first < b->first) {
                    ++a;
                } else if (b->first < a->first) {
                    ++b;
                } else {
                    deviceOp[b->second] = a->second;
                    deviceScale[b->second] = a->scale;
                    touched.push_back(b->second);
                    ++a;
                    ++b;
                }
            }
        }
        // A collective's tasks go, or shrink, with it.
        for (const auto& [task, coll] : g.partOf) {
            const std::uint8_t op = deviceOp[coll];
            if (op == 0 || deviceOp[task] != 0)
                continue;
            deviceOp[task] = op & (ResolvedWhatIf::kRemovedOp | ResolvedWhatIf::kScaledOp);
            deviceScale[task] = deviceScale[coll];
            touched.push_back(task);
        }
        // What the cause changes: the device nodes it touches, and the host nodes of the threads whose time it
        // removes (or whose blocking calls it makes vanish). Every other node keeps its duration and no flags.
        changes.clear();
        const auto note = [&](std::uint32_t i, TimeNs d, std::uint8_t fl) {
            if (d != g.nodes[i].dur || fl != 0)
                changes.push_back({i, d, fl});
        };
        for (std::uint32_t i : touched) {
            const Node& n = g.nodes[i];
            const std::uint8_t op = deviceOp[i];
            TimeNs d = n.dur;
            std::uint8_t fl = 0;
            if ((op & ResolvedWhatIf::kRemovedOp) != 0) {
                d = 0;
                fl |= kRemoved;
            } else if ((op & ResolvedWhatIf::kScaledOp) != 0) {
                d = static_cast<TimeNs>(static_cast<double>(d) * deviceScale[i]);
            }
            if ((op & ResolvedWhatIf::kAsyncOp) != 0)
                fl |= kDetached;
            note(i, d, fl);
        }
        for (const HostRun& run : hostRuns) {
            const auto h = r.host.find(run.track.value);
            const IntervalList& removed = h != r.host.end() ? h->second : r.hostAll;
            if (removed.empty() && r.sync.empty())
                continue;
            std::size_t hint = 0; // the run's nodes are in time order: each search starts where the last ended
            std::size_t syncHint = 0;
            for (std::uint32_t i = run.begin; i < run.end; ++i) {
                const Node& n = g.nodes[i];
                if (removed.empty() && (n.kind != NodeKind::Call || !n.blocking))
                    continue;
                const TimeNs span = n.end0 - n.start0;
                const TimeNs cut = std::min(span, overlapLength(removed, n.start0, n.end0, hint));
                const bool callGone = n.kind == NodeKind::Call
                    && (cut >= span || (n.blocking && overlapLength(r.sync, n.start0, n.end0, syncHint) > 0));
                if (callGone)
                    note(i, 0, kNoWait);
                else
                    note(i, std::max<TimeNs>(0, n.dur - cut), 0);
            }
        }
        // The re-timing only shortens durations and drops constraints, so no time gets later; when nothing on the
        // critical path changes, that chain still ends at end0 and the step cannot end sooner: a saving of 0,
        // without simulating.
        const bool onPath
            = std::any_of(changes.begin(), changes.end(), [&](const Change& c) { return onPathNode[c.node] != 0; });
        TimeNs saving = 0;
        if (onPath) {
            // dur and flags hold the measured graph between what-ifs: set the changes, simulate, put them back.
            for (const Change& c : changes) {
                dur[c.node] = c.dur;
                flags[c.node] = c.flags;
            }
            // The measured run's times are no longer needed (its path is walked): its arrays are reused.
            const TimeNs end1 = simulate(g, dur, &flags, sim, false);
            floorWork = groupWork;
            for (const Change& c : changes) {
                if (groupOf[c.node] == kNoNode)
                    continue;
                const bool detached = (c.flags & kDetached) != 0 && g.nodes[c.node].kind == NodeKind::Device;
                floorWork[groupOf[c.node]] += (detached ? 0 : c.dur) - g.nodes[c.node].dur;
            }
            const TimeNs floor = floorWork.empty() ? 0 : *std::max_element(floorWork.begin(), floorWork.end());
            if (end1 < window.start + floor) {
                for (const Change& c : changes) {
                    dur[c.node] = g.nodes[c.node].dur;
                    flags[c.node] = 0;
                }
                return inconsistent("a re-timing ended sooner than the work it keeps allows");
            }
            saving = std::clamp<TimeNs>(stepEnd - end1, 0, windowLen);
            for (const Change& c : changes) {
                dur[c.node] = g.nodes[c.node].dur;
                flags[c.node] = 0;
            }
        }
        out.savings[w][step] = saving;
    }
    return StepOutcome::Assessed;
}

} // namespace

struct RetimingPlan::State
{
    explicit State(const model::Trace& trace, const StepClock& clock)
        : retimer(trace, clock)
    {
    }
    Retimer retimer;
};

RetimingPlan::RetimingPlan(const model::Trace& trace, const StepClock& clock)
    : m_clock(clock)
    , m_state(std::make_unique<State>(trace, clock))
{
    if (trace.metadata().syntheticTimestamps) {
        m_reason = "timestamps were laid out by the importer, not measured, so steps cannot be re-timed";
        return;
    }
    if (!hasDeviceWork(trace)) {
        m_reason = "no device work in this trace (host-only run), so there is no host → device graph";
        return;
    }
    Retimer& retimer = m_state->retimer;
    retimer.prepare();
    if (!retimer.hasLaunches())
        m_reason = "the trace has no launch links (host → device flows), so steps cannot be re-timed";
    else if (retimer.opCount() >= kNoNode || retimer.callCount() >= kNoCall)
        m_reason = "the trace has more than 4 billion device operations or calls to re-time";
    else
        retimer.freeze();
}

RetimingPlan::~RetimingPlan() = default;

void RetimingPlan::setUnrecorded(IntervalList unrecorded)
{
    m_state->retimer.setUnrecorded(std::move(unrecorded));
}

Retiming retimeSteps(const model::Trace& trace, const StepClock& clock, std::span<const WhatIf* const> whatIfs,
                     const CancelToken& cancel)
{
    const RetimingPlan plan(trace, clock);
    return retimeSteps(plan, whatIfs, cancel);
}

Retiming retimeSteps(const RetimingPlan& plan, std::span<const WhatIf* const> whatIfs, const CancelToken& cancel)
{
    const StepClock& clock = plan.clock();
    Retiming out;
    out.steps.resize(clock.size());
    out.savings.assign(whatIfs.size(), std::vector<TimeNs>(clock.size(), -1));
    out.notAssessedReason = plan.notAssessedReason();
    if (!out.notAssessedReason.empty()) {
        for (auto& s : out.steps)
            s.reason = out.notAssessedReason;
        return out;
    }
    const Retimer& retimer = plan.state().retimer;
    std::vector<ResolvedWhatIf> resolved;
    resolved.reserve(whatIfs.size());
    for (const WhatIf* w : whatIfs)
        resolved.push_back(retimer.resolve(w ? *w : WhatIf {}));
    // Steps are independent graphs: each worker owns its step's path and savings column.
    std::vector<Retimer::StepOutcome> outcomes(clock.size(), Retimer::StepOutcome::NotAssessed);
    NodeIndexPool indexes(retimer.opCount(), retimer.callCount());
    model::parallelFor(clock.size(), model::hardwareThreads(), [&](std::size_t i) {
        if (cancel.cancelled())
            return;
        if (clock.window(i).length() <= 0) {
            out.steps[i].reason = "the step is not analysed";
            return;
        }
        std::unique_ptr<NodeIndex> index = indexes.take();
        outcomes[i] = retimer.retimeStep(i, resolved, *index, out);
        indexes.give(std::move(index));
    });
    for (Retimer::StepOutcome o : outcomes) {
        out.stepsAssessed += o == Retimer::StepOutcome::Assessed ? 1 : 0;
        out.cyclicSteps += o == Retimer::StepOutcome::Cyclic ? 1 : 0;
        out.inconsistentSteps += o == Retimer::StepOutcome::Inconsistent ? 1 : 0;
    }
    return out;
}

void projectSavings(const RetimingPlan& plan, const CancelToken& cancel, AnalysisResult& result)
{
    const StepClock& clock = plan.clock();
    auto& findings = result.findings;
    std::vector<const WhatIf*> list;
    list.reserve(findings.size() + 1);
    for (const Finding& f : findings)
        list.push_back(&f.whatIf);
    const WhatIf all = mergeWhatIfs(findings);
    list.push_back(&all);
    Retiming r = retimeSteps(plan, list, cancel);

    const std::size_t steps = clock.size();
    std::vector<TimeNs> lostInStep(steps, 0);   // per step: Σ lost of all findings (fallback of "all")
    std::vector<TimeNs> noRuleInStep(steps, 0); // per step: Σ lost of findings without a what-if
    for (std::size_t j = 0; j < findings.size(); ++j) {
        Finding& f = findings[j];
        const bool rule = !f.whatIf.empty();
        std::vector<TimeNs> perStep(steps, -1);
        for (const StepLoss& ps : f.perStep) {
            if (ps.stepIndex < steps) {
                lostInStep[ps.stepIndex] += ps.lostNs;
                if (!rule)
                    noRuleInStep[ps.stepIndex] += ps.lostNs;
            }
        }
        std::size_t retimed = 0;
        std::size_t fallback = 0;
        // Steps with a loss take their re-timed saving, or their lost time where the step was not re-timed.
        for (StepLoss& ps : f.perStep) {
            const TimeNs s = rule && ps.stepIndex < steps ? r.savings[j][ps.stepIndex] : -1;
            if (s >= 0) {
                ps.savingNs = s;
                ++retimed;
            } else {
                ps.savingNs = ps.lostNs;
                ++fallback;
            }
        }
        // Re-timing can find a saving in a step where nothing was counted lost (host time the device did not wait
        // for in that step, but that delayed it later): such steps join per_step with a lost time of 0.
        if (rule) {
            for (std::size_t i = 0; i < steps; ++i) {
                if (r.savings[j][i] <= 0)
                    continue;
                const bool listed = std::any_of(f.perStep.begin(), f.perStep.end(),
                                                [i](const StepLoss& ps) { return ps.stepIndex == i; });
                if (!listed) {
                    StepLoss extra;
                    extra.stepIndex = i;
                    extra.stepNumber = clock.step(i).number;
                    extra.stepNs = clock.window(i).length();
                    extra.savingNs = r.savings[j][i];
                    f.perStep.push_back(extra);
                    ++retimed;
                }
            }
            std::sort(f.perStep.begin(), f.perStep.end(),
                      [](const StepLoss& a, const StepLoss& b) { return a.stepIndex < b.stepIndex; });
        }
        TimeNs saving = 0;
        for (const StepLoss& ps : f.perStep)
            saving += ps.savingNs;
        f.savingNs = std::min(saving, result.analysedNs);
        f.savingFraction = result.analysedNs > 0 ? double(f.savingNs) / double(result.analysedNs) : 0.0;
        if (!rule) {
            f.savingMethod = "lost_time";
            f.savingRule = "No re-timing rule for this kind: the saving is the lost time.";
        } else if (fallback == 0) {
            f.savingMethod = "retimed";
        } else if (retimed == 0) {
            f.savingMethod = "lost_time";
            f.savingRule = "The steps could not be re-timed ("
                + (r.notAssessedReason.empty() ? std::string("see the critical path's reason") : r.notAssessedReason)
                + "): the saving is the lost time. " + f.savingRule;
        } else {
            f.savingMethod = "partly_retimed";
            f.savingRule += " Steps that could not be re-timed count their lost time.";
        }
    }
    // Laid-out layers (RKNN): their findings' savings compose per layer instead of adding up (rknnfixall.h).
    const LayerFixAll layerFix = composeLayerSavings(findings, clock);
    TimeNs total = 0;
    for (std::size_t i = 0; i < steps; ++i) {
        const TimeNs window = clock.window(i).length();
        if (window <= 0)
            continue;
        const TimeNs s = r.savings[findings.size()][i];
        // The layer findings have no re-timing rule: their lost times, summed in both, give way to the composed
        // saving (a step that broke a bound, savingNs −1, keeps the lost times, as the CLI's warning says).
        const TimeNs layers = layerFix.any && layerFix.savingNs[i] >= 0 ? layerFix.savingNs[i] - layerFix.lostNs[i] : 0;
        total += std::min(window, s >= 0 ? s + noRuleInStep[i] + layers : lostInStep[i] + layers);
    }
    result.savingNs = std::min(total, result.analysedNs);
    result.savingFraction = result.analysedNs > 0 ? double(result.savingNs) / double(result.analysedNs) : 0.0;
    result.criticalPaths = std::move(r.steps);
    result.criticalPathNotAssessed = std::move(r.notAssessedReason);
    result.cyclicSteps = r.cyclicSteps;
    result.inconsistentSteps = r.inconsistentSteps + layerFix.inconsistentSteps;
    for (Finding& f : findings)
        f.whatIf = WhatIf {};
    explainSavings(result);
    std::sort(findings.begin(), findings.end(), rankBefore);
}

WhatIf mergeWhatIfs(std::span<const Finding> findings)
{
    WhatIf all;
    for (const Finding& f : findings) {
        const WhatIf& w = f.whatIf;
        all.removedHost.insert(all.removedHost.end(), w.removedHost.begin(), w.removedHost.end());
        all.hostRanges.insert(all.hostRanges.end(), w.hostRanges.begin(), w.hostRanges.end());
        all.syncRanges.insert(all.syncRanges.end(), w.syncRanges.begin(), w.syncRanges.end());
        all.removedDevice.insert(all.removedDevice.end(), w.removedDevice.begin(), w.removedDevice.end());
        all.asyncCopies.insert(all.asyncCopies.end(), w.asyncCopies.begin(), w.asyncCopies.end());
        // Each operation keeps its own finding's scale (resolve() takes the smallest where several scale it).
        for (std::size_t i = 0; i < w.scaledDevice.size(); ++i) {
            all.scaledDevice.push_back(w.scaledDevice[i]);
            all.scales.push_back(i < w.scales.size() ? w.scales[i] : w.scale);
        }
    }
    all.hostRanges = unite(std::move(all.hostRanges));
    all.syncRanges = unite(std::move(all.syncRanges));
    return all;
}

} // namespace timesink::analysis
