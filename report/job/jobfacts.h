// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/job/job.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

// What the job writers (text, Markdown, HTML) say alike: the rank × step grid and the widest spread.
namespace timesink::report::jobfacts {

/// The step numbers of the table's columns and each rank's steps by number.
struct Grid
{
    std::vector<std::int64_t> steps;
    std::vector<std::map<std::int64_t, const analysis::JobRankStep*>> cells; // per rank
};

Grid gridOf(const analysis::JobResult& job);

/// The step whose ranks differ most, or nullptr when every step took the same time on every rank.
const analysis::JobStep* widestSpread(const analysis::JobResult& job);

/// "In step 3, rank 2 is 3.10 ms slower than rank 0 (the widest spread)."
std::string spreadSentence(const analysis::JobResult& job);
/// The step whose last arriver started latest against the earliest rank (JobStep::lateStartNs), or nullptr when no
/// rank started any step late.
const analysis::JobStep* latestStart(const analysis::JobResult& job);
/// "In step 552, rank 1 starts 68.6 ms late and the others wait for it (the latest start)."; empty when no rank
/// started late. Ranks that leave the collectives together but start late have the shortest steps: this names them.
std::string lateStartSentence(const analysis::JobResult& job);

} // namespace timesink::report::jobfacts
