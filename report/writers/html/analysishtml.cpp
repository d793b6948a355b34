// SPDX-License-Identifier: MIT
#include "report/analysis/tracesummary.h"
#include "report/core/textformat.h"
#include "report/writers/html/htmlwriter.h"

#include <algorithm>
#include <array>
#include <cstdio>

namespace timesink::report {

namespace {

constexpr std::array<std::string_view, 5> kBreakdownColors = {"#4c78a8", "#72b7b2", "#f58518", "#e45756", "#bab0ac"};
constexpr std::array<std::string_view, 5> kBreakdownNames
    = {"compute", "communication", "copies", "dataloader", "idle"};

std::string num(double v)
{
    return formatFixed(v, 1);
}

void writeSummary(const ReportModel& m, std::ostream& out)
{
    const ReportSummary& s = m.summary;
    const TraceSummary& t = m.trace;
    const model::TraceMetadata& meta = t.metadata;
    out << "<section id=\"summary\"><h2>Summary</h2><dl class=\"summary\">\n";
    auto row = [&](std::string_view label, const std::string& valueHtml) {
        out << "<dt>" << label << "</dt><dd>" << valueHtml << "</dd>\n";
    };
    row("Format",
        escapeHtml(meta.format.empty() ? "unknown" : meta.format)
            + (meta.formatVersion.empty() ? "" : " " + escapeHtml(meta.formatVersion)));
    std::string devices;
    if (s.devices.size() > kDevicesListed) {
        // Many devices: a summary per kind, as `info` gives it (the JSON report lists them all).
        for (const std::string& line : deviceSummaryLines(s.devices, kDevicesListed))
            devices += (devices.empty() ? "" : "; ") + escapeHtml(line);
    } else {
        for (const model::Device& d : s.devices) {
            devices += (devices.empty() ? "" : ", ") + std::string(model::deviceKindKey(d.kind)) + " "
                + std::to_string(d.index) + (d.name.empty() ? "" : " (" + escapeHtml(d.name) + ")");
        }
    }
    row("Devices", devices.empty() ? "none (host only)" : devices);
    if (meta.rank >= 0)
        row("Rank", std::to_string(meta.rank) + (meta.worldSize > 0 ? " of " + std::to_string(meta.worldSize) : ""));
    row("Span", escapeHtml(formatDuration(t.spanNs)) + (meta.syntheticTimestamps ? " (laid out, not measured)" : ""));
    row("Events", std::to_string(t.slices) + " slices on " + std::to_string(t.tracks) + " tracks");
    row("Steps",
        s.syntheticSteps && s.startupNs > 0
            ? "none marked; analysed from the first to the last device activity (start-up before it: "
                + escapeHtml(formatDuration(s.startupNs)) + ", not analysed)"
            : s.syntheticSteps ? std::string("none marked; the whole trace is one step")
                               : std::to_string(t.steps) + " (mean " + escapeHtml(formatDuration(s.meanStepNs)) + ")");
    if (s.warmupStep >= 0)
        row("Warm-up",
            "step " + std::to_string(s.warmupStep) + " (" + escapeHtml(formatDuration(s.warmupNs))
                + ", more than twice the median step) "
                + (s.warmupExcluded ? "is left out of the analysis; <code>--include-warmup</code> brings it back"
                                    : "is analysed (<code>--include-warmup</code>)"));
    row("Analysed wall time", escapeHtml(formatDuration(s.analysedNs)));
    if (const DeviceSummary& d = m.device; d.hasDeviceWork) {
        std::string text = "<strong>" + escapeHtml(analysis::busyHeadline(d)) + "</strong>; compute "
            + escapeHtml(formatDuration(d.computeNs)) + ", communication "
            + escapeHtml(formatDuration(d.communicationNs));
        if (d.commComputeOverlapFraction)
            text += " (" + formatPercent(*d.commComputeOverlapFraction) + " overlapped by compute, exposed "
                + escapeHtml(formatDuration(d.exposedCommunicationNs)) + ")";
        text += ", copies " + escapeHtml(formatDuration(d.copyNs)) + ", idle " + escapeHtml(formatDuration(d.idleNs));
        row("Device", text);
        if (d.launches > 0)
            row("Kernel launches",
                std::to_string(d.launches) + ", delay p50 " + escapeHtml(formatDuration(d.launchDelayP50Ns)) + ", mean "
                    + escapeHtml(formatDuration(d.launchDelayMeanNs)) + ", p99 "
                    + escapeHtml(formatDuration(d.launchDelayP99Ns)) + "; queueing delay (≥ 0) mean "
                    + escapeHtml(formatDuration(d.queueingDelayMeanNs)) + "; "
                    + std::to_string(d.launchesDelayedOver100us) + " waited over 100 µs");
    }
    row("Fixing all would save",
        "<strong>" + escapeHtml(formatDuration(s.savingNs)) + "</strong> (" + formatPercent(s.savingFraction)
            + " of the analysed time; the steps re-timed with every cause removed)");
    row("Lost time",
        "<strong>" + escapeHtml(formatDuration(s.lostNs)) + "</strong> (" + formatPercent(s.lostFraction)
            + " of the analysed time; findings of different kinds can overlap)");
    row("Findings", std::to_string(m.findings.size()));
    if (m.cancelled)
        row("Note", "<span class=\"warning\">the analysis was cancelled; the findings are incomplete</span>");
    for (const model::ImportWarning& w : t.warnings)
        row("Import warning",
            "<span class=\"warning\">" + std::to_string(w.count) + " × " + escapeHtml(w.kind) + ": "
                + escapeHtml(w.message) + "</span>");
    out << "</dl></section>\n";
}

void writeFindingsTable(const ReportModel& m, std::ostream& out)
{
    out << "<section id=\"findings\"><h2>Findings</h2>\n";
    if (m.findings.empty()) {
        out << "<p>No findings: nothing lost time above the thresholds.</p></section>\n";
        return;
    }
    out << "<table><thead><tr><th class=\"num\">rank</th><th>kind</th><th>finding</th><th class=\"num\">saving</th>"
           "<th class=\"num\">%</th><th class=\"num\">lost</th><th class=\"num\">occurrences</th><th "
           "class=\"num\">steps</th></tr></thead><tbody>\n";
    for (std::size_t i = 0; i < m.findings.size(); ++i) {
        const analysis::Finding& f = m.findings[i];
        out << "<tr><td class=\"num\">" << i + 1 << "</td><td class=\"kind\">" << escapeHtml(f.kind)
            << "</td><td class=\"name\"><a href=\"#finding-" << i + 1 << "\">" << escapeHtml(f.title)
            << "</a></td><td class=\"num\">" << escapeHtml(formatDuration(f.savingNs)) << "</td><td class=\"num\">"
            << formatPercent(f.savingFraction) << "</td><td class=\"num\">" << escapeHtml(formatDuration(f.lostNs))
            << "</td><td class=\"num\">" << f.occurrences << "</td><td class=\"num\">" << f.perStep.size()
            << "</td></tr>\n";
    }
    out << "</tbody></table></section>\n";
}

/// Horizontal bar chart; labels and tooltips are escaped here.
struct Bar
{
    std::string label;
    std::string tooltip;
    std::string valueText;
    double value = 0;
};

void writeBarChart(std::ostream& out, const std::vector<Bar>& bars, std::string_view color, std::string_view ariaLabel)
{
    constexpr int kLabelWidth = 260;
    constexpr int kBarArea = 380;
    constexpr int kRow = 20;
    const int height = static_cast<int>(bars.size()) * kRow + 8;
    double max = 0;
    for (const Bar& b : bars)
        max = std::max(max, b.value);
    out << "<svg role=\"img\" aria-label=\"" << ariaLabel << "\" width=\"760\" height=\"" << height
        << "\" viewBox=\"0 0 760 " << height << "\">\n";
    for (std::size_t i = 0; i < bars.size(); ++i) {
        const Bar& b = bars[i];
        const int y = static_cast<int>(i) * kRow + 4;
        const double w = max > 0 ? b.value / max * kBarArea : 0;
        out << "<g><title>" << escapeHtml(b.tooltip) << "</title>";
        out << "<text x=\"" << kLabelWidth - 6 << "\" y=\"" << y + 13 << "\" text-anchor=\"end\">"
            << escapeHtml(truncateText(cleanText(b.label), 36)) << "</text>";
        out << "<rect x=\"" << kLabelWidth << "\" y=\"" << y + 2 << "\" width=\"" << num(std::max(w, 1.0))
            << "\" height=\"" << kRow - 6 << "\" fill=\"" << color << "\"/>";
        out << "<text x=\"" << num(kLabelWidth + std::max(w, 1.0) + 6) << "\" y=\"" << y + 13 << "\">"
            << escapeHtml(b.valueText) << "</text></g>\n";
    }
    out << "</svg>\n";
}

void writeStepChart(const ReportModel& m, std::ostream& out)
{
    constexpr std::size_t kMaxSteps = 100;
    constexpr int kLabelWidth = 90;
    constexpr int kBarArea = 560;
    constexpr int kRow = 18;
    constexpr int kLegend = 24;
    const std::size_t shown = std::min(m.steps.size(), kMaxSteps);
    model::TimeNs longest = 0;
    for (std::size_t i = 0; i < shown; ++i)
        longest = std::max(longest, m.steps[i].durationNs);
    const int height = kLegend + static_cast<int>(shown) * kRow + 8;
    out << "<figure><svg role=\"img\" aria-label=\"Per-step breakdown\" "
           "width=\"760\" height=\""
        << height << "\" viewBox=\"0 0 760 " << height << "\">\n";
    for (std::size_t c = 0; c < kBreakdownNames.size(); ++c) {
        const int x = kLabelWidth + static_cast<int>(c) * 120;
        out << "<rect x=\"" << x << "\" y=\"4\" width=\"12\" height=\"12\" fill=\"" << kBreakdownColors[c]
            << "\"/><text x=\"" << x + 16 << "\" y=\"14\">" << kBreakdownNames[c] << "</text>\n";
    }
    for (std::size_t i = 0; i < shown; ++i) {
        const StepBreakdown& s = m.steps[i];
        const int y = kLegend + static_cast<int>(i) * kRow;
        const std::string label = s.synthetic ? std::string("whole trace") : "step " + std::to_string(s.number);
        out << "<text x=\"" << kLabelWidth - 6 << "\" y=\"" << y + 12 << "\" text-anchor=\"end\">" << label
            << "</text>";
        const std::array<model::TimeNs, 5> parts = {s.computeNs, s.communicationNs, s.copyNs, s.dataloaderNs, s.idleNs};
        double x = kLabelWidth;
        for (std::size_t c = 0; c < parts.size(); ++c) {
            if (parts[c] <= 0 || longest <= 0)
                continue;
            const double w = static_cast<double>(parts[c]) / static_cast<double>(longest) * kBarArea;
            out << "<rect x=\"" << num(x) << "\" y=\"" << y + 2 << "\" width=\"" << num(w) << "\" height=\"" << kRow - 5
                << "\" fill=\"" << kBreakdownColors[c] << "\"><title>" << label << ": " << kBreakdownNames[c] << ' '
                << escapeHtml(formatDuration(parts[c])) << "</title></rect>";
            x += w;
        }
        out << "<text x=\"" << num(x + 6) << "\" y=\"" << y + 12 << "\">" << escapeHtml(formatDuration(s.durationNs))
            << "</text>\n";
    }
    out << "</svg><figcaption>Per-step breakdown: where each step's wall time went (each nanosecond counted once, "
           "in legend order)";
    if (shown < m.steps.size())
        out << "; the first " << shown << " of " << m.steps.size() << " steps";
    out << ".</figcaption></figure>\n";
}

void writeCharts(const ReportModel& m, std::ostream& out)
{
    out << "<section id=\"charts\"><h2>Where the time goes</h2>\n";
    if (!m.steps.empty())
        writeStepChart(m, out);
    if (!m.lostByKind.empty()) {
        std::vector<Bar> bars;
        for (const KindLoss& k : m.lostByKind) {
            bars.push_back(
                {kindLabel(k.kind),
                 k.kind + ": " + formatDuration(k.lostNs) + " in " + std::to_string(k.findings) + " finding(s)",
                 formatDuration(k.lostNs) + " (" + formatPercent(k.fraction) + ")", static_cast<double>(k.lostNs)});
        }
        out << "<figure>";
        writeBarChart(out, bars, "#e45756", "Lost time by kind");
        out << "<figcaption>Lost time by kind, as a share of the analysed wall time.</figcaption></figure>\n";
    }
    if (!m.topOperators.empty()) {
        std::vector<Bar> bars;
        for (const OperatorTime& op : m.topOperators) {
            bars.push_back({op.name,
                            op.name + ": " + std::to_string(op.count) + " calls, " + formatDuration(op.totalNs),
                            formatDuration(op.totalNs) + " (" + formatPercent(op.fraction) + ")",
                            static_cast<double>(op.totalNs)});
        }
        out << "<figure>";
        writeBarChart(out, bars, "#4c78a8", "Top operators");
        out << "<figcaption>Top operators by " << (m.operatorScope == "device" ? "device" : "host")
            << " time.</figcaption></figure>\n";
    }
    out << "</section>\n";
}

void writeStepTable(const ReportModel& m, std::ostream& out)
{
    if (m.steps.empty())
        return;
    out << "<section id=\"steps\"><h2>Per-step breakdown</h2><table><thead><tr><th class=\"num\">step</th>"
           "<th class=\"num\">duration</th>";
    for (std::string_view name : kBreakdownNames)
        out << "<th class=\"num\">" << name << "</th>";
    out << "</tr></thead><tbody>\n";
    for (const StepBreakdown& s : m.steps) {
        out << "<tr><td class=\"num\">" << (s.synthetic ? std::string("whole trace") : std::to_string(s.number))
            << "</td>";
        for (const model::TimeNs v : {s.durationNs, s.computeNs, s.communicationNs, s.copyNs, s.dataloaderNs, s.idleNs})
            out << "<td class=\"num\">" << escapeHtml(formatDuration(v)) << "</td>";
        out << "</tr>\n";
    }
    out << "</tbody></table></section>\n";
}

void writeOperatorTable(const ReportModel& m, std::ostream& out)
{
    if (m.topOperators.empty())
        return;
    out << "<section id=\"operators\"><h2>Top operators (" << (m.operatorScope == "device" ? "device" : "host")
        << " time)</h2><table><thead><tr><th class=\"num\">rank</th><th>operator</th><th>category</th>"
           "<th class=\"num\">calls</th><th class=\"num\">total</th><th class=\"num\">%</th></tr></thead><tbody>\n";
    for (std::size_t i = 0; i < m.topOperators.size(); ++i) {
        const OperatorTime& op = m.topOperators[i];
        out << "<tr><td class=\"num\">" << i + 1 << "</td><td class=\"name\"><code>" << escapeHtml(op.name)
            << "</code></td><td>" << model::categoryKey(op.category) << "</td><td class=\"num\">" << op.count
            << "</td><td class=\"num\">" << escapeHtml(formatDuration(op.totalNs)) << "</td><td class=\"num\">"
            << formatPercent(op.fraction) << "</td></tr>\n";
    }
    out << "</tbody></table></section>\n";
}

void writeFindingSections(const ReportModel& m, std::ostream& out)
{
    if (m.findings.empty())
        return;
    out << "<section id=\"details\"><h2>Details</h2>\n";
    for (std::size_t i = 0; i < m.findings.size(); ++i) {
        const analysis::Finding& f = m.findings[i];
        out << "<article class=\"finding\" id=\"finding-" << i + 1 << "\"><h3>" << i + 1 << ". " << escapeHtml(f.title)
            << "</h3>\n";
        out << "<p class=\"meta\"><span class=\"kind\">" << escapeHtml(f.kind) << "</span> · saving <strong>"
            << escapeHtml(formatDuration(f.savingNs)) << "</strong> (" << formatPercent(f.savingFraction)
            << ") · lost <strong>" << escapeHtml(formatDuration(f.lostNs)) << "</strong> ("
            << formatPercent(f.lostFraction) << ") · " << f.occurrences << " occurrence"
            << (f.occurrences == 1 ? "" : "s") << " · " << escapeHtml(analysis::platformLabel(f.platform)) << "</p>\n";
        if (!f.explanation.empty())
            out << "<p>" << escapeHtml(f.explanation) << "</p>\n";
        out << "<p class=\"saving\"><strong>Saving estimate</strong> (" << escapeHtml(f.savingMethod)
            << "): " << escapeHtml(f.savingRule) << "</p>\n";
        if (!f.recommendation.empty())
            out << "<p class=\"recommendation\"><strong>Recommendation:</strong> " << escapeHtml(f.recommendation)
                << "</p>\n";
        if (!f.details.empty()) {
            out << "<table><thead><tr><th>detail</th><th>value</th></tr></thead><tbody>";
            for (const analysis::Detail& d : f.details)
                out << "<tr><td>" << escapeHtml(d.key) << "</td><td class=\"name\">"
                    << escapeHtml(analysis::detailText(d)) << "</td></tr>";
            out << "</tbody></table>\n";
        }
        if (!f.perStep.empty()) {
            out << "<table><thead><tr><th class=\"num\">step</th><th class=\"num\">saving</th>"
                   "<th class=\"num\">lost</th>"
                   "<th class=\"num\">step time</th></tr></thead><tbody>";
            for (const analysis::StepLoss& s : f.perStep)
                out << "<tr><td class=\"num\">" << s.stepNumber << "</td><td class=\"num\">"
                    << escapeHtml(formatDuration(s.savingNs)) << "</td><td class=\"num\">"
                    << escapeHtml(formatDuration(s.lostNs)) << "</td><td class=\"num\">"
                    << escapeHtml(formatDuration(s.stepNs)) << "</td></tr>";
            out << "</tbody></table>\n";
        }
        if (!f.evidence.empty()) {
            const analysis::EvidenceRange& e = f.evidence.front();
            const std::string track
                = e.track.value < m.trackNames.size() ? m.trackNames[e.track.value] : std::string("unknown track");
            out << "<p class=\"meta\">Evidence: " << f.evidence.size() << " time range"
                << (f.evidence.size() == 1 ? "" : "s") << ", the first on " << escapeHtml(track) << " at +"
                << escapeHtml(formatDuration(e.start - m.trace.startNs)) << ".</p>\n";
        }
        if (!m.trace.metadata.sourcePath.empty())
            out << "<p class=\"meta\">Open it in the viewer: <code>"
                << escapeHtml(viewerCommand(m.trace.metadata.sourcePath, i + 1)) << "</code></p>\n";
        out << "</article>\n";
    }
    out << "</section>\n";
}

} // namespace

void writeHtmlReport(const ReportModel& m, std::ostream& out)
{
    const std::string source
        = m.trace.metadata.sourcePath.empty() ? std::string("(unnamed trace)") : m.trace.metadata.sourcePath;
    out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
           "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
           // Belt and braces: even if an escaping bug let markup through, the browser would run no script
           // and fetch nothing.
           "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
           "img-src data:\">\n"
           "<meta name=\"generator\" content=\""
        << escapeHtml(m.generator) << "\">\n<title>Timesink report: " << escapeHtml(source) << "</title>\n<style>"
        << htmlReportStyle()
        << "</style>\n</head>\n<body>\n<header><h1>Timesink bottleneck report</h1><p class=\"source\">"
        << escapeHtml(source) << "</p></header>\n";
    writeSummary(m, out);
    writeFindingsTable(m, out);
    writeCharts(m, out);
    writeFindingSections(m, out);
    writeStepTable(m, out);
    writeOperatorTable(m, out);
    if (!m.notAssessed.empty()) {
        out << "<section id=\"not-assessed\"><h2>Not assessed</h2><ul>\n";
        for (const analysis::NotAssessed& n : m.notAssessed)
            out << "<li><span class=\"kind\">" << escapeHtml(n.kind) << "</span>: " << escapeHtml(n.reason)
                << "</li>\n";
        out << "</ul></section>\n";
    }
    out << "<footer>Generated by " << escapeHtml(m.generator) << ".</footer>\n</body>\n</html>\n";
}

} // namespace timesink::report
