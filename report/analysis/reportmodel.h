// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/breakdown.h"
#include "analysis/core/communication.h"
#include "analysis/core/pass.h"
#include "analysis/efficiency/efficiency.h"
#include "model/trace.h"
#include "report/analysis/tracesummary.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace timesink::report {

// The breakdown (per step, top operators, lost by kind) is computed once in analysis/core/breakdown.h; the report,
// the CLI and the GUI read the same numbers.
using analysis::DeviceSummary;
using analysis::KindLoss;
using analysis::OperatorTime;
using analysis::StepBreakdown;

/// The headline figures of the analysis of a trace. What the trace itself holds (path, format, rank, span, counts,
/// import warnings) is ReportModel::trace, computed once by summarizeTrace; this holds only what the analysis adds.
struct ReportSummary
{
    std::vector<model::Device> devices; // those with device work in this trace
    bool syntheticSteps = false;        // no step markers: one step spans the trace
    model::TimeNs startupNs = 0;        // no step markers: time before the first device activity, not analysed
    std::int64_t warmupStep = -1;       // number of the warm-up step, or -1
    bool warmupExcluded = false;        // … left out of the analysis
    model::TimeNs warmupNs = 0;
    model::TimeNs meanStepNs = 0;
    model::TimeNs analysedNs = 0;
    model::TimeNs lostNs = 0;  // sum over findings (kinds can overlap, so this may exceed one cause's share)
    double lostFraction = 0.0; // lostNs / analysedNs
    /// Fixing every finding at once: how much shorter the analysed steps get (analysis/core/stepgraph.h).
    model::TimeNs savingNs = 0;
    double savingFraction = 0.0;         // savingNs / analysedNs
    std::size_t criticalPathSteps = 0;   // steps whose critical path was found
    std::size_t cyclicSteps = 0;         // steps whose graph had a cycle (corrupt flows): fell back to lost time
    std::size_t inconsistentSteps = 0;   // steps that broke a physical bound (a bug): fell back to lost time
    std::string criticalPathNotAssessed; // why no step could be re-timed, empty otherwise
};

/// A slice a finding names, resolved against the trace when the model is built.
struct FindingEvent
{
    model::SliceRef ref;
    std::string name;
    model::TimeNs startNs = 0;
    model::TimeNs endNs = 0;
};

/// Everything a report shows, independent of the output format. Built once; every writer (JSON,
/// Markdown, HTML, CSV) and the GUI read the same model, so the numbers agree across formats.
/// It holds copies, never pointers into the trace, so it outlives the trace it was built from.
struct ReportModel
{
    std::string generator; // "timesink 0.1.0"
    TraceSummary trace;    // what `info` shows; the report's "trace" object
    ReportSummary summary;
    analysis::AnalysisOptions options; // the thresholds the analysis ran with
    std::vector<StepBreakdown> steps;
    std::string operatorScope;               // "device" or "host"
    std::vector<OperatorTime> topOperators;  // by total time, descending; at most ReportOptions::topOperators
    std::vector<KindLoss> lostByKind;        // by lost time, descending
    DeviceSummary device;                    // what the devices did over the analysed time
    std::vector<analysis::Finding> findings; // ranked (rank = index + 1)
    /// The slices each finding names (Finding::events), parallel to `findings`; refs that do not resolve are left out.
    std::vector<std::vector<FindingEvent>> findingEvents;
    std::vector<analysis::NotAssessed> notAssessed;
    bool cancelled = false;
    /// Display names of the trace's tracks, indexed by TrackId::value (for evidence).
    std::vector<std::string> trackNames;
    /// Device communication per step (parallel to `steps`): exposed time, measured wait, the collectives with
    /// their exposed parts. `timesink-cli job` aligns ranks on these (analysis/job/job.h).
    analysis::CommunicationProfile communication;
    /// The critical path of every step (parallel to `steps`), from the analysis.
    std::vector<analysis::StepCriticalPath> criticalPaths;
    /// When in each step the device computed, copied and sat idle (parallel to `steps`; empty without device work),
    /// from the analysis (AnalysisResult::stepActivity). The job's rank lanes draw it.
    std::vector<analysis::StepActivity> stepActivity;
    /// FLOPs, bytes, roofline and MFU per operator, class and step (analysis/efficiency/efficiency.h).
    /// The analysis result's own (AnalysisResult::efficiency), made here only for a result that has none; null in
    /// a model made by hand, which the writers read as an empty report.
    std::shared_ptr<const analysis::efficiency::EfficiencyReport> efficiency;
};

struct ReportOptions
{
    std::size_t topOperators = 15;
    std::string generator = "timesink";
    /// The thresholds the analysis ran with; the model keeps them for the reports to record.
    analysis::AnalysisOptions analysisOptions;
};

/// Builds the report model of an analysed trace.
/// Example:
///   auto result = analysis::analyze(*trace, {}, cancel);
///   ReportModel model = buildReportModel(*trace, result);
///   model.findings.front().kind;  // the biggest cause of lost time
ReportModel buildReportModel(const model::Trace& trace, const analysis::AnalysisResult& result,
                             const ReportOptions& options = {});

} // namespace timesink::report
