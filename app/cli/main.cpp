// SPDX-License-Identifier: MIT
#include "analyzecommand.h"
#include "clicommon.h"
#include "comparecommand.h"
#include "exportcommand.h"
#include "jobcommand.h"
#include "parsers/registry/traceloader.h"

#include <cstring>
#include <iostream>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>

namespace {

constexpr const char* kUsage = R"(usage: timesink-cli COMMAND ...

Commands:
  info PATH [--format text|json]        what the trace holds: format, devices, tracks, events, steps, warnings
  analyze PATH [--format text|json|md|html|csv] [-o FILE] [--fail-above PERCENT] …
                                        ranked findings: where the time goes and what to change (analyze --help)
  compare BASELINE CANDIDATE [--format text|json] [--steps B:C] [--op-map FILE]
                                        two runs side by side: steps, operators, findings that differ;
                                        two RKNN tables also layer by layer (core split, slower first);
                                        two job folders rank by rank (step time, stragglers, communication)
  job PATH... [--format text|json|md|html|csv] [-o FILE] [-j N]
                                        all ranks of a distributed job: stragglers, communication, rank × step
  export PATH -o FILE [--format pftrace|json|tsnap]
                                        the unified trace with findings for ui.perfetto.dev (.pftrace, .json),
                                        or a snapshot that every command reopens without parsing (.tsnap)

%FORMATS%
Every command uses a current snapshot of PATH from the snapshot cache ($XDG_CACHE_HOME/timesink/snapshots, shared
with the desktop app) when there is one.

Options for every command:
  --cache                               also store a snapshot in the cache after importing PATH
  --no-cache                            ignore the snapshot cache
  --phases                              print where the import's (and analyze's) time went on stderr
  --max-decompressed SIZE               stop decompressing one .gz/.zst file after SIZE (default 32G; 512M, 1T …)
  --max-decompressed-ratio N            … or after N times its compressed size (default 200)

Exit codes: 0 success, 1 usage error, 2 input could not be read or recognised, 3 a --fail-above threshold
was exceeded, 4 the output could not be written (stdout closed or full, -o not writable).
)";

// PATH's formats, from the importers' own descriptions (the registry is the one list of formats).
std::string formatsParagraph()
{
    std::string out = "PATH is a trace file or a profiler output folder, one of:\n";
    for (const timesink::parsers::FormatDescription& f : timesink::parsers::supportedFormats()) {
        std::string where;
        for (const std::string& p : f.filePatterns)
            where += (where.empty() ? "" : " ") + p;
        for (const std::string& p : f.folderPatterns)
            where += (where.empty() ? "" : " ") + p + "/";
        out += "  " + f.name + "\n      " + where + "\n";
    }
    out += "A file is recognised by its content, not its name.";
    return out;
}

std::string usage()
{
    std::string text = kUsage;
    const std::string marker = "%FORMATS%";
    text.replace(text.find(marker), marker.size(), formatsParagraph());
    return text;
}

int dispatch(std::string_view command, int argc, char** argv)
{
    using namespace timesink::cli;
    if (command == "info")
        return runInfo(argc, argv);
    if (command == "analyze")
        return runAnalyze(argc, argv);
    if (command == "compare")
        return runCompare(argc, argv);
    if (command == "job")
        return runJob(argc, argv);
    if (command == "export")
        return runExport(argc, argv);
    std::cerr << "timesink-cli: unknown command '" << command << "'\n" << usage();
    return kExitUsage;
}

} // namespace

int main(int argc, char** argv)
{
    using namespace timesink::cli;
    // Options of every command (snapshot cache, decompression limits) may stand anywhere, before the command too.
    std::string error;
    if (!extractGlobalOptions(argc, argv, error)) {
        std::cerr << "timesink-cli: " << error << '\n';
        return kExitUsage;
    }
    if (argc < 2) {
        std::cerr << usage();
        return kExitUsage;
    }
    const std::string_view command = argv[1];
    if (command == "--help" || command == "-h" || command == "help") {
        std::cout << usage();
        return finishStdout(command, kExitOk);
    }
    if (command == "--version") {
        std::cout << "timesink-cli " << TIMESINK_VERSION << '\n';
        return finishStdout(command, kExitOk);
    }
    // Every command's stdout is checked at the end: a report lost to a full disk must not exit 0.
    int code = kExitOk;
    try {
        code = dispatch(command, argc, argv);
    } catch (const std::bad_alloc&) {
        // Past the import (whose own message names the decompression limits): analysis, a job's ranks, a report.
        // Worker threads hand their failure to this thread (model/workers.h), so this is the one place it lands.
        std::cerr << "timesink-cli: out of memory while running '" << command
                  << "': the trace needs more memory than this machine has left (--max-decompressed limits what "
                     "an import may grow to)\n";
        code = kExitInput;
    } catch (const std::length_error& e) {
        std::cerr << "timesink-cli: the input is too big for Timesink: " << e.what() << '\n';
        code = kExitInput;
    }
    return finishStdout(command, code);
}
