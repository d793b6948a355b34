// SPDX-License-Identifier: MIT
#include "analyzecommand.h"

#include "analysis/core/breakdown.h"
#include "analysis/core/pass.h"
#include "clicommon.h"
#include "model/checkedmath.h"
#include "report/reportjson.h"
#include "reportdestination.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>

namespace timesink::cli {

namespace {

constexpr const char* kAnalyzeUsage
    = "usage: timesink-cli analyze PATH [--format text|json|md|html|csv] [-o FILE] [--min-lost-ms X]\n"
      "                             [--fail-above PERCENT] [--include-warmup]\n"
      "                             [--bubble-threshold-us X] [--tiny-kernel-us X] [--small-copy-kb X]\n";

constexpr const char* kAnalyzeHelp
    = R"(Finds where the time of a training or inference run goes and ranks the causes by lost time.

Options:
  --format text|json|md|html|csv
                            text: ranked table plus explanations (default); json: the timesink.report/1 object;
                            md: Markdown for a ticket; html: one self-contained page with charts; csv: the findings
                            (docs/report-schema.md)
  -o FILE                   write the report to FILE (format from its extension unless --format says); written
                            atomically, never over the input
  --min-lost-ms X           drop findings that lose less than X ms (default 0)
  --fail-above PERCENT      exit with code 3 when the findings together lose more than PERCENT of the
                            analysed time (CI gate)
  --bubble-threshold-us X   device idle gaps shorter than X µs are not pipeline bubbles (default 50)
  --tiny-kernel-us X        kernels shorter than X µs count as tiny for launch-bound detection (default 10)
  --small-copy-kb X         copies smaller than X KiB count as small (default 64)
  --include-warmup          analyse the warm-up step too (a first step longer than twice the median of the
                            others; left out by default)

Kinds: dataloader_starvation, pipeline_bubble, copy_hotspot, cpu_fallback, unfused_chain, op_compile,
conversion, precision, memory_pressure, communication (docs/analysis.md).
)";

// A non-negative finite number, or nullopt.
std::optional<double> parseNumber(const std::string& text)
{
    if (text.empty())
        return std::nullopt;
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || *end != '\0' || !std::isfinite(v) || v < 0 || v > 1e12)
        return std::nullopt;
    return v;
}

void printText(const model::Trace& trace, const analysis::AnalysisResult& result)
{
    const auto steps = trace.steps();
    const bool synthetic = steps.size() == 1 && steps.front().synthetic;
    std::printf("%s\n", terminalText(trace.metadata().sourcePath).c_str());
    std::printf("  format %s, analysed %s over %s\n", terminalText(trace.metadata().format).c_str(),
                formatDuration(result.analysedNs).c_str(),
                synthetic ? "the whole trace (no step markers)"
                          : (std::to_string(steps.size()) + (steps.size() == 1 ? " step" : " steps")).c_str());
    if (result.startupNs > 0)
        std::printf("  start-up before the first device activity: %s, not analysed\n",
                    formatDuration(result.startupNs).c_str());
    if (result.warmupStep >= 0)
        std::printf("  warm-up: step %lld (%s, more than twice the median step) %s\n",
                    static_cast<long long>(result.warmupStep), formatDuration(result.warmupNs).c_str(),
                    result.warmupExcluded ? "is left out; --include-warmup brings it back" : "is analysed");
    const analysis::DeviceSummary& device = result.device;
    if (device.hasDeviceWork) {
        std::printf("  %s\n", terminalText(analysis::busyHeadline(device)).c_str());
        std::printf("  device: busy %s, compute %s, communication %s (exposed %s",
                    formatDuration(device.busyNs).c_str(), formatDuration(device.computeNs).c_str(),
                    formatDuration(device.communicationNs).c_str(),
                    formatDuration(device.exposedCommunicationNs).c_str());
        if (device.communicationInWaitTasksNs > 0)
            std::printf(", in wait tasks %s", formatDuration(device.communicationInWaitTasksNs).c_str());
        std::printf("), copies %s, idle %s\n", formatDuration(device.copyNs).c_str(),
                    formatDuration(device.idleNs).c_str());
        if (device.commComputeOverlapFraction)
            std::printf("  communication overlapped by compute: %s\n",
                        formatPercent(*device.commComputeOverlapFraction).c_str());
        if (device.launches > 0)
            std::printf("  launch delay: p50 %s, mean %s, p99 %s; %llu of %llu launches waited over 100 µs\n",
                        formatDuration(device.launchDelayP50Ns).c_str(),
                        formatDuration(device.launchDelayMeanNs).c_str(),
                        formatDuration(device.launchDelayP99Ns).c_str(),
                        static_cast<unsigned long long>(device.launchesDelayedOver100us),
                        static_cast<unsigned long long>(device.launches));
    }
    std::printf("\n");
    if (result.findings.empty()) {
        std::printf("No findings.\n");
    } else {
        std::printf("%4s  %-22s %12s %8s %12s %8s  %s\n", "rank", "kind", "saving ms", "% time", "lost ms", "count",
                    "title");
        for (std::size_t i = 0; i < result.findings.size(); ++i) {
            const analysis::Finding& f = result.findings[i];
            std::printf("%4zu  %-22s %12s %8s %12s %8llu  %s\n", i + 1, terminalText(f.kind).c_str(),
                        analysis::formatMillisecondsRounded(f.savingNs).c_str(),
                        formatPercent(f.savingFraction).c_str(), analysis::formatMillisecondsRounded(f.lostNs).c_str(),
                        static_cast<unsigned long long>(f.occurrences), terminalText(f.title).c_str());
        }
        // Findings overlap (a fix can hide behind another), so their savings do not add up: the graph is re-timed
        // with every cause removed at once.
        std::printf("\nFixing all of these would save %s ms (%s of the analysed time)\n",
                    analysis::formatMillisecondsRounded(result.savingNs).c_str(),
                    formatPercent(result.savingFraction).c_str());
    }
    if (result.cyclicSteps > 0)
        std::printf("Warning: %zu step(s) have a dependency graph with a cycle (corrupt flows); their savings are "
                    "their lost time\n",
                    result.cyclicSteps);
    else if (!result.criticalPathNotAssessed.empty() && !result.findings.empty())
        std::printf("Savings are lost time: %s\n", terminalText(result.criticalPathNotAssessed).c_str());
    if (!result.notAssessed.empty()) {
        std::printf("\nNot assessed:\n");
        for (const analysis::NotAssessed& n : result.notAssessed)
            std::printf("  %-22s %s\n", terminalText(n.kind).c_str(), terminalText(n.reason).c_str());
    }
    for (std::size_t i = 0; i < result.findings.size(); ++i) {
        const analysis::Finding& f = result.findings[i];
        std::printf("\n%zu. %s\n", i + 1, terminalText(f.title).c_str());
        std::printf("   %s: saves %s (%s), %s lost (%s), %llu %s\n", terminalText(f.kind).c_str(),
                    formatDuration(f.savingNs).c_str(), formatPercent(f.savingFraction).c_str(),
                    formatDuration(f.lostNs).c_str(), formatPercent(f.lostFraction).c_str(),
                    static_cast<unsigned long long>(f.occurrences), f.occurrences == 1 ? "occurrence" : "occurrences");
        std::printf("   saving: %s%s%s\n", terminalText(f.savingMethod).c_str(), f.savingRule.empty() ? "" : ": ",
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
            std::printf("   per step: %s\n", line.c_str());
        }
        if (!f.details.empty()) {
            std::string line;
            for (const analysis::Detail& d : f.details)
                line += (line.empty() ? "" : ", ") + d.key + "=" + terminalText(analysis::detailText(d));
            std::printf("   numbers: %s\n", line.c_str());
        }
        std::printf("   why: %s\n", terminalText(f.explanation).c_str());
        std::printf("   do:  %s\n", terminalText(f.recommendation).c_str());
    }
}

} // namespace

int runAnalyze(int argc, char** argv)
{
    Arguments args;
    std::string error;
    const std::vector<std::string> valued
        = {"--format",       "-o", "--min-lost-ms", "--fail-above", "--bubble-threshold-us", "--tiny-kernel-us",
           "--small-copy-kb"};
    if (!parseArguments(argc, argv, 2, valued, {"--help", "-h", "--include-warmup"}, args, error)) {
        std::cerr << "timesink-cli analyze: " << terminalText(error) << '\n' << kAnalyzeUsage;
        return kExitUsage;
    }
    if (args.has("--help") || args.has("-h")) {
        std::cout << kAnalyzeUsage << '\n' << kAnalyzeHelp;
        return kExitOk;
    }
    ReportDestination destination;
    if (!resolveReportDestination(args, destination, error)) {
        std::cerr << "timesink-cli analyze: " << terminalText(error) << '\n' << kAnalyzeUsage;
        return kExitUsage;
    }
    if (args.positional.size() != 1) {
        std::cerr << kAnalyzeUsage;
        return kExitUsage;
    }
    const std::filesystem::path inputs[] = {args.positional.front()};
    if (!checkReportDestination(destination, inputs, error)) { // before the load, so a typo costs nothing
        std::cerr << "timesink-cli analyze: " << terminalText(error) << '\n';
        return kExitUsage;
    }
    analysis::AnalysisOptions options;
    options.includeWarmup = args.has("--include-warmup");
    std::optional<double> failAbove;
    struct NumericOption
    {
        const char* name;
        double scale; // to the unit of the option field
        std::int64_t* target;
    };
    const NumericOption numeric[] = {
        {"--min-lost-ms", 1e6, &options.minLostNs},
        {"--bubble-threshold-us", 1e3, &options.bubbleThresholdNs},
        {"--tiny-kernel-us", 1e3, &options.tinyKernelNs},
        {"--small-copy-kb", 1024.0, &options.smallCopyBytes},
    };
    for (const NumericOption& o : numeric) {
        if (!args.has(o.name))
            continue;
        const std::optional<double> v = parseNumber(args.value(o.name));
        if (!v) {
            std::cerr << "timesink-cli analyze: " << o.name << " needs a non-negative number, got '"
                      << args.value(o.name) << "'\n";
            return kExitUsage;
        }
        *o.target = model::doubleToInt64Clamped(*v * o.scale);
    }
    if (args.has("--fail-above")) {
        failAbove = parseNumber(args.value("--fail-above"));
        if (!failAbove) {
            std::cerr << "timesink-cli analyze: --fail-above needs a percentage, got '" << args.value("--fail-above")
                      << "'\n";
            return kExitUsage;
        }
    }

    int exitCode = kExitOk;
    model::TracePtr trace = loadForCommand(args.positional.front(), exitCode);
    if (!trace)
        return exitCode;
    analysis::CancelToken cancel;
    const auto analysisStarted = std::chrono::steady_clock::now();
    const analysis::AnalysisResult result = analysis::analyze(*trace, options, cancel);
    if (printPhases()) {
        const auto seconds = [](auto d) { return std::chrono::duration<double>(d).count(); };
        std::fprintf(stderr, "phases: analysis %.3f s (passes %.3f s, critical paths and savings %.3f s)\n",
                     seconds(std::chrono::steady_clock::now() - analysisStarted), seconds(result.passesWall),
                     seconds(result.savingsWall));
    }
    if (destination.text) {
        printText(*trace, result);
        std::cout.flush();
    } else {
        report::ReportOptions reportOptions;
        reportOptions.generator = "timesink-cli " TIMESINK_VERSION;
        reportOptions.analysisOptions = options;
        const auto reportStarted = std::chrono::steady_clock::now();
        const report::ReportModel model = report::buildReportModel(*trace, result, reportOptions);
        const auto modelBuilt = std::chrono::steady_clock::now();
        const int written = emitReport(model, destination, inputs, "analyze");
        if (printPhases()) {
            const auto seconds = [](auto d) { return std::chrono::duration<double>(d).count(); };
            std::fprintf(stderr, "phases: report %.3f s (model %.3f s, writing %.3f s)\n",
                         seconds(std::chrono::steady_clock::now() - reportStarted), seconds(modelBuilt - reportStarted),
                         seconds(std::chrono::steady_clock::now() - modelBuilt));
        }
        if (written != kExitOk)
            return written;
    }
    if (failAbove && report::totalLostFraction(result) * 100.0 > *failAbove) {
        std::cerr << "timesink-cli analyze: lost " << formatPercent(report::totalLostFraction(result))
                  << " of the analysed time, above --fail-above " << *failAbove << "%\n";
        return kExitThreshold;
    }
    return kExitOk;
}

} // namespace timesink::cli
