// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/job/job.h"
#include "report/analysis/reportmodel.h"
#include "report/compare/comparedocument.h"
#include "report/jobcompare/jobcomparedocument.h"

#include <ostream>

// The text writer: every document for a terminal. Every string from a trace or a report passes terminalText(), so the
// input cannot act on the terminal.
namespace timesink::report {

/// The analysis (`analyze`, the default format): the trace's headline figures, the ranked findings table, what was
/// not assessed, then each finding with its numbers, why and what to do.
void writeAnalysisText(const ReportModel& model, std::ostream& out);

/// The comparison (`compare`, the default format): the runs, the paired steps, the device breakdown and the
/// waterfall, kernel classes, the operators with the largest deltas (options.textTop of them), the layers of two
/// edge runs, the findings that differ, notes.
void writeCompareText(const CompareRun& baseline, const CompareRun& candidate, const analysis::CompareResult& result,
                      std::ostream& out, const CompareReportOptions& options = {});

/// The job (`job`): ranks, steps and lost time, the rank × step table of step times (communication wait in
/// brackets), the spread, the ranked job findings with their explanations.
void writeJobText(const analysis::JobResult& job, std::ostream& out);

/// The job comparison (`compare JOB_A JOB_B`): both jobs, the figures side by side, the rank table, the loss by
/// kind, notes and both jobs' warnings.
void writeJobCompareText(const JobCompareInput& in, std::ostream& out);

} // namespace timesink::report
