// SPDX-License-Identifier: MIT
#include "analysis/core/communication.h"

#include "analysis/core/deviceactivity.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>

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

CommunicationProfile computeCommunicationProfile(const model::Trace& trace, const StepClock& clock,
                                                 const CancelToken& cancel)
{
    CommunicationProfile out;
    out.steps.resize(clock.size());
    IntervalList comm;
    IntervalList compute;
    IntervalList wait;
    IntervalList transfer;
    std::vector<CollectiveOp> ops;
    struct TrackComm
    {
        model::TrackId id;
        IntervalList comm;
    };
    std::vector<TrackComm> commTracks;
    std::vector<IntervalList> planeWaits; // each track's wait tasks, united
    struct MeasuredOp
    {
        TimeNs start = 0;
        TimeNs end = 0;
        TimeNs waitNs = 0;
    };
    std::vector<MeasuredOp> measured; // operations carrying communication.json's "Wait Time(ms)"
    const model::StringId waitKey = trace.strings().find("Wait Time(ms)");
    bool sawNccl = false;
    bool sawRccl = false;
    bool sawHcom = false;
    for (const model::Track& t : trace.tracks()) {
        if (cancel.cancelled())
            return out;
        if (!isDeviceTrack(t))
            continue;
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
                wait.push_back({s, e});
                ownWait.push_back({s, e});
            }
            if (c == SliceCategory::Communication) {
                own.push_back({s, e});
                const std::string_view name = trace.str(t.sliceName(i));
                std::string kind = collectiveOpKind(name);
                if (kind.empty()) {
                    // A task of a collective on a plane (Memcpy, Reduce_Inline, RDMA send): moving data.
                    if (!waitTask && !isSignalTask(name))
                        transfer.push_back({s, e});
                    continue;
                }
                if (t.depth(i) != 0)
                    continue;
                const std::string lower = squeeze(name);
                sawNccl = sawNccl || contains(lower, "nccl");
                sawRccl = sawRccl || contains(lower, "rccl");
                sawHcom = sawHcom || lower.rfind("hcom", 0) == 0;
                if (!waitKey.isEmpty()) {
                    const std::optional<model::ArgValue> w = trace.argStore().find(t.args(i), waitKey);
                    if (w && w->type == model::ArgValue::Type::Double && w->d >= 0 && w->d * 1e6 < double(e - s) * 2)
                        measured.push_back({s, e, static_cast<TimeNs>(std::llround(w->d * 1e6))});
                }
                ops.push_back({std::move(kind), s, e, {}});
            }
        }
        if (!own.empty())
            commTracks.push_back({t.id, unite(std::move(own))});
        if (!ownWait.empty())
            planeWaits.push_back(unite(std::move(ownWait)));
    }
    for (const TrackComm& tc : commTracks)
        comm = comm.empty() ? tc.comm : uniteSorted(comm, tc.comm);
    if (comm.empty())
        return out;
    out.hasCommunication = true;
    // The compute beside the collectives (collected only now: most traces have none, and the list is as long as
    // the trace's kernels).
    for (const model::Track& t : trace.tracks()) {
        if (!isDeviceTrack(t))
            continue;
        for (std::uint32_t i = 0; i < t.size(); ++i) {
            const SliceCategory c = t.category(i);
            if (c != SliceCategory::Communication && isComputeCategory(c) && t.end(i) > t.ts(i))
                compute.push_back({t.ts(i), t.end(i)});
        }
    }
    const IntervalList computeU = unite(std::move(compute));
    const IntervalList commInSteps = intersect(comm, clock.windows());
    out.exposed = subtract(commInSteps, computeU);
    const IntervalList waitU = unite(std::move(wait));
    out.waitFromTasks = !waitU.empty();
    // While one plane waits, another may move data: that time is transfer, not waiting.
    const IntervalList transferU = unite(std::move(transfer));
    out.planeTasks = !transferU.empty();
    IntervalList waiting = subtract(waitU, transferU);
    if (!measured.empty()) {
        // communication.json measured these operations: inside each, the waiting is its main plane's wait tasks,
        // the plane whose waits add up to the measured figure.
        IntervalList replaced;
        IntervalList measuredWait;
        for (const MeasuredOp& op : measured) {
            const TimeNs tolerance = 1000 + op.waitNs / 100;
            const IntervalList* best = nullptr;
            TimeNs bestDiff = tolerance + 1;
            for (const IntervalList& plane : planeWaits) {
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
        if (!replaced.empty()) {
            out.waitFromTasks = true;
            waiting = uniteSorted(subtract(waiting, unite(std::move(replaced))), unite(std::move(measuredWait)));
        }
    }
    out.wait = intersect(out.exposed, waiting);
    const IntervalList notWaiting = subtract(out.exposed, out.wait);
    out.transfer = out.planeTasks ? intersect(notWaiting, transferU) : notWaiting;
    out.idle = subtract(notWaiting, out.transfer);

    const Platform platform = trace.metadata().platform;
    if (sawHcom || platform == Platform::TorchNpuCann)
        out.backend = CommBackend::Hccl;
    else if (sawRccl || platform == Platform::PyTorchRocm)
        out.backend = CommBackend::Rccl;
    else if (sawNccl || platform == Platform::PyTorchCuda)
        out.backend = CommBackend::Nccl;

    TimeNs bestExposed = -1;
    for (const TrackComm& tc : commTracks) {
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

    // The same operation can show on two lanes (an HCCL group lane and the stream that ran it): keep one.
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
    return out;
}

} // namespace timesink::analysis
