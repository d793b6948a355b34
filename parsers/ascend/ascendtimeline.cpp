// SPDX-License-Identifier: MIT
#include "parsers/ascend/ascendtimeline.h"

#include "model/checkedmath.h"
#include "parsers/ascend/ascendcommunication.h"
#include "parsers/ascend/ascendkernelargs.h"
#include "parsers/ascendcommon/ascendtasktype.h"
#include "parsers/ascendcommon/ascendtracks.h"
#include "parsers/common/interncache.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <tuple>
#include <unordered_set>

namespace timesink::parsers {

using chromejson::ChromeArg;
using chromejson::ChromeEvent;
using model::Arg;
using model::ArgValue;
using model::SliceCategory;
using model::SliceInput;
using model::StringId;
using model::TimeNs;

namespace {

std::int64_t idOf(std::string_view text, bool isNumber, std::int64_t number)
{
    if (isNumber)
        return number;
    // Non-numeric pids/tids (not written by these tools, but valid Chrome JSON) get a stable hash.
    return static_cast<std::int64_t>(std::hash<std::string_view> {}(text)&0x3fffffffffffffffULL);
}

bool contains(std::string_view s, std::string_view needle)
{
    return s.find(needle) != std::string_view::npos;
}

bool isOverlapLane(std::string_view name)
{
    return name == "Computing" || name == "Communication" || name == "Communication(Not Overlapped)" || name == "Free";
}

} // namespace

class AscendTimelineSink : public chromejson::ChromeEventSink
{
public:
    AscendTimelineSink(AscendTimeline& t, ProgressSink& progress)
        : m_t(t)
        , m_progress(progress)
        , m_intern(t.m_b)
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
        case 'B':
            onBegin(e, pid, tid);
            return;
        case 'E':
            onEnd(e, pid, tid);
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
            m_t.m_b.warn(model::ImportWarningKind::UnsupportedPhase,
                         "events with \"ph\": \"" + std::string(1, e.ph ? e.ph : '?')
                             + "\" are not part of the torch_npu/msprof timeline; skipped");
        }
    }

    void onWarning(model::ImportWarningKind kind, std::string_view message, std::uint64_t count) override
    {
        m_t.m_b.warn(kind, message, count);
    }
    [[nodiscard]] bool cancelled() const override { return m_progress.cancelled(); }
    /// Flows pair by category and id; their names ("HostToDevice40004631069290000000") are never read.
    [[nodiscard]] bool needsFlowNames() const override { return false; }

private:
    void onMetadata(const ChromeEvent& e, std::int64_t pid, std::int64_t tid)
    {
        const ChromeArg* a = e.arg("name");
        if (e.name == "process_name" && a && a->kind == ChromeArg::Kind::String)
            m_t.onProcessName(pid, a->text);
        else if (e.name == "thread_name" && a && a->kind == ChromeArg::Kind::String)
            m_t.m_threadNames[{pid, tid}] = std::string(a->text);
    }

    void onSlice(const ChromeEvent& e, std::int64_t pid, std::int64_t tid)
    {
        model::TraceBuilder& b = m_t.m_b;
        if (!e.hasTs) {
            b.warn(model::ImportWarningKind::BadTs,
                   "an X event without a usable \"ts\" was skipped (" + std::string(e.name) + ")");
            return;
        }
        if (e.hasDur && e.dur < 0) {
            b.warn(model::ImportWarningKind::BadDur,
                   "an X event with a negative \"dur\" was skipped (" + std::string(e.name) + ")");
            return;
        }
        AscendTimeline::Pending p;
        p.ts = e.ts;
        p.dur = e.hasDur ? e.dur : 0;
        p.pid = pid;
        p.tid = tid;
        p.name = m_intern(e.name);
        p.cat = m_intern(e.cat);
        readArgs(e, p);
        m_t.m_endTs = std::max(m_t.m_endTs, model::saturatingAdd(p.ts, p.dur));
        m_t.accept(p, m_args);
    }

    /// A `B` event: kept open on its thread until its `E`, then a slice like an X event's (same lanes, tracks and
    /// args; an E's args count when its B had none).
    void onBegin(const ChromeEvent& e, std::int64_t pid, std::int64_t tid)
    {
        if (!e.hasTs) {
            m_t.m_b.warn(model::ImportWarningKind::BadTs,
                         "a B event without a usable \"ts\" was skipped (" + std::string(e.name) + ")");
            return;
        }
        AscendTimeline::OpenBegin open;
        open.event.ts = e.ts;
        open.event.pid = pid;
        open.event.tid = tid;
        open.event.name = m_intern(e.name);
        open.event.cat = m_intern(e.cat);
        readArgs(e, open.event);
        open.args = m_args;
        m_t.m_endTs = std::max(m_t.m_endTs, e.ts);
        m_t.m_open.begin(m_t.threadIndex(pid, tid), std::move(open));
    }

    void onEnd(const ChromeEvent& e, std::int64_t pid, std::int64_t tid)
    {
        if (!e.hasTs) {
            m_t.m_b.warn(model::ImportWarningKind::BadTs,
                         "an E event without a usable \"ts\" was skipped (" + std::string(e.name) + ")");
            return;
        }
        std::optional<AscendTimeline::OpenBegin> open = m_t.m_open.end(m_t.threadIndex(pid, tid));
        if (!open) {
            m_t.m_b.warn(model::ImportWarningKind::UnmatchedEnd,
                         "an 'E' event has no open 'B' on its thread and was skipped");
            return;
        }
        AscendTimeline::Pending& p = open->event;
        p.dur = std::max<TimeNs>(0, model::saturatingSub(e.ts, p.ts));
        if (open->args.empty() && !e.args.empty()) {
            readArgs(e, p);
            open->args = m_args;
        }
        m_t.m_endTs = std::max(m_t.m_endTs, e.ts);
        m_t.accept(p, open->args);
    }

    /// `e`'s args into m_args, and what their keys say into `p`'s flags.
    void readArgs(const ChromeEvent& e, AscendTimeline::Pending& p)
    {
        // Sized once and filled by index: push_back per arg was an out-of-line call each time.
        m_args.resize(e.args.size());
        std::size_t n = 0;
        for (const ChromeArg& a : e.args) {
            const model::StringId key = m_intern(a.key);
            switch (a.kind) {
            case ChromeArg::Kind::Int:
            case ChromeArg::Kind::Bool:
                m_args[n++] = Arg {
                    key, a.kind == ChromeArg::Kind::Bool ? ArgValue::fromBool(a.i != 0) : ArgValue::fromInt(a.i)};
                break;
            case ChromeArg::Kind::Double:
                m_args[n++] = Arg {key, ArgValue::fromDouble(a.d)};
                break;
            case ChromeArg::Kind::String:
            case ChromeArg::Kind::Json:
                m_args[n++] = Arg {key, ArgValue::fromString(m_intern(a.text))};
                break;
            case ChromeArg::Kind::Null:
                break;
            }
            switch (keyRole(key)) {
            case KeyRole::TaskType:
                if (a.kind == ChromeArg::Kind::String)
                    p.taskType = StringId(m_args[n - 1].value.s); // the value just interned
                break;
            case KeyRole::Level:
                p.hasLevel = true;
                break;
            case KeyRole::PerEventId:
                p.uniqueArgs = true;
                break;
            case KeyRole::Hccl:
                p.hasHcclArgs = true;
                break;
            case KeyRole::None:
            case KeyRole::Unknown: // never returned by keyRole()
                break;
            }
        }
        m_args.resize(n);
    }

    /// What an args key means to the importer, by the key's string id: each distinct key is classified once (keys
    /// repeat on every event), then it is a table lookup instead of up to eight string compares per arg.
    enum class KeyRole : std::uint8_t { Unknown, None, TaskType, Level, PerEventId, Hccl };
    KeyRole keyRole(StringId key)
    {
        if (key.value >= m_keyRoles.size())
            m_keyRoles.resize(std::max<std::size_t>(key.value + 1, m_keyRoles.size() * 2), KeyRole::Unknown);
        KeyRole& role = m_keyRoles[key.value];
        if (role == KeyRole::Unknown) {
            const std::string_view k = m_t.m_b.str(key);
            if (k == "Task Type")
                role = KeyRole::TaskType;
            else if (k == "level")
                role = KeyRole::Level;
            else if (k == "connection_id" || k == "Sequence number" || k == "Python id")
                role = KeyRole::PerEventId;
            else if (k == "task type" || k == "transport type" || k == "alg_type")
                role = KeyRole::Hccl;
            else
                role = KeyRole::None;
        }
        return role;
    }
    std::vector<KeyRole> m_keyRoles;

    void onFlow(const ChromeEvent& e, std::int64_t pid, std::int64_t tid)
    {
        if (!e.hasId || !e.hasTs) {
            m_t.m_b.warn(model::ImportWarningKind::FlowWithoutId,
                         "a flow event without \"id\" or \"ts\" was skipped (" + std::string(e.cat) + ")");
            return;
        }
        auto intern = [this](std::string_view text) { return m_t.m_b.intern(text).value; };
        const std::uint32_t cat = m_t.m_flows.category(e.cat, intern);
        const FlowId id = FlowId::parse(e.id, intern);
        m_t.m_flows.add(cat, e.ph, id, e.ts, m_t.threadIndex(pid, tid), e.ph == 's' || e.bp == "e");
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
            m_series.assign(e.name);
            m_series += " (";
            m_series += a.key;
            m_series += ')';
            m_t.acceptCounter(AscendTimeline::PendingCounter {pid, e.ts, m_intern(m_series), v});
        }
    }

    AscendTimeline& m_t;
    ProgressSink& m_progress;
    InternCache m_intern;
    std::vector<Arg> m_args;
    std::string m_series;
};

/// Copy (thread, ts) → the flow start that launched it, and the CANN calls those flows start from.
struct AscendTimeline::CopyLaunchers
{
    using Key = std::pair<std::uint32_t, TimeNs>; // thread index, ts
    struct KeyHash
    {
        std::size_t operator()(const Key& k) const
        {
            return std::hash<std::uint64_t> {}((static_cast<std::uint64_t>(k.first) * 0x9E3779B97F4A7C15ULL)
                                               ^ static_cast<std::uint64_t>(k.second));
        }
    };
    std::unordered_map<Key, Key, KeyHash> launchedBy;              // copy → framework op flow start (async_npu)
    std::unordered_map<Key, Key, KeyHash> calledFrom;              // copy → CANN API flow start (HostToDevice)
    std::unordered_map<Key, model::StringId, KeyHash> cannByStart; // the first copy API at each such start
};

std::size_t AscendTimeline::PairHash::operator()(const std::pair<std::int64_t, std::int64_t>& k) const
{
    return TrackKeyHash {}(TrackKey {k.first, k.second, Lane::Other});
}

std::uint32_t AscendTimeline::threadIndex(std::int64_t pid, std::int64_t tid)
{
    // Flow events alternate between a few threads (framework op, CANN call, device stream): a handful of
    // recent answers saves the hash lookup almost every time.
    const auto key = std::make_pair(pid, tid);
    if (const std::uint32_t* known = m_recentThreads.find(key))
        return *known;
    auto [it, inserted] = m_threadIndex.emplace(key, static_cast<std::uint32_t>(m_threads.size()));
    if (inserted)
        m_threads.push_back(key);
    m_recentThreads.remember(key, it->second);
    return it->second;
}

std::size_t AscendTimeline::TrackKeyHash::operator()(const TrackKey& k) const
{
    std::uint64_t h = static_cast<std::uint64_t>(k.pid) * 0x9E3779B97F4A7C15ULL;
    h ^= static_cast<std::uint64_t>(k.tid) + 0x632BE59BD9B4E019ULL + (h << 6) + (h >> 2);
    h ^= static_cast<std::uint64_t>(k.lane) << 59;
    return static_cast<std::size_t>(h ^ (h >> 29));
}

AscendTimeline::AscendTimeline(model::TraceBuilder& builder, AscendTracks& tracks, const KernelTable* kernels,
                               std::int32_t device, const ProcessNames* knownNames)
    : m_knownNames(knownNames)
    , m_b(builder)
    , m_tracks(tracks)
    , m_kernels(kernels)
    , m_device(device)
    , m_cpuOp(builder.intern("cpu_op"))
    , m_keyLauncher(builder.intern("launched by"))
    , m_kernelArgs(std::make_unique<AscendKernelArgs>(builder))
{
    if (m_kernels) {
        m_kernelByStart.reserve(m_kernels->rows.size());
        for (std::uint32_t i = 0; i < m_kernels->rows.size(); ++i)
            m_kernelByStart.emplace_back(m_kernels->rows[i].start, i);
        std::stable_sort(m_kernelByStart.begin(), m_kernelByStart.end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
        m_kernelMatched.assign(m_kernels->rows.size(), false);
    }
    if (m_knownNames) {
        for (const auto& [pid, name] : *m_knownNames) {
            m_processNames.emplace(pid, name);
            PidState& s = m_pids[pid];
            s.named = true;
            s.namedLane = laneOfProcess(name);
        }
    }
}

AscendTimeline::~AscendTimeline() = default;

chromejson::ChromeReadResult AscendTimeline::readFile(const std::filesystem::path& path, const ImportOptions& options,
                                                      ProgressSink& progress)
{
    AscendTimelineSink sink(*this, progress);
    chromejson::ChromeEventReader reader(path, options, progress);
    return reader.read(sink);
}

template <typename Fn> void AscendTimeline::forEachFlow(FlowPairing& flows, Fn&& fn, bool release)
{
    flows.forEachGroup(
        [&](const FlowGroup& g) {
            PendingFlow flow;
            flow.cat = model::StringId(g.categoryKey);
            if (g.start) {
                flow.hasStart = true;
                flow.fromThread = g.start->endpoint;
                flow.fromTs = g.start->ts;
            }
            for (const FlowRecord& end : g.ends) {
                PendingFlow p = flow;
                p.hasEnd = true;
                p.toThread = end.endpoint;
                p.toTs = end.ts;
                p.bindEnclosing = end.bindEnclosing;
                fn(std::as_const(p));
            }
            if (g.ends.empty())
                fn(std::as_const(flow));
        },
        release);
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
    auto it = std::lower_bound(m_kernelByStart.begin(), m_kernelByStart.end(), model::saturatingSub(ts, kTolerance),
                               [](const auto& entry, TimeNs t) { return entry.first < t; });
    for (; it != m_kernelByStart.end() && it->first <= model::saturatingAdd(ts, kTolerance); ++it) {
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

AscendTimeline::Lane AscendTimeline::laneOfProcess(std::string_view p)
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

AscendTimeline::Lane AscendTimeline::contentLane(const Pending& e) const
{
    if (!e.taskType.isEmpty())
        return Lane::Device;
    if (e.hasHcclArgs)
        return Lane::Hccl;
    // Framework categories first: torch_npu's task-queue dequeue is "Dequeue@aclnnInplaceZero" (cat dequeue) in
    // the Python process, not an AscendCL call.
    if (e.cat == m_cpuOp)
        return Lane::Python;
    const std::string_view cat = m_b.str(e.cat);
    if (cat == "python_function" || cat == "enqueue" || cat == "dequeue" || cat == "user_annotation")
        return Lane::Python;
    if (e.hasLevel || contains(m_b.str(e.name), "@"))
        return Lane::Cann;
    if (isOverlapLane(m_b.str(e.name)) && e.cat.isEmpty())
        return Lane::Overlap;
    return Lane::Other;
}

AscendTimeline::Lane AscendTimeline::laneOf(const Pending& e) const
{
    if (auto it = m_pids.find(e.pid); it != m_pids.end() && it->second.named && it->second.namedLane != Lane::Other)
        return it->second.namedLane;
    // No process_name for this pid (sanitized or partial files): decide from the event itself.
    return contentLane(e);
}

bool AscendTimeline::isHostDeviceCopy(const Pending& e) const
{
    return !e.taskType.isEmpty() && taskClass(e.taskType, e.name).hostDeviceCopy;
}

AscendTaskClass AscendTimeline::taskClass(StringId taskType, StringId name) const
{
    const std::uint64_t key = (std::uint64_t(taskType.value) << 32) | name.value;
    TaskClassSlot& slot = m_taskClasses[static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ULL) >> 56)];
    if (slot.key != key) {
        slot.key = key;
        slot.cls = classifyAscendTask(m_b.str(taskType), {}, m_b.str(name));
    }
    return slot.cls;
}

AscendTimeline::PidState& AscendTimeline::pidState(std::int64_t pid)
{
    if (PidState* const* known = m_recentPids.find(pid))
        return **known;
    PidState& state = m_pids[pid];
    m_recentPids.remember(pid, &state);
    return state;
}

void AscendTimeline::onProcessName(std::int64_t pid, std::string_view name)
{
    if (m_knownNames)
        return; // a replay: every name is known from the first read
    PidState& s = pidState(pid);
    const Lane lane = laneOfProcess(name);
    // Events placed by a guess must be where the name puts them; a name already used must not change.
    if (s.guesses != 0 && lane != Lane::Other && (s.guesses & ~bit(lane)) != 0)
        m_needsReplay = true;
    if (auto it = m_processNames.find(pid); it != m_processNames.end()) {
        if (it->second == name)
            return;
        if (s.nameUsed)
            m_needsReplay = true;
        it->second = std::string(name);
    } else {
        m_processNames.emplace(pid, std::string(name));
    }
    s.named = true;
    s.namedLane = lane;
}

void AscendTimeline::accept(const Pending& e, std::vector<Arg>& args)
{
    PidState& s = pidState(e.pid);
    Lane lane = s.named && s.namedLane != Lane::Other ? s.namedLane : contentLane(e);
    bool keep = false;
    if (!s.named) {
        if (lane == Lane::Python || lane == Lane::Cann || lane == Lane::Device)
            s.guesses |= bit(lane);
        else
            keep = true; // its track is named after the process
    } else {
        s.nameUsed = true;
    }
    // HCCL/overlap tracks are named by thread_name events that may still come; copies need the flows.
    if (lane == Lane::Hccl || lane == Lane::Overlap || (lane == Lane::Device && isHostDeviceCopy(e)))
        keep = true;
    if (!keep) {
        emit(e, lane, args);
        return;
    }
    Pending kept = e;
    kept.argBegin = m_argPool.size();
    kept.argCount = static_cast<std::uint32_t>(args.size());
    m_argPool.insert(m_argPool.end(), args.begin(), args.end());
    m_kept.push_back(kept);
}

void AscendTimeline::acceptCounter(const PendingCounter& c)
{
    PidState& s = pidState(c.pid);
    if (!s.named) {
        m_keptCounters.push_back(c); // its track is named after the process
        return;
    }
    s.nameUsed = true;
    emitCounter(c);
}

void AscendTimeline::emitCounter(const PendingCounter& c)
{
    const std::uint64_t key = static_cast<std::uint64_t>(c.pid) * 0x9E3779B97F4A7C15ULL ^ c.series.value;
    auto it = m_counterTracks.find(key);
    if (it == m_counterTracks.end()) {
        std::string process;
        if (auto n = m_processNames.find(c.pid); n != m_processNames.end())
            process = n->second;
        else
            process = "Counters " + std::to_string(c.pid);
        it = m_counterTracks.emplace(key, m_tracks.counter(process, m_b.str(c.series), m_device)).first;
    }
    m_b.addCounterSample(it->second, c.ts, c.value);
}

model::TrackId AscendTimeline::trackFor(const Pending& e, Lane lane)
{
    const TrackKey key {e.pid, e.tid, lane};
    if (m_lastTrack.isValid() && key == m_lastTrackKey)
        return m_lastTrack;
    auto it = m_trackCache.find(key);
    if (it == m_trackCache.end())
        it = m_trackCache.emplace(key, makeTrack(e, lane)).first;
    m_lastTrackKey = key;
    m_lastTrack = it->second;
    return it->second;
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

std::string_view AscendTimeline::enclosingPythonOp(std::uint32_t thread, TimeNs t) const
{
    // m_pythonOps is sorted by (thread, ts) here. The innermost framework op enclosing a flow start (the flow
    // starts inside the op that launched it).
    const auto threadBegin = std::partition_point(m_pythonOps.begin(), m_pythonOps.end(),
                                                  [&](const HostCall& c) { return c.thread < thread; });
    auto upper = std::partition_point(threadBegin, m_pythonOps.end(),
                                      [&](const HostCall& c) { return c.thread == thread && c.ts <= t; });
    std::string_view best;
    TimeNs bestDur = std::numeric_limits<TimeNs>::max();
    // Nesting is shallow; a bounded walk back finds the enclosing ops without scanning the thread.
    int budget = 256;
    for (auto i = upper; i != threadBegin && budget-- > 0;) {
        --i;
        if (i->ts <= t && t <= model::saturatingAdd(i->ts, i->dur) && i->dur < bestDur) {
            best = m_b.str(i->name);
            bestDur = i->dur;
        }
    }
    return best;
}

void AscendTimeline::emit(const Pending& e, Lane lane, std::vector<Arg>& args)
{
    SliceInput s;
    s.ts = e.ts;
    s.dur = e.dur;
    s.name = e.name;
    s.rawCategory = e.cat;
    const std::string_view name = m_b.str(e.name);
    switch (lane) {
    case Lane::Python:
    case Lane::Other:
        s.category = classifyAscendHostOp(name, m_b.str(e.cat));
        if (lane == Lane::Python && e.cat == m_cpuOp)
            m_pythonOps.push_back(HostCall {threadIndex(e.pid, e.tid), e.name, e.ts, e.dur});
        break;
    case Lane::Cann:
        s.category = SliceCategory::RuntimeApi;
        if (isCopyApi(e.name))
            m_cannCalls.push_back(HostCall {threadIndex(e.pid, e.tid), e.name, e.ts, e.dur});
        break;
    case Lane::Hccl:
        s.category = SliceCategory::Communication;
        if (const KernelRow* k = joinKernel(e.ts, name); k && !k->opType.empty())
            args.push_back(Arg {m_kernelArgs->opTypeKey(), ArgValue::fromString(m_b.intern(k->opType))});
        if (m_commOps)
            m_commOps->append(name, e.ts, args);
        break;
    case Lane::Overlap:
        s.category = SliceCategory::Other;
        break;
    case Lane::Device: {
        const KernelRow* k = joinKernel(e.ts, name);
        const std::string_view core = k ? std::string_view(k->coreType) : std::string_view {};
        const AscendTaskClass cls
            = core.empty() ? taskClass(e.taskType, e.name) : classifyAscendTask(m_b.str(e.taskType), core, name);
        s.category = cls.category;
        if (k)
            m_kernelArgs->append(*k, args);
        if (cls.category == SliceCategory::Memcpy) {
            model::MemcpyDirection dir = cls.direction;
            bool synchronous = false;
            if (cls.hostDeviceCopy && m_copyLaunchers) {
                const CopyLaunchers::Key self {threadIndex(e.pid, e.tid), e.ts};
                if (auto it = m_copyLaunchers->launchedBy.find(self); it != m_copyLaunchers->launchedBy.end()) {
                    const std::string_view op = enclosingPythonOp(it->second.first, it->second.second);
                    dir = copyDirectionFromLauncher(op);
                    if (!op.empty())
                        args.push_back(Arg {m_keyLauncher, ArgValue::fromString(m_b.intern(op))});
                }
                if (auto it = m_copyLaunchers->calledFrom.find(self); it != m_copyLaunchers->calledFrom.end()) {
                    if (auto c = m_copyLaunchers->cannByStart.find(it->second);
                        c != m_copyLaunchers->cannByStart.end()) {
                        const std::string_view api = m_b.str(c->second);
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
    if (e.unmatched)
        s.flags |= model::SliceFlags::kUnmatched;
    s.args = e.uniqueArgs ? m_b.addUniqueArgs(args) : m_b.addArgs(args);
    const model::SliceRef ref = m_b.addSlice(trackFor(e, lane), s);
    if (!ref.isValid())
        return; // outside the representable time range: counted by the builder
    if (s.category == SliceCategory::Step) {
        const std::int64_t number = profilerStepNumber(name);
        m_b.addStep(number, e.name, e.ts, e.ts + e.dur, ref);
        m_stepNumbers.push_back(number);
        ++m_steps;
    }
}

bool AscendTimeline::isCopyApi(model::StringId name)
{
    if (name.value >= m_copyApi.size())
        m_copyApi.resize(std::max<std::size_t>(name.value + 1, m_copyApi.size() * 2), -1);
    std::int8_t& known = m_copyApi[name.value];
    if (known < 0) {
        const std::string_view api = m_b.str(name);
        known = copyDirectionFromLauncher(api) != model::MemcpyDirection::None || api == "AscendCL@aclrtMemcpy";
    }
    return known != 0;
}

void AscendTimeline::prepareCopyLaunchers(const std::vector<std::size_t>& copies)
{
    using Key = CopyLaunchers::Key;
    m_copyLaunchers = std::make_unique<CopyLaunchers>();
    std::unordered_set<Key, CopyLaunchers::KeyHash> copyKeys;
    for (const std::size_t i : copies)
        copyKeys.insert(Key {threadIndex(m_kept[i].pid, m_kept[i].tid), m_kept[i].ts});
    const model::StringId catAsyncNpu = m_b.intern("async_npu");
    const model::StringId catHostToDevice = m_b.intern("HostToDevice");
    std::unordered_set<Key, CopyLaunchers::KeyHash> cannStarts;
    forEachFlow(
        m_flows,
        [&](const PendingFlow& f) {
            const Key to {f.toThread, f.toTs};
            if (!f.hasStart || !f.hasEnd || !copyKeys.count(to))
                return;
            const Key from {f.fromThread, f.fromTs};
            if (f.cat == catAsyncNpu) {
                m_copyLaunchers->launchedBy.emplace(to, from);
            } else if (f.cat == catHostToDevice) {
                m_copyLaunchers->calledFrom.emplace(to, from);
                cannStarts.insert(from);
            }
        },
        false);
    for (const HostCall& c : m_cannCalls) {
        const Key k {c.thread, c.ts};
        if (cannStarts.count(k))
            m_copyLaunchers->cannByStart.emplace(k, c.name); // the first copy API at that start wins
    }
    if (!m_copyLaunchers->launchedBy.empty()) {
        std::stable_sort(m_pythonOps.begin(), m_pythonOps.end(), [](const HostCall& a, const HostCall& b) {
            return std::tie(a.thread, a.ts) < std::tie(b.thread, b.ts);
        });
    }
}

void AscendTimeline::finish()
{
    // B events never closed: closed at the end of the timeline so their time is not lost, flagged, and counted.
    m_open.drainOpen([this](std::uint64_t, OpenBegin& open) {
        open.event.dur = std::max<TimeNs>(0, model::saturatingSub(m_endTs, open.event.ts));
        open.event.unmatched = true;
        accept(open.event, open.args);
        m_b.warn(model::ImportWarningKind::UnmatchedBegin,
                 "a 'B' event has no matching 'E'; it was closed at the end of the timeline");
    });
    // Kept events, with every name now known: first all but the copies (in file order), so the host calls that
    // launched copies are indexed; then the copies.
    std::vector<Lane> lanes(m_kept.size());
    std::vector<std::size_t> copies;
    for (std::size_t i = 0; i < m_kept.size(); ++i) {
        lanes[i] = laneOf(m_kept[i]);
        if (lanes[i] == Lane::Device && isHostDeviceCopy(m_kept[i]))
            copies.push_back(i);
    }
    std::vector<Arg> args;
    auto emitKept = [&](std::size_t i) {
        const Pending& e = m_kept[i];
        args.assign(m_argPool.begin() + static_cast<std::ptrdiff_t>(e.argBegin),
                    m_argPool.begin() + static_cast<std::ptrdiff_t>(e.argBegin + e.argCount));
        emit(e, lanes[i], args);
    };
    for (std::size_t i = 0, c = 0; i < m_kept.size(); ++i) {
        if (c < copies.size() && copies[c] == i)
            ++c;
        else
            emitKept(i);
    }
    m_flows.sort();
    if (!copies.empty()) {
        prepareCopyLaunchers(copies);
        for (const std::size_t i : copies)
            emitKept(i);
        m_copyLaunchers.reset();
    }
    if (m_kernels) {
        for (const bool matched : m_kernelMatched) {
            if (matched)
                ++m_matchedKernelRows;
        }
        m_kernelRowsJoinable = m_kernelMatched.size();
    }
    for (const PendingCounter& c : m_keptCounters)
        emitCounter(c);

    // Flows: bound to slices by time at finalize (the `f` ends carry "bp": "e", the enclosing slice). A thread
    // with slices in several lanes (a guess and a kept event) is found on its first lane.
    std::vector<std::pair<Lane, model::TrackId>> trackOf(m_threads.size(), {Lane::Other, model::TrackId()});
    for (const auto& [key, track] : m_trackCache) {
        const auto it = m_threadIndex.find({key.pid, key.tid});
        if (it == m_threadIndex.end())
            continue; // no flow or host call on this thread
        auto& slot = trackOf[it->second];
        if (!slot.second.isValid() || key.lane < slot.first)
            slot = {key.lane, track};
    }
    const model::StringId catAsyncNpu = m_b.intern("async_npu");
    const model::StringId catHostToDevice = m_b.intern("HostToDevice");
    const model::StringId catFwdBwd = m_b.intern("fwdbwd");
    // The walk over millions of flow events (~0.1 s of the 1 GB torch_npu import, alone on one core) runs on a
    // thread of its own beside the rest of the import and finalize's sorting of the tracks. It owns what it reads.
    m_b.addFlowsConcurrently([flows = std::move(m_flows), trackOf = std::move(trackOf), catAsyncNpu, catHostToDevice,
                              catFwdBwd](model::TraceBuilder::FlowFeed& feed) mutable {
        std::uint64_t incomplete = 0;
        std::uint64_t noSlices = 0;
        forEachFlow(
            flows,
            [&](const PendingFlow& f) {
                if (!f.hasStart || !f.hasEnd) {
                    ++incomplete;
                    return;
                }
                const model::TrackId from = trackOf[f.fromThread].second;
                const model::TrackId to = trackOf[f.toThread].second;
                if (!from.isValid() || !to.isValid()) {
                    ++noSlices;
                    return;
                }
                const model::FlowKind kind = f.cat == catFwdBwd          ? model::FlowKind::ForwardBackward
                    : (f.cat == catAsyncNpu || f.cat == catHostToDevice) ? model::FlowKind::Launch
                                                                         : model::FlowKind::Other;
                feed.addFlowAt(from, f.fromTs, to, f.toTs, kind, f.bindEnclosing);
            },
            true);
        if (incomplete)
            feed.warn(model::ImportWarningKind::FlowIncomplete,
                      "flows with only a start or only an end event were skipped", incomplete);
        if (noSlices)
            feed.warn(model::ImportWarningKind::FlowUnresolved,
                      "flows that start or end on a thread without slices were skipped (Level0 exports have no "
                      "CANN process for the HostToDevice starts)",
                      noSlices);
    });
    m_flows = FlowPairing(kFlowDialect);

    m_kept.clear();
    m_kept.shrink_to_fit();
    m_argPool.clear();
    m_argPool.shrink_to_fit();
    m_keptCounters.clear();
    m_pythonOps = model::PodBuffer<HostCall>();
    m_cannCalls.clear();
    m_cannCalls.shrink_to_fit();
}

} // namespace timesink::parsers
