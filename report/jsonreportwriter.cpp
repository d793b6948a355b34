// SPDX-License-Identifier: MIT
#include "report/jsonreportwriter.h"

namespace timesink::report {

nlohmann::ordered_json reportJson(const ReportModel& m)
{
    using nlohmann::ordered_json;
    ordered_json j = m.analysisJson.is_object() ? m.analysisJson : ordered_json::object();
    ordered_json steps = ordered_json::array();
    for (const StepBreakdown& s : m.steps) {
        steps.push_back({{"step", s.number},
                         {"synthetic", s.synthetic},
                         {"start_ns", s.startNs},
                         {"duration_ns", s.durationNs},
                         {"compute_ns", s.computeNs},
                         {"communication_ns", s.communicationNs},
                         {"copy_ns", s.copyNs},
                         {"dataloader_ns", s.dataloaderNs},
                         {"idle_ns", s.idleNs}});
    }
    j["steps"] = std::move(steps);
    ordered_json kinds = ordered_json::array();
    for (const KindLoss& k : m.lostByKind)
        kinds.push_back({{"kind", k.kind}, {"lost_ns", k.lostNs}, {"lost_fraction", k.fraction}, {"findings", k.findings}});
    j["lost_by_kind"] = std::move(kinds);
    j["operator_scope"] = m.operatorScope;
    ordered_json ops = ordered_json::array();
    for (const OperatorTime& op : m.topOperators) {
        ops.push_back({{"name", op.name},
                       {"category", std::string(model::categoryKey(op.category))},
                       {"count", op.count},
                       {"total_ns", op.totalNs},
                       {"fraction", op.fraction}});
    }
    j["top_operators"] = std::move(ops);
    return j;
}

void writeJsonReport(const ReportModel& model, std::ostream& out)
{
    out << reportJson(model).dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << '\n';
}

} // namespace timesink::report
