// SPDX-License-Identifier: MIT
#include "report/core/textformat.h"
#include "report/writers/text/textwriter.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace timesink::report {

namespace {

std::string signedDuration(model::TimeNs ns)
{
    return (ns > 0 ? "+" : "") + formatDuration(ns);
}

/// "a, b" (at most three names, then "+N more"); "—" for none.
std::string namesOf(const std::vector<std::string>& names)
{
    if (names.empty())
        return "—";
    std::string text;
    for (std::size_t i = 0; i < names.size() && i < 3; ++i)
        text += (i ? ", " : "") + names[i];
    if (names.size() > 3)
        text += " +" + std::to_string(names.size() - 3) + " more";
    return text;
}

std::string stepLabel(const model::Trace& trace, std::size_t index)
{
    const model::Step& s = trace.steps()[index];
    return s.synthetic ? std::string("(whole trace)") : "#" + std::to_string(s.number);
}

std::string column(std::string_view text, std::size_t width)
{
    std::string out = truncateText(terminalText(text), width);
    // Pad by code points so "µs" lines up.
    std::size_t points = 0;
    for (unsigned char c : out)
        points += (c & 0xC0) != 0x80;
    if (points < width)
        out.append(width - points, ' ');
    return out;
}

std::string rightColumn(std::string_view text, std::size_t width)
{
    std::size_t points = 0;
    for (unsigned char c : text)
        points += (c & 0xC0) != 0x80;
    return points < width ? std::string(width - points, ' ') + std::string(text) : std::string(text);
}

std::string ratioColumn(std::optional<double> ratio)
{
    char text[32] = "–";
    if (ratio)
        std::snprintf(text, sizeof text, "%.2f×", *ratio);
    return text;
}

std::string idColumn(const std::optional<std::int64_t>& id)
{
    return id ? std::to_string(*id) : std::string("–");
}

/// Per work class, each run's efficiency against its own chip and, for a class that got slower, the chip or the port.
void writeEfficiencyByClass(const analysis::efficiency::CompareEfficiency& e, std::ostream& out)
{
    if (e.classes.empty())
        return;
    out << "\nEfficiency by class (whole traces)\n  " << terminalText(analysis::efficiency::efficiencyHeadline(e))
        << "\n  " << column("class", 14) << column("baseline", 37) << column("candidate", 37) << rightColumn("speed", 7)
        << "  "
        << "limit\n";
    const std::vector<analysis::efficiency::EfficiencyRow> rows = analysis::efficiency::efficiencyRows(e);
    for (const analysis::efficiency::EfficiencyRow& row : rows) {
        out << "  " << column(row.cls, 14) << column(row.baseline, 37) << column(row.candidate, 37)
            << rightColumn(row.speed, 7) << "  " << row.cause << '\n';
    }
    for (const analysis::efficiency::EfficiencyRow& row : rows) {
        if (row.cause == "chip" || row.cause == "port" || row.cause == "chip_and_port")
            out << "  " << row.cls << ": " << terminalText(row.why) << '\n';
    }
}

/// The layer comparison of two edge runs: op types, the layers whose placement changed, the layers by delta.
void printLayers(const analysis::CompareLayers& l, std::size_t top, std::ostream& out)
{
    out << "\nLayers (edge runs)\n  " << terminalText(analysis::layerSummaryText(l)) << "\n\n  "
        << column("op type", 18) << rightColumn("layers", 10) << rightColumn("baseline", 11)
        << rightColumn("candidate", 11) << rightColumn("delta", 11) << rightColumn("ratio", 8)
        << rightColumn("split", 9) << rightColumn("moved", 7) << '\n';
    for (const analysis::CompareLayerOpType& t : l.opTypes) {
        out << "  " << column(t.opType, 18)
            << rightColumn(std::to_string(t.baselineLayers) + " → " + std::to_string(t.candidateLayers), 10)
            << rightColumn(formatDuration(t.baselineNs), 11) << rightColumn(formatDuration(t.candidateNs), 11)
            << rightColumn(signedDuration(t.deltaNs()), 11) << rightColumn(ratioColumn(t.ratio()), 8)
            << rightColumn(std::to_string(t.baselineSplitLayers) + " → " + std::to_string(t.candidateSplitLayers), 9)
            << rightColumn(std::to_string(t.placementChanged), 7) << '\n';
    }
    auto row = [&](const analysis::CompareLayer& x) {
        out << "  " << rightColumn(idColumn(x.baselineId), 4) << rightColumn(idColumn(x.candidateId), 5) << "  "
            << column(x.opType, 16) << column(analysis::layerPlacementChange(x), 24)
            << rightColumn(formatDuration(x.baselineNs), 11) << rightColumn(formatDuration(x.candidateNs), 11)
            << rightColumn(signedDuration(x.deltaNs()), 11) << rightColumn(ratioColumn(x.ratio()), 8) << "  "
            << analysis::layerMatchKey(x.match) << '\n'
            << "             " << truncateText(terminalText(x.name), 90) << '\n';
    };
    auto header = [&](const char* title) {
        out << '\n'
            << title << "\n  " << rightColumn("base", 4) << rightColumn("cand", 5) << "  " << column("op type", 16)
            << column("placement", 24) << rightColumn("baseline", 11) << rightColumn("candidate", 11)
            << rightColumn("delta", 11) << rightColumn("ratio", 8) << "  matched by\n";
    };
    if (l.placementChanged > 0) {
        header("  Layers whose placement changed");
        std::size_t shown = 0;
        for (const analysis::CompareLayer& x : l.layers) {
            if (x.placementChanged() && shown++ < top)
                row(x);
        }
        if (shown > top)
            out << "  … " << (shown - top) << " more (--top N, or --format json for all)\n";
    }
    header("  Layers by delta (slower first)");
    const std::size_t shown = std::min(top, l.layers.size());
    for (std::size_t i = 0; i < shown; ++i)
        row(l.layers[i]);
    if (shown < l.layers.size())
        out << "  … " << (l.layers.size() - shown) << " more (--top N, or --format json for all)\n";
}

void printText(const model::Trace& base, std::span<const analysis::Finding> baseFindings, const model::Trace& cand,
               std::span<const analysis::Finding> candFindings, const analysis::CompareResult& r, std::size_t top,
               std::ostream& out)
{
    auto runLine = [&](const char* label, const model::Trace& t, const analysis::CompareSide& side) {
        out << label << terminalText(t.metadata().sourcePath) << "\n           " << terminalText(t.metadata().format)
            << ", " << terminalText(deviceDescription(t)) << ", operator time on the "
            << (side.deviceTimed ? "device" : "host");
        if (side.deviceTimed) {
            out << " (" << side.attributedSlices << " of " << side.workSlices
                << " device slices linked to framework operators)";
        }
        out << '\n';
    };
    runLine("baseline   ", base, r.baseline);
    runLine("candidate  ", cand, r.candidate);

    out << "\nSteps\n  " << column("baseline ↔ candidate", 30) << rightColumn("baseline", 12)
        << rightColumn("candidate", 12) << rightColumn("delta", 12) << '\n';
    for (const analysis::CompareStepPair& p : r.steps) {
        out << "  " << column(stepLabel(base, p.baselineIndex) + " ↔ " + stepLabel(cand, p.candidateIndex), 30)
            << rightColumn(formatDuration(p.baselineNs), 12) << rightColumn(formatDuration(p.candidateNs), 12)
            << rightColumn(signedDuration(p.deltaNs()), 12) << '\n';
    }
    const model::TimeNs baseTotal = r.baselineStepsNs();
    const model::TimeNs candTotal = r.candidateStepsNs();
    out << "  " << column("total", 30) << rightColumn(formatDuration(baseTotal), 12)
        << rightColumn(formatDuration(candTotal), 12) << rightColumn(signedDuration(candTotal - baseTotal), 12);
    if (baseTotal > 0) {
        char ratio[48];
        std::snprintf(ratio, sizeof ratio, "  (%.2f× the baseline)",
                      static_cast<double>(candTotal) / static_cast<double>(baseTotal));
        out << ratio;
    }
    out << '\n';

    auto deviceRow = [&](std::string_view label, model::TimeNs b, model::TimeNs c) {
        out << "  " << column(label, 30) << rightColumn(formatDuration(b), 12) << rightColumn(formatDuration(c), 12)
            << rightColumn(signedDuration(c - b), 12) << '\n';
    };
    if (r.baseline.device.hasDeviceWork || r.candidate.device.hasDeviceWork) {
        const analysis::DeviceBreakdown& bd = r.baseline.device;
        const analysis::DeviceBreakdown& cd = r.candidate.device;
        out << "\nDevice breakdown (over the compared steps' device windows)\n  " << column("", 30)
            << rightColumn("baseline", 12) << rightColumn("candidate", 12) << rightColumn("delta", 12) << '\n';
        deviceRow("compute", bd.computeNs, cd.computeNs);
        deviceRow("exposed communication", bd.exposedCommunicationNs, cd.exposedCommunicationNs);
        deviceRow("exposed copies", bd.exposedCopyNs, cd.exposedCopyNs);
        deviceRow("idle", bd.idleNs, cd.idleNs);
        deviceRow("device window", bd.windowNs, cd.windowNs);
    }
    if (!r.waterfall.empty()) {
        out << "\nWaterfall: from the baseline's step time to the candidate's\n  " << column("", 30)
            << rightColumn("baseline", 12) << rightColumn("candidate", 12) << rightColumn("delta", 12) << '\n';
        out << "  " << column("baseline step time", 30) << rightColumn(formatDuration(baseTotal), 12) << '\n';
        for (const analysis::WaterfallPart& p : r.waterfall)
            deviceRow(p.label, p.baselineNs, p.candidateNs);
        out << "  " << column("candidate step time", 30) << rightColumn("", 12)
            << rightColumn(formatDuration(candTotal), 12) << rightColumn(signedDuration(candTotal - baseTotal), 12)
            << '\n';
    }
    if (!r.classes.empty()) {
        out << "\nKernel classes (device work over the compared steps)\n  " << column("class", 30)
            << rightColumn("baseline", 12) << rightColumn("calls", 7) << rightColumn("candidate", 12)
            << rightColumn("calls", 7) << rightColumn("delta", 12) << '\n';
        for (const analysis::CompareClass& c : r.classes) {
            out << "  " << column(analysis::kernelClassLabel(c.cls), 30)
                << rightColumn(formatDuration(c.baselineNs), 12) << rightColumn(std::to_string(c.baselineCalls), 7)
                << rightColumn(formatDuration(c.candidateNs), 12) << rightColumn(std::to_string(c.candidateCalls), 7)
                << rightColumn(signedDuration(c.deltaNs()), 12) << '\n';
        }
    }
    writeEfficiencyByClass(r.efficiency, out);

    out << "\nOperators with the largest deltas (over the compared steps)\n  " << column("operator", 44)
        << rightColumn("baseline", 11) << rightColumn("calls", 7) << rightColumn("candidate", 11)
        << rightColumn("calls", 7) << rightColumn("delta", 12) << rightColumn("ratio", 8) << '\n';
    const std::size_t shown = std::min(top, r.operators.size());
    for (std::size_t i = 0; i < shown; ++i) {
        const analysis::CompareOperator& op = r.operators[i];
        char ratio[32] = "new";
        if (op.candidateNs == 0 && op.baselineNs != 0)
            std::snprintf(ratio, sizeof ratio, "gone");
        else if (const auto q = op.ratio())
            std::snprintf(ratio, sizeof ratio, "%.2f×", *q);
        out << "  " << column(op.name, 44) << rightColumn(formatDuration(op.baselineNs), 11)
            << rightColumn(std::to_string(op.baselineCalls), 7) << rightColumn(formatDuration(op.candidateNs), 11)
            << rightColumn(std::to_string(op.candidateCalls), 7) << rightColumn(signedDuration(op.deltaNs()), 12)
            << rightColumn(ratio, 8) << '\n';
        // Say which names were merged, so a mapped vendor name (Conv2D1, ConvExSwish) is not a surprise.
        auto renamed = [&](const std::vector<std::string>& names) {
            return !names.empty() && names != std::vector<std::string> {op.name};
        };
        if (renamed(op.baselineNames) || renamed(op.candidateNames))
            out << "    "
                << truncateText(terminalText(namesOf(op.baselineNames) + " ↔ " + namesOf(op.candidateNames)), 100)
                << '\n';
    }
    if (shown < r.operators.size())
        out << "  … " << (r.operators.size() - shown) << " more (--top N, or --format json for all)\n";
    if (r.operators.empty())
        out << "  (no operators in the compared steps)\n";

    if (r.layers.present)
        printLayers(r.layers, top, out);

    out << "\nFindings that differ (lost time over the compared steps)\n";
    if (r.explanations.empty())
        out << "  none: both runs have the same findings with the same lost time\n";
    for (const analysis::CompareExplanation& e : r.explanations) {
        const char* status = "";
        switch (e.status) {
        case analysis::CompareExplanation::Status::CandidateOnly:
            status = "candidate only";
            break;
        case analysis::CompareExplanation::Status::BaselineOnly:
            status = "baseline only";
            break;
        case analysis::CompareExplanation::Status::Grew:
            status = "grew";
            break;
        case analysis::CompareExplanation::Status::Shrank:
            status = "shrank";
            break;
        }
        out << "  " << column(status, 16) << terminalText(e.title) << '\n'
            << "  " << std::string(16, ' ') << kindLabel(e.kind) << ": " << formatDuration(e.baselineLostNs) << " → "
            << formatDuration(e.candidateLostNs) << " (" << signedDuration(e.deltaNs());
        if (e.shareOfStepDelta > 0)
            out << ", " << formatPercent(e.shareOfStepDelta) << " of the step-time difference";
        out << ")\n";
    }
    if (const std::string note = explanationSharesNote(r); !note.empty())
        out << "  " << note << '\n';
    out << "\nFindings: " << baseFindings.size() << " in the baseline, " << candFindings.size()
        << " in the candidate (timesink-cli analyze PATH for details)\n";
    if (!r.notes.empty()) {
        out << "\nNotes\n";
        for (const std::string& n : r.notes)
            out << "  - " << terminalText(n) << '\n';
    }
}

} // namespace

void writeCompareText(const CompareRun& baseline, const CompareRun& candidate, const analysis::CompareResult& result,
                      std::ostream& out, const CompareReportOptions& options)
{
    // One write: the text goes to a terminal, a pager or a pipe in one piece.
    std::ostringstream text;
    printText(baseline.trace, baseline.findings, candidate.trace, candidate.findings, result, options.textTop, text);
    out << text.str();
}

} // namespace timesink::report
