// SPDX-License-Identifier: MIT
#include "report/compare/comparefacts.h"
#include "report/core/textformat.h"
#include "report/writers/markdown/markdownwriter.h"

#include <algorithm>

namespace timesink::report {

using comparefacts::attributionText;
using comparefacts::DeviceRow;
using comparefacts::deviceRows;
using comparefacts::hasDeviceBreakdown;
using comparefacts::kMaxPlacementRows;
using comparefacts::magnitude;
using comparefacts::ratioText;
using comparefacts::shareText;
using comparefacts::signedDuration;
using comparefacts::statusLabel;
using comparefacts::stepNumber;
using comparefacts::stepsText;
using comparefacts::summarySentence;
using comparefacts::syntheticStep;
using model::TimeNs;

namespace {

void markdownLayers(const analysis::CompareLayers& l, std::size_t top, std::ostream& out)
{
    out << "## Layers (edge runs)\n\n" << escapeMarkdown(layerSummaryText(l)) << "\n\n";
    out << "### Op types\n\n| op type | layers | baseline | candidate | delta | ratio | split over cores | placement "
           "changed |\n|---|---:|---:|---:|---:|---:|---:|---:|\n";
    for (const analysis::CompareLayerOpType& t : l.opTypes) {
        out << "| " << escapeMarkdown(t.opType) << " | " << t.baselineLayers << " → " << t.candidateLayers << " | "
            << formatDuration(t.baselineNs) << " | " << formatDuration(t.candidateNs) << " | "
            << signedDuration(t.deltaNs()) << " | " << ratioText(t.ratio()) << " | " << t.baselineSplitLayers << " → "
            << t.candidateSplitLayers << " | " << t.placementChanged << " |\n";
    }
    out << '\n';
    if (l.placementChanged > 0) {
        out << "### Layers whose placement changed\n\n| baseline ID | candidate ID | op type | layer | placement | "
               "baseline | candidate | delta |\n|---:|---:|---|---|---|---:|---:|---:|\n";
        std::size_t shown = 0;
        for (const analysis::CompareLayer& x : l.layers) {
            if (!x.placementChanged() || shown++ >= kMaxPlacementRows)
                continue;
            out << "| " << x.baselineId.value_or(0) << " | " << x.candidateId.value_or(0) << " | "
                << escapeMarkdown(x.opType) << " | " << escapeMarkdown(x.name) << " | "
                << escapeMarkdown(layerPlacementChange(x)) << " | " << formatDuration(x.baselineNs) << " | "
                << formatDuration(x.candidateNs) << " | " << signedDuration(x.deltaNs()) << " |\n";
        }
        out << '\n';
        if (shown > kMaxPlacementRows)
            out << (shown - kMaxPlacementRows) << " more are in the JSON report.\n\n";
    }
    out << "### Layers by delta (slower first)\n\n| baseline ID | candidate ID | op type | layer | placement | "
           "baseline | candidate | delta | ratio | matched by |\n|---:|---:|---|---|---|---:|---:|---:|---:|---|\n";
    const std::size_t shown = std::min(top, l.layers.size());
    for (std::size_t i = 0; i < shown; ++i) {
        const analysis::CompareLayer& x = l.layers[i];
        out << "| " << (x.baselineId ? std::to_string(*x.baselineId) : "–") << " | "
            << (x.candidateId ? std::to_string(*x.candidateId) : "–") << " | " << escapeMarkdown(x.opType) << " | "
            << escapeMarkdown(x.name) << " | " << escapeMarkdown(layerPlacementChange(x)) << " | "
            << formatDuration(x.baselineNs) << " | " << formatDuration(x.candidateNs) << " | "
            << signedDuration(x.deltaNs()) << " | " << ratioText(x.ratio()) << " | " << analysis::layerMatchKey(x.match)
            << " |\n";
    }
    out << '\n';
    if (shown < l.layers.size())
        out << (l.layers.size() - shown) << " more layers are in the JSON report.\n\n";
}

void markdownRunsTable(const CompareRun& b, const CompareRun& c, const analysis::CompareResult& r, std::ostream& out)
{
    out << "## Runs\n\n| | baseline | candidate |\n|---|---|---|\n";
    auto row = [&](std::string_view label, const std::string& bv, const std::string& cv) {
        out << "| " << label << " | " << escapeMarkdown(bv) << " | " << escapeMarkdown(cv) << " |\n";
    };
    row("trace", b.trace.metadata().sourcePath, c.trace.metadata().sourcePath);
    row("format", b.trace.metadata().format, c.trace.metadata().format);
    row("device", deviceDescription(b.trace), deviceDescription(c.trace));
    row("operator time", attributionText(r.baseline), attributionText(r.candidate));
    row("steps compared", stepsText(b.trace, r.baseline), stepsText(c.trace, r.candidate));
    row("step time", formatDuration(r.baselineStepsNs()), formatDuration(r.candidateStepsNs()));
    row("findings", std::to_string(b.findings.size()), std::to_string(c.findings.size()));
    out << '\n';
}

} // namespace

void writeCompareMarkdown(const CompareRun& b, const CompareRun& c, const analysis::CompareResult& r, std::ostream& out,
                          const CompareReportOptions& options)
{
    out << "# Timesink comparison report\n\n";
    markdownRunsTable(b, c, r, out);
    out << "**" << escapeMarkdown(summarySentence(r)) << "**\n\n";

    out << "## Steps\n\n| baseline step | candidate step | baseline | candidate | delta |\n"
           "|---:|---:|---:|---:|---:|\n";
    for (const analysis::CompareStepPair& s : r.steps) {
        out << "| " << stepNumber(s.baselineNumber, syntheticStep(b.trace, s.baselineIndex)) << " | "
            << stepNumber(s.candidateNumber, syntheticStep(c.trace, s.candidateIndex)) << " | "
            << formatDuration(s.baselineNs) << " | " << formatDuration(s.candidateNs) << " | "
            << signedDuration(s.deltaNs()) << " |\n";
    }
    out << "| total | | " << formatDuration(r.baselineStepsNs()) << " | " << formatDuration(r.candidateStepsNs())
        << " | " << signedDuration(r.candidateStepsNs() - r.baselineStepsNs()) << " |\n\n";

    if (hasDeviceBreakdown(r)) {
        out << "## Device breakdown\n\nOver the compared steps' device windows (first start to last end of the device "
               "work each step launched).\n\n| | baseline | candidate | delta |\n|---|---:|---:|---:|\n";
        for (const DeviceRow& d : deviceRows(r)) {
            out << "| " << d.label << " | " << formatDuration(d.baselineNs) << " | " << formatDuration(d.candidateNs)
                << " | " << signedDuration(d.candidateNs - d.baselineNs) << " |\n";
        }
        out << '\n';
    }
    if (!r.waterfall.empty()) {
        out << "## Waterfall\n\nFrom the baseline's step time to the candidate's; the deltas add up to the step-time "
               "delta.\n\n| part | kind | baseline | candidate | delta |\n|---|---|---:|---:|---:|\n";
        out << "| baseline step time | | " << formatDuration(r.baselineStepsNs()) << " | | |\n";
        for (const analysis::WaterfallPart& p : r.waterfall) {
            out << "| " << escapeMarkdown(p.label) << " | " << analysis::waterfallKindKey(p.kind) << " | "
                << formatDuration(p.baselineNs) << " | " << formatDuration(p.candidateNs) << " | "
                << signedDuration(p.deltaNs()) << " |\n";
        }
        out << "| candidate step time | | | " << formatDuration(r.candidateStepsNs()) << " | "
            << signedDuration(r.candidateStepsNs() - r.baselineStepsNs()) << " |\n\n";
    }
    if (!r.classes.empty()) {
        out << "## Kernel classes\n\n| class | baseline | candidate | delta | baseline calls | candidate calls |\n"
               "|---|---:|---:|---:|---:|---:|\n";
        for (const analysis::CompareClass& c : r.classes) {
            out << "| " << analysis::kernelClassLabel(c.cls) << " | " << formatDuration(c.baselineNs) << " | "
                << formatDuration(c.candidateNs) << " | " << signedDuration(c.deltaNs()) << " | " << c.baselineCalls
                << " | " << c.candidateCalls << " |\n";
        }
        out << '\n';
    }
    if (!r.efficiency.classes.empty()) {
        out << "## Efficiency by class\n\n"
            << escapeMarkdown(analysis::efficiency::efficiencyHeadline(r.efficiency))
            << " Speed is the candidate's TFLOP/s over the baseline's; the limit of a class that got slower is the "
               "chip when the candidate runs as close to its roofline as the baseline, the port when it runs far "
               "below.\n\n| class | baseline | candidate | speed | limit | why |\n|---|---|---|---:|---|---|\n";
        for (const analysis::efficiency::EfficiencyRow& row : analysis::efficiency::efficiencyRows(r.efficiency)) {
            out << "| " << row.cls << " | " << row.baseline << " | " << row.candidate << " | " << row.speed << " | "
                << row.cause << " | " << escapeMarkdown(row.why) << " |\n";
        }
        out << '\n';
    }

    if (r.layers.present)
        markdownLayers(r.layers, options.topOperators, out);

    out << "## What explains the difference\n\n";
    if (r.explanations.empty()) {
        out << "No finding differs between the runs.\n\n";
    } else {
        out << "| status | kind | finding | baseline lost | candidate lost | delta | share of step delta |\n"
               "|---|---|---|---:|---:|---:|---:|\n";
        for (const analysis::CompareExplanation& e : r.explanations) {
            out << "| " << statusLabel(e.status) << " | " << escapeMarkdown(e.kind) << " | " << escapeMarkdown(e.title)
                << " | " << formatDuration(e.baselineLostNs) << " | " << formatDuration(e.candidateLostNs) << " | "
                << signedDuration(e.deltaNs()) << " | " << shareText(e, r.candidateStepsNs() - r.baselineStepsNs())
                << " |\n";
        }
        out << '\n';
        if (const std::string note = explanationSharesNote(r); !note.empty())
            out << note << "\n\n";
    }

    out << "## Operators with the largest differences\n\n";
    const std::size_t shown = std::min(options.topOperators, r.operators.size());
    if (shown == 0) {
        out << "No operators to compare.\n\n";
    } else {
        out << "| rank | operator | baseline | candidate | delta | ratio | baseline calls | candidate calls |\n"
               "|---:|---|---:|---:|---:|---:|---:|---:|\n";
        for (std::size_t i = 0; i < shown; ++i) {
            const analysis::CompareOperator& op = r.operators[i];
            out << "| " << i + 1 << " | " << escapeMarkdown(op.name) << " | " << formatDuration(op.baselineNs) << " | "
                << formatDuration(op.candidateNs) << " | " << signedDuration(op.deltaNs()) << " | "
                << ratioText(op.ratio()) << " | " << op.baselineCalls << " | " << op.candidateCalls << " |\n";
        }
        out << '\n';
        if (shown < r.operators.size())
            out << (r.operators.size() - shown) << " more operators are in the JSON and CSV reports.\n\n";
    }
    if (!r.notes.empty()) {
        out << "## Notes\n\n";
        for (const std::string& n : r.notes)
            out << "- " << escapeMarkdown(n) << '\n';
        out << '\n';
    }
    out << "---\n\nGenerated by " << escapeMarkdown(options.generator) << ".\n";
}

} // namespace timesink::report
