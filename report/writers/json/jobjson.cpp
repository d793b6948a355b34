// SPDX-License-Identifier: MIT
#include "report/core/schemas.h"
#include "report/core/textformat.h"
#include "report/writers/json/jsonwriter.h"

namespace timesink::report {

using analysis::JobResult;

nlohmann::ordered_json jobJson(const JobResult& job, const std::string& generator)
{
    using nlohmann::ordered_json;
    ordered_json j;
    j["schema"] = kJobSchema;
    j["generator"] = generator;
    j["world_size"] = job.worldSize;
    j["rank_count"] = job.ranks.size();
    j["rank_time_ns"] = job.rankTimeNs;
    j["total_lost_ns"] = job.lostNs;
    j["total_lost_fraction"] = job.rankTimeNs > 0 ? double(job.lostNs) / double(job.rankTimeNs) : 0.0;
    j["warnings"] = job.warnings;
    ordered_json ranks = ordered_json::array();
    for (const analysis::JobRank& r : job.ranks) {
        ordered_json steps = ordered_json::array();
        for (const analysis::JobRankStep& s : r.steps) {
            steps.push_back({{"step", s.number},
                             {"duration_ns", s.durationNs},
                             {"compute_ns", s.computeNs},
                             {"communication_ns", s.communicationNs},
                             {"communication_wait_ns", s.communicationWaitNs}, // = exposed_wait_ns (job/1)
                             {"exposed_wait_ns", s.communicationWaitNs},
                             {"exposed_transfer_ns", s.communicationTransferNs},
                             {"exposed_idle_ns", s.communicationIdleNs},
                             {"idle_ns", s.idleNs},
                             {"clock_offset_ns", s.offsetNs},
                             {"caused_wait_ns", s.causedWaitNs},
                             {"last_arrivals", s.lastArrivals}});
        }
        ordered_json findings = ordered_json::array();
        for (std::size_t i = 0; i < r.findings.size(); ++i) {
            const analysis::RankFinding& f = r.findings[i];
            findings.push_back({{"rank", i + 1},
                                {"kind", f.kind},
                                {"title", f.title},
                                {"lost_ns", f.lostNs},
                                {"lost_fraction", f.lostFraction},
                                {"occurrences", f.occurrences}});
        }
        ranks.push_back({{"rank", r.rank},
                         {"source", r.source},
                         {"format", r.format},
                         {"backend", r.backend},
                         {"wait_source",
                          r.waitFromCommunicationJson ? "communication_json"
                              : r.waitFromTasks       ? "wait_tasks"
                                                      : "cross_rank_alignment"},
                         {"analysed_ns", r.analysedNs},
                         {"steps", std::move(steps)},
                         {"findings", std::move(findings)}});
    }
    j["ranks"] = std::move(ranks);
    ordered_json steps = ordered_json::array();
    for (const analysis::JobStep& s : job.steps) {
        steps.push_back({{"step", s.number},
                         {"ranks", s.ranks},
                         {"slowest_rank", s.slowestRank},
                         {"slowest_ns", s.slowestNs},
                         {"fastest_rank", s.fastestRank},
                         {"fastest_ns", s.fastestNs},
                         {"spread_ns", s.spreadNs},
                         {"mean_ns", s.meanNs},
                         {"communication_wait_ns", s.communicationWaitNs}, // = exposed_wait_ns (job/1)
                         {"exposed_wait_ns", s.communicationWaitNs},
                         {"aligned_collectives", s.alignedCollectives},
                         {"unmatched_point_to_point", s.unmatchedPointToPoint},
                         {"late_rank", s.lateRank},
                         {"late_start_ns", s.lateStartNs}});
    }
    j["steps"] = std::move(steps);
    j["bandwidth"] = bandwidthJson(job.bandwidth);
    ordered_json links = ordered_json::array();
    for (const model::RankLink& l : job.links)
        links.push_back({{"src_rank", l.src},
                         {"dst_rank", l.dst},
                         {"transport", l.transport},
                         {"bytes", l.bytes},
                         {"transit_ns", l.transitNs},
                         {"gb_per_s", l.gbPerSecond()}});
    j["links"] = std::move(links);
    ordered_json findings = ordered_json::array();
    for (std::size_t i = 0; i < job.findings.size(); ++i) {
        const analysis::Finding& f = job.findings[i];
        ordered_json perStep = ordered_json::array();
        for (const analysis::StepLoss& s : f.perStep)
            perStep.push_back({{"step", s.stepNumber}, {"lost_ns", s.lostNs}, {"step_ns", s.stepNs}});
        ordered_json details = ordered_json::object();
        for (const analysis::Detail& d : f.details)
            std::visit([&](const auto& v) { details[d.key] = v; }, d.value);
        findings.push_back({{"rank", i + 1},
                            {"kind", f.kind},
                            {"title", f.title},
                            {"lost_ns", f.lostNs},
                            {"lost_fraction", f.lostFraction},
                            {"occurrences", f.occurrences},
                            {"platform", analysis::platformKey(f.platform)},
                            {"per_step", std::move(perStep)},
                            {"details", std::move(details)},
                            {"explanation", f.explanation},
                            {"recommendation", f.recommendation}});
    }
    j["findings"] = std::move(findings);
    ordered_json kinds = ordered_json::array();
    for (const analysis::JobKindLoss& k : job.lostByKind)
        kinds.push_back(
            {{"kind", k.kind}, {"lost_ns", k.lostNs}, {"lost_fraction", k.fraction}, {"findings", k.findings}});
    j["lost_by_kind"] = std::move(kinds);
    return j;
}

void writeJobJson(const JobResult& job, const std::string& generator, std::ostream& out)
{
    out << jobJson(job, generator).dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << '\n';
}

} // namespace timesink::report
