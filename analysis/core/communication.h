// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/cancel.h"
#include "analysis/core/intervals.h"
#include "analysis/core/stepclock.h"
#include "model/trace.h"

#include <string>
#include <string_view>
#include <vector>

namespace timesink::analysis {

/// The collective library a trace's communication came from.
enum class CommBackend : std::uint8_t { Unknown, Nccl, Rccl, Hccl };
/// "unknown", "nccl", "rccl", "hccl".
std::string_view commBackendKey(CommBackend b);
/// Inverse of commBackendKey (anything else → Unknown).
CommBackend commBackendFromKey(std::string_view key);

/// The operation a device collective performs, from its name, or "" when the name is not a collective
/// operation (a plane task such as `Notify_Wait`/`Reduce_Inline`, a copy, a compute kernel).
/// Recognised: NCCL/RCCL kernels (`ncclKernel_AllReduce_RING_LL_Sum_float`, `ncclDevKernel_AllGather_…`,
/// `rcclKernel…`) and HCCL operations (`hcom_allReduce__586_0_1`). Results: "allreduce", "allgather",
/// "reducescatter", "alltoall", "broadcast", "reduce", "barrier", "sendrecv", "send", "recv", or "collective".
std::string collectiveOpKind(std::string_view name);
/// Point-to-point kinds (send/recv): their peers differ by rank, so they are not matched across a whole group; a
/// genuine send or recv whose peer is known is matched pairwise with its counterpart (analysis/job/job.h).
bool isPointToPoint(std::string_view opKind);
/// An HCCL/runtime task that waits for a peer's signal (`Notify_Wait`, `EVENT_WAIT`, `NOTIFY_WAIT_SQE`, …).
bool isCommunicationWaitTask(std::string_view name);

/// One collective operation on the device (times on the rank's own clock).
struct CollectiveOp
{
    std::string opKind; // collectiveOpKind()
    model::TimeNs start = 0;
    model::TimeNs end = 0;
    IntervalList exposed; // the parts of [start, end) inside its step that no device compute overlaps
    /// Its process group, as the trace names it (Kineto `Process Group Name`, else the `Process Group Ranks` text);
    /// "" when the trace does not say (the job's default group).
    std::string group;
    std::vector<std::int32_t> groupRanks; // `Process Group Ranks` as global ranks; empty when not given
    std::int64_t seq = -1;                // `Seq` of the collective in its group; −1 when not given
    /// A send's destination or a recv's source as a global rank (CollectiveIdentity::peer); −1 unknown or not
    /// point-to-point.
    std::int32_t peer = -1;
    /// Bytes it moved as NCCL-tests counts them (collectiveBytes(): the larger of `In msg nelems` and
    /// `Out msg nelems` × the `dtype` size; Ascend: the main link's Transit Size); −1 unknown.
    std::int64_t bytes = -1;
    std::int32_t groupSize = -1; // `Group size`, else the `Process Group Ranks` count; −1 unknown
    /// What the Ascend tools measured on the operation's main link (communication.json's "Communication Bandwidth
    /// Info": the transport with the most bytes of HCCS, RDMA, PCIE, SIO): its name ("" not measured) and its transit
    /// time, so bytes / linkTransitNs is the tools' "Bandwidth(GB/s)".
    std::string linkTransport {};
    model::TimeNs linkTransitNs = 0;
    model::SliceRef slice {}; // its slice on the device track (the what-if of slow_link re-times it)
};

/// What the trace says a device collective belongs to: the operation the host called and its process group, from
/// the kernel's own args (Kineto copies `Collective name`, `Process Group Name`, `Process Group Ranks` onto NCCL
/// kernels) or else from the host call that launched it (`record_param_comms`, `nccl:<op>` annotations).
/// A point-to-point kernel (`ncclKernel_SendRecv_…`) launched by an all-to-all is that all-to-all: `opKind`
/// becomes "alltoall", matched across the group like any collective; a genuine send/recv stays point-to-point.
struct CollectiveIdentity
{
    std::string hostOpKind; // collective kind of the host call ("alltoall", "allreduce", "send", …); "" unknown
    std::string group;
    std::vector<std::int32_t> groupRanks;
    std::int64_t seq = -1;
    /// Bytes (CollectiveOp::bytes) from `In msg nelems`/`Out msg nelems`/`dtype` on the kernel or its
    /// `record_param_comms`, else from the `Input Dims`/`Input type` of the launching `c10d::` call (older traces
    /// without the msg fields: the larger of its first two tensors); −1 unknown.
    std::int64_t bytes = -1;
    std::int32_t groupSize = -1; // `Group size`, else the size of `Process Group Ranks`; −1 unknown
    /// The peer of a send or recv as a global rank; −1 unknown or not a send/recv. Kineto gives it as `Dst Rank`
    /// (send) / `Src Rank` (recv), global ranks, in newer PyTorch; always as `Rank`, which for send and recv is the
    /// peer's rank inside the process group (ProcessGroupNCCL passes dstRank/srcRank there), turned global through
    /// `Process Group Ranks`. Without that list a `Rank` says nothing certain, and the peer stays unknown.
    /// Example: `Collective name` "send", `Rank` 1, `Process Group Ranks` "[4, 6]" → peer 6.
    std::int32_t peer = -1;
};
CollectiveIdentity collectiveIdentity(const model::Trace& trace, model::SliceRef kernel);
/// The collective kind of a host-side collective name (`all_to_all`, `alltoall_base`, `allreduce`,
/// `_all_gather_base`, `reduce_scatter_tensor_coalesced`, `send`, `recv`, `batch_isend_irecv`), "" unknown.
std::string hostCollectiveKind(std::string_view name);
/// "[0, 1, 4]" (Kineto's `Process Group Ranks`) as numbers; empty when the text is not such a list.
std::vector<std::int32_t> parseRankList(std::string_view text);

/// Communication inside one step window.
/// A host operation a rank completed before its first collective of a step, summed by name.
struct HostActivity
{
    std::string name;
    model::TimeNs ns = 0;
};

/// How many host operations a step keeps as the evidence of what came before its first collective.
inline constexpr std::size_t kHostActivityKept = 5;

struct StepCommunication
{
    model::TimeNs communicationNs = 0;     // device collective time inside the step (overlapped or not)
    model::TimeNs exposedNs = 0;           // … that no device compute overlaps
    model::TimeNs waitNs = 0;              // exposed time waiting for peers (0 when the trace has no wait tasks)
    model::TimeNs transferNs = 0;          // exposed time moving data (exposed − wait when no plane tasks tell)
    model::TimeNs idleNs = 0;              // exposed time inside collectives with no plane task running
    std::vector<CollectiveOp> collectives; // collective operations starting in this step, by start
    /// What the host thread that launched the step's first collective did from the step's host start to that
    /// launch: the outermost operations it completed in that stretch (not the calls the launch is nested in), summed
    /// by name, most time first, at most kHostActivityKept; `hostBeforeFirstNs` is the stretch's length (0 when the
    /// step has no collective whose launch the trace links).
    /// Example: DLRM rank 7, step 10: 3.21 ms to the first all-to-all's launch, of it enumerate(DataLoader) 1.16 ms.
    std::vector<HostActivity> hostBeforeFirst;
    model::TimeNs hostBeforeFirstNs = 0;
};

/// What a rank's device communication looked like, step by step.
/// * communication: union of Communication slices on device tracks (GPU/NPU streams, HCCL planes);
/// * compute: union of the other device compute categories (kernels, device fallback tasks, uncategorised
///   device tasks); copies neither hide nor are hidden by communication here;
/// * exposed = communication − compute, per step window;
/// * wait = exposed ∩ (wait tasks − transfer tasks): HCCL `Notify_Wait` & co. on communication planes, except
///   where another plane moves data (Memcpy, Reduce_Inline, … at the same time). NCCL/RCCL kernels have
///   no wait tasks: their waiting part is only known across ranks (analysis/job/job.h aligns them).
/// * When the Ascend tools measured an operation's wait (communication.json's "Wait Time(ms)", an arg of the
///   HCCL operation slice), that is the operation's wait: it is the `Notify_Wait` time of the operation's main
///   plane, so the plane whose wait tasks inside the operation add up to it (within 1 µs + 1 %) is found, and
///   inside the operation those tasks are the waiting, exposed or not like any other. An operation whose figure
///   matches no plane keeps the task-based rule (counted in `communicationJsonMismatched`).
/// * transfer = exposed ∩ transfer tasks (Memcpy, Reduce_Inline, RDMA sends: a plane task that neither waits nor
///   signals), less the wait; idle = exposed − wait − transfer: time inside a collective in which none of its
///   planes moved data or waited for a peer (communication.json's "Idle Time"). Without plane tasks (NCCL/RCCL)
///   nothing tells transfer from idle: transfer = exposed − wait, idle = 0 (`planeTasks` false).
/// Example: step [0,100), kernel [0,40), allreduce [30,90) with a Notify_Wait [40,70) and a Memcpy [75,85) →
///   communication 60, exposed 50 ([40,90)), wait 30, transfer 10, idle 10.
/// Example (communication.json): op [0,79) with Wait Time 5.6 ms, plane 1 waits 5.6 ms in [0,5.6), plane 5 waits
///   [0.3,79) → wait 5.6 ms (the task rule alone would say 78.7: plane 5 was not waiting for a peer).
struct CommunicationProfile
{
    bool hasCommunication = false;
    bool waitFromTasks = false; // the trace has wait tasks, so `waitNs` is measured
    bool planeTasks = false;    // the trace has the collectives' plane tasks, so transfer and idle are told apart
    /// Operations whose wait came from communication.json, and those whose figure matched no plane's wait tasks.
    std::size_t communicationJsonOps = 0;
    std::size_t communicationJsonMismatched = 0;
    CommBackend backend = CommBackend::Unknown;
    std::vector<StepCommunication> steps; // one per StepClock window
    model::TrackId primaryTrack;          // communication track with the most exposed time (evidence)
    IntervalList exposed;                 // all exposed pieces, inside steps
    IntervalList wait;                    // exposed ∩ wait tasks
    IntervalList transfer;                // exposed ∩ transfer tasks − wait (plane tasks), else exposed − wait
    IntervalList idle;                    // exposed − wait − transfer (empty without plane tasks)
};

CommunicationProfile computeCommunicationProfile(const model::Trace& trace, const StepClock& clock,
                                                 const CancelToken& cancel);

} // namespace timesink::analysis
