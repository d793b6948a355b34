// SPDX-License-Identifier: MIT
#include "comparecommand.h"

#include "analysis/compare/compare.h"
#include "analysis/core/pass.h"
#include "analysis/job/jobcompare.h"
#include "app/job/jobrunner.h"
#include "clicommon.h"
#include "parsers/common/regularfile.h"
#include "report/reportoutput.h"
#include "reportdestination.h"

#include <charconv>
#include <iostream>
#include <utility>
#include <vector>

namespace timesink::cli {

namespace {

/// Operator maps are hand-written tables of a few KB; anything beyond this is the wrong file.
constexpr std::uint64_t kMaxOpMapBytes = 16ULL << 20;

constexpr const char* kCompareUsage
    = "usage: timesink-cli compare BASELINE CANDIDATE [--format text|json|md|html|csv] [-o FILE] [--steps B:C]\n"
      "                             [--op-map FILE] [--top N]\n"
      "       timesink-cli compare JOB_A JOB_B [--format text|json|md|html|csv] [-o FILE]\n";

constexpr const char* kCompareHelp = R"(
Compares two runs (typically a GPU run and an NPU run of the same model): per-step time side by side,
device time per framework operator (host time for a run without device work), and the findings that
exist on one side only or grew. Two RKNN perf tables (edge runs: single-core vs multi-core, two toolkit
versions) are also compared layer by layer: layers matched by FullName, node path, then op type and order;
the layers whose NPU core split or target changed; the layers that got slower first.

  --format text|json|md|html|csv
                       text for people (default), the timesink.compare/1 JSON document, a Markdown or
                       self-contained HTML report, or the operator table as CSV (docs/report-schema.md)
  -o FILE              write to FILE (format from its extension unless --format says); written
                       atomically, never over an input
  --steps B:C          steps to pair: B for the baseline, C for the candidate, each a comma list of
                       indices (0, 1-3) or step numbers (#1010, #1010-#1012); empty or 'all' = every
                       step; 'B' alone applies to both. Default: all steps, paired first with first.
  --op-map FILE        extra operator-name map (TSV: canonical<TAB>other-name...), wins over the
                       built-in table (resources/opmap/default.tsv)
  --top N              operators and layers shown in text output (default 20; JSON lists all)

Job vs job: when BASELINE and CANDIDATE are both folders of ranks (what `timesink-cli job` accepts: rank
traces, *_ascend_pt/ or PROF_* runs, or the timesink.report/1 files of each rank), each is analysed as a
job and the two are compared rank by rank (mean step time, communication wait, the waiting each rank
caused) and by the job's step time, spread, straggler and communication figures (timesink.jobcompare/1
for JSON; CSV is the rank table). --steps, --op-map and --top do not apply.
)";

/// Job vs job: both sides are folders of ranks. Each is analysed as `timesink-cli job` would (app::runJob).
int runJobCompare(const Arguments& args, const ReportDestination& destination)
{
    if (args.has("--steps") || args.has("--op-map")) {
        std::cerr << "timesink-cli compare: --steps and --op-map do not apply to two jobs\n" << kCompareUsage;
        return kExitUsage;
    }
    app::JobRunOptions options;
    options.generator = "timesink-cli " TIMESINK_VERSION;
    options.import = importOptions();
    options.snapshotCache = activeSnapshotCacheDirectory();
    options.storeSnapshots = cacheMode() == CacheMode::Write;
    std::vector<std::filesystem::path> inputPaths = {args.positional[0], args.positional[1]};
    std::vector<std::vector<app::JobInput>> sides(2);
    for (std::size_t i = 0; i < 2; ++i) {
        std::string error;
        std::vector<std::string> skipped;
        if (!app::collectJobInputs({args.positional[i]}, sides[i], error, &skipped)) {
            std::cerr << "timesink-cli compare: " << terminalText(error) << '\n';
            return kExitInput;
        }
        for (const std::string& w : skipped)
            std::cerr << "timesink-cli compare: " << terminalText(w) << '\n';
        for (const app::JobInput& in : sides[i])
            inputPaths.push_back(in.path);
    }
    std::string error;
    if (!checkReportDestination(destination, inputPaths, error)) {
        std::cerr << "timesink-cli compare: " << terminalText(error) << '\n';
        return kExitUsage;
    }
    app::tuneAllocatorForJobs();
    std::vector<app::JobRun> runs;
    for (const auto& inputs : sides) {
        runs.push_back(app::runJob(inputs, options));
        if (!runs.back().errors.empty()) {
            for (const std::string& e : runs.back().errors)
                std::cerr << "timesink-cli compare: " << terminalText(e) << '\n';
            return kExitInput;
        }
    }
    const analysis::JobCompareResult result = analysis::compareJobs(runs[0].result, runs[1].result);
    const report::JobCompareInput in {args.positional[0], args.positional[1], result, options.generator};
    if (destination.text) {
        report::writeJobCompareReport(in, report::ReportFormat::Text, std::cout);
        return kExitOk;
    }
    const report::ReportFormat format = destination.format;
    // The CSV is the rank table alone: the jobs' warnings, which every other format shows, go to stderr.
    if (format == report::ReportFormat::Csv) {
        for (const auto& [side, warnings] :
             {std::pair {"baseline", &result.baselineWarnings}, std::pair {"candidate", &result.candidateWarnings}}) {
            for (const std::string& w : *warnings)
                std::cerr << "timesink-cli compare: warning (" << side << "): " << terminalText(w) << '\n';
        }
        if (!result.baselineUsable() || !result.candidateUsable())
            std::cerr << "timesink-cli compare: " << terminalText(result.notes.front()) << '\n';
    }
    return emitTo(destination, inputPaths, "compare",
                  [&](std::ostream& out) { report::writeJobCompareReport(in, format, out); });
}

bool loadOpMap(const std::string& path, analysis::CompareOpMap& map, std::string& error)
{
    // Only a regular file, and at most kMaxOpMapBytes: `--op-map /dev/zero` must not read forever.
    std::string text;
    if (!parsers::readSmallRegularFile(path, kMaxOpMapBytes, "operator map", text, error))
        return false;
    return map.addTsv(text, path, error);
}

} // namespace

int runCompare(int argc, char** argv)
{
    Arguments args;
    std::string error;
    if (!parseArguments(argc, argv, 2, {"--format", "-o", "--steps", "--op-map", "--top"}, {"--help", "-h"}, args,
                        error)) {
        std::cerr << "timesink-cli compare: " << terminalText(error) << '\n' << kCompareUsage;
        return kExitUsage;
    }
    if (args.has("--help") || args.has("-h")) {
        std::cout << kCompareUsage << kCompareHelp;
        return kExitOk;
    }
    ReportDestination destination;
    if (!resolveReportDestination(args, destination, error)) {
        std::cerr << "timesink-cli compare: " << terminalText(error) << '\n' << kCompareUsage;
        return kExitUsage;
    }
    if (args.positional.size() != 2) {
        std::cerr << kCompareUsage;
        return kExitUsage;
    }
    // Two folders of ranks: job vs job.
    const bool baseJob = app::isJobFolder(args.positional[0]);
    const bool candJob = app::isJobFolder(args.positional[1]);
    if (baseJob != candJob) {
        std::cerr << "timesink-cli compare: " << terminalText(args.positional[baseJob ? 0 : 1])
                  << " holds several ranks (a job) and the other side is one run; compare two jobs or two runs\n";
        return kExitUsage;
    }
    if (baseJob)
        return runJobCompare(args, destination);
    // Every file the command reads is an input that -o must not overwrite: the operator map too.
    std::vector<std::filesystem::path> inputs = {args.positional[0], args.positional[1]};
    if (args.has("--op-map"))
        inputs.emplace_back(args.value("--op-map"));
    if (!checkReportDestination(destination, inputs, error)) { // before the loads, so a typo costs nothing
        std::cerr << "timesink-cli compare: " << terminalText(error) << '\n';
        return kExitUsage;
    }
    std::size_t top = 20;
    if (args.has("--top")) {
        const std::string text = args.value("--top");
        const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), top);
        if (ec != std::errc() || ptr != text.data() + text.size()) {
            std::cerr << "timesink-cli compare: --top needs a number, not '" << text << "'\n" << kCompareUsage;
            return kExitUsage;
        }
    }
    analysis::CompareOptions options;
    if (!analysis::CompareStepSelection::parsePair(args.value("--steps"), options.baselineSteps, options.candidateSteps,
                                                   error)) {
        std::cerr << "timesink-cli compare: " << terminalText(error) << '\n' << kCompareUsage;
        return kExitUsage;
    }
    analysis::CompareOpMap opMap = analysis::CompareOpMap::builtIn();
    if (args.has("--op-map")) {
        if (!loadOpMap(args.value("--op-map"), opMap, error)) {
            std::cerr << "timesink-cli compare: " << terminalText(error) << '\n';
            return kExitInput;
        }
    }
    options.opMap = &opMap;

    int exitCode = kExitOk;
    const model::TracePtr baseline = loadForCommand(args.positional[0], exitCode);
    if (!baseline)
        return exitCode;
    const model::TracePtr candidate = loadForCommand(args.positional[1], exitCode);
    if (!candidate)
        return exitCode;

    const analysis::CancelToken cancel;
    const analysis::AnalysisResult baseAnalysis = analysis::analyze(*baseline, analysis::AnalysisOptions {}, cancel);
    const analysis::AnalysisResult candAnalysis = analysis::analyze(*candidate, analysis::AnalysisOptions {}, cancel);

    analysis::CompareResult result;
    if (!analysis::compareRuns(*baseline, baseAnalysis.findings, *candidate, candAnalysis.findings, options, result,
                               error)) {
        // The traces loaded; what failed is the step selection the user asked for.
        std::cerr << "timesink-cli compare: " << terminalText(error) << '\n';
        return kExitUsage;
    }
    report::CompareReportOptions reportOptions;
    reportOptions.generator = "timesink-cli " TIMESINK_VERSION;
    reportOptions.textTop = top;
    if (destination.text) {
        report::writeCompareReport({*baseline, baseAnalysis.findings}, {*candidate, candAnalysis.findings}, result,
                                   report::ReportFormat::Text, std::cout, reportOptions);
        return kExitOk;
    }
    return emitTo(destination, inputs, "compare", [&](std::ostream& out) {
        report::writeCompareReport({*baseline, baseAnalysis.findings}, {*candidate, candAnalysis.findings}, result,
                                   destination.format, out, reportOptions);
    });
}

} // namespace timesink::cli
