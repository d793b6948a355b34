// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/job/job.h"

#include <cstdint>
#include <string>

// The job's pictures as standalone SVG, drawn once for the HTML writer (inline) and the Markdown one (as data: URIs).
namespace timesink::report {

using JobHeatMeasure = analysis::JobMeasure;

/// The rank × step heat map of `measure` as a standalone SVG: the metric and unit in its title, step numbers on
/// the axis, rank labels (stragglers marked), a colour scale from 0 to the largest value in ms, each cell's value
/// in its <title> (a tooltip), hatched cells where a rank has no such step, and the missing ranks named.
std::string jobHeatMapSvg(const analysis::JobResult& job, analysis::JobMeasure measure);
/// The aligned rank lanes of `step` (analysis::stepLanes on the common clock) as a standalone SVG: a time axis in
/// ms, per rank the step, its collectives' waiting, transfer and compute-overlapped parts, and the last arrival at
/// each matched collective as a line (the edge the others wait on). Empty when no rank has the step.
std::string jobLanesSvg(const analysis::JobResult& job, std::int64_t step);

} // namespace timesink::report
