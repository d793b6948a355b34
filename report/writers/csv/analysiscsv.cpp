// SPDX-License-Identifier: MIT
#include "report/core/textformat.h"
#include "report/writers/csv/csvwriter.h"

#include <cstdio>

namespace timesink::report {

std::string csvText(std::string_view text)
{
    const std::string clean = cleanText(text, true);
    std::string out = "\"";
    out.reserve(clean.size() + 4);
    if (!clean.empty() && (clean[0] == '=' || clean[0] == '+' || clean[0] == '-' || clean[0] == '@'))
        out += '\'';
    for (const char c : clean) {
        if (c == '"')
            out += "\"\"";
        else if (c == '\n')
            out += "\r\n"; // RFC 4180 line breaks inside a quoted field
        else
            out += c;
    }
    out += '"';
    return out;
}

void writeCsvFindings(const ReportModel& m, std::ostream& out)
{
    out << kCsvHeader << "\r\n";
    for (std::size_t i = 0; i < m.findings.size(); ++i) {
        const analysis::Finding& f = m.findings[i];
        const std::string percent = formatFixed(f.lostFraction * 100.0, 1);
        out << i + 1 << ',' << csvText(f.kind) << ',' << csvText(f.title) << ',' << f.lostNs << ','
            << formatMilliseconds(f.lostNs) << ',' << percent << ',' << f.occurrences << ',' << f.perStep.size() << ','
            << csvText(analysis::platformKey(f.platform)) << ',' << f.firstTs << ',' << csvText(f.explanation) << ','
            << csvText(f.recommendation) << ',' << f.savingNs << ',' << formatMilliseconds(f.savingNs) << ','
            << formatFixed(f.savingFraction * 100.0, 1) << ',' << csvText(f.savingMethod) << "\r\n";
    }
}

} // namespace timesink::report
