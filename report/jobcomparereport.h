// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/job/jobcompare.h"
#include "report/jobreport.h"

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

namespace timesink::report {

/// Schema tag of the job comparison (`timesink-cli compare JOB_A JOB_B --format json`).
inline constexpr const char* kJobCompareSchema = "timesink.jobcompare/1";

/// What the writers need of the comparison: the two jobs' paths as given, the result, the generator.
struct JobCompareInput
{
    std::string baselinePath;
    std::string candidatePath;
    const analysis::JobCompareResult& result;
    std::string generator = "timesink";
};

/// The `timesink.jobcompare/1` object (docs/compare.md "Job vs job"):
/// {"schema", "generator", "baseline": {"path", "world_size", "ranks", "steps", "stragglers": [ranks]},
///  "candidate": {…}, "figures": [{"figure", "label", "baseline_ns", "candidate_ns", "delta_ns"}],
///  "ranks": [{"rank", "baseline_steps", "candidate_steps", "baseline_step_ns", "candidate_step_ns", "delta_ns",
///             "baseline_wait_ns", "candidate_wait_ns", "baseline_communication_ns", "candidate_communication_ns",
///             "baseline_caused_wait_ns", "candidate_caused_wait_ns", "baseline_straggler", "candidate_straggler"}],
///  "lost_by_kind": [{"kind", "baseline_lost_ns", "candidate_lost_ns", "delta_ns"}], "notes": [...]}
nlohmann::ordered_json jobCompareJson(const JobCompareInput& in);

/// Text, JSON, Markdown, HTML (tables, self-contained, escaped) or CSV (the rank table).
void writeJobCompareReport(const JobCompareInput& in, JobFormat format, std::ostream& out);

} // namespace timesink::report
