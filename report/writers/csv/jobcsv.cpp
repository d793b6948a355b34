// SPDX-License-Identifier: MIT
#include "report/core/textformat.h"
#include "report/writers/csv/csvwriter.h"

namespace timesink::report {

using analysis::JobResult;

void writeJobCsv(const JobResult& job, std::ostream& out)
{
    out << "rank,kind,title,lost_ns,lost_ms,lost_percent,occurrences,explanation,recommendation\r\n";
    for (std::size_t i = 0; i < job.findings.size(); ++i) {
        const analysis::Finding& f = job.findings[i];
        out << i + 1 << ',' << csvText(f.kind) << ',' << csvText(f.title) << ',' << f.lostNs << ','
            << formatMillisecondsRounded(f.lostNs) << ',' << formatFixed(f.lostFraction * 100.0, 1) << ','
            << f.occurrences << ',' << csvText(f.explanation) << ',' << csvText(f.recommendation) << "\r\n";
    }
}

} // namespace timesink::report
