// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/communication.h"
#include "analysis/pass.h"
#include "model/trace.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace timesink::report {

/// Where the wall time of one step went. The classes are exclusive and add up to `durationNs`: a nanosecond
/// covered by several kinds of work counts once, for the first of compute > communication > copies >
/// dataloader; `idleNs` is what none of them covers.
///   compute: kernels and fallback ops (host ops when the trace has no device tracks)
///   communication: collective / point-to-point slices
///   copies: memcpy and memset slices
///   dataloader: host-side dataloader spans
/// Example: a 100 ns step with a kernel over [0, 40) and a copy over [30, 60) →
///   compute 40, copies 20, idle 40.
struct StepBreakdown
{
    std::int64_t number = 0;
    bool synthetic = false;
    model::TimeNs startNs = 0;
    model::TimeNs durationNs = 0;
    model::TimeNs computeNs = 0;
    model::TimeNs communicationNs = 0;
    model::TimeNs copyNs = 0;
    model::TimeNs dataloaderNs = 0;
    model::TimeNs idleNs = 0;
};

/// Lost time of all findings of one kind (kinds may overlap each other; one kind never double counts).
struct KindLoss
{
    std::string kind;
    model::TimeNs lostNs = 0;
    double fraction = 0.0; // lostNs / analysed wall time
    std::size_t findings = 0;
};

/// Time spent in slices of one name, on the device tracks (or on the host when there are none).
struct OperatorTime
{
    std::string name;
    model::SliceCategory category = model::SliceCategory::Other;
    model::TimeNs totalNs = 0;
    std::uint64_t count = 0;
    double fraction = 0.0; // totalNs / time of all operators in the same scope
};

struct ReportSummary
{
    std::string sourcePath;
    std::string format;
    std::string formatVersion;
    std::vector<model::Device> devices;
    std::int32_t rank = -1;
    std::int32_t worldSize = -1;
    model::TimeNs startNs = 0;
    model::TimeNs spanNs = 0;
    std::size_t slices = 0;
    std::size_t tracks = 0;
    std::size_t steps = 0;
    bool syntheticSteps = false; // no step markers: one step spans the trace
    model::TimeNs meanStepNs = 0;
    model::TimeNs analysedNs = 0;
    model::TimeNs lostNs = 0;  // sum over findings (kinds can overlap, so this may exceed one cause's share)
    double lostFraction = 0.0; // lostNs / analysedNs
    bool syntheticTimestamps = false;
    std::vector<model::ImportWarning> warnings;
};

/// Everything a report shows, independent of the output format. Built once; every writer (JSON,
/// Markdown, HTML, CSV) and the GUI read the same model, so the numbers agree across formats.
/// It holds copies, never pointers into the trace, so it outlives the trace it was built from.
struct ReportModel
{
    std::string generator; // "timesink 0.1.0"
    ReportSummary summary;
    std::vector<StepBreakdown> steps;
    std::string operatorScope; // "device" or "host"
    std::vector<OperatorTime> topOperators; // by total time, descending; at most ReportOptions::topOperators
    std::vector<KindLoss> lostByKind;       // by lost time, descending
    std::vector<analysis::Finding> findings; // ranked (rank = index + 1)
    std::vector<analysis::NotAssessed> notAssessed;
    bool cancelled = false;
    /// Display names of the trace's tracks, indexed by TrackId::value (for evidence).
    std::vector<std::string> trackNames;
    /// The timesink.report/1 core object (analysisReportJson in reportjson.h); the JSON writer adds the
    /// sections above that only this model computes (steps, lost_by_kind, top_operators).
    nlohmann::ordered_json analysisJson;
    /// Device communication per step (parallel to `steps`): exposed time, measured wait, the collectives with
    /// their exposed parts. `timesink-cli job` aligns ranks on these (analysis/job.h).
    analysis::CommunicationProfile communication;
};

struct ReportOptions
{
    std::size_t topOperators = 15;
    std::string generator = "timesink";
    /// The thresholds the analysis ran with; the JSON report records them.
    analysis::AnalysisOptions analysisOptions;
};

/// Builds the report model of an analysed trace.
/// Example:
///   auto result = analysis::analyze(*trace, {}, cancel);
///   ReportModel model = buildReportModel(*trace, result);
///   model.findings.front().kind;  // the biggest cause of lost time
ReportModel buildReportModel(const model::Trace& trace, const analysis::AnalysisResult& result,
                             const ReportOptions& options = {});

/// The per-step breakdown alone (see StepBreakdown), one entry per Trace::steps() element.
std::vector<StepBreakdown> computeStepBreakdown(const model::Trace& trace);

} // namespace timesink::report
