// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/job/job.h"
#include "model/expected.h"
#include "report/analysis/reportmodel.h"

#include <string>

namespace timesink::report {

/// The summary a job merges of a trace analysed in this process, from its typed report: the same fields as the
/// `timesink.report/1` object `analyze --format json` writes, under the same limits (job/ranklimits.h,
/// limitRankReport), so a job built from traces equals a job built from their reports. A failure when the model's
/// own numbers cannot be a time (a bug upstream, not a user's file).
/// Example: rankSummaryFromModel(buildReportModel(trace, analyze(trace, {}, cancel))).value().steps.
model::Expected<analysis::RankSummary> rankSummaryFromModel(const ReportModel& model);

} // namespace timesink::report
