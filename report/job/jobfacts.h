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

} // namespace timesink::report::jobfacts
