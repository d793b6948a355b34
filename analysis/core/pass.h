// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/breakdown.h"
#include "analysis/core/cancel.h"
#include "analysis/core/communication.h"
#include "analysis/core/criticalpath.h"
#include "analysis/core/finding.h"
#include "analysis/core/stepactivity.h"

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace timesink::analysis {

namespace efficiency {
// Computed above this layer (analysis/efficiency/efficiency.h) and carried here only as a shared handle, so that the
// passes, the reports and the views read the one report an analyze() run made.
struct EfficiencyReport;
} // namespace efficiency

/// Thresholds, with documented defaults (docs/analysis.md) and CLI flags.
struct AnalysisOptions
{
    /// Device idle gaps shorter than this are not bubbles (launch latency is normal).
    model::TimeNs bubbleThresholdNs = 50'000;
    /// Kernels shorter than this count as "tiny" when deciding whether a stretch is launch-bound.
    model::TimeNs tinyKernelNs = 10'000;
    /// Copies smaller than this many bytes are "small".
    std::int64_t smallCopyBytes = std::int64_t {64} * 1024;
    /// Findings that lose less than this are dropped from the output.
    model::TimeNs minLostNs = 0;
    /// Analyse a warm-up step too (StepClock: a first step longer than twice the median of the others).
    bool includeWarmup = false;
};

/// What one pass produced: its findings, or why it could not assess the trace
/// (e.g. "no device work in this trace" for idle-based kinds).
struct PassOutput
{
    std::vector<Finding> findings;
    std::string notAssessedReason; // empty when the pass could assess the trace
    /// The efficiency report the pass judged (low_efficiency), handed to AnalysisResult::efficiency; null otherwise.
    std::shared_ptr<const efficiency::EfficiencyReport> efficiency;

    /// The output of a pass that could not assess the trace, and why (shown in every report).
    static PassOutput notAssessed(std::string reason)
    {
        PassOutput out;
        out.notAssessedReason = std::move(reason);
        return out;
    }
};

class AnalysisContext;

/// A pure function of a frozen trace. It takes what every pass shares (the step clock, the device activity, the
/// idle split) from the context of its analyze() run instead of computing it again (analysis/core/context.h).
class Pass
{
public:
    virtual ~Pass() = default;
    [[nodiscard]] virtual std::string_view kind() const = 0;
    [[nodiscard]] virtual PassOutput run(const AnalysisContext& context) const = 0;
};

/// The passes the GUI and the CLI run, in a fixed order (defined with them, in analysis/passes/registry.cpp).
const std::vector<std::unique_ptr<Pass>>& passRegistry();

struct NotAssessed
{
    std::string kind;
    std::string reason;
};

struct AnalysisResult
{
    std::vector<Finding> findings; // ranked with rankBefore()
    model::TimeNs analysedNs = 0;  // wall time analysed (sum of step windows, StepClock)
    model::TimeNs startupNs = 0;   // no step markers: time before the first device activity, not analysed
    std::int64_t warmupStep = -1;  // number of the step detected as warm-up, or -1
    bool warmupExcluded = false;   // … and left out of the analysis (no --include-warmup)
    model::TimeNs warmupNs = 0;    // its duration
    std::vector<NotAssessed> notAssessed;
    bool cancelled = false;
    /// Fixing every finding at once: how much shorter the analysed steps get (analysis/core/stepgraph.h), at most
    /// analysedNs.
    model::TimeNs savingNs = 0;
    double savingFraction = 0.0; // savingNs / analysedNs
    /// The critical path of every step (parallel to Trace::steps()); see projectSavings.
    std::vector<StepCriticalPath> criticalPaths;
    /// Why no step could be re-timed (laid-out timestamps, no device work, no launch links); empty otherwise.
    std::string criticalPathNotAssessed;
    /// Steps whose dependency graph had a cycle (corrupt flows): their savings fell back to lost time.
    std::size_t cyclicSteps = 0;
    /// Steps whose path or re-timing broke a physical bound (a bug, docs/analysis.md "Invariants"): their savings
    /// fell back to lost time and their path is not reported.
    std::size_t inconsistentSteps = 0;
    /// Wall time of analyze()'s two phases: the passes (with the shared context), and the step graphs with the
    /// re-timing of every finding (projectSavings). For `--phases` and the benchmarks; never in a report.
    std::chrono::nanoseconds passesWall {0};
    std::chrono::nanoseconds savingsWall {0};
    /// When in each step the device computed, copied and sat idle (parallel to Trace::steps(), over the same
    /// windows as the step breakdown: an excluded warm-up step over its own window); empty without device work.
    std::vector<StepActivity> stepActivity;
    /// What every report and view shows beside the findings, computed here once (the reports and the GUI read
    /// them from the result): each step's split (computeStepBreakdown), the device-wide summary
    /// (computeDeviceSummary) and the collectives (computeCommunicationProfile, the same the communication pass
    /// reads), all over the analysis' step clock.
    std::vector<StepBreakdown> stepBreakdown;
    DeviceSummary device;
    CommunicationProfile communication;
    /// How close each operator ran to the chip's roofline (efficiency::computeEfficiency over the built-in peak table,
    /// with each operator's device work), computed once per analyze() run: the low_efficiency pass judges it, the
    /// reports and the views show it. Null only for a cancelled run or a result made another way.
    std::shared_ptr<const efficiency::EfficiencyReport> efficiency;
};

/// Runs every registered pass on one AnalysisContext and ranks the findings (analysis/passes/registry.cpp).
AnalysisResult analyze(const model::Trace& trace, const AnalysisOptions& options, const CancelToken& cancel);

/// Fills what analyze() puts beside the findings (stepBreakdown, device, communication) into a result made another
/// way, e.g. a test's hand-made findings: the same functions over the same step clock.
void fillTraceFigures(const model::Trace& trace, const AnalysisOptions& options, AnalysisResult& result);

} // namespace timesink::analysis
