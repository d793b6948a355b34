// SPDX-License-Identifier: MIT
#include "analysis/job/jobcompare.h"

#include "model/checkedmath.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <tuple>
#include <variant>

namespace timesink::analysis {

namespace {

struct RankMeans
{
    std::size_t steps = 0;
    model::TimeNs stepNs = 0;
    model::TimeNs waitNs = 0;
    model::TimeNs communicationNs = 0;
    model::TimeNs causedWaitNs = 0;
};

RankMeans meansOf(const JobRank& r)
{
    RankMeans m;
    m.steps = r.steps.size();
    model::TimeNs step = 0;
    model::TimeNs wait = 0;
    model::TimeNs comm = 0;
    for (const JobRankStep& s : r.steps) {
        step = model::saturatingAdd(step, s.durationNs);
        wait = model::saturatingAdd(wait, s.communicationWaitNs);
        comm = model::saturatingAdd(comm, s.communicationNs);
        m.causedWaitNs = model::saturatingAdd(m.causedWaitNs, s.causedWaitNs);
    }
    if (m.steps > 0) {
        const auto n = static_cast<model::TimeNs>(m.steps);
        m.stepNs = step / n;
        m.waitNs = wait / n;
        m.communicationNs = comm / n;
    }
    return m;
}

template <typename F> model::TimeNs meanOverSteps(const JobResult& job, F value)
{
    if (job.steps.empty())
        return 0;
    model::TimeNs sum = 0;
    for (const JobStep& s : job.steps)
        sum = model::saturatingAdd(sum, value(s));
    return sum / static_cast<model::TimeNs>(job.steps.size());
}

model::TimeNs stragglerLost(const JobResult& job)
{
    model::TimeNs lost = 0;
    for (const Finding& f : job.findings) {
        if (f.kind == "straggler")
            lost = model::saturatingAdd(lost, f.lostNs);
    }
    return lost;
}

model::TimeNs exposedCommunication(const JobResult& job)
{
    model::TimeNs sum = 0;
    for (const JobRank& r : job.ranks) {
        for (const JobRankStep& s : r.steps)
            sum = model::saturatingAdd(sum, s.communicationNs);
    }
    return sum;
}

} // namespace

std::set<std::int64_t> jobStragglerRanks(const JobResult& job)
{
    std::set<std::int64_t> out;
    for (const Finding& f : job.findings) {
        if (f.kind != "straggler")
            continue;
        for (const Detail& d : f.details) {
            if (d.key == "rank")
                if (const auto* r = std::get_if<std::int64_t>(&d.value))
                    out.insert(*r);
        }
    }
    return out;
}

JobCompareResult compareJobs(const JobResult& baseline, const JobResult& candidate)
{
    JobCompareResult out;
    out.baselineWorldSize = baseline.worldSize;
    out.candidateWorldSize = candidate.worldSize;
    out.baselineRanks = baseline.ranks.size();
    out.candidateRanks = candidate.ranks.size();
    out.baselineSteps = baseline.steps.size();
    out.candidateSteps = candidate.steps.size();

    auto figure = [&](std::string key, std::string label, model::TimeNs b, model::TimeNs c) {
        out.figures.push_back(JobCompareFigure {std::move(key), std::move(label), b, c});
    };
    figure("mean_step_ns", "mean step time (slowest rank)",
           meanOverSteps(baseline, [](const JobStep& s) { return s.slowestNs; }),
           meanOverSteps(candidate, [](const JobStep& s) { return s.slowestNs; }));
    figure("mean_spread_ns", "mean spread between ranks",
           meanOverSteps(baseline, [](const JobStep& s) { return s.spreadNs; }),
           meanOverSteps(candidate, [](const JobStep& s) { return s.spreadNs; }));
    figure("mean_communication_wait_ns", "mean communication wait per step (rank-time)",
           meanOverSteps(baseline, [](const JobStep& s) { return s.communicationWaitNs; }),
           meanOverSteps(candidate, [](const JobStep& s) { return s.communicationWaitNs; }));
    figure("rank_time_ns", "rank-time analysed", baseline.rankTimeNs, candidate.rankTimeNs);
    figure("lost_ns", "lost rank-time", baseline.lostNs, candidate.lostNs);
    figure("straggler_lost_ns", "lost rank-time to stragglers", stragglerLost(baseline), stragglerLost(candidate));
    figure("exposed_communication_ns", "exposed communication (rank-time, all steps)", exposedCommunication(baseline),
           exposedCommunication(candidate));

    const std::set<std::int64_t> baseStragglers = jobStragglerRanks(baseline);
    const std::set<std::int64_t> candStragglers = jobStragglerRanks(candidate);
    out.baselineStragglers.assign(baseStragglers.begin(), baseStragglers.end());
    out.candidateStragglers.assign(candStragglers.begin(), candStragglers.end());

    std::map<std::int32_t, JobCompareRank> ranks;
    for (bool isBase : {true, false}) {
        for (const JobRank& r : (isBase ? baseline : candidate).ranks) {
            JobCompareRank& x = ranks[r.rank];
            x.rank = r.rank;
            const RankMeans m = meansOf(r);
            (isBase ? x.baselineSteps : x.candidateSteps) = m.steps;
            (isBase ? x.baselineStepNs : x.candidateStepNs) = m.stepNs;
            (isBase ? x.baselineWaitNs : x.candidateWaitNs) = m.waitNs;
            (isBase ? x.baselineCommunicationNs : x.candidateCommunicationNs) = m.communicationNs;
            (isBase ? x.baselineCausedWaitNs : x.candidateCausedWaitNs) = m.causedWaitNs;
            (isBase ? x.baselineStraggler : x.candidateStraggler)
                = (isBase ? baseStragglers : candStragglers).count(r.rank) > 0;
        }
    }
    for (auto& [rank, x] : ranks)
        out.ranks.push_back(x);

    std::map<std::string, JobCompareKind> kinds;
    for (const JobKindLoss& k : baseline.lostByKind) {
        kinds[k.kind].kind = k.kind;
        kinds[k.kind].baselineLostNs = k.lostNs;
    }
    for (const JobKindLoss& k : candidate.lostByKind) {
        kinds[k.kind].kind = k.kind;
        kinds[k.kind].candidateLostNs = k.lostNs;
    }
    for (auto& [kind, k] : kinds)
        out.lostByKind.push_back(k);
    std::stable_sort(out.lostByKind.begin(), out.lostByKind.end(),
                     [](const JobCompareKind& a, const JobCompareKind& b) {
                         return std::llabs(a.deltaNs()) > std::llabs(b.deltaNs());
                     });

    if (baseline.worldSize != candidate.worldSize) {
        auto world = [](std::int32_t w) { return w > 0 ? std::to_string(w) : std::string("unknown"); };
        out.notes.push_back("the jobs have other world sizes (" + world(baseline.worldSize) + " and "
                            + world(candidate.worldSize) + ")");
    }
    std::size_t oneSided = 0;
    for (const JobCompareRank& r : out.ranks)
        oneSided += (r.baselineSteps == 0) != (r.candidateSteps == 0) ? 1 : 0;
    if (oneSided > 0)
        out.notes.push_back(std::to_string(oneSided) + (oneSided == 1 ? " rank is" : " ranks are")
                            + " in one job only (0 steps on the other side)");
    out.notes.push_back("per-rank figures are means over each rank's own steps in its job; the jobs' step numbers need "
                        "not match");
    out.baselineWarnings = baseline.warnings;
    out.candidateWarnings = candidate.warnings;
    // A side without steps first: every figure of it is 0, which is no measurement.
    std::vector<std::string> unusable;
    for (const auto& [side, steps, warnings] :
         {std::tuple {"baseline", out.baselineSteps, out.baselineWarnings.size()},
          std::tuple {"candidate", out.candidateSteps, out.candidateWarnings.size()}}) {
        if (steps == 0)
            unusable.push_back(std::string("the ") + side
                               + " job has no usable steps, so its figures are all 0 and nothing is compared"
                               + (warnings > 0 ? " (its warnings say why)" : ""));
    }
    out.notes.insert(out.notes.begin(), unusable.begin(), unusable.end());
    return out;
}

} // namespace timesink::analysis
