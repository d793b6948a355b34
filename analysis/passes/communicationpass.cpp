// SPDX-License-Identifier: MIT
#include "analysis/passes/communicationpass.h"

#include "analysis/core/communication.h"
#include "analysis/core/context.h"
#include "analysis/core/findingaccumulator.h"
#include "analysis/core/textformat.h"

namespace timesink::analysis {

std::string communicationRecommendation(bool hccl, bool waitKnown, model::TimeNs waitNs, model::TimeNs transferNs,
                                        model::TimeNs idleNs, bool job, bool pointToPointUnmatched)
{
    const std::string balance = job
        ? "Part of it is waiting for peers that reach the collectives later without one rank standing out: even out "
          "the work per rank (batch or sequence lengths, per-rank data loading or logging)."
        : "Most of it is waiting for peers that reach the collective later: the ranks do unequal work before it. "
          "Run `timesink-cli job` over all ranks to name the rank the others wait for, then even out its work "
          "(uneven batch or sequence lengths, per-rank data loading or logging, a slower device or host).";
    std::string transfer;
    if (hccl) {
        transfer = "Overlap the transfer with compute and move fewer bytes: keep DDP gradient bucketing on and tune "
                   "`bucket_cap_mb` so all-reduces start during backward, accumulate gradients with `no_sync()` for "
                   "several micro-steps, communicate in bf16/fp16 (a DDP comm hook). On Ascend check the HCCL "
                   "configuration: `HCCL_BUFFSIZE` large enough for the buckets, links in use (HCCS inside a "
                   "server, RoCE across servers; `communication_matrix.json` shows bandwidth per link).";
    } else {
        transfer = "Overlap the transfer with compute and move fewer bytes: keep DDP gradient bucketing on and tune "
                   "`bucket_cap_mb` (larger buckets for many small gradients, smaller to start earlier in "
                   "backward), accumulate gradients with `no_sync()` for several micro-steps, compress gradients "
                   "(`register_comm_hook(None, default_hooks.fp16_compress_hook)` or PowerSGD). Check the "
                   "interconnect NCCL chose with `NCCL_DEBUG=INFO` (NVLink/InfiniBand vs. PCIe/sockets).";
    }
    if (!waitKnown && job && pointToPointUnmatched)
        return "Waiting cannot be told from transfer here: point-to-point send/recv (pipeline parallelism) whose peer "
               "or counterpart on the peer rank could not be found is not aligned across ranks (see the job's "
               "warnings), and the traces have no wait tasks. "
            + transfer;
    if (!waitKnown && job)
        return "Waiting cannot be told from transfer here: no collective could be matched across the ranks (see the "
               "job's warnings) and the traces have no wait tasks. "
            + transfer;
    if (!waitKnown)
        return "The waiting part of these collectives is only known across ranks: run `timesink-cli job` over all "
               "ranks to split waiting from transfer. "
            + transfer;
    if (idleNs > waitNs && idleNs > transferNs) {
        // Neither the bytes nor the peers: moving fewer bytes would not shorten it.
        std::string idle = "Most of the collective time moves no data and waits for no peer: the operation holds the "
                           "stream while none of its planes runs a task (msprof-analyze's Idle Time), a fixed cost "
                           "per collective. Issue fewer, larger collectives: larger DDP buckets (`bucket_cap_mb`), "
                           "gradient accumulation with `no_sync()`, no per-tensor all-reduces in the training loop "
                           "(metrics, loss logging every step), and start them during backward so compute hides them.";
        if (waitNs > transferNs)
            return idle + " " + balance;
        return idle;
    }
    if (waitNs <= 0)
        return transfer;
    return waitNs >= transferNs ? balance + " " + transfer : transfer + " " + balance;
}

PassOutput CommunicationPass::run(const AnalysisContext& context) const
{
    const model::Trace& trace = context.trace();
    const CancelToken& cancel = context.cancel();
    PassOutput out;
    if (std::string why = context.notMeasuredReason("overlap is not real"); !why.empty())
        return PassOutput::notAssessed(std::move(why));
    const StepClock& clock = context.clock();
    const CommunicationProfile& profile = context.communication();
    if (!profile.hasCommunication) {
        out.notAssessedReason = "no device collectives in this trace";
        return out;
    }
    FindingAccumulator acc(clock);
    model::TimeNs total = 0;
    std::uint64_t collectives = 0;
    for (const StepCommunication& s : profile.steps) {
        total += s.communicationNs;
        collectives += s.collectives.size();
    }
    for (const Interval& piece : profile.exposed) {
        acc.addLoss(piece.start, piece.end);
        acc.addEvidence(profile.primaryTrack, piece.start, piece.end);
    }
    acc.countOccurrence(collectives);
    if (acc.lostNs() <= 0 || cancel.cancelled())
        return out;
    Finding f = acc.finish(std::string(kind()));
    const Platform platform = trace.metadata().platform;
    const bool hccl = profile.backend == CommBackend::Hccl;
    const model::TimeNs wait = totalLength(profile.wait);
    const model::TimeNs transfer = totalLength(profile.transfer);
    const model::TimeNs idle = totalLength(profile.idle);
    f.platform = platform;
    f.title = "Exposed communication: " + formatDuration(f.lostNs) + " of collectives no compute overlaps"
        + (profile.planeTasks ? " (" + formatDuration(transfer) + " moving data, " + formatDuration(wait)
                   + " waiting for peers, " + formatDuration(idle) + " idle inside the collectives)"
               : profile.waitFromTasks ? " (" + formatDuration(wait) + " waiting for peers)"
                                       : "");
    f.details.push_back({"backend", std::string(commBackendKey(profile.backend))});
    f.details.push_back({"communication_ns", total});
    f.details.push_back({"exposed_ns", f.lostNs});
    f.details.push_back({"overlapped_ns", total - f.lostNs});
    f.details.push_back({"overlap_fraction", total > 0 ? double(total - f.lostNs) / double(total) : 0.0});
    f.details.push_back({"wait_known", std::int64_t(profile.waitFromTasks ? 1 : 0)});
    f.details.push_back({"wait_ns", wait});
    f.details.push_back({"wait_source",
                         std::string(profile.communicationJsonOps > 0 ? "communication_json"
                                         : profile.waitFromTasks      ? "wait_tasks"
                                                                      : "none")});
    if (profile.communicationJsonOps + profile.communicationJsonMismatched > 0) {
        f.details.push_back({"communication_json_ops", static_cast<std::int64_t>(profile.communicationJsonOps)});
        f.details.push_back(
            {"communication_json_mismatched", static_cast<std::int64_t>(profile.communicationJsonMismatched)});
    }
    f.details.push_back({"transfer_ns", transfer});
    f.details.push_back({"idle_ns", idle});
    f.details.push_back({"transfer_source", std::string(profile.planeTasks ? "plane_tasks" : "exposed_minus_wait")});
    f.details.push_back({"collectives", static_cast<std::int64_t>(collectives)});
    f.explanation = "The device ran collectives (all-reduce, all-gather, …) with no compute running beside them, so "
                    "the step waits for the network. Part of it can be waiting: a collective starts on this rank and "
                    "spins until the last peer arrives"
        + std::string(hccl ? " (HCCL Notify_Wait tasks)" : "")
        + (profile.planeTasks ? "; part moves data (the planes' Memcpy, Reduce_Inline, RDMA tasks); the rest is idle "
                                "inside the collective: no plane runs a task."
                              : "; the rest is the transfer itself.")
        + std::string(profile.communicationJsonOps > 0
                          ? " The waiting of each operation is what the Ascend tools measured (communication.json's "
                            "Wait Time: the Notify_Wait time of the operation's main plane)."
                          : "");
    f.recommendation = communicationRecommendation(hccl, profile.waitFromTasks, wait, transfer, idle);
    for (const model::Track& t : trace.tracks()) {
        if (!isDeviceTrack(t))
            continue;
        for (std::uint32_t i = 0; i < t.size(); ++i) {
            if (t.category(i) == model::SliceCategory::Communication && clock.stepAt(t.ts(i)) < clock.size())
                f.whatIf.removedDevice.push_back({t.id, model::SliceIndex(i)});
        }
    }
    f.savingRule = "The device collectives take no time (an upper bound of what overlapping them with compute or "
                   "moving fewer bytes can save).";
    out.findings.push_back(std::move(f));
    return out;
}

} // namespace timesink::analysis
