// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/compare/compareattribution.h"
#include "analysis/compare/comparelayers.h"
#include "analysis/compare/compareopmap.h"
#include "analysis/compare/comparestepselection.h"
#include "analysis/compare/comparetimesplit.h"
#include "analysis/core/finding.h"
#include "analysis/core/kernelclass.h"
#include "analysis/efficiency/compareefficiency.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace timesink::analysis {

/// How to compare two runs (docs/compare.md).
struct CompareOptions
{
    CompareStepSelection baselineSteps; // default: every step
    CompareStepSelection candidateSteps;
    const CompareOpMap* opMap = nullptr;          // nullptr: CompareOpMap::builtIn()
    const efficiency::PeakTable* peaks = nullptr; // nullptr: efficiency::builtinPeakTable()
};

/// One pair of aligned steps.
struct CompareStepPair
{
    std::size_t baselineIndex = 0; // into the baseline's Trace::steps()
    std::size_t candidateIndex = 0;
    std::int64_t baselineNumber = 0; // ProfilerStep#N (0 for a synthetic step)
    std::int64_t candidateNumber = 0;
    model::TimeNs baselineNs = 0;
    model::TimeNs candidateNs = 0;
    [[nodiscard]] model::TimeNs deltaNs() const { return candidateNs - baselineNs; }
};

/// One operator (canonical name) across both runs, over the paired steps.
struct CompareOperator
{
    std::string name;                       // canonical (CompareOpMap)
    std::vector<std::string> baselineNames; // the names it had in the baseline trace, sorted
    std::vector<std::string> candidateNames;
    model::TimeNs baselineNs = 0;
    model::TimeNs candidateNs = 0;
    std::uint64_t baselineCalls = 0;
    std::uint64_t candidateCalls = 0;
    std::vector<model::SliceRef> baselineOccurrences; // operator slices and their device work, for highlighting
    std::vector<model::SliceRef> candidateOccurrences;
    [[nodiscard]] model::TimeNs deltaNs() const { return candidateNs - baselineNs; }
    /// candidate / baseline; empty when the baseline time is 0.
    [[nodiscard]] std::optional<double> ratio() const;
};

/// A finding that explains part of the difference: present on one side only, or costing more on one side.
struct CompareExplanation
{
    enum class Status : std::uint8_t { CandidateOnly, BaselineOnly, Grew, Shrank };
    Status status = Status::CandidateOnly;
    std::string kind;
    std::string title;                // the candidate's title (the baseline's for BaselineOnly)
    std::string counterpartTitle;     // the other side's title when matched
    model::TimeNs baselineLostNs = 0; // over the paired steps
    model::TimeNs candidateLostNs = 0;
    std::optional<std::size_t> baselineFinding; // index into the baseline findings
    std::optional<std::size_t> candidateFinding;
    [[nodiscard]] model::TimeNs deltaNs() const { return candidateLostNs - baselineLostNs; }
    /// deltaNs / total step delta when both point the same way (the finding explains that much of the
    /// slow-down, or of the speed-up); else 0.
    double shareOfStepDelta = 0.0;
};

std::string_view
explanationStatusKey(CompareExplanation::Status s); // "candidate_only", "baseline_only", "grew", "shrank"

/// Device work of one kernel class (kernelclass.h) on both sides, over the paired steps: the summed time of the
/// work slices the operator table counts (overlapping kernels each count their own time).
struct CompareClass
{
    KernelClass cls = KernelClass::Other;
    model::TimeNs baselineNs = 0;
    model::TimeNs candidateNs = 0;
    std::uint64_t baselineCalls = 0; // work slices
    std::uint64_t candidateCalls = 0;
    [[nodiscard]] model::TimeNs deltaNs() const { return candidateNs - baselineNs; }
};

/// One bar of the waterfall from the baseline's step time to the candidate's. The parts of the two sides'
/// StepTimeSplit are subtracted part by part, so the deltas add up to the step-time delta exactly.
struct WaterfallPart
{
    enum class Kind : std::uint8_t { Compute, Communication, Copy, Idle, Remainder };
    std::string key;   // "gemm", "exposed_communication", "exposed_copy", "idle_dataloader", …, "remainder"
    std::string label; // "GEMM", "exposed communication", "idle: dataloader", …
    Kind kind = Kind::Compute;
    model::TimeNs baselineNs = 0;
    model::TimeNs candidateNs = 0;
    [[nodiscard]] model::TimeNs deltaNs() const { return candidateNs - baselineNs; }
};
std::string_view waterfallKindKey(WaterfallPart::Kind k); // "compute", "communication", "copy", "idle", "remainder"

/// What one run contributes to a comparison.
struct CompareSide
{
    std::vector<std::size_t> pairedSteps;     // indices into Trace::steps(), in pairing order
    bool deviceTimed = false;                 // operator times are device time (else host time)
    model::TimeNs operatorNs = 0;             // sum of operator times over the paired steps
    std::uint64_t workSlices = 0;             // device work slices over the whole trace
    std::uint64_t attributedSlices = 0;       // of which attributed to a framework operator
    std::vector<model::TimeNs> findingLostNs; // per finding (same order as given), over the paired steps
    DeviceBreakdown device;                   // over the paired steps' device windows
    StepTimeSplit split;                      // the paired steps' time in exclusive parts
};

struct CompareResult
{
    CompareSide baseline;
    CompareSide candidate;
    std::vector<CompareStepPair> steps;
    std::vector<CompareOperator> operators; // by |delta| descending, then name
    std::vector<CompareClass> classes;      // classes with work on either side, by |delta| descending
    /// From the baseline's step time to the candidate's: the parts whose delta is not 0, in a fixed order (compute
    /// by class, exposed communication, exposed copies, idle by cause), then a remainder part when the parts do not
    /// add up to the step-time delta (never, while every side's split covers its step windows).
    std::vector<WaterfallPart> waterfall;
    std::vector<CompareExplanation> explanations; // by |delta| descending, then kind, then title
    /// Edge runs (both sides RKNN layer tables): the layers matched one by one (comparelayers.h).
    CompareLayers layers;
    /// Per work class, each run's efficiency against its own chip over the whole trace, and for a class that got
    /// slower whether the chip or the port is the limit (efficiency/compareefficiency.h).
    efficiency::CompareEfficiency efficiency;
    std::vector<std::string> notes; // caveats for people: unpaired steps, host vs device time, …
    [[nodiscard]] model::TimeNs baselineStepsNs() const;
    [[nodiscard]] model::TimeNs candidateStepsNs() const;
};

/// Aligns two frozen traces by step and by operator and says which findings explain the difference.
/// Steps are paired in selection order (default: every step, first with first); when the sides select
/// different numbers of steps the extra ones are left out and a note says so. Operator times cover the
/// paired steps only. A finding's lost time over the paired steps is the sum of its per-step losses
/// there (its whole lostNs when it has no per-step breakdown). Findings are matched across runs by kind
/// and title with numbers blanked out ("… 412 ms lost over 5 steps" = "… 96 ms lost over 2 steps"), then
/// by kind alone when each side has exactly one unmatched finding of that kind.
///
/// Returns false and sets `error` when a step selection names steps a trace does not have.
bool compareRuns(const model::Trace& baseline, std::span<const Finding> baselineFindings, const model::Trace& candidate,
                 std::span<const Finding> candidateFindings, const CompareOptions& options, CompareResult& result,
                 std::string& error);

} // namespace timesink::analysis
