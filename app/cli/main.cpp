// SPDX-License-Identifier: MIT
#include "analyzecommand.h"
#include "clicommon.h"
#include "exportcommand.h"
#include "comparecommand.h"
#include "jobcommand.h"

#include <cstring>
#include <iostream>
#include <string_view>

namespace {

constexpr const char* kUsage = R"(usage: timesink-cli COMMAND ...

Commands:
  info PATH [--format text|json]        what the trace holds: format, devices, tracks, events, steps, warnings
  analyze PATH [--format text|json|md|html|csv] [-o FILE] [--fail-above PERCENT] …
                                        ranked findings: where the time goes and what to change (analyze --help)
  compare BASELINE CANDIDATE [--format text|json] [--steps B:C] [--op-map FILE]
                                        two runs side by side: steps, operators, findings that differ
  job PATH... [--format text|json|md|html|csv] [-o FILE] [-j N]
                                        all ranks of a distributed job: stragglers, communication, rank × step
  export PATH -o FILE [--format pftrace|json]
                                        the unified trace with findings for ui.perfetto.dev (.pftrace, .json)

PATH is a trace file (.json, .json.gz, .json.zst, an RKNN perf log …) or a profiler output folder
(*_ascend_pt/, PROF_*/). Exit codes: 0 success, 1 usage error, 2 input could not be read or recognised,
3 a --fail-above threshold was exceeded.
)";

} // namespace

int main(int argc, char** argv)
{
    using namespace timesink::cli;
    if (argc < 2) {
        std::cerr << kUsage;
        return kExitUsage;
    }
    const std::string_view command = argv[1];
    if (command == "--help" || command == "-h" || command == "help") {
        std::cout << kUsage;
        return kExitOk;
    }
    if (command == "--version") {
        std::cout << "timesink-cli " << TIMESINK_VERSION << '\n';
        return kExitOk;
    }
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
    std::cerr << "timesink-cli: unknown command '" << command << "'\n" << kUsage;
    return kExitUsage;
}
