// SPDX-License-Identifier: MIT
#include "report/core/textformat.h"
#include "report/writers/json/efficiencyjson.h"
#include "report/writers/json/jsonwriter.h"

#include <map>

namespace timesink::report {

namespace {

using nlohmann::ordered_json;

ordered_json nullableRank(const std::optional<std::size_t>& index)
{
    return index ? ordered_json(*index + 1) : ordered_json(nullptr);
}

ordered_json names(const std::vector<std::string>& list)
{
    ordered_json out = ordered_json::array();
    for (const std::string& n : list)
        out.push_back(cleanText(n));
    return out;
}

/// One side of the compare. Its step_ns are the paired steps' times as the compare measured them (each step's
/// analysis window, as `analyze` reports it; CompareStepPair), the same figures as steps[] and totals.
ordered_json sideJson(const CompareRun& run, const analysis::CompareSide& side,
                      const std::vector<analysis::CompareStepPair>& steps, bool baseline)
{
    const model::Trace& trace = run.trace;
    ordered_json j;
    j["path"] = cleanText(trace.metadata().sourcePath);
    j["format"] = cleanText(trace.metadata().format);
    j["device"] = cleanText(deviceDescription(trace));
    j["operator_time"] = side.deviceTimed ? "device" : "host";
    ordered_json stepNs = ordered_json::array();
    ordered_json stepNumbers = ordered_json::array();
    for (const analysis::CompareStepPair& pair : steps) {
        const std::size_t i = baseline ? pair.baselineIndex : pair.candidateIndex;
        stepNs.push_back(baseline ? pair.baselineNs : pair.candidateNs);
        stepNumbers.push_back(trace.steps()[i].number);
    }
    j["step_ns"] = std::move(stepNs);
    j["step_numbers"] = std::move(stepNumbers);
    j["operator_ns"] = side.operatorNs;
    j["work_slices"] = side.workSlices;
    j["attributed_slices"] = side.attributedSlices;
    ordered_json findings = ordered_json::array();
    for (std::size_t i = 0; i < run.findings.size(); ++i) {
        const analysis::Finding& f = run.findings[i];
        ordered_json o;
        o["rank"] = i + 1;
        o["kind"] = f.kind;
        o["title"] = cleanText(f.title);
        o["lost_ns"] = f.lostNs;
        o["compared_lost_ns"] = i < side.findingLostNs.size() ? side.findingLostNs[i] : f.lostNs;
        o["lost_fraction"] = f.lostFraction;
        o["occurrences"] = f.occurrences;
        o["platform"] = analysis::platformKey(f.platform);
        o["recommendation"] = cleanText(f.recommendation, true);
        findings.push_back(std::move(o));
    }
    j["findings"] = std::move(findings);
    if (side.device.hasDeviceWork) {
        j["device_breakdown"] = {{"window_ns", side.device.windowNs},
                                 {"compute_ns", side.device.computeNs},
                                 {"exposed_communication_ns", side.device.exposedCommunicationNs},
                                 {"exposed_copy_ns", side.device.exposedCopyNs},
                                 {"idle_ns", side.device.idleNs}};
    } else {
        j["device_breakdown"] = nullptr;
    }
    return j;
}

} // namespace

nlohmann::ordered_json compareLayersJson(const analysis::CompareLayers& layers)
{
    using nlohmann::ordered_json;
    if (!layers.present)
        return nullptr;
    auto optionalInt
        = [](const std::optional<std::int64_t>& v) { return v ? ordered_json(*v) : ordered_json(nullptr); };
    auto optionalRatio = [](const std::optional<double>& v) { return v ? ordered_json(*v) : ordered_json(nullptr); };
    ordered_json types = ordered_json::array();
    for (const analysis::CompareLayerOpType& t : layers.opTypes) {
        types.push_back({{"op_type", cleanText(t.opType)},
                         {"baseline_ns", t.baselineNs},
                         {"candidate_ns", t.candidateNs},
                         {"delta_ns", t.deltaNs()},
                         {"ratio", optionalRatio(t.ratio())},
                         {"baseline_layers", t.baselineLayers},
                         {"candidate_layers", t.candidateLayers},
                         {"baseline_split_layers", t.baselineSplitLayers},
                         {"candidate_split_layers", t.candidateSplitLayers},
                         {"placement_changed", t.placementChanged}});
    }
    ordered_json rows = ordered_json::array();
    for (const analysis::CompareLayer& l : layers.layers) {
        rows.push_back({{"match", analysis::layerMatchKey(l.match)},
                        {"baseline_id", optionalInt(l.baselineId)},
                        {"candidate_id", optionalInt(l.candidateId)},
                        {"op_type", cleanText(l.opType)},
                        {"baseline_op_type", cleanText(l.baselineOpType)},
                        {"name", cleanText(l.name)},
                        {"baseline_name", cleanText(l.baselineName)},
                        {"baseline_target", cleanText(l.baselineTarget)},
                        {"candidate_target", cleanText(l.candidateTarget)},
                        {"baseline_cores", l.baselineCores},
                        {"candidate_cores", l.candidateCores},
                        {"baseline_workload", cleanText(l.baselineWorkload)},
                        {"candidate_workload", cleanText(l.candidateWorkload)},
                        {"placement_changed", l.placementChanged()},
                        {"baseline_input_shape", cleanText(l.baselineInputShape)},
                        {"candidate_input_shape", cleanText(l.candidateInputShape)},
                        {"baseline_ns", l.baselineNs},
                        {"candidate_ns", l.candidateNs},
                        {"delta_ns", l.deltaNs()},
                        {"ratio", optionalRatio(l.ratio())}});
    }
    return {{"matched",
             {{"name", layers.byName},
              {"path", layers.byPath},
              {"op_order", layers.byOpOrder},
              {"baseline_only", layers.baselineOnly},
              {"candidate_only", layers.candidateOnly}}},
            {"placement_changed", layers.placementChanged},
            {"shape_changed", layers.shapeChanged},
            {"slower", layers.slower},
            {"faster", layers.faster},
            {"baseline_cores_used", layers.baselineCoresUsed},
            {"candidate_cores_used", layers.candidateCoresUsed},
            {"op_types", std::move(types)},
            {"layers", std::move(rows)}};
}

nlohmann::ordered_json compareJson(const CompareRun& baseline, const CompareRun& candidate,
                                   const analysis::CompareResult& result)
{
    ordered_json j;
    j["schema"] = "timesink.compare/1";
    j["baseline"] = sideJson(baseline, result.baseline, result.steps, true);
    j["baseline"]["efficiency"] = efficiencyJson(result.efficiency.baseline);
    j["candidate"] = sideJson(candidate, result.candidate, result.steps, false);
    j["candidate"]["efficiency"] = efficiencyJson(result.efficiency.candidate);

    ordered_json steps = ordered_json::array();
    for (const analysis::CompareStepPair& p : result.steps) {
        steps.push_back({{"baseline_step", p.baselineNumber},
                         {"candidate_step", p.candidateNumber},
                         {"baseline_index", p.baselineIndex},
                         {"candidate_index", p.candidateIndex},
                         {"baseline_ns", p.baselineNs},
                         {"candidate_ns", p.candidateNs},
                         {"delta_ns", p.deltaNs()}});
    }
    j["steps"] = std::move(steps);
    j["totals"] = {{"baseline_ns", result.baselineStepsNs()},
                   {"candidate_ns", result.candidateStepsNs()},
                   {"delta_ns", result.candidateStepsNs() - result.baselineStepsNs()}};

    ordered_json operators = ordered_json::array();
    for (const analysis::CompareOperator& op : result.operators) {
        const auto ratio = op.ratio();
        operators.push_back({{"name", cleanText(op.name)},
                             {"baseline_ns", op.baselineNs},
                             {"candidate_ns", op.candidateNs},
                             {"delta_ns", op.deltaNs()},
                             {"ratio", ratio ? ordered_json(*ratio) : ordered_json(nullptr)},
                             {"baseline_calls", op.baselineCalls},
                             {"candidate_calls", op.candidateCalls},
                             {"baseline_names", names(op.baselineNames)},
                             {"candidate_names", names(op.candidateNames)}});
    }
    j["operators"] = std::move(operators);

    ordered_json classes = ordered_json::array();
    for (const analysis::CompareClass& c : result.classes) {
        classes.push_back({{"class", analysis::kernelClassKey(c.cls)},
                           {"label", analysis::kernelClassLabel(c.cls)},
                           {"baseline_ns", c.baselineNs},
                           {"candidate_ns", c.candidateNs},
                           {"delta_ns", c.deltaNs()},
                           {"baseline_calls", c.baselineCalls},
                           {"candidate_calls", c.candidateCalls}});
    }
    j["classes"] = std::move(classes);
    j["efficiency_by_class"] = efficiencyByClassJson(result.efficiency);

    ordered_json waterfall = ordered_json::array();
    for (const analysis::WaterfallPart& p : result.waterfall) {
        waterfall.push_back({{"part", p.key},
                             {"label", p.label},
                             {"kind", analysis::waterfallKindKey(p.kind)},
                             {"baseline_ns", p.baselineNs},
                             {"candidate_ns", p.candidateNs},
                             {"delta_ns", p.deltaNs()}});
    }
    j["waterfall"] = std::move(waterfall);

    ordered_json explanations = ordered_json::array();
    for (const analysis::CompareExplanation& e : result.explanations) {
        explanations.push_back({{"status", analysis::explanationStatusKey(e.status)},
                                {"kind", e.kind},
                                {"title", cleanText(e.title)},
                                {"counterpart_title", cleanText(e.counterpartTitle)},
                                {"baseline_lost_ns", e.baselineLostNs},
                                {"candidate_lost_ns", e.candidateLostNs},
                                {"delta_ns", e.deltaNs()},
                                {"share_of_step_delta", e.shareOfStepDelta},
                                {"baseline_rank", nullableRank(e.baselineFinding)},
                                {"candidate_rank", nullableRank(e.candidateFinding)}});
    }
    j["explanations"] = std::move(explanations);
    j["layers"] = compareLayersJson(result.layers);
    ordered_json notes = ordered_json::array();
    for (const std::string& n : result.notes)
        notes.push_back(cleanText(n));
    j["notes"] = std::move(notes);
    return j;
}

void writeCompareJson(const CompareRun& baseline, const CompareRun& candidate, const analysis::CompareResult& result,
                      std::ostream& out)
{
    out << compareJson(baseline, candidate, result)
               .dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace)
        << '\n';
}

} // namespace timesink::report
