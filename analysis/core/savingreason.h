// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/criticalpath.h"
#include "analysis/core/finding.h"

#include <array>
#include <span>
#include <string>

namespace timesink::analysis {

struct AnalysisResult;

/// Time the steps' critical paths spend inside the finding's evidence ranges (on any track: a device-idle gap is on
/// the path when the host's wait in it is). Counts the segments each path keeps (kMaxPathSegments).
model::TimeNs timeOnCriticalPath(const Finding& finding, std::span<const StepCriticalPath> paths);

/// One sentence saying why a re-timed saving and the lost time differ more than twofold, or empty when they do not
/// (or the saving was not re-timed). Lost time counts what the cause costs where it happens; the saving is how much
/// earlier the steps end without it, which depends on whether the cause lies on what sets the step time.
/// Example: lost 11.7 µs, saving 1.50 ms, 1.49 ms of it on the path → "The saving is larger than the lost time
/// because the steps' critical path runs through this cause for 1.49 ms: …".
std::string savingReason(const Finding& finding, model::TimeNs onPathNs);

/// How a finding's evidence meets the steps' critical paths, and what bounds those steps.
struct CausePathShare
{
    model::TimeNs onPathNs = 0;                                  // time the paths spend inside the evidence
    std::array<model::TimeNs, kPathClassCount> onPathByClass {}; // … by what the path did there
    model::TimeNs hostNs = 0;                                    // host time of every assessed path (host classes)
    model::TimeNs deviceNs = 0;                                  // device work of every assessed path
    model::TimeNs pathNs = 0;                                    // their length
};
CausePathShare pathShareOf(const Finding& finding, std::span<const StepCriticalPath> paths);
/// As above, naming what bounds the steps (host or device, with its share of the path) and what the cause is on
/// the path (e.g. "The host bounds these steps (82 % of their critical path is host time); this cause lies on that
/// path for 1.98 ms, most of it as host compute: …").
std::string savingReason(const Finding& finding, const CausePathShare& share);

/// Fills Finding::savingReason for every finding of a result whose savings were projected.
void explainSavings(AnalysisResult& result);

} // namespace timesink::analysis
