// SPDX-License-Identifier: MIT
#include "report/reportjson.h"

#include "model/checkedmath.h"
#include "model/trackname.h"
#include "report/textformat.h"
#include "report/tracesummary.h"

namespace timesink::report {

nlohmann::ordered_json findingJson(const model::Trace& trace, const analysis::Finding& f, std::size_t rank)
{
    using nlohmann::ordered_json;
    ordered_json j;
    j["rank"] = rank;
    j["kind"] = f.kind;
    j["title"] = f.title;
    j["lost_ns"] = f.lostNs;
    j["lost_fraction"] = f.lostFraction;
    j["occurrences"] = f.occurrences;
    j["platform"] = analysis::platformKey(f.platform);
    ordered_json perStep = ordered_json::array();
    for (const analysis::StepLoss& s : f.perStep)
        perStep.push_back(
            {{"step", s.stepNumber}, {"step_index", s.stepIndex}, {"lost_ns", s.lostNs}, {"step_ns", s.stepNs}});
    j["per_step"] = std::move(perStep);
    auto trackName = [&](model::TrackId id) -> std::string {
        if (!id.isValid() || id.value >= trace.tracks().size())
            return {};
        return model::trackDisplayName(trace, trace.track(id));
    };
    ordered_json evidence = ordered_json::array();
    for (const analysis::EvidenceRange& e : f.evidence) {
        evidence.push_back({{"track", e.track.isValid() ? std::int64_t(e.track.value) : std::int64_t(-1)},
                            {"track_name", trackName(e.track)},
                            {"start_ns", e.start},
                            {"end_ns", e.end}});
    }
    j["evidence"] = std::move(evidence);
    j["evidence_omitted"] = f.evidenceOmitted;
    ordered_json events = ordered_json::array();
    for (const model::SliceRef& r : f.events) {
        if (!r.isValid() || r.track.value >= trace.tracks().size())
            continue;
        const model::Track& t = trace.track(r.track);
        if (r.index.value >= t.size())
            continue;
        events.push_back({{"track", r.track.value},
                          {"index", r.index.value},
                          {"name", std::string(trace.str(t.sliceName(r.index.value)))},
                          {"start_ns", t.ts(r.index.value)},
                          {"end_ns", t.end(r.index.value)}});
    }
    j["events"] = std::move(events);
    ordered_json details = ordered_json::object();
    for (const analysis::Detail& d : f.details)
        std::visit([&](const auto& v) { details[d.key] = v; }, d.value);
    j["details"] = std::move(details);
    j["explanation"] = f.explanation;
    j["recommendation"] = f.recommendation;
    j["first_ts"] = f.firstTs;
    return j;
}

model::TimeNs totalLostNs(const analysis::AnalysisResult& result)
{
    model::TimeNs total = 0;
    for (const analysis::Finding& f : result.findings)
        total = model::saturatingAdd(total, f.lostNs);
    return total;
}

double totalLostFraction(const analysis::AnalysisResult& result)
{
    return result.analysedNs > 0 ? double(totalLostNs(result)) / double(result.analysedNs) : 0.0;
}

nlohmann::ordered_json analysisReportJson(const model::Trace& trace, const analysis::AnalysisResult& result,
                                          const analysis::AnalysisOptions& options)
{
    using nlohmann::ordered_json;
    ordered_json j;
    j["schema"] = kReportSchema;
    j["trace"] = traceSummaryJson(trace);
    j["platform"] = analysis::platformKey(trace.metadata().platform);
    j["analysed_ns"] = result.analysedNs;
    j["total_lost_ns"] = totalLostNs(result);
    j["total_lost_fraction"] = totalLostFraction(result);
    j["options"] = {{"bubble_threshold_ns", options.bubbleThresholdNs},
                    {"tiny_kernel_ns", options.tinyKernelNs},
                    {"small_copy_bytes", options.smallCopyBytes},
                    {"min_lost_ns", options.minLostNs},
                    {"include_warmup", options.includeWarmup}};
    // What was left out of the analysed time, so a reader knows why analysed_ns is shorter than the trace.
    j["startup_ns"] = result.startupNs;
    j["warmup_step"] = result.warmupStep >= 0 ? ordered_json(result.warmupStep) : ordered_json(nullptr);
    j["warmup_excluded"] = result.warmupExcluded;
    j["warmup_ns"] = result.warmupNs;
    j["cancelled"] = result.cancelled;
    ordered_json findings = ordered_json::array();
    for (std::size_t i = 0; i < result.findings.size(); ++i)
        findings.push_back(findingJson(trace, result.findings[i], i + 1));
    j["findings"] = std::move(findings);
    ordered_json notAssessed = ordered_json::array();
    for (const analysis::NotAssessed& n : result.notAssessed)
        notAssessed.push_back({{"kind", n.kind}, {"reason", n.reason}});
    j["not_assessed"] = std::move(notAssessed);
    return j;
}

} // namespace timesink::report
