// SPDX-License-Identifier: MIT
#include "parsers/ascend/ascendtimeline.h"

#include "parsers/ascend/ascendkernelargs.h"
#include "parsers/ascend/ascendtasktype.h"
#include "parsers/ascend/ascendtracks.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <span>
#include <tuple>
#include <unordered_set>

namespace timesink::parsers {

using chromejson::ChromeArg;
using chromejson::ChromeEvent;
using model::Arg;
using model::ArgValue;
using model::SliceCategory;
using model::SliceInput;
using model::TimeNs;

namespace {

std::int64_t idOf(std::string_view text, bool isNumber, std::int64_t number)
{
    if (isNumber)
        return number;
    // Non-numeric pids/tids (not written by these tools, but valid Chrome JSON) get a stable hash.
    return static_cast<std::int64_t>(std::hash<std::string_view> {}(text) & 0x3fffffffffffffffULL);
}

bool contains(std::string_view s, std::string_view needle)
{
    return s.find(needle) != std::string_view::npos;
}

bool isOverlapLane(std::string_view name)
{
    return name == "Computing" || name == "Communication" || name == "Communication(Not Overlapped)"
        || name == "Free";
}

} // namespace

class AscendTimelineSink : public chromejson::ChromeEventSink
{
public:
    AscendTimelineSink(AscendTimeline& t, ProgressSink& progress)
        : m_t(t)
        , m_progress(progress)
    {
    }

    void onEvent(const ChromeEvent& e) override
    {
        const std::int64_t pid = idOf(e.pid, e.pidIsNumber, e.pidNumber);
        const std::int64_t tid = idOf(e.tid, e.tidIsNumber, e.tidNumber);
        switch (e.ph) {
        case 'M':
            onMetadata(e, pid, tid);
            return;
        case 'X':
            onSlice(e, pid, tid);
            return;
        case 's':
        case 'f':
        case 't':
            onFlow(e, pid, tid);
            return;
        case 'C':
            onCounter(e, pid);
            return;
        default:
            m_t.m_b.warn("unsupported_phase", "events with \"ph\": \"" + std::string(1, e.ph ? e.ph : '?')
                                                  + "\" are not part of the torch_npu/msprof timeline; skipped");
        }
    }

    void onWarning(std::string_view kind, std::string_view message, std::uint64_t count) override
    {
        m_t.m_b.warn(kind, message, count);
    }
    [[nodiscard]] bool cancelled() const override { return m_progress.cancelled(); }

private:
    void onMetadata(const ChromeEvent& e, std::int64_t pid, std::int64_t tid)
    {
        const ChromeArg* a = e.arg("name");
        if (e.name == "process_name" && a && a->kind == ChromeArg::Kind::String)
            m_t.m_processNames[pid] = std::string(a->text);
        else if (e.name == "thread_name" && a && a->kind == ChromeArg::Kind::String)
            m_t.m_threadNames[{pid, tid}] = std::string(a->text);
        else if (e.name == "process_labels") {
            if (const ChromeArg* l = e.arg("labels"); l && l->kind == ChromeArg::Kind::String)
                m_t.m_processLabels[pid] = std::string(l->text);
        }
    }

    void onSlice(const ChromeEvent& e, std::int64_t pid, std::int64_t tid)
    {
        model::TraceBuilder& b = m_t.m_b;
        if (!e.hasTs) {
            b.warn("bad_ts", "an X event without a usable \"ts\" was skipped (" + std::string(e.name) + ")");
            return;
        }
        if (e.hasDur && e.dur < 0) {
            b.warn("bad_dur", "an X event with a negative \"dur\" was skipped (" + std::string(e.name) + ")");
            return;
        }
        AscendTimeline::Pending p;
        p.ts = e.ts;
        p.dur = e.hasDur ? e.dur : 0;
        p.pid = pid;
        p.tid = tid;
        p.name = b.intern(e.name);
        p.cat = b.intern(e.cat);
        auto& pool = m_t.m_argPool;
        p.argBegin = pool.size();
        for (const ChromeArg& a : e.args) {
            const model::StringId key = b.intern(a.key);
            switch (a.kind) {
            case ChromeArg::Kind::Int:
            case ChromeArg::Kind::Bool:
                pool.push_back(Arg {key, a.kind == ChromeArg::Kind::Bool ? ArgValue::fromBool(a.i != 0)
                                                                            : ArgValue::fromInt(a.i)});
                break;
            case ChromeArg::Kind::Double:
                pool.push_back(Arg {key, ArgValue::fromDouble(a.d)});
                break;
            case ChromeArg::Kind::String:
            case ChromeArg::Kind::Json:
                pool.push_back(Arg {key, ArgValue::fromString(b.intern(a.text))});
                break;
            case ChromeArg::Kind::Null:
                break;
            }
            if (a.key == "Task Type" && a.kind == ChromeArg::Kind::String)
                p.taskType = b.intern(a.text);
            else if (a.key == "level")
                p.hasLevel = true;
            if (a.key == "connection_id" || a.key == "Sequence number" || a.key == "Python id")
                p.uniqueArgs = true;
            else if (a.key == "task type" || a.key == "transport type" || a.key == "alg_type")
                p.hasHcclArgs = true;
        }
        p.argCount = static_cast<std::uint32_t>(pool.size() - p.argBegin);
        if (p.taskType.isEmpty() && !p.hasHcclArgs) {
            // Host-side events are never extended by a join: store their args now and keep the pool small.
            const std::span<const Arg> args(pool.data() + p.argBegin, p.argCount);
            p.args = p.uniqueArgs ? b.addUniqueArgs(args) : b.addArgs(args);
            pool.resize(p.argBegin);
            p.argCount = 0;
        } else {
            p.argsInPool = true;
        }
        m_t.m_events.push_back(p);
    }

    void onFlow(const ChromeEvent& e, std::int64_t pid, std::int64_t tid)
    {
        if (!e.hasId || !e.hasTs) {
            m_t.m_b.warn("flow_without_id", "a flow event without \"id\" or \"ts\" was skipped ("
                                                + std::string(e.cat) + ")");
            return;
        }
        AscendTimeline::FlowEvent f;
        f.key = m_t.flowKey(e.cat, e.id);
        f.pid = pid;
        f.tid = tid;
        f.ts = e.ts;
        f.start = e.ph == 's';
        f.bindEnclosing = f.start || e.bp == "e";
        m_t.m_flowEvents.push_back(f);
    }

    void onCounter(const ChromeEvent& e, std::int64_t pid)
    {
        if (!e.hasTs)
            return;
        for (const ChromeArg& a : e.args) {
            double v = 0;
            if (a.kind == ChromeArg::Kind::Int)
                v = static_cast<double>(a.i);
            else if (a.kind == ChromeArg::Kind::Double)
                v = a.d;
            else
                continue;
            std::string series(e.name);
            series += " (";
            series += a.key;
            series += ')';
            m_t.m_counters.push_back(AscendTimeline::PendingCounter {pid, e.ts, m_t.m_b.intern(series), v});
        }
    }

    AscendTimeline& m_t;
    ProgressSink& m_progress;
};

AscendTimeline::AscendTimeline(model::TraceBuilder& builder, AscendTracks& tracks, const KernelTable* kernels,
                               std::int32_t device)
    : m_b(builder)
    , m_tracks(tracks)
    , m_kernels(kernels)
    , m_device(device)
{
    if (m_kernels) {
        for (std::uint32_t i = 0; i < m_kernels->rows.size(); ++i)
            m_kernelByStart.emplace(m_kernels->rows[i].start, i);
        m_kernelMatched.assign(m_kernels->rows.size(), false);
    }
}

AscendTimeline::~AscendTimeline() = default;

chromejson::ChromeReadResult AscendTimeline::readFile(const std::filesystem::path& path,
                                                      const ImportOptions& options, ProgressSink& progress)
{
    AscendTimelineSink sink(*this, progress);
    chromejson::ChromeEventReader reader(path, options, progress);
    return reader.read(sink);
}

AscendTimeline::FlowKey AscendTimeline::flowKey(std::string_view cat, std::string_view id)
{
    FlowKey key;
    key.cat = m_b.intern(cat);
    // 38 decimal digits always fit in 128 bits.
    const bool numeric = !id.empty() && id.size() <= 38
        && std::all_of(id.begin(), id.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!numeric) {
        key.text = m_b.intern(id);
        return key;
    }
    __extension__ using U128 = unsigned __int128;
    U128 v = 0;
    for (const char c : id)
        v = v * 10 + static_cast<unsigned>(c - '0');
    key.hi = static_cast<std::uint64_t>(v >> 64);
    key.lo = static_cast<std::uint64_t>(v);
    key.digits = static_cast<std::uint32_t>(id.size());
    return key;
}

std::vector<AscendTimeline::PendingFlow> AscendTimeline::pairFlows()
{
    std::stable_sort(m_flowEvents.begin(), m_flowEvents.end(),
                     [](const FlowEvent& a, const FlowEvent& b) { return a.key < b.key; });
    std::vector<PendingFlow> flows;
    flows.reserve(m_flowEvents.size() / 2 + 1);
    for (std::size_t first = 0; first < m_flowEvents.size();) {
        std::size_t last = first;
        while (last < m_flowEvents.size() && m_flowEvents[last].key == m_flowEvents[first].key)
            ++last;
        const FlowEvent* start = nullptr;
        for (std::size_t k = first; k < last; ++k) {
            if (m_flowEvents[k].start)
                start = &m_flowEvents[k];
        }
        PendingFlow flow;
        flow.cat = m_flowEvents[first].key.cat;
        if (start) {
            flow.hasStart = true;
            flow.fromPid = start->pid;
            flow.fromTid = start->tid;
            flow.fromTs = start->ts;
        }
        const std::size_t mainIndex = flows.size();
        flows.push_back(flow);
        for (std::size_t k = first; k < last; ++k) {
            const FlowEvent& end = m_flowEvents[k];
            if (end.start)
                continue;
            PendingFlow& f = flows[mainIndex].hasEnd ? flows.emplace_back(flow) : flows[mainIndex];
            f.hasEnd = true;
            f.toPid = end.pid;
            f.toTid = end.tid;
            f.toTs = end.ts;
            f.bindEnclosing = end.bindEnclosing;
        }
        first = last;
    }
    m_flowEvents.clear();
    m_flowEvents.shrink_to_fit();
    return flows;
}

const KernelRow* AscendTimeline::joinKernel(TimeNs ts, std::string_view name)
{
    if (!m_kernels)
        return nullptr;
    // The CSV and the timeline round their µs text independently; HCCL rows differ by 1 ns (…241.563 vs
    // …241.564), so a row matches by name within a small window, nearest start first.
    constexpr TimeNs kTolerance = 2;
    const KernelRow* best = nullptr;
    std::uint32_t bestIndex = 0;
    TimeNs bestDistance = kTolerance + 1;
    for (auto it = m_kernelByStart.lower_bound(ts - kTolerance);
         it != m_kernelByStart.end() && it->first <= ts + kTolerance; ++it) {
        const KernelRow& row = m_kernels->rows[it->second];
        const TimeNs distance = it->first > ts ? it->first - ts : ts - it->first;
        if (row.name == name && !m_kernelMatched[it->second] && distance < bestDistance) {
            best = &row;
            bestIndex = it->second;
            bestDistance = distance;
        }
    }
    if (best)
        m_kernelMatched[bestIndex] = true;
    return best;
}

AscendTimeline::Lane AscendTimeline::laneOfProcess(const std::string& p) const
{
    // Match loosely: older CANN releases are reported to use "AscendCL"/"Runtime"/"Task Scheduler".
    if (contains(p, "Ascend Hardware") || contains(p, "Task Scheduler"))
        return Lane::Device;
    if (contains(p, "HCCL") || contains(p, "Communication"))
        return Lane::Hccl;
    if (contains(p, "Overlap"))
        return Lane::Overlap;
    if (contains(p, "CANN") || contains(p, "AscendCL") || contains(p, "Runtime"))
        return Lane::Cann;
    if (contains(p, "Python") || contains(p, "python"))
        return Lane::Python;
    return Lane::Other;
}

AscendTimeline::Lane AscendTimeline::laneOf(const Pending& e) const
{
    if (auto it = m_pidLanes.find(e.pid); it != m_pidLanes.end() && it->second != Lane::Other)
        return it->second;
    // No process_name for this pid (sanitized or partial files): decide from the event itself.
    if (!e.taskType.isEmpty())
        return Lane::Device;
    if (e.hasHcclArgs)
        return Lane::Hccl;
    if (e.hasLevel || contains(m_b.str(e.name), "@"))
        return Lane::Cann;
    const std::string_view cat = m_b.str(e.cat);
    if (cat == "cpu_op" || cat == "python_function" || cat == "enqueue" || cat == "dequeue"
        || cat == "user_annotation")
        return Lane::Python;
    if (isOverlapLane(m_b.str(e.name)) && e.cat.isEmpty())
        return Lane::Overlap;
    return Lane::Other;
}

model::TrackId AscendTimeline::trackFor(const Pending& e, Lane lane)
{
    const auto key = std::make_tuple(e.pid, e.tid, lane);
    if (auto it = m_trackCache.find(key); it != m_trackCache.end())
        return it->second;
    const model::TrackId id = makeTrack(e, lane);
    m_trackCache.emplace(key, id);
    return id;
}

model::TrackId AscendTimeline::makeTrack(const Pending& e, Lane lane)
{
    auto threadName = [&]() -> std::string {
        if (auto it = m_threadNames.find({e.pid, e.tid}); it != m_threadNames.end())
            return it->second;
        return {};
    };
    switch (lane) {
    case Lane::Python:
        return m_tracks.hostThread("Python", e.pid, e.tid);
    case Lane::Cann:
        m_sawCann = true;
        return m_tracks.hostThread("CANN", e.pid, e.tid);
    case Lane::Device:
        return m_tracks.deviceStream(m_device, e.tid);
    case Lane::Hccl: {
        std::string name = threadName();
        if (name.empty())
            name = "Plane " + std::to_string(e.tid);
        return m_tracks.communication(m_device, name);
    }
    case Lane::Overlap: {
        std::string name = threadName();
        if (name.empty())
            name = std::string(m_b.str(e.name));
        return m_tracks.overlap(m_device, name);
    }
    case Lane::Other:
        break;
    }
    std::string process;
    if (auto it = m_processNames.find(e.pid); it != m_processNames.end())
        process = it->second;
    else
        process = "Process " + std::to_string(e.pid);
    return m_tracks.hostThread(process, e.pid, e.tid);
}

void AscendTimeline::finish()
{
    using Key = std::tuple<std::int64_t, std::int64_t, TimeNs>; // pid, tid, ts
    struct KeyHash
    {
        std::size_t operator()(const Key& k) const
        {
            const auto [a, b, c] = k;
            return std::hash<std::int64_t> {}(a * 1000003 ^ b * 7919 ^ c);
        }
    };
    // Flow ends by their device-side target, to find what launched a copy.
    const model::StringId catAsyncNpu = m_b.intern("async_npu");
    const model::StringId catHostToDevice = m_b.intern("HostToDevice");
    std::unordered_map<Key, Key, KeyHash> launchedBy;  // device task (pid, tid, ts) → framework op flow start
    std::unordered_map<Key, Key, KeyHash> calledFrom;  // device task → CANN API flow start
    const std::vector<PendingFlow> flows = pairFlows();
    auto allFlows = [&](auto&& fn) {
        for (const PendingFlow& f : flows)
            fn(f);
    };
    // Only copies need their launcher (for the direction); index the flows that end on one.
    std::unordered_set<Key, KeyHash> copies;
    for (const Pending& e : m_events) {
        if (!e.taskType.isEmpty()
            && classifyAscendTask(m_b.str(e.taskType), {}, m_b.str(e.name)).hostDeviceCopy)
            copies.insert(Key {e.pid, e.tid, e.ts});
    }
    allFlows([&](const PendingFlow& f) {
        if (!f.hasStart || !f.hasEnd || copies.empty() || !copies.count(Key {f.toPid, f.toTid, f.toTs}))
            return;
        if (f.cat == catAsyncNpu)
            launchedBy.emplace(Key {f.toPid, f.toTid, f.toTs}, Key {f.fromPid, f.fromTid, f.fromTs});
        else if (f.cat == catHostToDevice)
            calledFrom.emplace(Key {f.toPid, f.toTid, f.toTs}, Key {f.fromPid, f.fromTid, f.fromTs});
    });

    // Lanes decided once all process names are known.
    for (const auto& [pid, name] : m_processNames)
        m_pidLanes[pid] = laneOfProcess(name);
    std::vector<Lane> lanes(m_events.size());
    std::map<std::pair<std::int64_t, std::int64_t>, std::vector<std::uint32_t>> pythonByThread;
    std::unordered_map<Key, std::uint32_t, KeyHash> cannByStart;
    for (std::uint32_t i = 0; i < m_events.size(); ++i) {
        lanes[i] = laneOf(m_events[i]);
        if (lanes[i] == Lane::Python)
            pythonByThread[{m_events[i].pid, m_events[i].tid}].push_back(i);
        else if (lanes[i] == Lane::Cann)
            cannByStart.emplace(Key {m_events[i].pid, m_events[i].tid, m_events[i].ts}, i);
    }
    for (auto& [thread, idx] : pythonByThread) {
        (void)thread;
        std::sort(idx.begin(), idx.end(), [&](std::uint32_t a, std::uint32_t b) { return m_events[a].ts < m_events[b].ts; });
    }
    // The innermost framework op enclosing a flow start (the flow starts inside the op that launched it).
    auto enclosingPythonOp = [&](const Key& at) -> std::string_view {
        auto it = pythonByThread.find({std::get<0>(at), std::get<1>(at)});
        if (it == pythonByThread.end())
            return {};
        const auto& idx = it->second;
        const TimeNs t = std::get<2>(at);
        auto upper = std::upper_bound(idx.begin(), idx.end(), t,
                                      [&](TimeNs v, std::uint32_t i) { return v < m_events[i].ts; });
        std::string_view best;
        TimeNs bestDur = std::numeric_limits<TimeNs>::max();
        // Nesting is shallow; a bounded walk back finds the enclosing ops without scanning the thread.
        int budget = 256;
        for (auto i = upper; i != idx.begin() && budget-- > 0;) {
            --i;
            const Pending& p = m_events[*i];
            if (p.ts <= t && t <= p.ts + p.dur && p.dur < bestDur && m_b.str(p.cat) == "cpu_op") {
                best = m_b.str(p.name);
                bestDur = p.dur;
            }
        }
        return best;
    };

    const AscendKernelArgs kernelArgs(m_b);
    const model::StringId keyLauncher = m_b.intern("launched by");
    std::vector<Arg> args;
    for (std::uint32_t i = 0; i < m_events.size(); ++i) {
        const Pending& e = m_events[i];
        const Lane lane = lanes[i];
        SliceInput s;
        s.ts = e.ts;
        s.dur = e.dur;
        s.name = e.name;
        s.rawCategory = e.cat;
        args.assign(m_argPool.begin() + static_cast<std::ptrdiff_t>(e.argBegin),
                    m_argPool.begin() + static_cast<std::ptrdiff_t>(e.argBegin + e.argCount));
        const std::string_view name = m_b.str(e.name);
        switch (lane) {
        case Lane::Python:
        case Lane::Other:
            s.category = classifyAscendHostOp(name, m_b.str(e.cat));
            break;
        case Lane::Cann:
            s.category = SliceCategory::RuntimeApi;
            break;
        case Lane::Hccl:
            s.category = SliceCategory::Communication;
            if (const KernelRow* k = joinKernel(e.ts, name); k && !k->opType.empty())
                args.push_back(Arg {kernelArgs.opTypeKey(), ArgValue::fromString(m_b.intern(k->opType))});
            break;
        case Lane::Overlap:
            s.category = SliceCategory::Other;
            break;
        case Lane::Device: {
            const KernelRow* k = joinKernel(e.ts, name);
            const std::string_view core = k ? std::string_view(k->coreType) : std::string_view {};
            const AscendTaskClass cls = classifyAscendTask(m_b.str(e.taskType), core, name);
            s.category = cls.category;
            if (k)
                kernelArgs.append(*k, args);
            if (cls.category == SliceCategory::Memcpy) {
                model::MemcpyDirection dir = cls.direction;
                bool synchronous = false;
                if (cls.hostDeviceCopy) {
                    const Key self {e.pid, e.tid, e.ts};
                    if (auto it = launchedBy.find(self); it != launchedBy.end()) {
                        const std::string_view op = enclosingPythonOp(it->second);
                        dir = copyDirectionFromLauncher(op);
                        if (!op.empty())
                            args.push_back(Arg {keyLauncher, ArgValue::fromString(m_b.intern(op))});
                    }
                    if (auto it = calledFrom.find(self); it != calledFrom.end()) {
                        if (auto c = cannByStart.find(it->second); c != cannByStart.end()) {
                            const std::string_view api = m_b.str(m_events[c->second].name);
                            if (dir == model::MemcpyDirection::None)
                                dir = copyDirectionFromLauncher(api);
                            synchronous = api == "AscendCL@aclrtMemcpy";
                        }
                    }
                }
                s.setMemcpy(dir, model::HostMemoryKind::Unknown);
                if (synchronous)
                    s.flags |= model::SliceFlags::kSynchronous;
            }
            ++m_deviceTasks;
            if (cls.category == SliceCategory::FallbackOp)
                ++m_fallbackTasks;
            break;
        }
        }
        // Join args can only extend pooled sets (device/HCCL tasks); a stored set is used as it is.
        s.args = !e.argsInPool ? e.args : e.uniqueArgs ? m_b.addUniqueArgs(args) : m_b.addArgs(args);
        const model::SliceRef ref = m_b.addSlice(trackFor(e, lane), s);
        if (s.category == SliceCategory::Step) {
            const std::int64_t number = profilerStepNumber(name);
            m_b.addStep(number, e.name, e.ts, e.ts + e.dur, ref);
            m_stepNumbers.push_back(number);
            ++m_steps;
        }
    }
    if (m_kernels) {
        for (std::size_t i = 0; i < m_kernelMatched.size(); ++i) {
            if (m_kernelMatched[i])
                ++m_matchedKernelRows;
        }
        m_kernelRowsJoinable = m_kernelMatched.size();
    }

    // Flows: bound to slices by time at finalize (the `f` ends carry "bp": "e", the enclosing slice).
    std::map<std::pair<std::int64_t, std::int64_t>, model::TrackId> trackOf;
    for (const auto& [key, track] : m_trackCache)
        trackOf.emplace(std::make_pair(std::get<0>(key), std::get<1>(key)), track);
    const model::StringId catFwdBwd = m_b.intern("fwdbwd");
    std::uint64_t incomplete = 0;
    std::uint64_t noSlices = 0;
    allFlows([&](const PendingFlow& f) {
        if (!f.hasStart || !f.hasEnd) {
            ++incomplete;
            return;
        }
        auto from = trackOf.find({f.fromPid, f.fromTid});
        auto to = trackOf.find({f.toPid, f.toTid});
        if (from == trackOf.end() || to == trackOf.end()) {
            ++noSlices;
            return;
        }
        const model::FlowKind kind = f.cat == catFwdBwd ? model::FlowKind::ForwardBackward
            : (f.cat == catAsyncNpu || f.cat == catHostToDevice) ? model::FlowKind::Launch
                                                                   : model::FlowKind::Other;
        m_b.addFlowAt(from->second, f.fromTs, to->second, f.toTs, kind, f.bindEnclosing);
    });
    if (incomplete)
        m_b.warn("flow_incomplete", "flows with only a start or only an end event were skipped", incomplete);
    if (noSlices)
        m_b.warn("flow_unresolved",
                 "flows that start or end on a thread without slices were skipped (Level0 exports have no CANN "
                 "process for the HostToDevice starts)",
                 noSlices);

    for (const PendingCounter& c : m_counters) {
        std::string process;
        if (auto it = m_processNames.find(c.pid); it != m_processNames.end())
            process = it->second;
        else
            process = "Counters " + std::to_string(c.pid);
        m_b.addCounterSample(m_tracks.counter(process, m_b.str(c.series), m_device), c.ts, c.value);
    }
    m_events.clear();
    m_events.shrink_to_fit();
    m_argPool.clear();
    m_argPool.shrink_to_fit();
    m_counters.clear();
}

} // namespace timesink::parsers
