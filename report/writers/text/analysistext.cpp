// SPDX-License-Identifier: MIT
#include "analysis/core/breakdown.h"
#include "report/core/textformat.h"
#include "report/writers/text/efficiencytext.h"
#include "report/writers/text/textwriter.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <string>
#include <vector>

namespace timesink::report {

namespace {

/// printf to a stream: the table's column widths are printf's.
__attribute__((format(printf, 2, 3))) void print(std::ostream& out, const char* format, ...)
{
    std::va_list args;
    va_start(args, format);
    std::va_list again;
    va_copy(again, args);
    const int n = std::vsnprintf(nullptr, 0, format, args);
    va_end(args);
    if (n > 0) {
        std::vector<char> text(static_cast<std::size_t>(n) + 1);
        std::vsnprintf(text.data(), text.size(), format, again);
        out.write(text.data(), n);
    }
    va_end(again);
}

} // namespace

void writeAnalysisText(const ReportModel& model, std::ostream& out)
{
    const std::size_t steps = model.trace.steps;
    const bool synthetic = model.summary.syntheticSteps;
    const ReportSummary& summary = model.summary;
    print(out, "%s\n", terminalText(model.trace.metadata.sourcePath).c_str());
    print(out, "  format %s, analysed %s over %s\n", terminalText(model.trace.metadata.format).c_str(),
          formatDuration(summary.analysedNs).c_str(),
          synthetic ? "the whole trace (no step markers)"
                    : (std::to_string(steps) + (steps == 1 ? " step" : " steps")).c_str());
    if (summary.startupNs > 0)
        print(out, "  start-up before the first device activity: %s, not analysed\n",
              formatDuration(summary.startupNs).c_str());
    if (summary.warmupStep >= 0)
        print(out, "  warm-up: step %lld (%s, more than twice the median step) %s\n",
              static_cast<long long>(summary.warmupStep), formatDuration(summary.warmupNs).c_str(),
              summary.warmupExcluded ? "is left out; --include-warmup brings it back" : "is analysed");
    const analysis::DeviceSummary& device = model.device;
    if (device.hasDeviceWork) {
        print(out, "  %s\n", terminalText(analysis::busyHeadline(device)).c_str());
        print(out, "  device: busy %s, compute %s, communication %s (exposed %s", formatDuration(device.busyNs).c_str(),
              formatDuration(device.computeNs).c_str(), formatDuration(device.communicationNs).c_str(),
              formatDuration(device.exposedCommunicationNs).c_str());
        if (device.communicationInWaitTasksNs > 0)
            print(out, ", in wait tasks %s", formatDuration(device.communicationInWaitTasksNs).c_str());
        print(out, "), copies %s, idle %s\n", formatDuration(device.copyNs).c_str(),
              formatDuration(device.idleNs).c_str());
        if (device.commComputeOverlapFraction)
            print(out, "  communication overlapped by compute: %s\n",
                  formatPercent(*device.commComputeOverlapFraction).c_str());
        if (device.launches > 0)
            print(out, "  launch delay: p50 %s, mean %s, p99 %s; %llu of %llu launches waited over 100 µs\n",
                  formatDuration(device.launchDelayP50Ns).c_str(), formatDuration(device.launchDelayMeanNs).c_str(),
                  formatDuration(device.launchDelayP99Ns).c_str(),
                  static_cast<unsigned long long>(device.launchesDelayedOver100us),
                  static_cast<unsigned long long>(device.launches));
    }
    if (const auto bw
        = analysis::summarizeBandwidth(model.communication, analysis::acceleratorName(model.trace.metadata));
        !bw.empty())
        out << "  collective bandwidth (a lower bound where the transfer is the fastest collective of its kind and "
               "size on this rank):\n"
            << bandwidthLines(bw, "    ");
    model::TimeNs unrecorded = 0;
    for (const analysis::StepBreakdown& s : model.steps)
        unrecorded += s.excluded ? 0 : s.unrecordedNs;
    if (unrecorded > 0)
        print(out,
              "  unrecorded device work: %s (%s of the analysed time): the device ran work the trace does not hold "
              "(a graph replay, or work a launch waited for); not idle, and no finding saves it\n",
              formatDuration(unrecorded).c_str(),
              formatPercent(summary.analysedNs > 0 ? double(unrecorded) / double(summary.analysedNs) : 0.0).c_str());
    print(out, "\n");
    if (model.findings.empty()) {
        print(out, "No findings.\n");
    } else {
        print(out, "%4s  %-22s %12s %8s %12s %8s  %s\n", "rank", "kind", "saving ms", "% time", "lost ms", "count",
              "title");
        for (std::size_t i = 0; i < model.findings.size(); ++i) {
            const analysis::Finding& f = model.findings[i];
            print(out, "%4zu  %-22s %12s %8s %12s %8llu  %s\n", i + 1, terminalText(f.kind).c_str(),
                  analysis::formatMillisecondsRounded(f.savingNs).c_str(), formatPercent(f.savingFraction).c_str(),
                  analysis::formatMillisecondsRounded(f.lostNs).c_str(), static_cast<unsigned long long>(f.occurrences),
                  terminalText(f.title).c_str());
        }
        // Findings overlap (a fix can hide behind another), so their savings do not add up: the graph is re-timed
        // with every cause removed at once.
        print(out, "\nFixing all of these would save %s ms (%s of the analysed time)\n",
              analysis::formatMillisecondsRounded(summary.savingNs).c_str(),
              formatPercent(summary.savingFraction).c_str());
    }
    if (summary.inconsistentSteps > 0)
        print(out,
              "Warning: %zu step(s) failed an internal check of the re-timing (a bug; please report the trace); "
              "their savings are their lost time\n",
              summary.inconsistentSteps);
    if (summary.cyclicSteps > 0)
        print(out,
              "Warning: %zu step(s) have a dependency graph with a cycle (corrupt flows); their savings are "
              "their lost time\n",
              summary.cyclicSteps);
    else if (!summary.criticalPathNotAssessed.empty() && !model.findings.empty())
        print(out, "Savings are lost time: %s\n", terminalText(summary.criticalPathNotAssessed).c_str());
    if (!model.notAssessed.empty()) {
        print(out, "\nNot assessed:\n");
        for (const analysis::NotAssessed& n : model.notAssessed)
            print(out, "  %-22s %s\n", terminalText(n.kind).c_str(), terminalText(n.reason).c_str());
    }
    for (std::size_t i = 0; i < model.findings.size(); ++i) {
        const analysis::Finding& f = model.findings[i];
        print(out, "\n%zu. %s\n", i + 1, terminalText(f.title).c_str());
        print(out, "   %s: saves %s (%s), %s lost (%s), %llu %s\n", terminalText(f.kind).c_str(),
              formatDuration(f.savingNs).c_str(), formatPercent(f.savingFraction).c_str(),
              formatDuration(f.lostNs).c_str(), formatPercent(f.lostFraction).c_str(),
              static_cast<unsigned long long>(f.occurrences), f.occurrences == 1 ? "occurrence" : "occurrences");
        print(out, "   saving: %s%s%s\n", terminalText(f.savingMethod).c_str(), f.savingRule.empty() ? "" : ": ",
              terminalText(f.savingRule).c_str());
        if (!f.perStep.empty() && !synthetic) {
            std::string line;
            const std::size_t shown = std::min<std::size_t>(f.perStep.size(), 6);
            for (std::size_t s = 0; s < shown; ++s) {
                const analysis::StepLoss& l = f.perStep[s];
                line += (s == 0 ? "" : ", ") + std::string("#") + std::to_string(l.stepNumber) + " "
                    + formatDuration(l.lostNs)
                    + (l.stepNs > 0 ? " (" + formatPercent(double(l.lostNs) / double(l.stepNs)) + ")" : "");
            }
            if (shown < f.perStep.size())
                line += ", … " + std::to_string(f.perStep.size() - shown) + " more";
            print(out, "   per step: %s\n", line.c_str());
        }
        if (!f.details.empty()) {
            std::string line;
            for (const analysis::Detail& d : f.details)
                line += (line.empty() ? "" : ", ") + d.key + "=" + terminalText(analysis::detailText(d));
            print(out, "   numbers: %s\n", line.c_str());
        }
        print(out, "   why: %s\n", terminalText(f.explanation).c_str());
        print(out, "   do:  %s\n", terminalText(f.recommendation).c_str());
    }
    static const analysis::efficiency::EfficiencyReport kNoReport;
    writeEfficiencyText(model.efficiency ? *model.efficiency : kNoReport, out);
}

} // namespace timesink::report
