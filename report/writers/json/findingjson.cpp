// SPDX-License-Identifier: MIT
#include "model/checkedmath.h"
#include "report/analysis/reportmodel.h"
#include "report/writers/json/jsonwriter.h"

namespace timesink::report {

nlohmann::ordered_json findingJson(const ReportModel& m, std::size_t index)
{
    using nlohmann::ordered_json;
    const analysis::Finding& f = m.findings[index];
    ordered_json j;
    j["rank"] = index + 1;
    j["kind"] = f.kind;
    j["title"] = f.title;
    j["lost_ns"] = f.lostNs;
    j["lost_fraction"] = f.lostFraction;
    j["saving_ns"] = f.savingNs;
    j["saving_fraction"] = f.savingFraction;
    j["saving_method"] = f.savingMethod;
    j["saving_rule"] = f.savingRule;
    if (!f.savingReason.empty())
        j["saving_reason"] = f.savingReason;
    j["occurrences"] = f.occurrences;
    j["platform"] = analysis::platformKey(f.platform);
    ordered_json perStep = ordered_json::array();
    for (const analysis::StepLoss& s : f.perStep)
        perStep.push_back({{"step", s.stepNumber},
                           {"step_index", s.stepIndex},
                           {"lost_ns", s.lostNs},
                           {"step_ns", s.stepNs},
                           {"saving_ns", s.savingNs}});
    j["per_step"] = std::move(perStep);
    ordered_json evidence = ordered_json::array();
    for (const analysis::EvidenceRange& e : f.evidence) {
        const bool known = e.track.isValid() && e.track.value < m.trackNames.size();
        evidence.push_back({{"track", e.track.isValid() ? std::int64_t(e.track.value) : std::int64_t(-1)},
                            {"track_name", known ? m.trackNames[e.track.value] : std::string()},
                            {"start_ns", e.start},
                            {"end_ns", e.end}});
    }
    j["evidence"] = std::move(evidence);
    j["evidence_omitted"] = f.evidenceOmitted;
    ordered_json events = ordered_json::array();
    if (index < m.findingEvents.size()) {
        for (const FindingEvent& e : m.findingEvents[index]) {
            events.push_back({{"track", e.ref.track.value},
                              {"index", e.ref.index.value},
                              {"name", e.name},
                              {"start_ns", e.startNs},
                              {"end_ns", e.endNs}});
        }
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

} // namespace timesink::report
