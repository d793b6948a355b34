// SPDX-License-Identifier: MIT
#include "report/job/jobfacts.h"

#include "report/core/textformat.h"

namespace timesink::report {

namespace jobfacts {

using analysis::JobResult;

Grid gridOf(const JobResult& job)
{
    Grid g;
    for (const analysis::JobStep& s : job.steps)
        g.steps.push_back(s.number);
    g.cells.resize(job.ranks.size());
    for (std::size_t r = 0; r < job.ranks.size(); ++r) {
        for (const analysis::JobRankStep& s : job.ranks[r].steps)
            g.cells[r][s.number] = &s;
    }
    return g;
}

/// The step whose ranks differ most, or nullptr when every step took the same time on every rank.
const analysis::JobStep* widestSpread(const JobResult& job)
{
    const analysis::JobStep* widest = nullptr;
    for (const analysis::JobStep& s : job.steps) {
        if (s.spreadNs > 0 && (!widest || s.spreadNs > widest->spreadNs))
            widest = &s;
    }
    return widest;
}

/// "In step 3, rank 2 is 3.10 ms slower than rank 0 (the widest spread)."
std::string spreadSentence(const JobResult& job)
{
    const analysis::JobStep* s = widestSpread(job);
    if (!s)
        return job.ranks.size() > 1 ? "Every rank took the same time in every step." : std::string();
    return "In step " + std::to_string(s->number) + ", rank " + std::to_string(s->slowestRank) + " is "
        + formatDuration(s->spreadNs) + " slower than rank " + std::to_string(s->fastestRank)
        + " (the widest spread between ranks).";
}

const analysis::JobStep* latestStart(const JobResult& job)
{
    const analysis::JobStep* latest = nullptr;
    for (const analysis::JobStep& s : job.steps) {
        if (s.lateStartNs > 0 && s.lateRank >= 0 && (!latest || s.lateStartNs > latest->lateStartNs))
            latest = &s;
    }
    return latest;
}

std::string lateStartSentence(const JobResult& job)
{
    const analysis::JobStep* s = latestStart(job);
    if (!s)
        return {};
    return "In step " + std::to_string(s->number) + ", rank " + std::to_string(s->lateRank) + " starts "
        + formatDuration(s->lateStartNs) + " late and the others wait for it (the latest start).";
}

} // namespace jobfacts

} // namespace timesink::report
