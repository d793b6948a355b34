// SPDX-License-Identifier: MIT
#include "report/ranksummary.h"

#include "report/job/rankreportreader.h"
#include "report/writers/json/jsonwriter.h"

namespace timesink::report {

analysis::RankSummary rankSummaryFromModel(const ReportModel& model)
{
    analysis::RankSummary out;
    std::string error;
    // The JSON object the analyze command writes, read back through the same reader as a report file.
    const nlohmann::json j = nlohmann::json::parse(
        reportJson(model).dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
    rankSummaryFromReportJson(j, model.trace.metadata.sourcePath, out, error);
    return out;
}

} // namespace timesink::report
