// SPDX-License-Identifier: MIT
#include "report/core/textformat.h"
#include "report/job/jobfacts.h"
#include "report/writers/html/jobcharts.h"
#include "report/writers/markdown/markdownwriter.h"

#include <algorithm>

namespace timesink::report {

using analysis::JobResult;
using jobfacts::Grid;
using jobfacts::gridOf;
using jobfacts::spreadSentence;
using jobfacts::widestSpread;

namespace {

std::string mdCell(std::string_view text)
{
    std::string out;
    for (const char c : cleanText(text)) {
        if (c == '|' || c == '\\' || c == '`' || c == '*' || c == '_' || c == '<' || c == '>' || c == '[' || c == ']')
            out.push_back('\\');
        out.push_back(c);
    }
    return out;
}

/// Base64 of `data` (RFC 4648, with padding).
std::string base64(std::string_view data)
{
    static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    out.reserve((data.size() + 2) / 3 * 4);
    for (std::size_t i = 0; i < data.size(); i += 3) {
        std::uint32_t v = static_cast<std::uint8_t>(data[i]) << 16;
        if (i + 1 < data.size())
            v |= static_cast<std::uint32_t>(static_cast<std::uint8_t>(data[i + 1])) << 8;
        if (i + 2 < data.size())
            v |= static_cast<std::uint8_t>(data[i + 2]);
        out.push_back(kAlphabet[(v >> 18) & 63]);
        out.push_back(kAlphabet[(v >> 12) & 63]);
        out.push_back(i + 1 < data.size() ? kAlphabet[(v >> 6) & 63] : '=');
        out.push_back(i + 2 < data.size() ? kAlphabet[v & 63] : '=');
    }
    return out;
}

/// A Markdown picture of an SVG, as a data: URI (renders in VS Code, Typora, GitLab, pandoc; the report stays
/// one file).
std::string mdImage(const std::string& alt, const std::string& svg)
{
    if (svg.empty())
        return {};
    return "![" + mdCell(alt) + "](data:image/svg+xml;base64," + base64(svg) + ")";
}

} // namespace

void writeJobMarkdown(const JobResult& job, const std::string& generator, std::ostream& out)
{
    out << "# Timesink job report\n\n";
    out << "- Ranks: " << job.ranks.size();
    if (job.worldSize > 0)
        out << " (world size " << job.worldSize << ")";
    out << "\n- Steps: " << job.steps.size() << "\n- Rank-time analysed: " << formatDuration(job.rankTimeNs)
        << "\n- Lost: **" << formatDuration(job.lostNs) << "** ("
        << formatPercent(job.rankTimeNs > 0 ? double(job.lostNs) / double(job.rankTimeNs) : 0.0) << ")\n";
    for (const std::string& w : job.warnings)
        out << "- Warning: " << mdCell(w) << "\n";
    out << "\n## Findings\n\n| # | kind | finding | lost | % |\n|---:|---|---|---:|---:|\n";
    for (std::size_t i = 0; i < job.findings.size(); ++i) {
        const analysis::Finding& f = job.findings[i];
        out << "| " << i + 1 << " | " << mdCell(kindLabel(f.kind)) << " | " << mdCell(f.title) << " | "
            << formatDuration(f.lostNs) << " | " << formatPercent(f.lostFraction) << " |\n";
    }
    out << "\n## Step time by rank (ms; communication wait in brackets)\n\n| rank |";
    const Grid g = gridOf(job);
    for (const std::int64_t s : g.steps)
        out << " step " << s << " |";
    out << "\n|---:|";
    for (std::size_t i = 0; i < g.steps.size(); ++i)
        out << "---:|";
    out << "\n";
    for (std::size_t r = 0; r < job.ranks.size(); ++r) {
        out << "| " << job.ranks[r].rank << " |";
        for (const std::int64_t s : g.steps) {
            const auto it = g.cells[r].find(s);
            out << " "
                << (it == g.cells[r].end() ? std::string("–")
                                           : formatMillisecondsRounded(it->second->durationNs) + " ["
                            + formatMillisecondsRounded(it->second->communicationWaitNs) + "]")
                << " |";
        }
        out << "\n";
    }
    if (widestSpread(job)) {
        out << "| spread |";
        for (const analysis::JobStep& s : job.steps)
            out << " "
                << (s.spreadNs > 0 ? formatMillisecondsRounded(s.spreadNs) + " (rank " + std::to_string(s.slowestRank)
                            + " slowest)"
                                   : std::string("–"))
                << " |";
        out << "\n";
    }
    // The straggler measure: how late the rank that reached the step's collectives last started the step.
    if (std::any_of(job.steps.begin(), job.steps.end(), [](const analysis::JobStep& s) { return s.lateStartNs > 0; })) {
        out << "| late start |";
        for (const analysis::JobStep& s : job.steps)
            out << " "
                << (s.lateStartNs > 0
                        ? formatMillisecondsRounded(s.lateStartNs) + " (rank " + std::to_string(s.lateRank) + ")"
                        : std::string("–"))
                << " |";
        out << "\n";
    }
    if (const std::string sentence = spreadSentence(job); !sentence.empty())
        out << "\n" << mdCell(sentence) << "\n";
    if (const std::string sentence = jobfacts::lateStartSentence(job); !sentence.empty())
        out << "\n" << mdCell(sentence) << "\n";
    out << "\n"
        << mdImage("Heat map: step time by rank and step", jobHeatMapSvg(job, JobHeatMeasure::StepTime)) << "\n\n"
        << mdImage("Heat map: communication wait by rank and step",
                   jobHeatMapSvg(job, JobHeatMeasure::CommunicationWait))
        << "\n";
    if (const std::int64_t worst = analysis::worstStep(job); worst >= 0)
        out << "\n" << mdImage("Rank lanes of step " + std::to_string(worst), jobLanesSvg(job, worst)) << "\n";
    for (std::size_t i = 0; i < job.findings.size(); ++i) {
        const analysis::Finding& f = job.findings[i];
        out << "\n### " << i + 1 << ". " << mdCell(f.title) << "\n\n";
        std::string line;
        for (const analysis::Detail& d : f.details)
            line += (line.empty() ? "" : ", ") + d.key + " = " + mdCell(analysis::detailText(d));
        if (!line.empty())
            out << "Numbers: " << line << "\n\n";
        out << mdCell(f.explanation) << "\n\n**Recommendation:** " << mdCell(f.recommendation) << "\n";
    }
    out << "\n## Ranks\n\n| rank | source | trace | analysed | top finding |\n|---:|---|---|---:|---|\n";
    for (const analysis::JobRank& r : job.ranks) {
        out << "| " << r.rank << " | " << mdCell(r.source) << " | "
            << (r.tracePath.empty() ? std::string("–") : mdCell(r.tracePath)) << " | " << formatDuration(r.analysedNs)
            << " | " << (r.findings.empty() ? std::string("–") : mdCell(r.findings.front().title)) << " |\n";
    }
    out << "\n_" << mdCell(generator) << "_\n";
}

} // namespace timesink::report
