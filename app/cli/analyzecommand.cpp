// SPDX-License-Identifier: MIT
#include "analyzecommand.h"

#include "analysis/core/pass.h"
#include "analysis/core/totallost.h"
#include "analysis/efficiency/efficiency.h"
#include "clicommon.h"
#include "model/checkedmath.h"
#include "reportdestination.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

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

)";

// The help's "Kinds:" paragraph (and so the man page's, packaging/CMakeLists.txt): the kinds of the registered
// passes, in the order they run, wrapped like the rest of the help. The registry is the one list of them.
std::string kindsHelp()
{
    constexpr std::size_t kWidth = 116;
    std::vector<std::string> words;
    const auto& passes = analysis::passRegistry();
    for (std::size_t i = 0; i < passes.size(); ++i)
        words.push_back(std::string(passes[i]->kind()) + (i + 1 < passes.size() ? "," : ""));
    words.emplace_back("(docs/analysis.md).");
    std::string out = "Kinds:";
    std::size_t lineStart = 0;
    for (const std::string& word : words) {
        if (out.size() - lineStart + 1 + word.size() > kWidth) {
            out += '\n';
            lineStart = out.size();
        } else {
            out += ' ';
        }
        out += word;
    }
    return out + '\n';
}

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
        std::cout << kAnalyzeUsage << '\n' << kAnalyzeHelp << kindsHelp();
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
        if (result.efficiency)
            std::fprintf(stderr, "phases: efficiency %.3f s (inside the passes, beside the others)\n",
                         seconds(result.efficiency->computeWall));
    }
    report::ReportOptions reportOptions;
    reportOptions.generator = "timesink-cli " TIMESINK_VERSION;
    reportOptions.analysisOptions = options;
    if (destination.text) {
        report::writeReport(report::buildReportModel(*trace, result, reportOptions), report::ReportFormat::Text,
                            std::cout);
        std::cout.flush();
    } else {
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
    if (failAbove && analysis::totalLostFraction(result) * 100.0 > *failAbove) {
        std::cerr << "timesink-cli analyze: lost " << formatPercent(analysis::totalLostFraction(result))
                  << " of the analysed time, above --fail-above " << *failAbove << "%\n";
        return kExitThreshold;
    }
    return kExitOk;
}

} // namespace timesink::cli
