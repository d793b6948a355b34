// SPDX-License-Identifier: MIT
#include "report/core/textformat.h"
#include "report/job/jobfacts.h"
#include "report/writers/html/htmlwriter.h"
#include "report/writers/html/jobcharts.h"

namespace timesink::report {

using analysis::JobResult;
using jobfacts::spreadSentence;

void writeJobHtml(const JobResult& job, const std::string& generator, std::ostream& out)
{
    out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Timesink job report</title>\n"
           "<style>body{font:14px/1.5 -apple-system,\"Segoe UI\",Helvetica,Arial,sans-serif;max-width:1100px;"
           "margin:0 auto;padding:24px;color:#1f2328}table{border-collapse:collapse;width:100%;font-size:13px}"
           "th,td{border:1px solid #d1d9e0;padding:4px 8px;text-align:left;vertical-align:top}"
           "td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}"
           "svg{max-width:100%;height:auto;font:11px sans-serif}figcaption{color:#59636e;font-size:12px}"
           ".recommendation{background:#ddf4ff;border-left:4px solid #0969da;padding:8px 12px}</style>"
           "</head><body>\n<h1>Timesink job report</h1>\n";
    out << "<p>" << job.ranks.size() << " ranks";
    if (job.worldSize > 0)
        out << " (world size " << job.worldSize << ")";
    out << ", " << job.steps.size() << " steps. Rank-time analysed " << escapeHtml(formatDuration(job.rankTimeNs))
        << ", lost <strong>" << escapeHtml(formatDuration(job.lostNs)) << "</strong> ("
        << formatPercent(job.rankTimeNs > 0 ? double(job.lostNs) / double(job.rankTimeNs) : 0.0) << ").</p>\n";
    for (const std::string& w : job.warnings)
        out << "<p>Warning: " << escapeHtml(w) << "</p>\n";
    out << "<h2>Findings</h2>\n<table><tr><th>#</th><th>kind</th><th>finding</th><th>lost</th><th>%</th></tr>\n";
    for (std::size_t i = 0; i < job.findings.size(); ++i) {
        const analysis::Finding& f = job.findings[i];
        out << "<tr><td class=\"num\">" << i + 1 << "</td><td>" << escapeHtml(kindLabel(f.kind)) << "</td><td>"
            << escapeHtml(f.title) << "</td><td class=\"num\">" << escapeHtml(formatDuration(f.lostNs))
            << "</td><td class=\"num\">" << formatPercent(f.lostFraction) << "</td></tr>\n";
    }
    out << "</table>\n<h2>Rank × step</h2>\n";
    for (const analysis::JobMeasure m :
         {analysis::JobMeasure::StepTime, analysis::JobMeasure::CommunicationWait, analysis::JobMeasure::CausedWait})
        out << "<figure>" << jobHeatMapSvg(job, m) << "</figure>\n";
    if (const std::int64_t worst = analysis::worstStep(job); worst >= 0) {
        out << "<h2>Rank lanes of step " << worst << " (the slowest)</h2>\n<figure>" << jobLanesSvg(job, worst)
            << "<figcaption>Each rank's step on the first rank's clock (clock offsets from the collectives' ends). "
               "Hatched: waiting inside the collectives (the rank's measured wait for peers where its wait tasks "
               "give one, else the time before the last rank arrived); purple: idle inside the collectives (no "
               "plane task running, where the rank's plane tasks say so); dark blue: the rest of the exposed "
               "collective (transfer); light blue: collective time device compute overlapped; green: device compute; "
               "orange: copies and "
               "memsets; pale: the device idle; grey: a rank whose report recorded no device activity. Compute, "
               "copies and idle are drawn at 1/2048 of the step.</figcaption>"
               "</figure>\n";
    }
    if (const std::string sentence = spreadSentence(job); !sentence.empty())
        out << "<p>" << escapeHtml(sentence) << "</p>\n";
    out << "<table><tr><th>step</th><th>slowest rank</th><th>fastest rank</th><th>spread</th><th>mean</th>"
           "<th>communication wait (all ranks)</th></tr>\n";
    for (const analysis::JobStep& s : job.steps) {
        out << "<tr><td class=\"num\">" << s.number << "</td><td>" << s.slowestRank << " ("
            << escapeHtml(formatDuration(s.slowestNs)) << ")</td><td>" << s.fastestRank << " ("
            << escapeHtml(formatDuration(s.fastestNs)) << ")</td><td class=\"num\">"
            << escapeHtml(formatDuration(s.spreadNs)) << "</td><td class=\"num\">"
            << escapeHtml(formatDuration(s.meanNs)) << "</td><td class=\"num\">"
            << escapeHtml(formatDuration(s.communicationWaitNs)) << "</td></tr>\n";
    }
    out << "</table>\n<h2>Details</h2>\n";
    for (std::size_t i = 0; i < job.findings.size(); ++i) {
        const analysis::Finding& f = job.findings[i];
        out << "<h3>" << i + 1 << ". " << escapeHtml(f.title) << "</h3>\n<p>";
        for (const analysis::Detail& d : f.details)
            out << "<code>" << escapeHtml(d.key) << "</code> " << escapeHtml(analysis::detailText(d)) << " · ";
        out << "</p>\n<p>" << escapeHtml(f.explanation) << "</p>\n<p class=\"recommendation\">"
            << escapeHtml(f.recommendation) << "</p>\n";
    }
    out << "<h2>Ranks</h2>\n<table><tr><th>rank</th><th>source</th><th>trace</th><th>analysed</th><th>top "
           "finding</th></tr>\n";
    for (const analysis::JobRank& r : job.ranks) {
        out << "<tr><td class=\"num\">" << r.rank << "</td><td>" << escapeHtml(r.source) << "</td><td>"
            << escapeHtml(r.tracePath) << "</td><td class=\"num\">" << escapeHtml(formatDuration(r.analysedNs))
            << "</td><td>" << (r.findings.empty() ? std::string("–") : escapeHtml(r.findings.front().title))
            << "</td></tr>\n";
    }
    out << "</table>\n<footer>" << escapeHtml(generator) << "</footer>\n</body></html>\n";
}

} // namespace timesink::report
