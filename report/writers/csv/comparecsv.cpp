// SPDX-License-Identifier: MIT
#include "report/core/textformat.h"
#include "report/writers/csv/csvwriter.h"

namespace timesink::report {

void writeCompareCsv(const analysis::CompareResult& r, std::ostream& out)
{
    auto joined = [](const std::vector<std::string>& names) {
        std::string text;
        for (const std::string& n : names)
            text += (text.empty() ? "" : "; ") + n;
        return text;
    };
    out << kCompareCsvHeader << "\r\n";
    for (const analysis::CompareOperator& op : r.operators) {
        const auto ratio = op.ratio();
        out << csvText(op.name) << ',' << op.baselineNs << ',' << op.candidateNs << ',' << op.deltaNs() << ','
            << (ratio ? formatGeneral(*ratio, 6) : std::string()) << ',' << op.baselineCalls << ',' << op.candidateCalls
            << ',' << csvText(joined(op.baselineNames)) << ',' << csvText(joined(op.candidateNames)) << "\r\n";
    }
}

} // namespace timesink::report
