// SPDX-License-Identifier: MIT
#include "jobcommand.h"

#include "app/job/jobrunner.h"
#include "clicommon.h"
#include "report/reportoutput.h"
#include "reportdestination.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>

namespace timesink::cli {

namespace {

constexpr const char* kJobUsage = "usage: timesink-cli job PATH... [--format text|json|md|html|csv] [-o FILE] [-j N]\n";

constexpr const char* kJobHelp
    = R"(Analyses every rank of a distributed job and aligns them step by step: which rank the others wait
for (straggler), how much communication is exposed and how much of it is waiting, and each rank's findings.

PATH is a folder holding a job (Kineto rank-N files or files with distributedInfo, several *_ascend_pt/
runs, several PROF_* runs), several trace paths, or the timesink.report/1 files that
`analyze --format json` wrote for each rank (each node analyses its own ranks; job merges the reports).
In a folder, the traces are picked out by content; anything else there is skipped and named in the
warnings. Reports are checked number by number, and the job warns when ranks disagree (world size, steps,
backend, Timesink version) or are missing. Traces are opened through the snapshot cache like every
command's (--cache also stores each rank's snapshot).

Options:
  --format text|json|md|html|csv   text (default), the timesink.job/1 object, Markdown, HTML with heat maps,
                                   CSV of the job findings (format from -o's extension unless given)
  -o FILE                          write to FILE atomically, never over an input
  -j N                             ranks analysed at once (default: the number of cores)
  --min-lost-ms X                  drop findings that lose less than X ms of rank-time
)";

} // namespace

int runJob(int argc, char** argv)
{
    Arguments args;
    std::string error;
    if (!parseArguments(argc, argv, 2, {"--format", "-o", "-j", "--min-lost-ms"}, {"--help", "-h"}, args, error)) {
        std::cerr << "timesink-cli job: " << terminalText(error) << '\n' << kJobUsage;
        return kExitUsage;
    }
    if (args.has("--help") || args.has("-h")) {
        std::cout << kJobUsage << '\n' << kJobHelp;
        return kExitOk;
    }
    if (args.positional.empty()) {
        std::cerr << kJobUsage;
        return kExitUsage;
    }
    std::optional<report::ReportFormat> format = report::ReportFormat::Text;
    ReportDestination destination;
    if (args.has("-o"))
        destination.file = std::filesystem::path(args.value("-o"));
    if (args.has("--format"))
        format = report::reportFormatFromName(args.value("--format"));
    else if (destination.file)
        format = report::reportFormatFromPath(*destination.file);
    if (!format) {
        std::cerr << "timesink-cli job: unknown format (text, json, md, html, csv)\n" << kJobUsage;
        return kExitUsage;
    }
    app::JobRunOptions options;
    options.generator = "timesink-cli " TIMESINK_VERSION;
    options.import = importOptions(); // --max-decompressed & co., as every command reads its traces
    // … and through the snapshot cache, as every command does: a rank already opened once is not parsed again.
    options.snapshotCache = activeSnapshotCacheDirectory();
    options.storeSnapshots = cacheMode() == CacheMode::Write;
    if (args.has("-j")) {
        char* end = nullptr;
        const std::string v = args.value("-j");
        const long n = std::strtol(v.c_str(), &end, 10);
        if (v.empty() || *end != '\0' || n < 1 || n > 1024) {
            std::cerr << "timesink-cli job: -j needs a number from 1 to 1024, got '" << v << "'\n";
            return kExitUsage;
        }
        options.threads = static_cast<unsigned>(n);
    }
    if (args.has("--min-lost-ms")) {
        char* end = nullptr;
        const std::string v = args.value("--min-lost-ms");
        const double ms = std::strtod(v.c_str(), &end);
        if (v.empty() || *end != '\0' || !(ms >= 0) || ms > 1e9) {
            std::cerr << "timesink-cli job: --min-lost-ms needs a non-negative number, got '" << v << "'\n";
            return kExitUsage;
        }
        options.analysis.minLostNs = static_cast<model::TimeNs>(ms * 1e6);
        options.job.minLostNs = options.analysis.minLostNs;
    }
    std::vector<std::filesystem::path> paths(args.positional.begin(), args.positional.end());
    std::vector<app::JobInput> inputs;
    if (!app::collectJobInputs(paths, inputs, error, &options.inputWarnings)) {
        std::cerr << "timesink-cli job: " << terminalText(error) << '\n';
        return kExitInput;
    }
    for (const std::string& w : options.inputWarnings)
        std::cerr << "timesink-cli job: " << terminalText(w) << '\n';
    // The paths as given count as inputs too: a folder holding the ranks must not receive the report (it would
    // mix with the profiler output, and a report written there would be a rank the next time), and neither may
    // any rank found inside it.
    std::vector<std::filesystem::path> inputPaths(paths);
    for (const app::JobInput& in : inputs)
        inputPaths.push_back(in.path);
    if (destination.file && !checkReportDestination(destination, inputPaths, error)) {
        std::cerr << "timesink-cli job: " << terminalText(error) << '\n';
        return kExitUsage;
    }
    app::tuneAllocatorForJobs();
    const app::JobRun run = app::runJob(inputs, options);
    if (!run.errors.empty()) {
        for (const std::string& e : run.errors)
            std::cerr << "timesink-cli job: " << terminalText(e) << '\n';
        return kExitInput;
    }
    // The CSV is the findings table alone: the job's warnings, which every other format shows, go to stderr.
    if (*format == report::ReportFormat::Csv) {
        // (runJob put the skipped inputs, already named above, first.)
        const auto& warnings = run.result.warnings;
        for (std::size_t i = std::min(options.inputWarnings.size(), warnings.size()); i < warnings.size(); ++i)
            std::cerr << "timesink-cli job: warning: " << terminalText(warnings[i]) << '\n';
    }
    return emitTo(destination, inputPaths, "job",
                  [&](std::ostream& out) { report::writeJobReport(run.result, *format, options.generator, out); });
}

} // namespace timesink::cli
