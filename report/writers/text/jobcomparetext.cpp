// SPDX-License-Identifier: MIT
#include "report/core/textformat.h"
#include "report/jobcompare/jobcomparefacts.h"
#include "report/writers/text/textwriter.h"

#include <cstdio>

namespace timesink::report {

using jobcomparefacts::rankMark;
using jobcomparefacts::ranksText;
using jobcomparefacts::sideWarnings;
using jobcomparefacts::signedDuration;
using jobcomparefacts::stepsCell;
using jobcomparefacts::summarySentence;
using jobcomparefacts::worldText;
using model::TimeNs;

void writeJobCompareText(const JobCompareInput& in, std::ostream& out)
{
    const analysis::JobCompareResult& r = in.result;
    out << "baseline   " << terminalText(in.baselinePath) << "\n           " << r.baselineRanks << " ranks (world size "
        << worldText(r.baselineWorldSize) << "), " << r.baselineSteps << (r.baselineSteps == 1 ? " step\n" : " steps\n")
        << "candidate  " << terminalText(in.candidatePath) << "\n           " << r.candidateRanks
        << " ranks (world size " << worldText(r.candidateWorldSize) << "), " << r.candidateSteps
        << (r.candidateSteps == 1 ? " step\n" : " steps\n");
    for (const auto& [side, w] : sideWarnings(r))
        out << "warning (" << side << "): " << terminalText(*w) << '\n';
    out << '\n' << summarySentence(r) << "\n\nJob\n";
    char buf[256];
    std::snprintf(buf, sizeof buf, "  %-48s %12s %12s %12s\n", "", "baseline", "candidate", "delta");
    out << buf;
    for (const analysis::JobCompareFigure& f : r.figures) {
        std::snprintf(buf, sizeof buf, "  %-48s %12s %12s %12s\n", f.label.c_str(),
                      formatDuration(f.baselineNs).c_str(), formatDuration(f.candidateNs).c_str(),
                      signedDuration(f.deltaNs()).c_str());
        out << buf;
    }
    out << "\nRanks (mean per step; caused wait over all steps)\n";
    std::snprintf(buf, sizeof buf, "  %-6s %12s %12s %12s %12s %12s %14s %14s\n", "rank", "baseline", "candidate",
                  "delta", "wait base", "wait cand", "caused base", "caused cand");
    out << buf;
    for (const analysis::JobCompareRank& x : r.ranks) {
        const std::string rank
            = std::to_string(x.rank) + (x.baselineStraggler ? "*" : "") + (x.candidateStraggler ? "+" : "");
        std::snprintf(buf, sizeof buf, "  %-6s %12s %12s %12s %12s %12s %14s %14s\n", rank.c_str(),
                      stepsCell(x.baselineSteps, x.baselineStepNs).c_str(),
                      stepsCell(x.candidateSteps, x.candidateStepNs).c_str(),
                      (x.baselineSteps && x.candidateSteps ? signedDuration(x.deltaNs()) : std::string("–")).c_str(),
                      stepsCell(x.baselineSteps, x.baselineWaitNs).c_str(),
                      stepsCell(x.candidateSteps, x.candidateWaitNs).c_str(),
                      formatDuration(x.baselineCausedWaitNs).c_str(), formatDuration(x.candidateCausedWaitNs).c_str());
        out << buf;
    }
    out << "  (* straggler in the baseline, + straggler in the candidate)\n";
    if (!r.lostByKind.empty()) {
        out << "\nLost rank-time by kind\n";
        for (const analysis::JobCompareKind& k : r.lostByKind) {
            std::snprintf(buf, sizeof buf, "  %-48s %12s %12s %12s\n", kindLabel(k.kind).c_str(),
                          formatDuration(k.baselineLostNs).c_str(), formatDuration(k.candidateLostNs).c_str(),
                          signedDuration(k.deltaNs()).c_str());
            out << buf;
        }
    }
    if (!r.notes.empty()) {
        out << "\nNotes\n";
        for (const std::string& n : r.notes)
            out << "  - " << terminalText(n) << '\n';
    }
}

} // namespace timesink::report
