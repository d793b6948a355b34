// SPDX-License-Identifier: MIT
#include "report/analysis/tracesummary.h"
#include "report/core/textformat.h"
#include "report/writers/markdown/markdownwriter.h"

#include <algorithm>

namespace timesink::report {

namespace {

/// escapeMarkdown for text that starts a line: a leading "-", "+", "=" or "1." would turn it into a list item or
/// a heading underline.
std::string escapeMarkdownParagraph(std::string_view text)
{
    std::string out = escapeMarkdown(text);
    std::size_t digits = 0;
    while (digits < out.size() && out[digits] >= '0' && out[digits] <= '9')
        ++digits;
    if (digits > 0 && digits < out.size() && (out[digits] == '.' || out[digits] == ')'))
        out.insert(digits, 1, '\\');
    else if (!out.empty() && (out[0] == '-' || out[0] == '+' || out[0] == '='))
        out.insert(0, 1, '\\');
    return out;
}

void writeSummary(const ReportModel& m, std::ostream& out)
{
    const ReportSummary& s = m.summary;
    const TraceSummary& t = m.trace;
    const model::TraceMetadata& meta = t.metadata;
    out << "## Summary\n\n";
    out << "- **Trace:** " << escapeMarkdown(meta.sourcePath.empty() ? "(unnamed)" : meta.sourcePath) << " ("
        << escapeMarkdown(meta.format.empty() ? "unknown format" : meta.format)
        << (meta.formatVersion.empty() ? "" : " " + escapeMarkdown(meta.formatVersion)) << ")\n";
    if (s.devices.empty()) {
        out << "- **Devices:** none (host only)\n";
    } else if (s.devices.size() > kDevicesListed) {
        // Many devices: a summary per kind, as `info` gives it (the JSON report lists them all).
        out << "- **Devices:** ";
        const std::vector<std::string> lines = deviceSummaryLines(s.devices, kDevicesListed);
        for (std::size_t i = 0; i < lines.size(); ++i)
            out << (i ? "; " : "") << escapeMarkdown(lines[i]);
        out << '\n';
    } else {
        out << "- **Devices:** ";
        for (std::size_t i = 0; i < s.devices.size(); ++i) {
            const model::Device& d = s.devices[i];
            out << (i ? ", " : "") << model::deviceKindKey(d.kind) << ' ' << d.index;
            if (!d.name.empty())
                out << " (" << escapeMarkdown(d.name) << ')';
        }
        out << '\n';
    }
    if (meta.rank >= 0)
        out << "- **Rank:** " << meta.rank << (meta.worldSize > 0 ? " of " + std::to_string(meta.worldSize) : "")
            << '\n';
    out << "- **Span:** " << formatDuration(t.spanNs) << (meta.syntheticTimestamps ? " (laid out, not measured)" : "")
        << ", " << t.slices << " slices on " << t.tracks << " tracks\n";
    if (s.syntheticSteps && s.startupNs > 0)
        out << "- **Steps:** none marked; analysed from the first to the last device activity (start-up before it: "
            << formatDuration(s.startupNs) << ", not analysed)\n";
    else if (s.syntheticSteps)
        out << "- **Steps:** none marked; the whole trace is analysed as one step\n";
    else
        out << "- **Steps:** " << t.steps << " (mean " << formatDuration(s.meanStepNs) << ")\n";
    if (s.warmupStep >= 0)
        out << "- **Warm-up:** step " << s.warmupStep << " (" << formatDuration(s.warmupNs)
            << ", more than twice the median step) "
            << (s.warmupExcluded ? "is left out of the analysis; `--include-warmup` brings it back"
                                 : "is analysed (`--include-warmup`)")
            << '\n';
    out << "- **Analysed wall time:** " << formatDuration(s.analysedNs) << '\n';
    if (const DeviceSummary& d = m.device; d.hasDeviceWork) {
        out << "- **Device:** " << analysis::busyHeadline(d) << "; compute " << formatDuration(d.computeNs)
            << ", communication " << formatDuration(d.communicationNs);
        if (d.commComputeOverlapFraction)
            out << " (" << formatPercent(*d.commComputeOverlapFraction) << " overlapped by compute, exposed "
                << formatDuration(d.exposedCommunicationNs) << ')';
        out << ", copies " << formatDuration(d.copyNs) << ", idle " << formatDuration(d.idleNs) << '\n';
        if (d.launches > 0)
            out << "- **Kernel launches:** " << d.launches << ", delay p50 " << formatDuration(d.launchDelayP50Ns)
                << ", mean " << formatDuration(d.launchDelayMeanNs) << ", p99 " << formatDuration(d.launchDelayP99Ns)
                << "; queueing delay (≥ 0) mean " << formatDuration(d.queueingDelayMeanNs) << "; "
                << d.launchesDelayedOver100us << " waited over 100 µs\n";
    }
    out << "- **Fixing all of these would save:** " << formatDuration(s.savingNs) << " ("
        << formatPercent(s.savingFraction) << " of the analysed time; the steps re-timed with every cause removed)\n";
    out << "- **Lost time (sum of findings):** " << formatDuration(s.lostNs) << " (" << formatPercent(s.lostFraction)
        << " of the analysed time; findings of different kinds can overlap)\n";
    out << "- **Findings:** " << m.findings.size() << '\n';
    if (m.cancelled)
        out << "- **Note:** the analysis was cancelled; the findings are incomplete\n";
    for (const model::ImportWarning& w : t.warnings)
        out << "- **Import warning:** " << w.count << " × " << escapeMarkdown(w.kind) << ": "
            << escapeMarkdown(w.message) << '\n';
    out << '\n';
}

void writeFindingsTable(const ReportModel& m, std::ostream& out)
{
    out << "## Findings\n\n";
    if (m.findings.empty()) {
        out << "No findings: nothing lost time above the thresholds.\n\n";
        return;
    }
    out << "| rank | kind | finding | saving | % | lost | occurrences | steps |\n";
    out << "|---:|---|---|---:|---:|---:|---:|---:|\n";
    for (std::size_t i = 0; i < m.findings.size(); ++i) {
        const analysis::Finding& f = m.findings[i];
        out << "| " << i + 1 << " | " << escapeMarkdown(f.kind) << " | [" << escapeMarkdown(f.title) << "](#finding-"
            << i + 1 << ") | " << formatDuration(f.savingNs) << " | " << formatPercent(f.savingFraction) << " | "
            << formatDuration(f.lostNs) << " | " << f.occurrences << " | " << f.perStep.size() << " |\n";
    }
    out << '\n';
}

void writeLostByKind(const ReportModel& m, std::ostream& out)
{
    if (m.lostByKind.empty())
        return;
    out << "## Lost time by kind\n\n| kind | findings | lost | % |\n|---|---:|---:|---:|\n";
    for (const KindLoss& k : m.lostByKind)
        out << "| " << escapeMarkdown(k.kind) << " | " << k.findings << " | " << formatDuration(k.lostNs) << " | "
            << formatPercent(k.fraction) << " |\n";
    out << '\n';
}

void writeSteps(const ReportModel& m, std::ostream& out)
{
    if (m.steps.empty())
        return;
    out << "## Per-step breakdown\n\n";
    out << "| step | duration | compute | communication | copies | dataloader | idle |\n";
    out << "|---:|---:|---:|---:|---:|---:|---:|\n";
    for (const StepBreakdown& s : m.steps) {
        out << "| " << (s.synthetic ? std::string("whole trace") : std::to_string(s.number)) << " | "
            << formatDuration(s.durationNs) << " | " << formatDuration(s.computeNs) << " | "
            << formatDuration(s.communicationNs) << " | " << formatDuration(s.copyNs) << " | "
            << formatDuration(s.dataloaderNs) << " | " << formatDuration(s.idleNs) << " |\n";
    }
    out << '\n';
}

void writeOperators(const ReportModel& m, std::ostream& out)
{
    if (m.topOperators.empty())
        return;
    out << "## Top operators (" << (m.operatorScope == "device" ? "device" : "host") << " time)\n\n";
    out << "| rank | operator | category | calls | total | % |\n|---:|---|---|---:|---:|---:|\n";
    // Kernel signatures run to 1,500 characters: the table shows them shortened, the full names follow it.
    std::vector<std::size_t> shortened;
    for (std::size_t i = 0; i < m.topOperators.size(); ++i) {
        const OperatorTime& op = m.topOperators[i];
        const std::string name = cleanText(op.name);
        const std::string shown = shortenSignature(name);
        if (shown != name)
            shortened.push_back(i);
        out << "| " << i + 1 << " | " << escapeMarkdown(shown) << " | " << model::categoryKey(op.category) << " | "
            << op.count << " | " << formatDuration(op.totalNs) << " | " << formatPercent(op.fraction) << " |\n";
    }
    out << '\n';
    if (!shortened.empty()) {
        out << "Full names:\n\n";
        for (const std::size_t i : shortened)
            out << i + 1 << ". " << markdownCodeSpan(cleanText(m.topOperators[i].name)) << '\n';
        out << '\n';
    }
}

void writeFindingSections(const ReportModel& m, std::ostream& out)
{
    if (m.findings.empty())
        return;
    out << "## Details\n\n";
    for (std::size_t i = 0; i < m.findings.size(); ++i) {
        const analysis::Finding& f = m.findings[i];
        out << "<a id=\"finding-" << i + 1 << "\"></a>\n\n";
        out << "### " << i + 1 << ". " << escapeMarkdown(f.title) << "\n\n";
        out << "**Kind:** " << escapeMarkdown(f.kind) << " · **saving:** " << formatDuration(f.savingNs) << " ("
            << formatPercent(f.savingFraction) << ") · **lost:** " << formatDuration(f.lostNs) << " ("
            << formatPercent(f.lostFraction) << ") · **occurrences:** " << f.occurrences << " · **platform:** "
            << analysis::platformLabel(f.platform) << "\n\n";
        if (!f.explanation.empty())
            out << escapeMarkdownParagraph(f.explanation) << "\n\n";
        out << "**Saving estimate** (" << escapeMarkdown(f.savingMethod) << "): " << escapeMarkdown(f.savingRule)
            << "\n\n";
        if (!f.recommendation.empty())
            out << "**Recommendation:** " << escapeMarkdown(f.recommendation) << "\n\n";
        if (!f.details.empty()) {
            out << "| detail | value |\n|---|---|\n";
            for (const analysis::Detail& d : f.details)
                out << "| " << escapeMarkdown(d.key) << " | " << escapeMarkdown(analysis::detailText(d)) << " |\n";
            out << '\n';
        }
        if (!f.perStep.empty()) {
            out << "| step | saving | lost | step time |\n|---:|---:|---:|---:|\n";
            for (const analysis::StepLoss& s : f.perStep)
                out << "| " << s.stepNumber << " | " << formatDuration(s.savingNs) << " | " << formatDuration(s.lostNs)
                    << " | " << formatDuration(s.stepNs) << " |\n";
            out << '\n';
        }
        if (!f.evidence.empty()) {
            const analysis::EvidenceRange& e = f.evidence.front();
            const std::string track
                = e.track.value < m.trackNames.size() ? m.trackNames[e.track.value] : std::string("unknown track");
            out << "Evidence: " << f.evidence.size() << " time range" << (f.evidence.size() == 1 ? "" : "s")
                << ", the first on " << escapeMarkdown(track) << " at +" << formatDuration(e.start - m.trace.startNs)
                << ".\n\n";
        }
        if (!m.trace.metadata.sourcePath.empty())
            out << "Open it in the viewer: " << markdownCodeSpan(viewerCommand(m.trace.metadata.sourcePath, i + 1))
                << "\n\n";
    }
}

} // namespace

std::string escapeMarkdown(std::string_view text)
{
    const std::string clean = cleanText(text);
    std::string out;
    out.reserve(clean.size() + clean.size() / 8);
    for (const char c : clean) {
        switch (c) {
        case '\\':
        case '`':
        case '*':
        case '_':
        case '[':
        case ']':
        case '<':
        case '>':
        case '|':
        case '#':
        case '~':
        case '$':
        case '!':
        case '&':
            out += '\\';
            out += c;
            break;
        default:
            out += c;
        }
    }
    return out;
}

void writeMarkdownReport(const ReportModel& m, std::ostream& out)
{
    out << "# Timesink bottleneck report\n\n";
    writeSummary(m, out);
    writeFindingsTable(m, out);
    writeLostByKind(m, out);
    writeSteps(m, out);
    writeOperators(m, out);
    writeFindingSections(m, out);
    if (!m.notAssessed.empty()) {
        out << "## Not assessed\n\n";
        for (const analysis::NotAssessed& n : m.notAssessed)
            out << "- " << escapeMarkdown(n.kind) << ": " << escapeMarkdown(n.reason) << '\n';
        out << '\n';
    }
    out << "---\n\nGenerated by " << escapeMarkdown(m.generator) << ".\n";
}

} // namespace timesink::report
