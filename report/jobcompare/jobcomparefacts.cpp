// SPDX-License-Identifier: MIT
#include "report/jobcompare/jobcomparefacts.h"

#include "report/core/textformat.h"

namespace timesink::report {

namespace jobcomparefacts {

using model::TimeNs;

std::string signedDuration(TimeNs delta)
{
    return delta > 0 ? "+" + formatDuration(delta) : formatDuration(delta);
}

std::string ranksText(const std::vector<std::int64_t>& ranks)
{
    if (ranks.empty())
        return "none";
    std::string text;
    for (std::size_t i = 0; i < ranks.size(); ++i)
        text += (i ? ", " : "") + std::to_string(ranks[i]);
    return text;
}

std::string worldText(std::int32_t world)
{
    return world > 0 ? std::to_string(world) : std::string("unknown");
}

std::string rankMark(bool straggler)
{
    return straggler ? " (straggler)" : "";
}

/// "The candidate's step takes 50.0 ms against the baseline's 54.0 ms (0.93×)."
std::string summarySentence(const analysis::JobCompareResult& r)
{
    if (r.figures.empty())
        return {};
    // A job without steps has figures of 0: "0 ns (0.00×)" would read as a measurement.
    if (!r.baselineUsable() || !r.candidateUsable()) {
        const char* which = !r.baselineUsable() && !r.candidateUsable() ? "neither job has usable steps"
            : !r.baselineUsable()                                       ? "the baseline job has no usable steps"
                                                                        : "the candidate job has no usable steps";
        return std::string("Nothing to compare: ") + which + " (see the warnings).";
    }
    const analysis::JobCompareFigure& step = r.figures.front();
    std::string text = "A step of the candidate job takes " + formatDuration(step.candidateNs)
        + " (its slowest rank, mean over its steps) against the baseline's " + formatDuration(step.baselineNs);
    if (step.baselineNs > 0)
        text += " (" + formatFixed(double(step.candidateNs) / double(step.baselineNs), 2) + "×)";
    text += ". Stragglers: baseline " + ranksText(r.baselineStragglers) + ", candidate "
        + ranksText(r.candidateStragglers) + ".";
    return text;
}

/// Each job's warnings with the side they belong to, in the order baseline, candidate.
std::vector<std::pair<const char*, const std::string*>> sideWarnings(const analysis::JobCompareResult& r)
{
    std::vector<std::pair<const char*, const std::string*>> out;
    for (const std::string& w : r.baselineWarnings)
        out.emplace_back("baseline", &w);
    for (const std::string& w : r.candidateWarnings)
        out.emplace_back("candidate", &w);
    return out;
}

std::string stepsCell(std::size_t steps, TimeNs ns)
{
    return steps == 0 ? std::string("–") : formatDuration(ns);
}

} // namespace jobcomparefacts

} // namespace timesink::report
