// SPDX-License-Identifier: MIT
#include "report/core/textformat.h"
#include "report/job/jobfacts.h"
#include "report/writers/text/textwriter.h"

#include <algorithm>
#include <cstdio>

namespace timesink::report {

using analysis::JobResult;
using jobfacts::Grid;
using jobfacts::gridOf;
using jobfacts::spreadSentence;
using jobfacts::widestSpread;

void writeJobText(const JobResult& job, std::ostream& out)
{
    std::string backend = "unknown";
    for (const analysis::JobRank& r : job.ranks) {
        if (r.backend != "unknown") {
            backend = r.backend;
            break;
        }
    }
    out << "Job: " << job.ranks.size() << (job.ranks.size() == 1 ? " rank" : " ranks");
    if (job.worldSize > 0)
        out << " (world size " << job.worldSize << ")";
    out << ", " << job.steps.size() << (job.steps.size() == 1 ? " step" : " steps")
        << ", collectives: " << terminalText(backend) << "\n";
    out << "Rank-time analysed " << formatDuration(job.rankTimeNs) << ", lost " << formatDuration(job.lostNs) << " ("
        << formatPercent(job.rankTimeNs > 0 ? double(job.lostNs) / double(job.rankTimeNs) : 0.0) << ")\n";
    for (const std::string& w : job.warnings)
        out << "warning: " << terminalText(w) << "\n";
    if (!job.bandwidth.empty())
        out << "Collective bandwidth (transfer: the shortest duration in the group [shortest_in_group], or the "
               "link transit Ascend measured [communication_json]):\n"
            << bandwidthLines(job.bandwidth, "  ");
    const Grid g = gridOf(job);
    const std::size_t shownSteps = std::min<std::size_t>(g.steps.size(), 12);
    out << "\nStep time in ms (communication wait in brackets), rank × step:\n";
    char buf[160];
    std::snprintf(buf, sizeof buf, "%-6s", "rank");
    out << buf;
    for (std::size_t i = 0; i < shownSteps; ++i) {
        std::snprintf(buf, sizeof buf, " %22s", ("step " + std::to_string(g.steps[i])).c_str());
        out << buf;
    }
    if (shownSteps < g.steps.size())
        out << "  … " << g.steps.size() - shownSteps << " more";
    out << "\n";
    for (std::size_t r = 0; r < job.ranks.size(); ++r) {
        std::snprintf(buf, sizeof buf, "%-6d", job.ranks[r].rank);
        out << buf;
        for (std::size_t i = 0; i < shownSteps; ++i) {
            const auto it = g.cells[r].find(g.steps[i]);
            std::string cell = "-";
            if (it != g.cells[r].end())
                cell = formatMillisecondsRounded(it->second->durationNs) + " ["
                    + formatMillisecondsRounded(it->second->communicationWaitNs) + "]";
            std::snprintf(buf, sizeof buf, " %22s", cell.c_str());
            out << buf;
        }
        out << "\n";
    }
    // The spread row only when the ranks differ: "0.000 r0>r0" says nothing.
    if (widestSpread(job)) {
        std::snprintf(buf, sizeof buf, "%-6s", "spread");
        out << buf;
        for (std::size_t i = 0; i < shownSteps; ++i) {
            const analysis::JobStep& s = job.steps[i];
            const std::string cell = s.spreadNs > 0 ? formatMillisecondsRounded(s.spreadNs) + " r"
                    + std::to_string(s.slowestRank) + ">r" + std::to_string(s.fastestRank)
                                                    : std::string("-");
            std::snprintf(buf, sizeof buf, " %22s", cell.c_str());
            out << buf;
        }
        out << "\n";
    }
    // The straggler measure: how late the rank that reached the step's collectives last started the step.
    if (std::any_of(job.steps.begin(), job.steps.end(), [](const analysis::JobStep& s) { return s.lateStartNs > 0; })) {
        std::snprintf(buf, sizeof buf, "%-6s", "late");
        out << buf;
        for (std::size_t i = 0; i < shownSteps; ++i) {
            const analysis::JobStep& s = job.steps[i];
            const std::string cell = s.lateStartNs > 0
                ? formatMillisecondsRounded(s.lateStartNs) + " r" + std::to_string(s.lateRank)
                : std::string("-");
            std::snprintf(buf, sizeof buf, " %22s", cell.c_str());
            out << buf;
        }
        out << "\n";
    }
    if (const std::string sentence = spreadSentence(job); !sentence.empty())
        out << sentence << "\n";
    if (const std::string sentence = jobfacts::lateStartSentence(job); !sentence.empty())
        out << terminalText(sentence) << "\n";
    if (job.findings.empty()) {
        out << "\nNo findings.\n";
        return;
    }
    out << "\n";
    std::snprintf(buf, sizeof buf, "%4s  %-26s %12s %8s  ", "rank", "kind", "lost ms", "% time");
    out << buf << "title\n";
    for (std::size_t i = 0; i < job.findings.size(); ++i) {
        const analysis::Finding& f = job.findings[i];
        std::snprintf(buf, sizeof buf, "%4zu  %-26s %12s %8s  ", i + 1, kindLabel(f.kind).c_str(),
                      formatMillisecondsRounded(f.lostNs).c_str(), formatPercent(f.lostFraction).c_str());
        out << buf << terminalText(f.title) << "\n";
    }
    for (std::size_t i = 0; i < job.findings.size(); ++i) {
        const analysis::Finding& f = job.findings[i];
        out << "\n" << i + 1 << ". " << terminalText(f.title) << "\n";
        std::string line;
        for (const analysis::Detail& d : f.details)
            line += (line.empty() ? "" : ", ") + d.key + "=" + terminalText(analysis::detailText(d));
        if (!line.empty())
            out << "   numbers: " << line << "\n";
        out << "   why: " << terminalText(f.explanation) << "\n";
        out << "   do:  " << terminalText(f.recommendation) << "\n";
    }
}

} // namespace timesink::report
