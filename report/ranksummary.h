// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/job/job.h"
#include "report/analysis/reportmodel.h"

namespace timesink::report {

/// The summary of an analysed trace: the report model goes through the very JSON that `analyze --format json`
/// writes, so a job built from traces equals a job built from their reports.
/// TODO(#48): build it from the typed document instead of JSON text. It waits for the reader's limits
/// (job/ranklimits.h) to be applied to typed values, so that both paths keep giving the same summary; until then it
/// lives here, beside reportoutput, because it needs the JSON writer (no document folder may include a writer).
analysis::RankSummary rankSummaryFromModel(const ReportModel& model);

} // namespace timesink::report
