// SPDX-License-Identifier: MIT
#include "report/core/textformat.h"
#include "report/jobcompare/jobcomparefacts.h"
#include "report/writers/csv/csvwriter.h"

namespace timesink::report {

using jobcomparefacts::rankMark;
using jobcomparefacts::ranksText;
using jobcomparefacts::sideWarnings;
using jobcomparefacts::signedDuration;
using jobcomparefacts::stepsCell;
using jobcomparefacts::summarySentence;
using jobcomparefacts::worldText;
using model::TimeNs;

void writeJobCompareCsv(const analysis::JobCompareResult& r, std::ostream& out)
{
    out << "rank,baseline_steps,candidate_steps,baseline_step_ns,candidate_step_ns,delta_ns,baseline_wait_ns,"
           "candidate_wait_ns,baseline_caused_wait_ns,candidate_caused_wait_ns,baseline_straggler,candidate_straggler"
           "\r\n";
    for (const analysis::JobCompareRank& x : r.ranks) {
        out << x.rank << ',' << x.baselineSteps << ',' << x.candidateSteps << ',' << x.baselineStepNs << ','
            << x.candidateStepNs << ',' << x.deltaNs() << ',' << x.baselineWaitNs << ',' << x.candidateWaitNs << ','
            << x.baselineCausedWaitNs << ',' << x.candidateCausedWaitNs << ','
            << (x.baselineStraggler ? "true" : "false") << ',' << (x.candidateStraggler ? "true" : "false") << "\r\n";
    }
}

} // namespace timesink::report
