// SPDX-License-Identifier: MIT
#include "report/jobcomparereport.h"

#include "output/outputfile.h"
#include "report/csvwriter.h"
#include "report/htmlwriter.h"
#include "report/markdownwriter.h"
#include "report/reportoutput.h"
#include "report/textformat.h"

#include <cstdio>
#include <utility>
#include <vector>

namespace timesink::report {

using model::TimeNs;

namespace {

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

void writeText(const JobCompareInput& in, std::ostream& out)
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

void writeMarkdown(const JobCompareInput& in, std::ostream& out)
{
    const analysis::JobCompareResult& r = in.result;
    out << "# Timesink job comparison\n\n| | baseline | candidate |\n|---|---|---|\n"
        << "| job | " << escapeMarkdown(in.baselinePath) << " | " << escapeMarkdown(in.candidatePath) << " |\n"
        << "| ranks (world size) | " << r.baselineRanks << " (" << worldText(r.baselineWorldSize) << ") | "
        << r.candidateRanks << " (" << worldText(r.candidateWorldSize) << ") |\n"
        << "| steps | " << r.baselineSteps << " | " << r.candidateSteps << " |\n"
        << "| stragglers | " << ranksText(r.baselineStragglers) << " | " << ranksText(r.candidateStragglers)
        << " |\n\n";
    for (const auto& [side, w] : sideWarnings(r))
        out << "- Warning (" << side << "): " << escapeMarkdown(*w) << '\n';
    out << (r.baselineWarnings.empty() && r.candidateWarnings.empty() ? "" : "\n") << "**"
        << escapeMarkdown(summarySentence(r)) << "**\n\n## Job\n\n| figure | baseline | candidate | "
        << "delta |\n|---|---:|---:|---:|\n";
    for (const analysis::JobCompareFigure& f : r.figures) {
        out << "| " << escapeMarkdown(f.label) << " | " << formatDuration(f.baselineNs) << " | "
            << formatDuration(f.candidateNs) << " | " << signedDuration(f.deltaNs()) << " |\n";
    }
    out << "\n## Ranks\n\nMean per step over each rank's own steps; caused wait = the other ranks' waiting on this "
           "rank over all its steps.\n\n| rank | baseline step | candidate step | delta | baseline wait | candidate "
           "wait | baseline caused wait | candidate caused wait |\n|---|---:|---:|---:|---:|---:|---:|---:|\n";
    for (const analysis::JobCompareRank& x : r.ranks) {
        out << "| " << x.rank << rankMark(x.baselineStraggler || x.candidateStraggler) << " | "
            << stepsCell(x.baselineSteps, x.baselineStepNs) << " | " << stepsCell(x.candidateSteps, x.candidateStepNs)
            << " | " << (x.baselineSteps && x.candidateSteps ? signedDuration(x.deltaNs()) : std::string("–")) << " | "
            << stepsCell(x.baselineSteps, x.baselineWaitNs) << " | " << stepsCell(x.candidateSteps, x.candidateWaitNs)
            << " | " << formatDuration(x.baselineCausedWaitNs) << " | " << formatDuration(x.candidateCausedWaitNs)
            << " |\n";
    }
    if (!r.lostByKind.empty()) {
        out << "\n## Lost rank-time by kind\n\n| kind | baseline | candidate | delta |\n|---|---:|---:|---:|\n";
        for (const analysis::JobCompareKind& k : r.lostByKind) {
            out << "| " << escapeMarkdown(kindLabel(k.kind)) << " | " << formatDuration(k.baselineLostNs) << " | "
                << formatDuration(k.candidateLostNs) << " | " << signedDuration(k.deltaNs()) << " |\n";
        }
    }
    if (!r.notes.empty()) {
        out << "\n## Notes\n\n";
        for (const std::string& n : r.notes)
            out << "- " << escapeMarkdown(n) << '\n';
    }
    out << "\n---\n\nGenerated by " << escapeMarkdown(in.generator) << ".\n";
}

void writeHtml(const JobCompareInput& in, std::ostream& out)
{
    const analysis::JobCompareResult& r = in.result;
    auto td = [](const std::string& text) { return "<td class=\"num\">" + escapeHtml(text) + "</td>"; };
    out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
           "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
           "img-src data:\">\n<meta name=\"generator\" content=\""
        << escapeHtml(in.generator) << "\">\n<title>Timesink job comparison: " << escapeHtml(in.baselinePath) << " vs "
        << escapeHtml(in.candidatePath) << "</title>\n<style>" << htmlReportStyle()
        << "</style>\n</head>\n<body>\n<header><h1>Timesink job comparison</h1></header>\n"
        << "<section id=\"runs\"><table><thead><tr><th></th><th>baseline</th><th>candidate</th></tr></thead><tbody>\n"
        << "<tr><th>job</th><td class=\"name\">" << escapeHtml(in.baselinePath) << "</td><td class=\"name\">"
        << escapeHtml(in.candidatePath) << "</td></tr>\n<tr><th>ranks (world size)</th><td>" << r.baselineRanks << " ("
        << worldText(r.baselineWorldSize) << ")</td><td>" << r.candidateRanks << " (" << worldText(r.candidateWorldSize)
        << ")</td></tr>\n<tr><th>steps</th><td>" << r.baselineSteps << "</td><td>" << r.candidateSteps
        << "</td></tr>\n<tr><th>stragglers</th><td>" << ranksText(r.baselineStragglers) << "</td><td>"
        << ranksText(r.candidateStragglers) << "</td></tr>\n</tbody></table>\n";
    for (const auto& [side, w] : sideWarnings(r))
        out << "<p class=\"warning\">Warning (" << side << "): " << escapeHtml(*w) << "</p>\n";
    out << "<p><strong>" << escapeHtml(summarySentence(r)) << "</strong></p></section>\n";
    out << "<section id=\"job\"><h2>Job</h2><table><thead><tr><th>figure</th><th class=\"num\">baseline</th>"
           "<th class=\"num\">candidate</th><th class=\"num\">delta</th></tr></thead><tbody>\n";
    for (const analysis::JobCompareFigure& f : r.figures) {
        out << "<tr><th>" << escapeHtml(f.label) << "</th>" << td(formatDuration(f.baselineNs))
            << td(formatDuration(f.candidateNs)) << td(signedDuration(f.deltaNs())) << "</tr>\n";
    }
    out << "</tbody></table></section>\n<section id=\"ranks\"><h2>Ranks</h2><p class=\"meta\">Mean per step over "
           "each rank's own steps; caused wait = the other ranks' waiting on this rank over all its steps.</p>"
           "<table><thead><tr><th>rank</th><th class=\"num\">baseline step</th><th class=\"num\">candidate step</th>"
           "<th class=\"num\">delta</th><th class=\"num\">baseline wait</th><th class=\"num\">candidate wait</th>"
           "<th class=\"num\">baseline caused wait</th><th class=\"num\">candidate caused wait</th></tr></thead>"
           "<tbody>\n";
    for (const analysis::JobCompareRank& x : r.ranks) {
        out << "<tr><td>" << x.rank << rankMark(x.baselineStraggler || x.candidateStraggler) << "</td>"
            << td(stepsCell(x.baselineSteps, x.baselineStepNs)) << td(stepsCell(x.candidateSteps, x.candidateStepNs))
            << td(x.baselineSteps && x.candidateSteps ? signedDuration(x.deltaNs()) : std::string("–"))
            << td(stepsCell(x.baselineSteps, x.baselineWaitNs)) << td(stepsCell(x.candidateSteps, x.candidateWaitNs))
            << td(formatDuration(x.baselineCausedWaitNs)) << td(formatDuration(x.candidateCausedWaitNs)) << "</tr>\n";
    }
    out << "</tbody></table></section>\n";
    if (!r.lostByKind.empty()) {
        out << "<section id=\"kinds\"><h2>Lost rank-time by kind</h2><table><thead><tr><th>kind</th><th "
               "class=\"num\">baseline</th><th class=\"num\">candidate</th><th class=\"num\">delta</th></tr></thead>"
               "<tbody>\n";
        for (const analysis::JobCompareKind& k : r.lostByKind) {
            out << "<tr><td>" << escapeHtml(kindLabel(k.kind)) << "</td>" << td(formatDuration(k.baselineLostNs))
                << td(formatDuration(k.candidateLostNs)) << td(signedDuration(k.deltaNs())) << "</tr>\n";
        }
        out << "</tbody></table></section>\n";
    }
    if (!r.notes.empty()) {
        out << "<section id=\"notes\"><h2>Notes</h2><ul>\n";
        for (const std::string& n : r.notes)
            out << "<li>" << escapeHtml(n) << "</li>\n";
        out << "</ul></section>\n";
    }
    out << "<footer>Generated by " << escapeHtml(in.generator) << ".</footer>\n</body>\n</html>\n";
}

void writeCsv(const analysis::JobCompareResult& r, std::ostream& out)
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

} // namespace

nlohmann::ordered_json jobCompareJson(const JobCompareInput& in)
{
    using nlohmann::ordered_json;
    const analysis::JobCompareResult& r = in.result;
    ordered_json j;
    j["schema"] = kJobCompareSchema;
    j["generator"] = in.generator;
    const auto cleaned = [](const std::vector<std::string>& texts) {
        ordered_json out = ordered_json::array();
        for (const std::string& t : texts)
            out.push_back(cleanText(t));
        return out;
    };
    j["baseline"] = {{"path", cleanText(in.baselinePath)}, {"world_size", r.baselineWorldSize},
                     {"ranks", r.baselineRanks},           {"steps", r.baselineSteps},
                     {"stragglers", r.baselineStragglers}, {"warnings", cleaned(r.baselineWarnings)}};
    j["candidate"] = {{"path", cleanText(in.candidatePath)}, {"world_size", r.candidateWorldSize},
                      {"ranks", r.candidateRanks},           {"steps", r.candidateSteps},
                      {"stragglers", r.candidateStragglers}, {"warnings", cleaned(r.candidateWarnings)}};
    ordered_json figures = ordered_json::array();
    for (const analysis::JobCompareFigure& f : r.figures) {
        figures.push_back({{"figure", f.key},
                           {"label", f.label},
                           {"baseline_ns", f.baselineNs},
                           {"candidate_ns", f.candidateNs},
                           {"delta_ns", f.deltaNs()}});
    }
    j["figures"] = std::move(figures);
    ordered_json ranks = ordered_json::array();
    for (const analysis::JobCompareRank& x : r.ranks) {
        ranks.push_back({{"rank", x.rank},
                         {"baseline_steps", x.baselineSteps},
                         {"candidate_steps", x.candidateSteps},
                         {"baseline_step_ns", x.baselineStepNs},
                         {"candidate_step_ns", x.candidateStepNs},
                         {"delta_ns", x.deltaNs()},
                         {"baseline_wait_ns", x.baselineWaitNs},
                         {"candidate_wait_ns", x.candidateWaitNs},
                         {"baseline_communication_ns", x.baselineCommunicationNs},
                         {"candidate_communication_ns", x.candidateCommunicationNs},
                         {"baseline_caused_wait_ns", x.baselineCausedWaitNs},
                         {"candidate_caused_wait_ns", x.candidateCausedWaitNs},
                         {"baseline_straggler", x.baselineStraggler},
                         {"candidate_straggler", x.candidateStraggler}});
    }
    j["ranks"] = std::move(ranks);
    ordered_json kinds = ordered_json::array();
    for (const analysis::JobCompareKind& k : r.lostByKind) {
        kinds.push_back({{"kind", k.kind},
                         {"baseline_lost_ns", k.baselineLostNs},
                         {"candidate_lost_ns", k.candidateLostNs},
                         {"delta_ns", k.deltaNs()}});
    }
    j["lost_by_kind"] = std::move(kinds);
    ordered_json notes = ordered_json::array();
    for (const std::string& n : r.notes)
        notes.push_back(cleanText(n));
    j["notes"] = std::move(notes);
    return j;
}

void writeJobCompareReport(const JobCompareInput& in, JobFormat format, std::ostream& out)
{
    switch (format) {
    case JobFormat::Text:
        writeText(in, out);
        break;
    case JobFormat::Json:
        out << jobCompareJson(in).dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << '\n';
        break;
    case JobFormat::Markdown:
        writeMarkdown(in, out);
        break;
    case JobFormat::Html:
        writeHtml(in, out);
        break;
    case JobFormat::Csv:
        writeCsv(in.result, out);
        break;
    }
}

JobFormat jobCompareFormat(ReportFormat format)
{
    switch (format) {
    case ReportFormat::Json:
        return JobFormat::Json;
    case ReportFormat::Markdown:
        return JobFormat::Markdown;
    case ReportFormat::Html:
        return JobFormat::Html;
    case ReportFormat::Csv:
        return JobFormat::Csv;
    }
    return JobFormat::Json;
}

bool writeJobCompareReportFile(const JobCompareInput& in, const std::filesystem::path& path,
                               std::span<const std::filesystem::path> inputs, std::string& error)
{
    const std::optional<ReportFormat> format = reportFormatFromPath(path);
    if (!format) {
        error = "cannot tell the format from '" + path.string() + "'; name it .html, .md, .json or .csv";
        return false;
    }
    if (!output::checkOutputPath(path, inputs, error))
        return false;
    output::AtomicFile file(path);
    if (!file.open(error))
        return false;
    writeJobCompareReport(in, jobCompareFormat(*format), file.stream());
    return file.commit(error);
}

} // namespace timesink::report
