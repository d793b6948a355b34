// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/finding.h"
#include "model/trace.h"

#include <array>
#include <string>
#include <vector>

namespace timesink::widgets {

/// Pre-aggregated numbers for the summary charts, computed from the model and the findings so that the
/// charts only draw (as heaptrack feeds its charts).
///
/// Step breakdown: inside each step, every instant is given to one activity, by priority compute >
/// communication > copies > dataloader, and to idle when none is active. Compute, copies and
/// communication come from device tracks (kernels, memsets and fallback ops; memcpys; collectives);
/// dataloader from host dataloader slices (at any depth). A trace with no device tracks counts host ops as
/// compute. So the five parts always add up to the step duration.
///
/// Example: step [0, 100); kernel [10, 50) on stream 7, memcpy [40, 70) on a copy engine
///   → compute 40, copies 20 (50..70; 40..50 goes to compute), idle 40.
struct SummaryData
{
    enum Activity { Compute, Communication, Copies, Dataloader, Idle, ActivityCount };

    struct StepBreakdown
    {
        std::int64_t number = 0;
        model::TimeNs durationNs = 0;
        std::array<model::TimeNs, ActivityCount> ns {};
    };
    struct NamedTime
    {
        std::string name;
        model::TimeNs ns = 0;
        std::uint64_t count = 0;
    };

    std::vector<StepBreakdown> steps;
    std::vector<NamedTime> lostByKind;   // descending
    std::vector<NamedTime> topOperators; // device time by operator name, descending

    static SummaryData compute(const model::Trace& trace, const std::vector<analysis::Finding>& findings,
                               std::size_t topOperatorCount = 10);
    static const char* activityLabel(Activity a);
};

} // namespace timesink::widgets
