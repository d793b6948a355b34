// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/collectivebandwidth.h"
#include "analysis/core/finding.h"
#include "analysis/core/intervals.h"
#include "analysis/core/stepactivity.h"
#include "model/ranklinks.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace timesink::analysis {

/// One collective of a rank's step, in ns relative to the start of that step on the rank's own clock.
struct RankCollective
{
    std::string opKind; // collectiveOpKind()
    model::TimeNs start = 0;
    model::TimeNs end = 0;
    IntervalList exposed; // the parts no device compute overlapped (relative, like start/end)
    /// The process group it ran in: its name (Kineto `Process Group Name`), or "" for the job's default group (every
    /// rank of the step). Collectives are matched only among the ranks of one group.
    std::string group;
    /// The group's members as global ranks (Kineto `Process Group Ranks`), when the trace lists them; empty unknown.
    std::vector<std::int32_t> groupRanks;
    /// Its sequence number in its group (Kineto `Seq`), −1 unknown: with it on every rank, matched by number.
    std::int64_t seq = -1;
    /// A send's destination or a recv's source as a global rank (CollectiveOp::peer), −1 unknown or not a send/recv.
    std::int32_t peer = -1;
    /// CollectiveOp's bytes, group size and measured main link (analysis/core/communication.h); −1/−1/""/0 unknown.
    std::int64_t bytes = -1;
    std::int32_t groupSize = -1;
    std::string linkTransport {};
    model::TimeNs linkTransitNs = 0;
};

/// One step of one rank, as `analyze --format json` reports it (steps[] of timesink.report/1).
struct RankStep
{
    std::int64_t number = 0;
    model::TimeNs startNs = 0; // on the rank's own clock
    model::TimeNs durationNs = 0;
    model::TimeNs computeNs = 0;
    model::TimeNs communicationNs = 0;
    model::TimeNs communicationWaitNs = 0; // measured by wait tasks (HCCL); 0 when the rank has none
    /// Exposed communication moving data and idle inside the collectives (no plane task running), when the rank's
    /// report split them (HCCL plane tasks); transfer −1 when it did not.
    model::TimeNs communicationTransferNs = -1;
    model::TimeNs communicationIdleNs = 0;
    model::TimeNs idleNs = 0;
    std::vector<RankCollective> collectives;
    /// When the device computed, copied and sat idle (relative to the step start); absent in a report written
    /// before the field, or for a rank without device work.
    bool hasActivity = false;
    StepActivity activity;
    /// StepCommunication::hostBeforeFirst and hostBeforeFirstNs (empty and 0 in a report written before them).
    std::vector<HostActivity> hostBeforeFirst;
    model::TimeNs hostBeforeFirstNs = 0;
};

/// A rank's finding, as much of it as a job needs.
struct RankFinding
{
    std::string kind;
    std::string title;
    model::TimeNs lostNs = 0;
    double lostFraction = 0.0;
    std::uint64_t occurrences = 0;
};

/// Everything a job keeps of one rank: a summary, never the trace, so a job's memory is bounded by the
/// largest rank being analysed, not by the sum of all ranks.
struct RankSummary
{
    std::int32_t rank = -1; // from the trace (distributedInfo, profiler_info, RANK_DEVICE_MAP); -1 unknown
    std::int32_t worldSize = -1;
    std::string source; // the path the rank came from (a trace or a report)
    /// The rank's trace: `source` for a trace, the report's `trace.path` for a report (it may live on the machine
    /// that wrote the report); "" unknown. Its start on the rank's clock, so a step can be shown in the trace.
    std::string tracePath;
    model::TimeNs traceStartNs = 0;
    std::string format;
    std::string platform;                   // platformKey()
    std::string backend;                    // commBackendKey()
    std::string device;                     // the rank's first GPU/NPU name ("" unknown): the link table's key
    std::string generator;                  // the Timesink that wrote the report ("timesink-cli 0.3.0"); "" unknown
    bool waitFromTasks = false;             // the wait is measured on the rank (wait tasks or communication.json)
    bool waitFromCommunicationJson = false; // … by communication.json (Ascend)
    model::TimeNs analysedNs = 0;
    std::vector<RankStep> steps;
    std::vector<RankFinding> findings; // ranked
    /// What the rank sent each peer per transport (Ascend communication_matrix.json; empty elsewhere).
    std::vector<model::RankLink> links;
    /// The rank's serious import warnings (model::isSeriousImportWarning: cut, stopped at the decompression
    /// limit, …), their messages; the job repeats them, since the rank's numbers cover only part of its run.
    std::vector<std::string> warnings;
};

struct JobOptions
{
    /// A rank is a straggler when the waiting it causes is at least this share of the job's rank-time.
    double stragglerMinShare = 0.01;
    model::TimeNs minLostNs = 0;
};

/// One collective of a rank's step inside the job, relative to the start of that step on the rank's clock.
struct JobCollective
{
    std::string opKind;
    model::TimeNs start = 0;
    model::TimeNs end = 0;
    /// [start, arrivalWaitEnd): the rank was in the collective before the last rank arrived: its duration above the
    /// shortest among the collective's members (= start when it arrived last or the collective is not matched).
    model::TimeNs arrivalWaitEnd = 0;
    IntervalList exposed; // the parts no device compute overlapped
    int matchIndex = -1;  // its position among the step's collectives matched across their group; −1 not matched
    bool last = false;    // this rank arrived last (the edge the others waited on)
};

/// One step of one rank inside the job (the rank's own numbers plus what alignment found).
struct JobRankStep
{
    std::int64_t number = 0;
    model::TimeNs startNs = 0; // on the rank's own clock
    model::TimeNs durationNs = 0;
    model::TimeNs computeNs = 0;
    model::TimeNs communicationNs = 0;
    model::TimeNs communicationWaitNs = 0;     // measured (wait tasks) or, without them, from cross-rank alignment
    model::TimeNs communicationTransferNs = 0; // communication − wait − idle
    model::TimeNs communicationIdleNs = 0;     // inside collectives, no plane task running (HCCL plane tasks only)
    model::TimeNs idleNs = 0;
    model::TimeNs offsetNs = 0;     // this rank's clock minus the reference rank's in this step (0 when unaligned)
    model::TimeNs causedWaitNs = 0; // waiting of the other ranks on this rank's late arrival
    /// How late the rank started the step on the common clock: its start less the earliest rank's (0 for that one).
    model::TimeNs startLateNs = 0;
    std::uint32_t lastArrivals = 0;            // collectives this rank reached last
    std::vector<JobCollective> collectives;    // as the rank reported them (by start)
    bool hasActivity = false;                  // RankStep::hasActivity
    StepActivity activity;                     // RankStep::activity
    std::vector<HostActivity> hostBeforeFirst; // RankStep::hostBeforeFirst
    model::TimeNs hostBeforeFirstNs = 0;
};

struct JobRank
{
    std::int32_t rank = 0; // as reported, or the input position when the inputs carry none
    std::string source;
    std::string tracePath; // RankSummary::tracePath
    model::TimeNs traceStartNs = 0;
    std::string format;
    std::string backend;
    std::string device; // RankSummary::device
    bool waitFromTasks = false;
    bool waitFromCommunicationJson = false;
    model::TimeNs analysedNs = 0;
    std::vector<JobRankStep> steps; // in step number order
    std::vector<RankFinding> findings;
};

/// A step number across the ranks that have it.
struct JobStep
{
    std::int64_t number = 0;
    std::size_t ranks = 0;
    std::int32_t slowestRank = -1;
    model::TimeNs slowestNs = 0;
    std::int32_t fastestRank = -1;
    model::TimeNs fastestNs = 0;
    model::TimeNs spreadNs = 0; // slowest − fastest
    model::TimeNs meanNs = 0;
    model::TimeNs communicationWaitNs = 0; // sum over ranks
    std::size_t alignedCollectives = 0;    // collectives matched across the ranks of their group in the step
    std::size_t unmatchedPointToPoint = 0; // sends and recvs of the step left unmatched (no peer, no counterpart)
    /// The rank that arrived last at the most of the step's matched collectives (−1 none) and how late it started
    /// the step against the earliest rank (common clock): the step's straggler measure. Ranks that all leave the
    /// step's last collective together show the late starter's lag as a shorter step, never as a slower one.
    std::int32_t lateRank = -1;
    model::TimeNs lateStartNs = 0;
};

struct JobKindLoss
{
    std::string kind;
    model::TimeNs lostNs = 0;
    double fraction = 0.0;
    std::size_t findings = 0;
};

/// A job: ranks aligned step by step, the stragglers, the job's communication, lost time by kind.
/// Lost time at job level is rank-time (one ns on each of 8 ranks is 8 ns); fractions are of the job's
/// rank-time (the sum of the ranks' analysed time).
struct JobResult
{
    std::int32_t worldSize = -1;
    std::vector<JobRank> ranks;    // by rank
    std::vector<JobStep> steps;    // by step number
    std::vector<Finding> findings; // ranked with rankBefore()
    std::vector<JobKindLoss> lostByKind;
    model::TimeNs rankTimeNs = 0;
    model::TimeNs lostNs = 0;
    std::vector<std::string> warnings;      // the job's, then each rank's serious import warnings ("rank 3: …")
    std::vector<std::int32_t> missingRanks; // ranks of 0..worldSize−1 no input gave (at most 4,096 listed)
    /// Per collective kind, the bandwidth of the collectives matched across their group: one rate per matched
    /// collective, its transfer the shortest duration among the members (the last arriver did not wait), its bytes
    /// and group size the members' (the largest given), the link the last arriver's device's; Ascend collectives whose
    /// main link the tools measured take that transit instead (analysis/core/collectivebandwidth.h).
    std::vector<BandwidthSummary> bandwidth;
    /// Every rank's links (RankSummary::links) as one rank-pair matrix, by (src, dst, transport); empty when no
    /// rank has any (GPU jobs, Ascend profiles below Level1 or of one rank).
    std::vector<model::RankLink> links;
};

/// What a heat-map cell shows for a rank's step (the job window and the job report share the list).
enum class JobMeasure : std::uint8_t { StepTime, CommunicationWait, CausedWait, Compute, Communication };
inline constexpr JobMeasure kJobMeasures[] = {JobMeasure::StepTime, JobMeasure::CommunicationWait,
                                              JobMeasure::CausedWait, JobMeasure::Compute, JobMeasure::Communication};
model::TimeNs jobMeasureValue(const JobRankStep& step, JobMeasure measure);
/// "Step time", "Communication wait", "Wait caused on other ranks", "Device compute", "Exposed communication".
std::string jobMeasureLabel(JobMeasure measure);
/// The measure a heat map opens on: the one whose values differ most between the ranks of a step (the largest
/// (max − min) / max over the steps; the first of kJobMeasures on ties), or nullopt when every measure is the same
/// on every rank to within 1 % (then any map is one flat colour, and the window says so). A synchronous job whose
/// ranks all take 54 ms per step opens on its communication wait, where the straggler is the one that waits 0.
std::optional<JobMeasure> mostVaryingMeasure(const JobResult& job);
/// The heat maps' colour for t = value / largest value in [0, 1], 0xRRGGBB: pale yellow (0, still a colour, so a
/// zero never reads as "no data") through orange to dark red.
std::uint32_t jobHeatColor(double t);

/// Aligns the ranks and finds the stragglers.
/// * Steps are matched by step number. In each step the collectives that are not point-to-point are matched within
///   their process group (RankCollective::group), among the ranks of that group: by sequence number where every
///   member gives one, else by position (the n-th all-reduce of group g in step 7 on every member) as long as the
///   operation agrees. A group seen on only some of its listed members, members lists that disagree, or sequence
///   numbers that do not line up: warned, and those collectives stay unmatched.
/// * Genuine sends and recvs are matched pairwise: the k-th send from rank A to rank B (RankCollective::peer) in a
///   step and group with the k-th recv on B from A there (by sequence number, then start, where all of them give
///   one; else by start), a matched set of two under the rules below. A peer unknown or without the step, or
///   counterparts that differ in number or sequence numbers: warned, left unmatched (JobStep::unmatchedPointToPoint).
/// * A matched collective's transfer is the shortest duration among its members (the last arriver does not wait);
///   each member's waiting is its duration above that, [start, start + (duration − shortest)), counted where it was
///   exposed. The member with the shortest duration arrived last and caused that waiting (its `straggler` lost
///   time). Durations need no common clock, so the clocks of the hosts never change the answer.
/// * Clocks (for the lanes and the step start lateness only): per step, a rank's offset is the median over the
///   collectives it shares with an already placed rank of (its end − that rank's end), starting from the first
///   rank; a rank sharing none is placed by its step start.
/// Example: two ranks, step 1, an all-reduce at [20,54) on rank 0 and [40,54) on rank 1 (any clocks): rank 0
///   waited 34 − 14 = 20 ns for rank 1 → rank 1 is a straggler with 20 ns lost.
JobResult analyzeJob(std::vector<RankSummary> ranks, const JobOptions& options = {});

/// The ranks' steps as lanes on one time axis, for the job window and the job report (one owner of the geometry).
/// Each lane is one rank's step: its collectives cut into waiting, idle inside the collective, transfer and the part
/// device compute overlapped; outside the collectives, what the device did (the step's StepActivity): compute,
/// copies and idle. The waiting is the one the job counts (JobRankStep::communicationWaitNs):
/// * a rank that measured its split (HCCL wait tasks or communication.json, StepActivity::communicationSplit): its
///   own exposed wait (Wait) and idle inside the collectives (CollectiveIdle), the rest of the exposed collectives
///   Transfer — the same intervals its `analyze` counts, so the lanes add up to its waiting and idle figures;
/// * any other rank: the exposed part of each collective before the last rank arrived (Wait, from alignment) and
///   the exposed rest (Transfer); no CollectiveIdle (nothing tells it from transfer without plane tasks).
/// A rank whose report has no activity (written before it) shows its collectives only (RankLane::hasActivity false).
enum class LaneKind : std::uint8_t { Wait, Transfer, Overlapped, Compute, Copy, Idle, CollectiveIdle };
inline constexpr std::size_t kLaneKindCount = 7;

struct LaneSegment
{
    LaneKind kind = LaneKind::Transfer;
    model::TimeNs start = 0; // on the shared axis
    model::TimeNs end = 0;
};

struct RankLane
{
    std::size_t rankIndex = 0;   // into JobResult::ranks
    model::TimeNs stepStart = 0; // the step on the shared axis
    model::TimeNs stepEnd = 0;
    std::vector<LaneSegment> segments;  // by start
    model::TimeNs waitNs = 0;           // the step's communication wait (JobRankStep::communicationWaitNs)
    model::TimeNs collectiveIdleNs = 0; // … idle inside the collectives (JobRankStep::communicationIdleNs)
    bool measuredSplit = false;         // Wait and CollectiveIdle are the rank's measured split, not alignment's
    bool straggler = false;             // reached the most matched collectives last in this step
    bool hasActivity = false;           // compute / copy / idle segments drawn (JobRankStep::hasActivity)
    model::TimeNs resolutionNs = 0;     // their resolution (StepActivity::resolutionNs)
};

enum class LaneAlign : std::uint8_t {
    CommonClock, // every rank on the first rank's clock through the step's clock offsets (collective ends)
    StepStart,   // every rank's step starts at 0
    Collective,  // the end of matched collective `collective` at the same point on every rank
};

struct StepLanes
{
    std::int64_t step = 0;
    model::TimeNs axisStart = 0; // the earliest step start on the axis
    model::TimeNs axisEnd = 0;   // the latest step end
    std::vector<RankLane> lanes; // by rank; ranks without the step have no lane
    /// The latest arrival at each matched collective on the axis (the edge the others wait on), with its rank index.
    std::vector<std::pair<model::TimeNs, std::size_t>> lastArrivals;
    std::size_t matchedCollectives = 0;
    std::size_t lanesWithoutActivity = 0; // lanes whose rank gave no device activity for the step
};

/// Lanes of step `step` (an empty StepLanes when no rank has it). `collective` counts matched collectives from 0;
/// out of range, LaneAlign::Collective falls back to the common clock.
/// Compute, Copy and Idle segments cover the step outside the collectives (a collective's span is drawn by its
/// own segments): compute first, then copies, then idle, at the activity's resolution.
/// Example: the planted job's step 2 on the common clock: ranks 0, 1, 3 wait [32, 50) ms after their step start,
/// rank 2 arrives at 50 ms, and every lane's all-reduce ends at 54 ms; ranks 0, 1, 3 compute over [0, 30) ms.
StepLanes stepLanes(const JobResult& job, std::int64_t step, LaneAlign align = LaneAlign::CommonClock,
                    std::size_t collective = 0);

/// The step whose slowest rank took longest (the job report draws its lanes); −1 without steps.
std::int64_t worstStep(const JobResult& job);

} // namespace timesink::analysis
