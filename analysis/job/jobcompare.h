// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/job/job.h"

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace timesink::analysis {

/// The ranks named by the job's `straggler` findings (their `rank` detail).
std::set<std::int64_t> jobStragglerRanks(const JobResult& job);

/// One rank of two jobs (docs/compare.md "Job vs job"). Means are over the rank's steps in its job (each job's
/// own step numbers: two runs rarely profile the same ones); a rank one job lacks has 0 steps there.
struct JobCompareRank
{
    std::int32_t rank = 0;
    std::size_t baselineSteps = 0;
    std::size_t candidateSteps = 0;
    model::TimeNs baselineStepNs = 0; // mean step time (JobRankStep::durationNs)
    model::TimeNs candidateStepNs = 0;
    model::TimeNs baselineWaitNs = 0; // mean communication wait per step (JobRankStep::communicationWaitNs)
    model::TimeNs candidateWaitNs = 0;
    model::TimeNs baselineCommunicationNs = 0; // mean exposed communication per step
    model::TimeNs candidateCommunicationNs = 0;
    model::TimeNs baselineCausedWaitNs = 0; // waiting this rank caused on the others, over all its steps
    model::TimeNs candidateCausedWaitNs = 0;
    bool baselineStraggler = false; // named by a straggler finding of that job
    bool candidateStraggler = false;
    [[nodiscard]] model::TimeNs deltaNs() const { return candidateStepNs - baselineStepNs; }
};

/// One figure of a job on both sides.
struct JobCompareFigure
{
    std::string key;   // "mean_step_ns", …
    std::string label; // "mean step time (slowest rank)", …
    model::TimeNs baselineNs = 0;
    model::TimeNs candidateNs = 0;
    [[nodiscard]] model::TimeNs deltaNs() const { return candidateNs - baselineNs; }
};

struct JobCompareKind
{
    std::string kind;
    model::TimeNs baselineLostNs = 0; // JobKindLoss::lostNs (rank-time)
    model::TimeNs candidateLostNs = 0;
    [[nodiscard]] model::TimeNs deltaNs() const { return candidateLostNs - baselineLostNs; }
};

/// Two jobs side by side, from what analyzeJob() computed for each (nothing is computed again).
struct JobCompareResult
{
    std::int32_t baselineWorldSize = -1;
    std::int32_t candidateWorldSize = -1;
    std::size_t baselineRanks = 0;
    std::size_t candidateRanks = 0;
    std::size_t baselineSteps = 0; // JobResult::steps
    std::size_t candidateSteps = 0;
    /// Job figures, in this order: the mean over the job's steps of the slowest rank's step time (what a step of
    /// the job takes), of the spread between the slowest and fastest rank, of the communication wait summed over
    /// the ranks; then the rank-time analysed, the lost rank-time, the straggler findings' lost rank-time, and the
    /// exposed communication summed over every rank and step.
    std::vector<JobCompareFigure> figures;
    std::vector<JobCompareRank> ranks; // by rank, over the union of both jobs' ranks
    std::vector<std::int64_t> baselineStragglers;
    std::vector<std::int64_t> candidateStragglers;
    std::vector<JobCompareKind> lostByKind; // the union of both jobs' kinds, by |delta| descending, then kind
    std::vector<std::string> notes;
    /// Each job's own warnings (JobResult::warnings: steps and ranks left out, disagreeing ranks, …), as the job
    /// report shows them: a comparison must not hide why a side's figures are thin or zero.
    std::vector<std::string> baselineWarnings;
    std::vector<std::string> candidateWarnings;
    /// Whether the side has at least one step that every writer can compare (JobResult::steps not empty); without
    /// one its figures are all 0, which the writers say in words instead of printing "0 ns (0.00×)".
    [[nodiscard]] bool baselineUsable() const { return baselineSteps > 0; }
    [[nodiscard]] bool candidateUsable() const { return candidateSteps > 0; }
};

JobCompareResult compareJobs(const JobResult& baseline, const JobResult& candidate);

} // namespace timesink::analysis
