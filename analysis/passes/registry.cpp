// SPDX-License-Identifier: MIT
#include "analysis/core/context.h"
#include "analysis/core/deviceactivity.h"
#include "analysis/core/pass.h"
#include "analysis/core/stepclock.h"
#include "analysis/core/stepgraph.h"
#include "analysis/passes/communicationpass.h"
#include "analysis/passes/conversionpass.h"
#include "analysis/passes/copyhotspotpass.h"
#include "analysis/passes/coreimbalancepass.h"
#include "analysis/passes/cpufallbackpass.h"
#include "analysis/passes/dataloaderstarvationpass.h"
#include "analysis/passes/datamovementpass.h"
#include "analysis/passes/lowefficiencypass.h"
#include "analysis/passes/lowmacusagepass.h"
#include "analysis/passes/memoryboundpass.h"
#include "analysis/passes/memorypressurepass.h"
#include "analysis/passes/opcompilepass.h"
#include "analysis/passes/pipelinebubblepass.h"
#include "analysis/passes/precisionpass.h"
#include "analysis/passes/slowlinkpass.h"
#include "analysis/passes/unfusedchainpass.h"
#include "model/workers.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <vector>

namespace timesink::analysis {

const std::vector<std::unique_ptr<Pass>>& passRegistry()
{
    // Built once, immutable afterwards: passes hold no state, so the GUI and CLI can share them across threads.
    static const std::vector<std::unique_ptr<Pass>> registry = [] {
        std::vector<std::unique_ptr<Pass>> passes;
        passes.push_back(std::make_unique<DataloaderStarvationPass>());
        passes.push_back(std::make_unique<PipelineBubblePass>());
        passes.push_back(std::make_unique<CopyHotspotPass>());
        passes.push_back(std::make_unique<CpuFallbackPass>());
        passes.push_back(std::make_unique<UnfusedChainPass>());
        // The porting advisor (docs/analysis.md): what a GPU → NPU port typically loses.
        passes.push_back(std::make_unique<OpCompilePass>());
        passes.push_back(std::make_unique<ConversionPass>());
        passes.push_back(std::make_unique<PrecisionPass>());
        passes.push_back(std::make_unique<MemoryPressurePass>());
        passes.push_back(std::make_unique<CommunicationPass>());
        // Issue 50: collectives far below their link's peak (analysis/core/collectivebandwidth.h).
        passes.push_back(std::make_unique<SlowLinkPass>());
        // Issue 51: operators far below their roofline (analysis/efficiency/), with the cause the trace shows.
        passes.push_back(std::make_unique<LowEfficiencyPass>());
        // The edge NPU advisor (docs/analysis.md "RKNN"): what an RKNN perf table's columns say; other traces skip it.
        passes.push_back(std::make_unique<CoreImbalancePass>());
        passes.push_back(std::make_unique<MemoryBoundPass>());
        passes.push_back(std::make_unique<LowMacUsagePass>());
        passes.push_back(std::make_unique<DataMovementPass>());
        return passes;
    }();
    return registry;
}

namespace {

// The step split and the device summary built on it, as analyze() and fillTraceFigures() give them, over the
// context's clock and device activity (shared with the passes, not built again).
void fillStepFigures(const AnalysisContext& context, AnalysisResult& result)
{
    result.stepBreakdown = computeStepBreakdown(context.trace(), context.clock());
    // Of each step's idle time, the device work the trace does not record (taken out of the idle gaps first).
    if (!context.activity().unrecorded.empty()) {
        for (const IdlePiece& p : context.idle().unrecorded) {
            if (p.step < result.stepBreakdown.size())
                result.stepBreakdown[p.step].unrecordedNs += p.range.length();
        }
    }
    result.device = computeDeviceSummary(context.trace(), context.clock(), context.activity(), result.stepBreakdown);
}

} // namespace

AnalysisResult analyze(const model::Trace& trace, const AnalysisOptions& options, const CancelToken& cancel)
{
    AnalysisResult result;
    const auto started = std::chrono::steady_clock::now();
    AnalysisContext context(trace, options, cancel);
    const StepClock& clock = context.clock();
    result.analysedNs = clock.analysedNs();
    result.startupNs = clock.startupNs();
    if (clock.warmupStep() < clock.size()) {
        result.warmupStep = clock.step(clock.warmupStep()).number;
        result.warmupExcluded = clock.warmupExcluded();
        result.warmupNs = clock.fullWindow(clock.warmupStep()).length();
    }
    // The passes only read the trace and the context, so they run side by side, beside the groundwork of the
    // re-timing and the figures the reports show (the longest tasks first); their findings are then taken in the
    // registry's order, as if one ran after the other. A pass that did not start before a cancel leaves the result
    // cancelled.
    const auto& passes = passRegistry();
    std::vector<PassOutput> outputs(passes.size());
    std::vector<char> ran(passes.size(), 0);
    std::unique_ptr<RetimingPlan> plan;
    constexpr std::size_t kOwnTasks = 3;
    model::parallelFor(passes.size() + kOwnTasks, model::hardwareThreads(), [&](std::size_t task) {
        if (cancel.cancelled())
            return;
        switch (task) {
        case 0:
            plan = std::make_unique<RetimingPlan>(trace, clock);
            return;
        case 1:
            fillStepFigures(context, result);
            return;
        case 2:
            result.communication = context.communication();
            return;
        default:
            outputs[task - kOwnTasks] = passes[task - kOwnTasks]->run(context);
            ran[task - kOwnTasks] = 1;
        }
    });
    for (std::size_t p = 0; p < passes.size(); ++p) {
        if (!ran[p]) {
            result.cancelled = true;
            break;
        }
        PassOutput& output = outputs[p];
        if (output.efficiency && !result.efficiency)
            result.efficiency = std::move(output.efficiency);
        if (!output.notAssessedReason.empty()) {
            result.notAssessed.push_back({std::string(passes[p]->kind()), std::move(output.notAssessedReason)});
            continue;
        }
        for (Finding& f : output.findings) {
            if (f.lostNs < options.minLostNs || f.lostNs <= 0)
                continue;
            f.lostFraction = result.analysedNs > 0 ? double(f.lostNs) / double(result.analysedNs) : 0.0;
            result.findings.push_back(std::move(f));
        }
    }
    // The rank lanes of a job draw each step from this; the windows are the breakdown's (computeStepBreakdown).
    if (!result.cancelled && context.hasDeviceWork()) {
        result.stepActivity.reserve(clock.size());
        for (std::size_t s = 0; s < clock.size(); ++s) {
            const bool excluded = s == clock.warmupStep() && clock.warmupExcluded();
            result.stepActivity.push_back(stepActivityOf(
                context.activity(), excluded ? clock.fullWindow(s) : clock.window(s), &context.communication()));
        }
    }
    result.cancelled = result.cancelled || cancel.cancelled();
    if (!result.efficiency && !result.cancelled)
        result.efficiency = makeEfficiencyReport(trace, &cancel);
    if (plan && context.hasDeviceWork())
        plan->setUnrecorded(context.activity().unrecorded); // the paths book launch latency over it as unrecorded
    context.releaseActivity(); // the re-timing reads neither; the passes and the step lanes are done with them
    const auto passesDone = std::chrono::steady_clock::now();
    // Ranks them too (by saving, then lost time).
    if (!plan) // cancelled before it was built: the findings still get their savings fields and ranking
        plan = std::make_unique<RetimingPlan>(trace, clock);
    projectSavings(*plan, cancel, result);
    result.passesWall = passesDone - started;
    result.savingsWall = std::chrono::steady_clock::now() - passesDone;
    return result;
}

void fillTraceFigures(const model::Trace& trace, const AnalysisOptions& options, AnalysisResult& result)
{
    const CancelToken never;
    const AnalysisContext context(trace, options, never);
    fillStepFigures(context, result);
    result.communication = context.communication();
    result.efficiency = makeEfficiencyReport(trace, nullptr);
}

} // namespace timesink::analysis
