// SPDX-License-Identifier: MIT
#include "report/compare/comparefacts.h"
#include "report/core/textformat.h"
#include "report/writers/html/htmlwriter.h"

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

std::string deltaClass(TimeNs delta)
{
    return delta > 0 ? " worse" : delta < 0 ? " better" : "";
}

void htmlStepChart(const analysis::CompareResult& r, const CompareRun& b, const CompareRun& c, std::ostream& out)
{
    constexpr std::size_t kMaxPairs = 50;
    constexpr int kLabel = 150;
    constexpr int kArea = 480;
    constexpr int kBar = 10;
    constexpr int kPair = 2 * kBar + 8;
    const std::size_t shown = std::min(r.steps.size(), kMaxPairs);
    TimeNs longest = 0;
    for (std::size_t i = 0; i < shown; ++i)
        longest = std::max({longest, r.steps[i].baselineNs, r.steps[i].candidateNs});
    const int height = 24 + static_cast<int>(shown) * kPair;
    out << "<figure><svg role=\"img\" aria-label=\"Step time, baseline and candidate\" width=\"760\" height=\""
        << height << "\" viewBox=\"0 0 760 " << height << "\">\n"
        << "<rect x=\"" << kLabel << "\" y=\"4\" width=\"12\" height=\"12\" fill=\"#4c78a8\"/><text x=\"" << kLabel + 16
        << "\" y=\"14\">baseline</text><rect x=\"" << kLabel + 100
        << "\" y=\"4\" width=\"12\" height=\"12\" fill=\"#f58518\"/><text x=\"" << kLabel + 116
        << "\" y=\"14\">candidate</text>\n";
    for (std::size_t i = 0; i < shown; ++i) {
        const analysis::CompareStepPair& s = r.steps[i];
        const int y = 24 + static_cast<int>(i) * kPair;
        const std::string label = stepNumber(s.baselineNumber, syntheticStep(b.trace, s.baselineIndex)) + " ↔ "
            + stepNumber(s.candidateNumber, syntheticStep(c.trace, s.candidateIndex));
        out << "<text x=\"" << kLabel - 6 << "\" y=\"" << y + kBar + 4 << "\" text-anchor=\"end\">" << escapeHtml(label)
            << "</text>";
        const TimeNs values[2] = {s.baselineNs, s.candidateNs};
        const char* colors[2] = {"#4c78a8", "#f58518"};
        const char* names[2] = {"baseline", "candidate"};
        for (int k = 0; k < 2; ++k) {
            const double w = longest > 0 ? double(values[k]) / double(longest) * kArea : 0;
            out << "<rect x=\"" << kLabel << "\" y=\"" << y + k * kBar << "\" width=\""
                << formatFixed(std::max(w, 1.0), 1) << "\" height=\"" << kBar - 1 << "\" fill=\"" << colors[k]
                << "\"><title>" << escapeHtml(label) << ' ' << names[k] << ": " << escapeHtml(formatDuration(values[k]))
                << "</title></rect>";
        }
        out << "<text x=\"" << kLabel + kArea + 8 << "\" y=\"" << y + kBar + 4 << "\">"
            << escapeHtml(signedDuration(s.deltaNs())) << "</text>\n";
    }
    out << "</svg><figcaption>Step time of each compared pair";
    if (shown < r.steps.size())
        out << " (the first " << shown << " of " << r.steps.size() << ")";
    out << ".</figcaption></figure>\n";
}

/// A waterfall: a bar for the baseline step time, one floating bar per part from the running total to the
/// running total plus its delta (red: the candidate spends more there, green: less), a bar for the candidate.
void htmlWaterfallChart(const analysis::CompareResult& r, std::ostream& out)
{
    constexpr int kLabel = 230;
    constexpr int kArea = 440;
    constexpr int kRow = 20;
    const TimeNs base = r.baselineStepsNs();
    const TimeNs cand = r.candidateStepsNs();
    // The axis spans every running total, so a part that first overshoots stays on the chart.
    TimeNs lo = 0;
    TimeNs hi = std::max(base, cand);
    TimeNs running = base;
    for (const analysis::WaterfallPart& p : r.waterfall) {
        running += p.deltaNs();
        lo = std::min(lo, running);
        hi = std::max(hi, running);
    }
    const double span = hi > lo ? double(hi - lo) : 1.0;
    auto xOf = [&](TimeNs t) { return kLabel + double(t - lo) / span * kArea; };
    const int rows = static_cast<int>(r.waterfall.size()) + 2;
    const int height = rows * kRow + 8;
    out << "<figure><svg role=\"img\" aria-label=\"Waterfall from the baseline step time to the candidate's\" "
           "width=\"760\" height=\""
        << height << "\" viewBox=\"0 0 760 " << height << "\">\n";
    auto bar = [&](int row, std::string_view label, TimeNs from, TimeNs to, const char* color,
                   const std::string& value) {
        const int y = row * kRow + 4;
        const double x0 = xOf(std::min(from, to));
        const double w = std::max(xOf(std::max(from, to)) - x0, 1.0);
        out << "<g><title>" << escapeHtml(label) << ": " << escapeHtml(value) << "</title><text x=\"" << kLabel - 6
            << "\" y=\"" << y + 13 << "\" text-anchor=\"end\">" << escapeHtml(truncateText(std::string(label), 32))
            << "</text><rect x=\"" << formatFixed(x0, 1) << "\" y=\"" << y + 2 << "\" width=\"" << formatFixed(w, 1)
            << "\" height=\"" << kRow - 6 << "\" fill=\"" << color << "\"/><text x=\"" << formatFixed(x0 + w + 6, 1)
            << "\" y=\"" << y + 13 << "\">" << escapeHtml(value) << "</text></g>\n";
    };
    bar(0, "baseline step time", 0, base, "#4c78a8", formatDuration(base));
    running = base;
    int row = 1;
    for (const analysis::WaterfallPart& p : r.waterfall) {
        const TimeNs next = running + p.deltaNs();
        bar(row++, p.label, running, next, p.deltaNs() > 0 ? "#e45756" : "#54a24b", signedDuration(p.deltaNs()));
        running = next;
    }
    bar(row, "candidate step time", 0, cand, "#f58518", formatDuration(cand));
    out << "</svg><figcaption>Waterfall of the step-time difference: each part moves the total from the baseline's "
           "step time (top) to the candidate's (bottom); red parts cost more in the candidate, green parts less."
           "</figcaption></figure>\n";
}

void htmlOperatorChart(const analysis::CompareResult& r, std::ostream& out)
{
    constexpr std::size_t kMax = 15;
    constexpr int kLabel = 260;
    constexpr int kHalf = 200;
    constexpr int kRow = 20;
    const std::size_t shown = std::min(r.operators.size(), kMax);
    TimeNs largest = 0;
    for (std::size_t i = 0; i < shown; ++i)
        largest = std::max(largest, magnitude(r.operators[i].deltaNs()));
    const int height = static_cast<int>(shown) * kRow + 8;
    const int axis = kLabel + kHalf;
    out << "<figure><svg role=\"img\" aria-label=\"Operator time differences\" width=\"760\" height=\"" << height
        << "\" viewBox=\"0 0 760 " << height << "\">\n<line x1=\"" << axis << "\" y1=\"0\" x2=\"" << axis << "\" y2=\""
        << height << "\" stroke=\"#8c959f\"/>\n";
    for (std::size_t i = 0; i < shown; ++i) {
        const analysis::CompareOperator& op = r.operators[i];
        const TimeNs d = op.deltaNs();
        const int y = static_cast<int>(i) * kRow + 4;
        const double w = largest > 0 ? double(magnitude(d)) / double(largest) * kHalf : 0;
        const double x = d >= 0 ? axis : axis - w;
        out << "<g><title>" << escapeHtml(op.name) << ": " << escapeHtml(formatDuration(op.baselineNs)) << " → "
            << escapeHtml(formatDuration(op.candidateNs)) << "</title><text x=\"" << kLabel - 6 << "\" y=\"" << y + 13
            << "\" text-anchor=\"end\">" << escapeHtml(truncateText(cleanText(op.name), 36)) << "</text><rect x=\""
            << formatFixed(x, 1) << "\" y=\"" << y + 2 << "\" width=\"" << formatFixed(std::max(w, 1.0), 1)
            << "\" height=\"" << kRow - 6 << "\" fill=\"" << (d > 0 ? "#e45756" : "#54a24b") << "\"/><text x=\""
            << formatFixed(d >= 0 ? axis + w + 6 : axis + 6, 1) << "\" y=\"" << y + 13 << "\">"
            << escapeHtml(signedDuration(d)) << "</text></g>\n";
    }
    out << "</svg><figcaption>Operators with the largest differences: right (red) is slower in the candidate, left "
           "(green) faster.</figcaption></figure>\n";
}

void htmlLayerRow(const analysis::CompareLayer& x, bool withRatio, std::ostream& out)
{
    out << "<tr><td class=\"num\">" << (x.baselineId ? std::to_string(*x.baselineId) : "–") << "</td><td class=\"num\">"
        << (x.candidateId ? std::to_string(*x.candidateId) : "–") << "</td><td>" << escapeHtml(x.opType)
        << "</td><td class=\"name\"><code>" << escapeHtml(x.name) << "</code></td><td>"
        << escapeHtml(layerPlacementChange(x)) << "</td><td class=\"num\">" << escapeHtml(formatDuration(x.baselineNs))
        << "</td><td class=\"num\">" << escapeHtml(formatDuration(x.candidateNs)) << "</td><td class=\"num"
        << deltaClass(x.deltaNs()) << "\">" << escapeHtml(signedDuration(x.deltaNs())) << "</td>";
    if (withRatio)
        out << "<td class=\"num\">" << escapeHtml(ratioText(x.ratio())) << "</td><td>"
            << analysis::layerMatchKey(x.match) << "</td>";
    out << "</tr>\n";
}

void htmlLayers(const analysis::CompareLayers& l, std::size_t top, std::ostream& out)
{
    out << "<section id=\"layers\"><h2>Layers (edge runs)</h2><p>" << escapeHtml(layerSummaryText(l)) << "</p>\n"
        << "<h3>Op types</h3><table><thead><tr><th>op type</th><th class=\"num\">layers</th><th class=\"num\">"
           "baseline</th><th class=\"num\">candidate</th><th class=\"num\">delta</th><th class=\"num\">ratio</th>"
           "<th class=\"num\">split over cores</th><th class=\"num\">placement changed</th></tr></thead><tbody>\n";
    for (const analysis::CompareLayerOpType& t : l.opTypes) {
        out << "<tr><td>" << escapeHtml(t.opType) << "</td><td class=\"num\">" << t.baselineLayers << " → "
            << t.candidateLayers << "</td><td class=\"num\">" << escapeHtml(formatDuration(t.baselineNs))
            << "</td><td class=\"num\">" << escapeHtml(formatDuration(t.candidateNs)) << "</td><td class=\"num"
            << deltaClass(t.deltaNs()) << "\">" << escapeHtml(signedDuration(t.deltaNs())) << "</td><td class=\"num\">"
            << escapeHtml(ratioText(t.ratio())) << "</td><td class=\"num\">" << t.baselineSplitLayers << " → "
            << t.candidateSplitLayers << "</td><td class=\"num\">" << t.placementChanged << "</td></tr>\n";
    }
    out << "</tbody></table>\n";
    const char* head = "<table><thead><tr><th class=\"num\">baseline ID</th><th class=\"num\">candidate ID</th>"
                       "<th>op type</th><th>layer</th><th>placement</th><th class=\"num\">baseline</th>"
                       "<th class=\"num\">candidate</th><th class=\"num\">delta</th>";
    if (l.placementChanged > 0) {
        out << "<h3>Layers whose placement changed</h3>" << head << "</tr></thead><tbody>\n";
        std::size_t shown = 0;
        for (const analysis::CompareLayer& x : l.layers) {
            if (x.placementChanged() && shown++ < kMaxPlacementRows)
                htmlLayerRow(x, false, out);
        }
        out << "</tbody></table>\n";
        if (shown > kMaxPlacementRows)
            out << "<p class=\"meta\">" << (shown - kMaxPlacementRows) << " more are in the JSON report.</p>\n";
    }
    out << "<h3>Layers by delta (slower first)</h3>" << head
        << "<th class=\"num\">ratio</th><th>matched by</th></tr></thead><tbody>\n";
    const std::size_t shown = std::min(top, l.layers.size());
    for (std::size_t i = 0; i < shown; ++i)
        htmlLayerRow(l.layers[i], true, out);
    out << "</tbody></table>\n";
    if (shown < l.layers.size())
        out << "<p class=\"meta\">" << (l.layers.size() - shown) << " more layers are in the JSON report.</p>\n";
    out << "</section>\n";
}

} // namespace

void writeCompareHtml(const CompareRun& b, const CompareRun& c, const analysis::CompareResult& r, std::ostream& out,
                      const CompareReportOptions& options)
{
    out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
           "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
           "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
           "img-src data:\">\n<meta name=\"generator\" content=\""
        << escapeHtml(options.generator)
        << "\">\n<title>Timesink comparison: " << escapeHtml(b.trace.metadata().sourcePath) << " vs "
        << escapeHtml(c.trace.metadata().sourcePath) << "</title>\n<style>" << htmlReportStyle()
        << "</style>\n</head>\n<body>\n"
        << "<header><h1>Timesink comparison report</h1></header>\n";

    out << "<section id=\"runs\"><h2>Runs</h2><table><thead><tr><th></th><th>baseline</th><th>candidate</th></tr>"
           "</thead><tbody>\n";
    auto row = [&](std::string_view label, const std::string& bv, const std::string& cv) {
        out << "<tr><th>" << label << "</th><td class=\"name\">" << escapeHtml(bv) << "</td><td class=\"name\">"
            << escapeHtml(cv) << "</td></tr>\n";
    };
    row("trace", b.trace.metadata().sourcePath, c.trace.metadata().sourcePath);
    row("format", b.trace.metadata().format, c.trace.metadata().format);
    row("device", deviceDescription(b.trace), deviceDescription(c.trace));
    row("operator time", attributionText(r.baseline), attributionText(r.candidate));
    row("steps compared", stepsText(b.trace, r.baseline), stepsText(c.trace, r.candidate));
    row("step time", formatDuration(r.baselineStepsNs()), formatDuration(r.candidateStepsNs()));
    row("findings", std::to_string(b.findings.size()), std::to_string(c.findings.size()));
    out << "</tbody></table><p><strong>" << escapeHtml(summarySentence(r)) << "</strong></p></section>\n";

    out << "<section id=\"steps\"><h2>Steps</h2>\n";
    if (!r.steps.empty())
        htmlStepChart(r, b, c, out);
    out << "<table><thead><tr><th class=\"num\">baseline step</th><th class=\"num\">candidate step</th>"
           "<th class=\"num\">baseline</th><th class=\"num\">candidate</th><th class=\"num\">delta</th></tr></thead>"
           "<tbody>\n";
    for (const analysis::CompareStepPair& s : r.steps) {
        out << "<tr><td class=\"num\">" << stepNumber(s.baselineNumber, syntheticStep(b.trace, s.baselineIndex))
            << "</td><td class=\"num\">" << stepNumber(s.candidateNumber, syntheticStep(c.trace, s.candidateIndex))
            << "</td><td class=\"num\">" << escapeHtml(formatDuration(s.baselineNs)) << "</td><td class=\"num\">"
            << escapeHtml(formatDuration(s.candidateNs)) << "</td><td class=\"num" << deltaClass(s.deltaNs()) << "\">"
            << escapeHtml(signedDuration(s.deltaNs())) << "</td></tr>\n";
    }
    out << "</tbody></table></section>\n";

    if (hasDeviceBreakdown(r)) {
        out << "<section id=\"device\"><h2>Device breakdown</h2><p class=\"meta\">Over the compared steps' device "
               "windows (first start to last end of the device work each step launched).</p><table><thead><tr><th></th>"
               "<th class=\"num\">baseline</th><th class=\"num\">candidate</th><th class=\"num\">delta</th></tr>"
               "</thead><tbody>\n";
        for (const DeviceRow& d : deviceRows(r)) {
            out << "<tr><th>" << d.label << "</th><td class=\"num\">" << escapeHtml(formatDuration(d.baselineNs))
                << "</td><td class=\"num\">" << escapeHtml(formatDuration(d.candidateNs)) << "</td><td class=\"num"
                << deltaClass(d.candidateNs - d.baselineNs) << "\">"
                << escapeHtml(signedDuration(d.candidateNs - d.baselineNs)) << "</td></tr>\n";
        }
        out << "</tbody></table></section>\n";
    }
    if (!r.waterfall.empty()) {
        out << "<section id=\"waterfall\"><h2>Waterfall</h2>\n";
        htmlWaterfallChart(r, out);
        out << "<table><thead><tr><th>part</th><th>kind</th><th class=\"num\">baseline</th><th class=\"num\">"
               "candidate</th><th class=\"num\">delta</th></tr></thead><tbody>\n";
        for (const analysis::WaterfallPart& p : r.waterfall) {
            out << "<tr><td class=\"name\">" << escapeHtml(p.label) << "</td><td class=\"kind\">"
                << analysis::waterfallKindKey(p.kind) << "</td><td class=\"num\">"
                << escapeHtml(formatDuration(p.baselineNs)) << "</td><td class=\"num\">"
                << escapeHtml(formatDuration(p.candidateNs)) << "</td><td class=\"num" << deltaClass(p.deltaNs())
                << "\">" << escapeHtml(signedDuration(p.deltaNs())) << "</td></tr>\n";
        }
        out << "</tbody></table></section>\n";
    }
    if (!r.classes.empty()) {
        out << "<section id=\"classes\"><h2>Kernel classes</h2><table><thead><tr><th>class</th><th class=\"num\">"
               "baseline</th><th class=\"num\">candidate</th><th class=\"num\">delta</th><th class=\"num\">baseline "
               "calls</th><th class=\"num\">candidate calls</th></tr></thead><tbody>\n";
        for (const analysis::CompareClass& c : r.classes) {
            out << "<tr><td>" << escapeHtml(analysis::kernelClassLabel(c.cls)) << "</td><td class=\"num\">"
                << escapeHtml(formatDuration(c.baselineNs)) << "</td><td class=\"num\">"
                << escapeHtml(formatDuration(c.candidateNs)) << "</td><td class=\"num" << deltaClass(c.deltaNs())
                << "\">" << escapeHtml(signedDuration(c.deltaNs())) << "</td><td class=\"num\">" << c.baselineCalls
                << "</td><td class=\"num\">" << c.candidateCalls << "</td></tr>\n";
        }
        out << "</tbody></table></section>\n";
    }
    if (!r.efficiency.classes.empty()) {
        out << "<section id=\"efficiency\"><h2>Efficiency by class</h2><p>"
            << escapeHtml(analysis::efficiency::efficiencyHeadline(r.efficiency))
            << " Speed is the candidate's TFLOP/s over the baseline's.</p><table><thead><tr><th>class</th><th>"
               "baseline</th><th>candidate</th><th class=\"num\">speed</th><th>limit</th><th>why</th></tr></thead>"
               "<tbody>\n";
        for (const analysis::efficiency::EfficiencyRow& row : analysis::efficiency::efficiencyRows(r.efficiency)) {
            out << "<tr><td>" << escapeHtml(row.cls) << "</td><td>" << escapeHtml(row.baseline) << "</td><td>"
                << escapeHtml(row.candidate) << "</td><td class=\"num\">" << escapeHtml(row.speed) << "</td><td>"
                << escapeHtml(row.cause) << "</td><td>" << escapeHtml(row.why) << "</td></tr>\n";
        }
        out << "</tbody></table></section>\n";
    }

    if (r.layers.present)
        htmlLayers(r.layers, options.topOperators, out);

    out << "<section id=\"explanations\"><h2>What explains the difference</h2>\n";
    if (r.explanations.empty()) {
        out << "<p>No finding differs between the runs.</p>\n";
    } else {
        out << "<table><thead><tr><th>status</th><th>kind</th><th>finding</th><th class=\"num\">baseline lost</th>"
               "<th class=\"num\">candidate lost</th><th class=\"num\">delta</th><th class=\"num\">share of step "
               "delta</th></tr></thead><tbody>\n";
        for (const analysis::CompareExplanation& e : r.explanations) {
            out << "<tr><td>" << statusLabel(e.status) << "</td><td class=\"kind\">" << escapeHtml(e.kind)
                << "</td><td class=\"name\">" << escapeHtml(e.title) << "</td><td class=\"num\">"
                << escapeHtml(formatDuration(e.baselineLostNs)) << "</td><td class=\"num\">"
                << escapeHtml(formatDuration(e.candidateLostNs)) << "</td><td class=\"num" << deltaClass(e.deltaNs())
                << "\">" << escapeHtml(signedDuration(e.deltaNs())) << "</td><td class=\"num\">"
                << escapeHtml(shareText(e, r.candidateStepsNs() - r.baselineStepsNs())) << "</td></tr>\n";
        }
        out << "</tbody></table>\n";
        if (const std::string note = explanationSharesNote(r); !note.empty())
            out << "<p class=\"note\">" << escapeHtml(note) << "</p>\n";
    }
    out << "</section>\n";

    out << "<section id=\"operators\"><h2>Operators with the largest differences</h2>\n";
    const std::size_t shown = std::min(options.topOperators, r.operators.size());
    if (shown == 0) {
        out << "<p>No operators to compare.</p>\n";
    } else {
        htmlOperatorChart(r, out);
        out << "<table><thead><tr><th class=\"num\">rank</th><th>operator</th><th class=\"num\">baseline</th>"
               "<th class=\"num\">candidate</th><th class=\"num\">delta</th><th class=\"num\">ratio</th>"
               "<th class=\"num\">baseline calls</th><th class=\"num\">candidate calls</th></tr></thead><tbody>\n";
        for (std::size_t i = 0; i < shown; ++i) {
            const analysis::CompareOperator& op = r.operators[i];
            out << "<tr><td class=\"num\">" << i + 1 << "</td><td class=\"name\"><code>" << escapeHtml(op.name)
                << "</code></td><td class=\"num\">" << escapeHtml(formatDuration(op.baselineNs))
                << "</td><td class=\"num\">" << escapeHtml(formatDuration(op.candidateNs)) << "</td><td class=\"num"
                << deltaClass(op.deltaNs()) << "\">" << escapeHtml(signedDuration(op.deltaNs()))
                << "</td><td class=\"num\">" << escapeHtml(ratioText(op.ratio())) << "</td><td class=\"num\">"
                << op.baselineCalls << "</td><td class=\"num\">" << op.candidateCalls << "</td></tr>\n";
        }
        out << "</tbody></table>\n";
        if (shown < r.operators.size())
            out << "<p class=\"meta\">" << (r.operators.size() - shown)
                << " more operators are in the JSON and CSV reports.</p>\n";
    }
    out << "</section>\n";
    if (!r.notes.empty()) {
        out << "<section id=\"notes\"><h2>Notes</h2><ul>\n";
        for (const std::string& n : r.notes)
            out << "<li>" << escapeHtml(n) << "</li>\n";
        out << "</ul></section>\n";
    }
    out << "<footer>Generated by " << escapeHtml(options.generator) << ".</footer>\n</body>\n</html>\n";
}

} // namespace timesink::report
