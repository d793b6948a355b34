// SPDX-License-Identifier: MIT
#pragma once

namespace timesink::report {

/// Schema tag of the analysis report object (`analyze --format json`, docs/report-schema.md).
inline constexpr const char* kReportSchema = "timesink.report/1";
/// Schema tag of the job report object (`timesink-cli job --format json`).
inline constexpr const char* kJobSchema = "timesink.job/1";
/// Schema tag of the job comparison (`timesink-cli compare JOB_A JOB_B --format json`).
inline constexpr const char* kJobCompareSchema = "timesink.jobcompare/1";

} // namespace timesink::report
