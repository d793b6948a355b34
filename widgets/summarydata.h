// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/breakdown.h"
#include "analysis/core/finding.h"
#include "analysis/core/pass.h"
#include "model/trace.h"

#include <array>
#include <string>
#include <vector>

namespace timesink::widgets {

/// Pre-aggregated numbers for the summary charts, so that the charts only draw (as heaptrack feeds its charts).
/// The numbers are analyze()'s and analysis::computeBreakdown()'s parts, the same the reports print
/// (analysis/core/breakdown.h has the rules: every instant of a step goes to one activity by priority compute >
/// communication > copies > dataloader, else idle; the five parts add up to the step). Only the shape is the charts'
/// own.
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
    std::vector<NamedTime> topOperators; // time by operator name, descending (analysis::TopOperators)
    std::string operatorScope;           // "device" or "host"
    analysis::DeviceSummary device;      // device_summary of the report
    std::string deviceHeadline;          // "GPU busy 61 % of the step" (empty without device work)

    /// From analyze()'s result: its step split and device summary, the loss by kind of its findings, and the
    /// trace's top operators.
    static SummaryData compute(const model::Trace& trace, const analysis::AnalysisResult& result,
                               std::size_t topOperatorCount = 10);
    static const char* activityLabel(Activity a);
};

} // namespace timesink::widgets
