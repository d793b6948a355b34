// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/pass.h"

namespace timesink::analysis {

/// `communication`: device collective time that no device compute overlaps (exposed communication), split into
/// waiting (HCCL `Notify_Wait`/`EVENT_WAIT` tasks; for NCCL/RCCL only known across ranks, see analysis/job/job.h)
/// and transfer. Lost time = exposed communication inside steps. It is device busy time, never device idle
/// time, so it never shares a nanosecond with dataloader_starvation or pipeline_bubble; copy_hotspot treats a
/// collective as compute, so a copy hidden behind a collective is not counted there either.
/// Example: step [0,100), kernel [0,40), allreduce [30,90) → 50 ns lost.
class CommunicationPass : public Pass
{
public:
    [[nodiscard]] std::string_view kind() const override { return "communication"; }
    [[nodiscard]] PassOutput run(const AnalysisContext& context) const override;
};

/// The recommendation for exposed communication, by what dominates and the collective library.
/// `waitKnown` false: the waiting part could not be measured (NCCL on one rank). `idleNs`: time inside the
/// collectives with no plane task running (HCCL plane tasks; 0 when unknown). `job`: written for a whole job, where
/// the stragglers are already named. `pointToPointUnmatched`: the job left sends/recvs unmatched (peer unknown or
/// counterpart missing), the reason named when the waiting is unknown.
std::string communicationRecommendation(bool hccl, bool waitKnown, model::TimeNs waitNs, model::TimeNs transferNs,
                                        model::TimeNs idleNs, bool job = false, bool pointToPointUnmatched = false);

} // namespace timesink::analysis
