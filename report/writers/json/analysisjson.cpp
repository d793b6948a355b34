// SPDX-License-Identifier: MIT
#include "report/analysis/tracesummary.h"
#include "report/writers/json/efficiencyjson.h"
#include "report/writers/json/jsonwriter.h"

namespace timesink::report {

namespace {

// What the host that launched the step's first collective did before it (StepCommunication::hostBeforeFirst):
// {"window_ns", "top": [{"name", "ns"}, …]}, or null when the step has no collective whose launch the trace links.
nlohmann::ordered_json hostBeforeFirstJson(const analysis::StepCommunication* comm)
{
    if (!comm || comm->hostBeforeFirstNs <= 0)
        return nullptr;
    nlohmann::ordered_json top = nlohmann::ordered_json::array();
    for (const analysis::HostActivity& a : comm->hostBeforeFirst)
        top.push_back({{"name", a.name}, {"ns", a.ns}});
    return {{"window_ns", comm->hostBeforeFirstNs}, {"top", std::move(top)}};
}

// The step's collectives relative to the step start, for aligning ranks (timesink-cli job): each
// {"op", "start_ns", "end_ns", "exposed": [[start, end], …]}, then what the trace says of its process group, where
// it says it: "group" (the group's name), "group_ranks" (its members), "seq" (its number in the group), and for a
// send or recv "peer" (the other end, a global rank).
nlohmann::ordered_json collectivesJson(const analysis::StepCommunication* comm, model::TimeNs stepStart)
{
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    if (!comm)
        return out;
    for (const analysis::CollectiveOp& c : comm->collectives) {
        nlohmann::ordered_json exposed = nlohmann::ordered_json::array();
        for (const analysis::Interval& e : c.exposed)
            exposed.push_back({e.start - stepStart, e.end - stepStart});
        nlohmann::ordered_json o = {{"op", c.opKind},
                                    {"start_ns", c.start - stepStart},
                                    {"end_ns", c.end - stepStart},
                                    {"exposed", std::move(exposed)}};
        if (!c.group.empty())
            o["group"] = c.group;
        if (!c.groupRanks.empty())
            o["group_ranks"] = c.groupRanks;
        if (c.seq >= 0)
            o["seq"] = c.seq;
        if (c.peer >= 0)
            o["peer"] = c.peer;
        if (c.bytes >= 0)
            o["bytes"] = c.bytes;
        if (c.groupSize > 0)
            o["group_size"] = c.groupSize;
        if (!c.linkTransport.empty()) {
            o["link"] = c.linkTransport;
            o["link_transit_ns"] = c.linkTransitNs;
        }
        out.push_back(std::move(o));
    }
    return out;
}

} // namespace

nlohmann::ordered_json bandwidthJson(const std::vector<analysis::BandwidthSummary>& summaries)
{
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const analysis::BandwidthSummary& b : summaries) {
        out.push_back({{"op", b.opKind},
                       {"collectives", b.collectives},
                       {"bytes", b.bytes},
                       {"transfer_ns", b.transferNs},
                       {"transfer_source", analysis::transferSourceKey(b.source)},
                       {"algbw_gbps", b.algbwGBps},
                       {"busbw_gbps", b.busbwGBps > 0 ? nlohmann::ordered_json(b.busbwGBps) : nullptr},
                       {"link", b.link.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(b.link)},
                       {"peak_gbps", b.peakGBps > 0 ? nlohmann::ordered_json(b.peakGBps) : nullptr}});
    }
    return out;
}

namespace {

// When the device computed, copied and sat idle inside the step, relative to the step start (the rank lanes of
// `timesink-cli job`): {"resolution_ns", "compute": [[start, end], …], "copy": […], "idle": […]}, then, where the
// rank measured its waiting, where its exposed communication waited for peers and sat idle inside the collectives:
// "communication_wait": […], "communication_idle": […].
nlohmann::ordered_json activityJson(const analysis::StepActivity& a)
{
    const auto list = [](const analysis::IntervalList& l) {
        nlohmann::ordered_json out = nlohmann::ordered_json::array();
        for (const analysis::Interval& i : l)
            out.push_back({i.start, i.end});
        return out;
    };
    nlohmann::ordered_json j = {{"resolution_ns", a.resolutionNs},
                                {"compute", list(a.compute)},
                                {"copy", list(a.copy)},
                                {"idle", list(a.idle)}};
    if (a.communicationSplit) {
        j["communication_wait"] = list(a.communicationWait);
        j["communication_idle"] = list(a.communicationIdle);
    }
    return j;
}

nlohmann::ordered_json criticalPathJson(const analysis::StepCriticalPath& p)
{
    if (!p.assessed)
        return {{"assessed", false}, {"reason", p.reason}};
    nlohmann::ordered_json j = {{"assessed", true}, {"start_ns", p.startNs}, {"length_ns", p.lengthNs()}};
    for (std::size_t c = 0; c < analysis::kPathClassCount; ++c)
        j[std::string(analysis::pathClassKey(static_cast<analysis::PathClass>(c))) + "_ns"] = p.byClass[c];
    j["cross_stream_waits_inferred"] = p.crossStreamWaits;
    j["cross_stream_waits_recorded"] = p.crossStreamWaitsRecorded;
    return j;
}

} // namespace

nlohmann::ordered_json deviceSummaryJson(const DeviceSummary& d)
{
    using nlohmann::ordered_json;
    ordered_json j = ordered_json::object();
    j["has_device_work"] = d.hasDeviceWork;
    if (!d.hasDeviceWork)
        return j;
    j["device"] = d.deviceLabel;
    j["window_ns"] = d.windowNs;
    j["busy_ns"] = d.busyNs;
    j["compute_ns"] = d.computeNs;
    j["communication_ns"] = d.communicationNs;
    // The names of before the split stay for readers of timesink.report/1 (report-schema.md "Stability").
    j["communication_wait_ns"] = d.communicationInWaitTasksNs;
    j["communication_transfer_ns"] = d.communicationOutsideWaitTasksNs;
    j["communication_in_wait_tasks_ns"] = d.communicationInWaitTasksNs;
    j["communication_outside_wait_tasks_ns"] = d.communicationOutsideWaitTasksNs;
    j["exposed_communication_ns"] = d.exposedCommunicationNs;
    j["copy_ns"] = d.copyNs;
    j["idle_ns"] = d.idleNs;
    j["comm_compute_overlap_fraction"]
        = d.commComputeOverlapFraction ? ordered_json(*d.commComputeOverlapFraction) : ordered_json(nullptr);
    j["busy_fraction"] = d.busyFraction;
    j["min_step_busy_fraction"] = d.minStepBusyFraction;
    j["max_step_busy_fraction"] = d.maxStepBusyFraction;
    j["headline"] = analysis::busyHeadline(d);
    j["launches"] = {{"count", d.launches},
                     {"delay_p50_ns", d.launchDelayP50Ns},
                     {"delay_mean_ns", d.launchDelayMeanNs},
                     {"delay_p99_ns", d.launchDelayP99Ns},
                     {"queueing_delay_p50_ns", d.queueingDelayP50Ns},
                     {"queueing_delay_mean_ns", d.queueingDelayMeanNs},
                     {"queueing_delay_p99_ns", d.queueingDelayP99Ns},
                     {"delayed_over_100us", d.launchesDelayedOver100us}};
    ordered_json queues = ordered_json::array();
    for (const analysis::StreamQueue& q : d.queues) {
        queues.push_back({{"track", q.name},
                          {"operations", q.operations},
                          {"max_length", q.maxLength},
                          {"mean_length", q.meanLength}});
    }
    j["queues"] = std::move(queues);
    if (d.npuCores) {
        const analysis::NpuCoreUse& c = *d.npuCores;
        j["npu_cores"] = c.cores;
        j["npu_cores_source"] = c.coresSource;
        j["npu_cores_on_chip"] = c.coresOnChip;
        j["npu_core_busy_ns"] = c.busyNs;
        j["npu_core_time_ns"] = c.coreTimeNs;
        j["npu_core_busy_fraction"] = c.busyFraction ? ordered_json(*c.busyFraction) : ordered_json(nullptr);
        j["npu_split_layers"] = c.splitLayers;
        j["npu_single_core_layers"] = c.singleLayers;
    }
    return j;
}

nlohmann::ordered_json reportJson(const ReportModel& m)
{
    using nlohmann::ordered_json;
    ordered_json j;
    j["schema"] = kReportSchema;
    j["generator"] = m.generator;
    j["trace"] = traceSummaryJson(m.trace);
    j["platform"] = analysis::platformKey(m.trace.metadata.platform);
    j["analysed_ns"] = m.summary.analysedNs;
    j["total_lost_ns"] = m.summary.lostNs;
    j["total_lost_fraction"] = m.summary.lostFraction;
    j["saving_ns"] = m.summary.savingNs;
    j["saving_fraction"] = m.summary.savingFraction;
    j["critical_path"] = {{"steps_assessed", m.summary.criticalPathSteps},
                          {"cyclic_steps", m.summary.cyclicSteps},
                          {"inconsistent_steps", m.summary.inconsistentSteps},
                          {"not_assessed", m.summary.criticalPathNotAssessed}};
    j["options"] = {{"bubble_threshold_ns", m.options.bubbleThresholdNs},
                    {"tiny_kernel_ns", m.options.tinyKernelNs},
                    {"small_copy_bytes", m.options.smallCopyBytes},
                    {"min_lost_ns", m.options.minLostNs},
                    {"include_warmup", m.options.includeWarmup}};
    // What was left out of the analysed time, so a reader knows why analysed_ns is shorter than the trace.
    j["startup_ns"] = m.summary.startupNs;
    j["warmup_step"] = m.summary.warmupStep >= 0 ? ordered_json(m.summary.warmupStep) : ordered_json(nullptr);
    j["warmup_excluded"] = m.summary.warmupExcluded;
    j["warmup_ns"] = m.summary.warmupNs;
    j["cancelled"] = m.cancelled;
    ordered_json findings = ordered_json::array();
    for (std::size_t i = 0; i < m.findings.size(); ++i)
        findings.push_back(findingJson(m, i));
    j["findings"] = std::move(findings);
    ordered_json notAssessed = ordered_json::array();
    for (const analysis::NotAssessed& n : m.notAssessed)
        notAssessed.push_back({{"kind", n.kind}, {"reason", n.reason}});
    j["not_assessed"] = std::move(notAssessed);
    j["device_summary"] = deviceSummaryJson(m.device);
    ordered_json steps = ordered_json::array();
    for (std::size_t i = 0; i < m.steps.size(); ++i) {
        const StepBreakdown& s = m.steps[i];
        const analysis::StepCommunication* comm
            = i < m.communication.steps.size() ? &m.communication.steps[i] : nullptr;
        nlohmann::ordered_json step(
            {{"step", s.number},
             {"synthetic", s.synthetic},
             {"warmup", s.warmup},
             {"excluded", s.excluded},
             {"start_ns", s.startNs},
             {"duration_ns", s.durationNs},
             {"host_start_ns", s.hostStartNs},
             {"host_duration_ns", s.hostDurationNs},
             {"compute_ns", s.computeNs},
             {"communication_ns", s.communicationNs},
             {"copy_ns", s.copyNs},
             {"dataloader_ns", s.dataloaderNs},
             {"idle_ns", s.idleNs},
             {"communication_wait_ns", comm ? comm->waitNs : 0}, // = exposed_wait_ns, kept for /1 readers
             {"exposed_wait_ns", comm ? comm->waitNs : 0},
             {"exposed_transfer_ns", comm ? comm->transferNs : 0},
             {"exposed_idle_ns", comm ? comm->idleNs : 0},
             {"collectives", collectivesJson(comm, s.startNs)},
             {"host_before_first_collective", hostBeforeFirstJson(comm)},
             {"device_start_ns",
              s.hasDeviceWindow ? nlohmann::ordered_json(s.deviceStartNs) : nlohmann::ordered_json(nullptr)},
             {"device_end_ns",
              s.hasDeviceWindow ? nlohmann::ordered_json(s.deviceEndNs) : nlohmann::ordered_json(nullptr)},
             {"device_busy_ns", s.deviceBusyNs},
             {"device_idle_ns", s.deviceIdleNs},
             {"unrecorded_ns", s.unrecordedNs},
             {"critical_path", i < m.criticalPaths.size() ? criticalPathJson(m.criticalPaths[i]) : ordered_json()}});
        if (i < m.stepActivity.size())
            step["device_activity"] = activityJson(m.stepActivity[i]);
        steps.push_back(std::move(step));
    }
    j["steps"] = std::move(steps);
    j["communication"] = {{"backend", analysis::commBackendKey(m.communication.backend)},
                          {"wait_source",
                           m.communication.communicationJsonOps > 0 ? "communication_json"
                               : m.communication.waitFromTasks      ? "wait_tasks"
                                                                    : "none"}};
    j["communication"]["bandwidth"]
        = bandwidthJson(analysis::summarizeBandwidth(m.communication, analysis::acceleratorName(m.trace.metadata)));
    ordered_json kinds = ordered_json::array();
    for (const KindLoss& k : m.lostByKind)
        kinds.push_back(
            {{"kind", k.kind}, {"lost_ns", k.lostNs}, {"lost_fraction", k.fraction}, {"findings", k.findings}});
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
    static const analysis::efficiency::EfficiencyReport kNoReport;
    j["efficiency"] = efficiencyJson(m.efficiency ? *m.efficiency : kNoReport);
    return j;
}

void writeJsonReport(const ReportModel& model, std::ostream& out)
{
    out << reportJson(model).dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << '\n';
}

} // namespace timesink::report
