// SPDX-License-Identifier: MIT
#include "report/core/schemas.h"
#include "report/core/textformat.h"
#include "report/jobcompare/jobcomparefacts.h"
#include "report/writers/json/jsonwriter.h"

namespace timesink::report {

using jobcomparefacts::rankMark;
using jobcomparefacts::ranksText;
using jobcomparefacts::sideWarnings;
using jobcomparefacts::signedDuration;
using jobcomparefacts::stepsCell;
using jobcomparefacts::summarySentence;
using jobcomparefacts::worldText;
using model::TimeNs;

nlohmann::ordered_json jobCompareJson(const JobCompareInput& in)
{
    using nlohmann::ordered_json;
    const analysis::JobCompareResult& r = in.result;
    ordered_json j;
    j["schema"] = kJobCompareSchema;
    j["generator"] = in.generator;
    const auto cleaned = [](const std::vector<std::string>& texts) {
        ordered_json out = ordered_json::array();
        for (const std::string& t : texts)
            out.push_back(cleanText(t));
        return out;
    };
    j["baseline"] = {{"path", cleanText(in.baselinePath)}, {"world_size", r.baselineWorldSize},
                     {"ranks", r.baselineRanks},           {"steps", r.baselineSteps},
                     {"stragglers", r.baselineStragglers}, {"warnings", cleaned(r.baselineWarnings)}};
    j["candidate"] = {{"path", cleanText(in.candidatePath)}, {"world_size", r.candidateWorldSize},
                      {"ranks", r.candidateRanks},           {"steps", r.candidateSteps},
                      {"stragglers", r.candidateStragglers}, {"warnings", cleaned(r.candidateWarnings)}};
    ordered_json figures = ordered_json::array();
    for (const analysis::JobCompareFigure& f : r.figures) {
        figures.push_back({{"figure", f.key},
                           {"label", f.label},
                           {"baseline_ns", f.baselineNs},
                           {"candidate_ns", f.candidateNs},
                           {"delta_ns", f.deltaNs()}});
    }
    j["figures"] = std::move(figures);
    ordered_json ranks = ordered_json::array();
    for (const analysis::JobCompareRank& x : r.ranks) {
        ranks.push_back({{"rank", x.rank},
                         {"baseline_steps", x.baselineSteps},
                         {"candidate_steps", x.candidateSteps},
                         {"baseline_step_ns", x.baselineStepNs},
                         {"candidate_step_ns", x.candidateStepNs},
                         {"delta_ns", x.deltaNs()},
                         {"baseline_wait_ns", x.baselineWaitNs},
                         {"candidate_wait_ns", x.candidateWaitNs},
                         {"baseline_communication_ns", x.baselineCommunicationNs},
                         {"candidate_communication_ns", x.candidateCommunicationNs},
                         {"baseline_caused_wait_ns", x.baselineCausedWaitNs},
                         {"candidate_caused_wait_ns", x.candidateCausedWaitNs},
                         {"baseline_straggler", x.baselineStraggler},
                         {"candidate_straggler", x.candidateStraggler}});
    }
    j["ranks"] = std::move(ranks);
    ordered_json kinds = ordered_json::array();
    for (const analysis::JobCompareKind& k : r.lostByKind) {
        kinds.push_back({{"kind", k.kind},
                         {"baseline_lost_ns", k.baselineLostNs},
                         {"candidate_lost_ns", k.candidateLostNs},
                         {"delta_ns", k.deltaNs()}});
    }
    j["lost_by_kind"] = std::move(kinds);
    ordered_json notes = ordered_json::array();
    for (const std::string& n : r.notes)
        notes.push_back(cleanText(n));
    j["notes"] = std::move(notes);
    return j;
}

void writeJobCompareJson(const JobCompareInput& in, std::ostream& out)
{
    out << jobCompareJson(in).dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << '\n';
}

} // namespace timesink::report
