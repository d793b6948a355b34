// SPDX-License-Identifier: MIT
#include "analysis/core/communication.h"

#include "analysis/core/bandwidth.h"
#include "analysis/core/deviceactivity.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <span>

namespace timesink::analysis {

using model::SliceCategory;
using model::TimeNs;

std::string_view commBackendKey(CommBackend b)
{
    switch (b) {
    case CommBackend::Nccl:
        return "nccl";
    case CommBackend::Rccl:
        return "rccl";
    case CommBackend::Hccl:
        return "hccl";
    case CommBackend::Unknown:
        break;
    }
    return "unknown";
}

CommBackend commBackendFromKey(std::string_view key)
{
    if (key == "nccl")
        return CommBackend::Nccl;
    if (key == "rccl")
        return CommBackend::Rccl;
    if (key == "hccl")
        return CommBackend::Hccl;
    return CommBackend::Unknown;
}

namespace {

// Lower case without '_', ' ' and '-', so "ncclKernel_All_Reduce" and "hcom_allReduce_" compare alike.
std::string squeeze(std::string_view name)
{
    std::string out;
    out.reserve(name.size());
    for (const char c : name) {
        if (c == '_' || c == ' ' || c == '-')
            continue;
        out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    }
    return out;
}

bool contains(std::string_view haystack, std::string_view needle)
{
    return haystack.find(needle) != std::string_view::npos;
}

} // namespace

std::string collectiveOpKind(std::string_view name)
{
    const std::string s = squeeze(name);
    const bool library = contains(s, "nccl") || contains(s, "rccl") || s.rfind("hcom", 0) == 0;
    if (!library)
        return {};
    // Longer names first: "reducescatter" and "allreduce" both contain "reduce".
    static constexpr std::array<std::string_view, 10> kKinds
        = {"reducescatter", "allreduce", "allgather", "alltoall", "broadcast",
           "sendrecv",      "barrier",   "reduce",    "send",     "recv"};
    for (const std::string_view k : kKinds) {
        if (contains(s, k))
            return std::string(k);
    }
    // "ncclDevKernel_Generic" and friends: a collective whose operation the name does not say.
    return "collective";
}

bool isPointToPoint(std::string_view opKind)
{
    return opKind == "sendrecv" || opKind == "send" || opKind == "recv";
}

std::string hostCollectiveKind(std::string_view name)
{
    std::string s = squeeze(name);
    if (s.rfind("nccl:", 0) == 0 || s.rfind("gloo:", 0) == 0 || s.rfind("hccl:", 0) == 0)
        s = s.substr(5);
    if (s.empty())
        return {};
    if (contains(s, "isendirecv") || contains(s, "sendrecv"))
        return "sendrecv";
    static constexpr std::array<std::string_view, 9> kKinds
        = {"reducescatter", "allreduce", "allgather", "alltoall", "broadcast", "barrier", "reduce", "send", "recv"};
    for (const std::string_view k : kKinds) {
        if (contains(s, k))
            return std::string(k);
    }
    return {};
}

std::vector<std::int32_t> parseRankList(std::string_view text)
{
    std::vector<std::int32_t> out;
    std::size_t i = 0;
    while (i < text.size() && (text[i] == ' ' || text[i] == '['))
        ++i;
    while (i < text.size()) {
        if (text[i] == ']')
            break;
        if (text[i] == ',' || text[i] == ' ') {
            ++i;
            continue;
        }
        std::int64_t v = 0;
        std::size_t digits = 0;
        while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) && digits < 10) {
            v = v * 10 + (text[i] - '0');
            ++i;
            ++digits;
        }
        if (digits == 0 || v > std::numeric_limits<std::int32_t>::max() || out.size() >= 65536)
            return {};
        out.push_back(static_cast<std::int32_t>(v));
    }
    return out;
}

namespace {

std::string_view stringArgOf(const model::Trace& trace, model::ArgSetId args, model::StringId key)
{
    if (key.isEmpty())
        return {};
    const std::optional<model::ArgValue> v = trace.argStore().find(args, key);
    if (!v || v->type != model::ArgValue::Type::String)
        return {};
    return trace.str(model::StringId(v->s));
}

std::optional<std::int64_t> intArgOf(const model::Trace& trace, model::ArgSetId args, model::StringId key)
{
    if (key.isEmpty())
        return std::nullopt;
    const std::optional<model::ArgValue> v = trace.argStore().find(args, key);
    if (!v || v->type != model::ArgValue::Type::Int)
        return std::nullopt;
    return v->i;
}

/// Fills what `args` says of the collective into `id` (only what is still unknown there).
void readIdentityArgs(const model::Trace& trace, model::ArgSetId args, CollectiveIdentity& id)
{
    const model::StringPool& strings = trace.strings();
    if (id.hostOpKind.empty())
        id.hostOpKind = hostCollectiveKind(stringArgOf(trace, args, strings.find("Collective name")));
    if (id.groupRanks.empty())
        id.groupRanks = parseRankList(stringArgOf(trace, args, strings.find("Process Group Ranks")));
    if (id.group.empty()) {
        id.group = std::string(stringArgOf(trace, args, strings.find("Process Group Name")));
        if (id.group.empty() && !id.groupRanks.empty())
            id.group = std::string(stringArgOf(trace, args, strings.find("Process Group Ranks")));
    }
    if (id.seq < 0) {
        if (const auto seq = intArgOf(trace, args, strings.find("Seq")); seq && *seq >= 0)
            id.seq = *seq;
    }
    if (id.groupSize < 0) {
        if (const auto n = intArgOf(trace, args, strings.find("Group size")); n && *n > 0 && *n <= (1 << 24))
            id.groupSize = static_cast<std::int32_t>(*n);
    }
    if (id.peer < 0 && (id.hostOpKind == "send" || id.hostOpKind == "recv")) {
        const bool send = id.hostOpKind == "send";
        const auto global = intArgOf(trace, args, strings.find(send ? "Dst Rank" : "Src Rank"));
        const auto local = intArgOf(trace, args, strings.find("Rank"));
        if (global && *global >= 0 && *global <= std::numeric_limits<std::int32_t>::max())
            id.peer = static_cast<std::int32_t>(*global);
        else if (local && *local >= 0 && static_cast<std::uint64_t>(*local) < id.groupRanks.size())
            id.peer = id.groupRanks[static_cast<std::size_t>(*local)];
    }
    if (id.bytes < 0) {
        const auto in = intArgOf(trace, args, strings.find("In msg nelems"));
        const auto out = intArgOf(trace, args, strings.find("Out msg nelems"));
        if (in || out)
            id.bytes = collectiveBytes(in.value_or(0), out.value_or(0),
                                       collectiveElementBytes(stringArgOf(trace, args, strings.find("dtype"))));
    }
}

/// The element count of each top-level list of Kineto's `Input Dims` text, up to `most`:
/// "[[382132224], [419430400], [], []]" → {382132224, 419430400}; an empty list counts 0; nothing on bad text.
std::vector<std::int64_t> inputElementCounts(std::string_view text, std::size_t most)
{
    std::vector<std::int64_t> out;
    std::size_t i = text.find('[');
    if (i == std::string_view::npos)
        return {};
    ++i;
    while (i < text.size() && out.size() < most) {
        const std::size_t open = text.find('[', i);
        if (open == std::string_view::npos)
            break;
        const std::size_t close = text.find(']', open);
        if (close == std::string_view::npos)
            return {};
        std::int64_t product = 1;
        bool any = false;
        std::int64_t v = -1;
        for (std::size_t k = open + 1; k <= close; ++k) {
            const char c = text[k];
            if (std::isdigit(static_cast<unsigned char>(c))) {
                v = (v < 0 ? 0 : v) * 10 + (c - '0');
                if (v > (std::int64_t(1) << 50))
                    return {};
            } else if (c == '[') {
                return out; // a TensorList: its tensors are not one buffer
            } else if (v >= 0) {
                product = product > (std::int64_t(1) << 52) / std::max<std::int64_t>(v, 1) ? -1 : product * v;
                if (product < 0)
                    return {};
                any = true;
                v = -1;
            }
        }
        out.push_back(any ? product : 0);
        i = close + 1;
    }
    return out;
}

/// The first `most` strings of Kineto's `Input type` text ("[\"unsigned char\", \"Scalar\"]").
std::vector<std::string_view> inputTypes(std::string_view text, std::size_t most)
{
    std::vector<std::string_view> out;
    std::size_t i = 0;
    while (out.size() < most) {
        const std::size_t a = text.find('"', i);
        if (a == std::string_view::npos)
            break;
        const std::size_t b = text.find('"', a + 1);
        if (b == std::string_view::npos)
            break;
        out.push_back(text.substr(a + 1, b - a - 1));
        i = b + 1;
    }
    return out;
}

/// Bytes of a `c10d::` call from its first two tensors (input and output buffer), the larger of the two; also of an
/// `nccl:<op>` annotation, whose `Input Dims` list the tensor it sends.
std::int64_t c10dCallBytes(const model::Trace& trace, model::ArgSetId args)
{
    const model::StringPool& strings = trace.strings();
    const std::vector<std::int64_t> counts
        = inputElementCounts(stringArgOf(trace, args, strings.find("Input Dims")), 2);
    const std::vector<std::string_view> types = inputTypes(stringArgOf(trace, args, strings.find("Input type")), 2);
    std::int64_t best = -1;
    for (std::size_t k = 0; k < counts.size() && k < types.size(); ++k)
        best = std::max(best, collectiveBytes(counts[k], 0, collectiveElementBytes(types[k])));
    return best;
}

} // namespace

CollectiveIdentity collectiveIdentity(const model::Trace& trace, model::SliceRef kernel)
{
    CollectiveIdentity id;
    if (!kernel.isValid())
        return id;
    readIdentityArgs(trace, trace.track(kernel.track).args(kernel.index.value), id);
    if (!id.hostOpKind.empty() && !id.group.empty() && id.bytes >= 0)
        return id;
    // The host call that launched it, and the calls around that one.
    for (const std::uint32_t fi : trace.flowIndicesTo(kernel)) {
        const model::Flow& f = trace.flows()[fi];
        if (f.kind != model::FlowKind::Launch || !f.from.isValid())
            continue;
        const model::Track& host = trace.track(f.from.track);
        model::SliceIndex i = f.from.index;
        // A `c10d::` call over a TensorList (all-reduce in 2023-era PyTorch) lists no dims; its `nccl:<op>`
        // annotation still lists the tensor, and counts when the call gives nothing.
        std::int64_t annotationBytes = -1;
        for (int depth = 0; i.isValid() && depth < 32; ++depth, i = host.parent(i.value)) {
            const std::string_view name = trace.str(host.sliceName(i.value));
            const bool annotation = name.rfind("nccl:", 0) == 0 || name.rfind("gloo:", 0) == 0;
            if (name == "record_param_comms")
                readIdentityArgs(trace, host.args(i.value), id);
            else if (id.bytes < 0 && name.rfind("c10d::", 0) == 0)
                id.bytes = c10dCallBytes(trace, host.args(i.value));
            if (annotation && id.hostOpKind.empty())
                id.hostOpKind = hostCollectiveKind(name);
            if (annotation && annotationBytes < 0)
                annotationBytes = c10dCallBytes(trace, host.args(i.value));
        }
        if (id.bytes <= 0 && annotationBytes > 0)
            id.bytes = annotationBytes;
        break;
    }
    if (id.groupSize < 0 && !id.groupRanks.empty())
        id.groupSize = static_cast<std::int32_t>(id.groupRanks.size());
    return id;
}

namespace {

// Signals a plane sends to its peers: instants, neither waiting nor moving data.
bool isSignalTask(std::string_view name)
{
    const std::string s = squeeze(name);
    return s == "notifyrecord" || s == "notifyrecordsqe" || s == "eventrecord" || s == "eventrecordsqe";
}

} // namespace

bool isCommunicationWaitTask(std::string_view name)
{
    const std::string s = squeeze(name);
    return s == "notifywait" || s == "notifywaitsqe" || s == "eventwait" || s == "eventwaitsqe";
}

namespace {

/// What one pass over the device tracks finds of the communication: the intervals, per track and united, of the
/// collectives and their wait and transfer tasks, the collective operations, and the backends their names say.
struct CommunicationScan
{
    struct TrackComm
    {
        model::TrackId id;
        IntervalList comm;
    };
    struct MeasuredOp
    {
        TimeNs start = 0;
        TimeNs end = 0;
        TimeNs waitNs = 0;
    };
    IntervalList wait;
    IntervalList transfer;
    std::vector<CollectiveOp> ops;
    std::vector<TrackComm> commTracks;
    std::vector<IntervalList> planeWaits; // each track's wait tasks, united
    std::vector<MeasuredOp> measured;     // operations carrying communication.json's "Wait Time(ms)"
    bool sawNccl = false;
    bool sawRccl = false;
    bool sawKineto = false; // NCCL/RCCL kernels, whose args or launching host calls may say their collective
    bool sawHcom = false;
};

/// The arg keys of what communication.json measured on an HCCL operation (parsers/ascend/ascendcommunication.h).
struct MeasuredKeys
{
    model::StringId wait;
    model::StringId linkType;
    model::StringId linkSize;
    model::StringId linkTime;
};

/// The operation's main link, as the importer joined it from communication.json's "Communication Bandwidth Info".
void readMeasuredLink(const model::Trace& trace, model::ArgSetId args, const MeasuredKeys& keys, CollectiveOp& op)
{
    const std::string_view type = stringArgOf(trace, args, keys.linkType);
    const std::optional<model::ArgValue> size = trace.argStore().find(args, keys.linkSize);
    const std::optional<model::ArgValue> time = trace.argStore().find(args, keys.linkTime);
    if (type.empty() || !size || !time || size->type != model::ArgValue::Type::Double
        || time->type != model::ArgValue::Type::Double || !(size->d > 0) || !(time->d > 0) || size->d > 1e9
        || time->d > 1e9)
        return;
    op.linkTransport = std::string(type);
    // MB and ms as the Ascend tools write them: 10^6 bytes, 10^-3 s (Bandwidth(GB/s) = MB / ms).
    op.bytes = std::llround(size->d * 1e6);
    op.linkTransitNs = std::llround(time->d * 1e6);
}

/// Scans one device track's slices into the scan.
void scanTrackCommunication(const model::Trace& trace, const model::Track& t, const MeasuredKeys& keys,
                            CommunicationScan& scan)
{
    IntervalList own;
    IntervalList ownWait;
    for (std::uint32_t i = 0; i < t.size(); ++i) {
        const SliceCategory c = t.category(i);
        const TimeNs s = t.ts(i);
        const TimeNs e = t.end(i);
        if (e <= s)
            continue;
        const bool waitTask = (c == SliceCategory::Communication || t.role == model::TrackRole::Communication)
            && isCommunicationWaitTask(trace.str(t.sliceName(i)));
        if (waitTask) {
            scan.wait.push_back({s, e});
            ownWait.push_back({s, e});
        }
        if (c != SliceCategory::Communication)
            continue;
        own.push_back({s, e});
        const std::string_view name = trace.str(t.sliceName(i));
        std::string kind = collectiveOpKind(name);
        if (kind.empty()) {
            // A task of a collective on a plane (Memcpy, Reduce_Inline, RDMA send): moving data.
            if (!waitTask && !isSignalTask(name))
                scan.transfer.push_back({s, e});
            continue;
        }
        if (t.depth(i) != 0)
            continue;
        const std::string lower = squeeze(name);
        scan.sawNccl = scan.sawNccl || contains(lower, "nccl");
        scan.sawRccl = scan.sawRccl || contains(lower, "rccl");
        scan.sawKineto = scan.sawNccl || scan.sawRccl;
        scan.sawHcom = scan.sawHcom || lower.rfind("hcom", 0) == 0;
        if (!keys.wait.isEmpty()) {
            const std::optional<model::ArgValue> w = trace.argStore().find(t.args(i), keys.wait);
            if (w && w->type == model::ArgValue::Type::Double && w->d >= 0 && w->d * 1e6 < double(e - s) * 2)
                scan.measured.push_back({s, e, static_cast<TimeNs>(std::llround(w->d * 1e6))});
        }
        CollectiveOp op {std::move(kind), s, e, {}, {}, {}, -1, -1, -1, -1, {}, 0, {t.id, model::SliceIndex(i)}};
        if (!keys.linkType.isEmpty())
            readMeasuredLink(trace, t.args(i), keys, op);
        if (scan.sawKineto) {
            CollectiveIdentity id = collectiveIdentity(trace, {t.id, model::SliceIndex(i)});
            // A send/recv kernel of an all-to-all (or any collective the host called) is that collective; a SendRecv
            // kernel of a genuine send or recv is that send or recv, with its peer.
            if (isPointToPoint(op.opKind) && !id.hostOpKind.empty() && id.hostOpKind != "sendrecv")
                op.opKind = id.hostOpKind;
            if (op.opKind == "send" || op.opKind == "recv")
                op.peer = id.peer;
            op.group = std::move(id.group);
            op.groupRanks = std::move(id.groupRanks);
            op.seq = id.seq;
            op.bytes = id.bytes;
            op.groupSize = id.groupSize;
        }
        scan.ops.push_back(std::move(op));
    }
    if (!own.empty())
        scan.commTracks.push_back({t.id, unite(std::move(own))});
    if (!ownWait.empty())
        scan.planeWaits.push_back(unite(std::move(ownWait)));
}

/// The compute on every device, united (collected only when there is communication: most traces have none, and
/// the list is as long as the trace's kernels).
IntervalList deviceCompute(const model::Trace& trace)
{
    IntervalList compute;
    for (const model::Track& t : trace.tracks()) {
        if (!isDeviceTrack(t))
            continue;
        for (std::uint32_t i = 0; i < t.size(); ++i) {
            const SliceCategory c = t.category(i);
            if (c != SliceCategory::Communication && isComputeCategory(c) && t.end(i) > t.ts(i))
                compute.push_back({t.ts(i), t.end(i)});
        }
    }
    return unite(std::move(compute));
}

/// `waiting` with the operations communication.json measured replaced: inside each, the waiting is its main
/// plane's wait tasks, the plane whose waits add up to the measured figure. Counts the operations it used and
/// those no plane matched in `out`.
IntervalList withMeasuredWaits(const CommunicationScan& scan, IntervalList waiting, CommunicationProfile& out)
{
    IntervalList replaced;
    IntervalList measuredWait;
    for (const CommunicationScan::MeasuredOp& op : scan.measured) {
        const TimeNs tolerance = 1000 + op.waitNs / 100;
        const IntervalList* best = nullptr;
        TimeNs bestDiff = tolerance + 1;
        for (const IntervalList& plane : scan.planeWaits) {
            const TimeNs len = overlapLength(plane, op.start, op.end);
            const TimeNs diff = len > op.waitNs ? len - op.waitNs : op.waitNs - len;
            if (diff < bestDiff) {
                bestDiff = diff;
                best = &plane;
            }
        }
        if (!best && op.waitNs > tolerance) {
            ++out.communicationJsonMismatched;
            continue;
        }
        ++out.communicationJsonOps;
        replaced.push_back({op.start, op.end});
        if (best) {
            const IntervalList mine = clip(*best, op.start, op.end);
            measuredWait.insert(measuredWait.end(), mine.begin(), mine.end());
        }
    }
    if (replaced.empty())
        return waiting;
    out.waitFromTasks = true;
    return uniteSorted(subtract(waiting, unite(std::move(replaced))), unite(std::move(measuredWait)));
}

/// The backend the collectives' names say, else the platform's.
CommBackend backendOf(const CommunicationScan& scan, Platform platform)
{
    if (scan.sawHcom || platform == Platform::TorchNpuCann)
        return CommBackend::Hccl;
    if (scan.sawRccl || platform == Platform::PyTorchRocm)
        return CommBackend::Rccl;
    if (scan.sawNccl || platform == Platform::PyTorchCuda)
        return CommBackend::Nccl;
    return CommBackend::Unknown;
}

/// StepCommunication::hostBeforeFirst of one step whose host window starts at `stepStart`.
void describeHostBeforeFirst(const model::Trace& trace, TimeNs stepStart, StepCommunication& step)
{
    if (step.collectives.empty() || !step.collectives.front().slice.isValid())
        return;
    model::SliceRef launch {};
    for (const std::uint32_t fi : trace.flowIndicesTo(step.collectives.front().slice)) {
        const model::Flow& f = trace.flows()[fi];
        if (f.kind == model::FlowKind::Launch && f.from.isValid()) {
            launch = f.from;
            break;
        }
    }
    if (!launch.isValid())
        return;
    const model::Track& host = trace.track(launch.track);
    const TimeNs until = host.ts(launch.index.value);
    if (until <= stepStart)
        return;
    step.hostBeforeFirstNs = until - stepStart;
    // The slices that hold the launch are the way to it, not what came before it.
    std::vector<std::uint32_t> holding;
    for (model::SliceIndex i = launch.index; i.isValid(); i = host.parent(i.value))
        holding.push_back(i.value);
    const std::span<const TimeNs> ts = host.timestamps();
    const auto first = static_cast<std::uint32_t>(std::lower_bound(ts.begin(), ts.end(), stepStart) - ts.begin());
    const auto holds = [&](std::uint32_t i) { return std::find(holding.begin(), holding.end(), i) != holding.end(); };
    const auto completed = [&](std::uint32_t i) { return host.ts(i) >= stepStart && host.end(i) <= until; };
    std::map<std::string_view, TimeNs> byName;
    for (std::uint32_t i = first; i < host.size() && host.ts(i) < until; ++i) {
        if (!completed(i) || holds(i))
            continue;
        // The outermost only: a slice inside a completed one that does not hold the launch is in its parent's time.
        const model::SliceIndex parent = host.parent(i);
        if (parent.isValid() && completed(parent.value) && !holds(parent.value))
            continue;
        byName[trace.str(host.sliceName(i))] += host.dur(i);
    }
    for (const auto& [name, ns] : byName)
        step.hostBeforeFirst.push_back({std::string(name), ns});
    std::stable_sort(step.hostBeforeFirst.begin(), step.hostBeforeFirst.end(),
                     [](const HostActivity& a, const HostActivity& b) { return a.ns > b.ns; });
    if (step.hostBeforeFirst.size() > kHostActivityKept)
        step.hostBeforeFirst.resize(kHostActivityKept);
}

/// Gives each step the collectives that start in it, with their exposed parts; an operation shown on two lanes (an
/// HCCL group lane and the stream that ran it) once.
void assignCollectives(std::vector<CollectiveOp> ops, const StepClock& clock, CommunicationProfile& out)
{
    std::sort(ops.begin(), ops.end(), [](const CollectiveOp& a, const CollectiveOp& b) {
        return a.start != b.start ? a.start < b.start : a.end > b.end;
    });
    std::vector<CollectiveOp> kept;
    for (CollectiveOp& op : ops) {
        const bool duplicate = std::any_of(
            kept.rbegin(), kept.rbegin() + std::min<std::size_t>(kept.size(), 8),
            [&](const CollectiveOp& k) { return k.opKind == op.opKind && k.start <= op.start && op.end <= k.end; });
        if (!duplicate)
            kept.push_back(std::move(op));
    }
    for (CollectiveOp& op : kept) {
        const std::size_t s = clock.stepAt(op.start);
        if (s >= clock.size())
            continue;
        const Interval w = clock.window(s);
        op.exposed = clip(out.exposed, std::max(op.start, w.start), std::min(op.end, w.end));
        out.steps[s].collectives.push_back(std::move(op));
    }
}

} // namespace

CommunicationProfile computeCommunicationProfile(const model::Trace& trace, const StepClock& clock,
                                                 const CancelToken& cancel)
{
    CommunicationProfile out;
    out.steps.resize(clock.size());
    CommunicationScan scan;
    const model::StringPool& strings = trace.strings();
    const MeasuredKeys keys {strings.find("Wait Time(ms)"), strings.find("Link Type"),
                             strings.find("Link Transit Size(MB)"), strings.find("Link Transit Time(ms)")};
    for (const model::Track& t : trace.tracks()) {
        if (cancel.cancelled())
            return out;
        if (isDeviceTrack(t))
            scanTrackCommunication(trace, t, keys, scan);
    }
    IntervalList comm;
    for (const CommunicationScan::TrackComm& tc : scan.commTracks)
        comm = comm.empty() ? tc.comm : uniteSorted(comm, tc.comm);
    if (comm.empty())
        return out;
    out.hasCommunication = true;
    const IntervalList commInSteps = intersect(comm, clock.windows());
    out.exposed = subtract(commInSteps, deviceCompute(trace));
    const IntervalList waitU = unite(std::move(scan.wait));
    out.waitFromTasks = !waitU.empty();
    // While one plane waits, another may move data: that time is transfer, not waiting.
    const IntervalList transferU = unite(std::move(scan.transfer));
    out.planeTasks = !transferU.empty();
    IntervalList waiting = subtract(waitU, transferU);
    if (!scan.measured.empty())
        waiting = withMeasuredWaits(scan, std::move(waiting), out);
    out.wait = intersect(out.exposed, waiting);
    const IntervalList notWaiting = subtract(out.exposed, out.wait);
    out.transfer = out.planeTasks ? intersect(notWaiting, transferU) : notWaiting;
    out.idle = subtract(notWaiting, out.transfer);
    out.backend = backendOf(scan, trace.metadata().platform);

    TimeNs bestExposed = -1;
    for (const CommunicationScan::TrackComm& tc : scan.commTracks) {
        const TimeNs ns = totalLength(intersect(tc.comm, out.exposed));
        if (ns > bestExposed) {
            bestExposed = ns;
            out.primaryTrack = tc.id;
        }
    }
    for (std::size_t s = 0; s < clock.size(); ++s) {
        const Interval w = clock.window(s);
        StepCommunication& sc = out.steps[s];
        sc.communicationNs = overlapLength(commInSteps, w.start, w.end);
        sc.exposedNs = overlapLength(out.exposed, w.start, w.end);
        sc.waitNs = overlapLength(out.wait, w.start, w.end);
        sc.transferNs = overlapLength(out.transfer, w.start, w.end);
        sc.idleNs = overlapLength(out.idle, w.start, w.end);
    }
    assignCollectives(std::move(scan.ops), clock, out);
    for (std::size_t s = 0; s < clock.size() && !cancel.cancelled(); ++s)
        describeHostBeforeFirst(trace, clock.hostWindow(s).start, out.steps[s]);
    return out;
}

} // namespace timesink::analysis
