// SPDX-License-Identifier: MIT
#pragma once

// Shared by the fuzz targets that read per-rank reports (fuzz_rankreport, fuzz_analyze): the bytes read as a
// rank report, merged as three ranks of a job and written in every job format.

#include "analysis/job/job.h"
#include "model/expected.h"
#include "report/job/rankreportreader.h"
#include "report/reportoutput.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <utility>

namespace timesink::fuzz {

/// Traps unless `condition`: what a fuzz target asserts about what it was handed back.
inline void check(bool condition)
{
    if (!condition)
        __builtin_trap();
}

/// The rank report in `data`, or nothing when the bytes are no JSON or the reader refused them (a refusal must
/// name the file).
inline std::optional<analysis::RankSummary> readRankReport(const std::uint8_t* data, std::size_t size)
{
    const nlohmann::json j = nlohmann::json::parse(data, data + size, nullptr, false);
    if (j.is_discarded())
        return std::nullopt;
    model::Expected<analysis::RankSummary> summary = report::rankSummaryFromReportJson(j, "fuzz.report.json");
    if (!summary) {
        const model::Status& why = summary.status();
        check(why.kind() != model::StatusKind::Cancelled
              && why.message().find("fuzz.report.json") != std::string::npos);
        return std::nullopt;
    }
    return std::move(summary).value();
}

/// `summary` as ranks r, r + 1 and r + 2 of a job.
inline analysis::JobResult jobOfThree(const analysis::RankSummary& summary)
{
    std::vector<analysis::RankSummary> ranks(3, summary);
    for (std::size_t r = 0; r < ranks.size(); ++r)
        ranks[r].rank = summary.rank >= 0 ? static_cast<std::int32_t>(summary.rank + r) : -1;
    return analysis::analyzeJob(std::move(ranks));
}

/// Every report format (every document is written in each).
inline constexpr report::ReportFormat kReportFormats[]
    = {report::ReportFormat::Text, report::ReportFormat::Json, report::ReportFormat::Markdown,
       report::ReportFormat::Html, report::ReportFormat::Csv};

/// Writes `job` in every job format; each writes something.
inline void writeEveryJobFormat(const analysis::JobResult& job)
{
    for (const report::ReportFormat format : kReportFormats) {
        std::ostringstream out;
        report::writeJobReport(job, format, "fuzz", out);
        check(!out.str().empty());
    }
}

} // namespace timesink::fuzz
