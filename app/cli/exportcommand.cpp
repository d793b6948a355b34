// SPDX-License-Identifier: MIT
#include "exportcommand.h"

#include "analysis/core/pass.h"
#include "clicommon.h"
#include "exporters/traceexport.h"
#include "output/outputfile.h"
#include "parsers/snapshot/snapshot.h"

#include <filesystem>
#include <iostream>

namespace timesink::cli {

namespace {

constexpr const char* kExportUsage = "usage: timesink-cli export PATH -o FILE [--format pftrace|json|tsnap] "
                                     "[--no-findings] [--no-args] [--no-flows]\n";

constexpr const char* kExportHelp
    = R"(Writes the unified trace for ui.perfetto.dev (or chrome://tracing): every track, slice, flow and
counter the importer found, at exact nanosecond times, plus a "Timesink findings" group with one track
per finding whose slices mark its evidence.

Options:
  -o FILE               the output file; .pftrace (Perfetto protobuf), .json (Chrome trace JSON) or .tsnap
                        (a Timesink snapshot: every command and the desktop app open it like the trace, without
                        parsing; it holds the imported trace, not the findings)
  --format pftrace|json|tsnap
                        the format, when FILE's extension does not say it
  --no-findings         skip the analysis and the findings tracks
  --no-args             leave out slice arguments (smaller files)
  --no-flows            leave out flow arrows (launch → kernel, forward → backward)

Perfetto timestamps are unsigned: a trace with negative timestamps exports only as Chrome JSON.
The .json file is a Kineto (torch.profiler) trace: exporting a Kineto trace and opening the file again
gives the same info and the same findings (the findings tracks are recognised and left out). A trace of
another profiler (torch_npu, msprof, RKNN) comes back as a Kineto GPU trace; a .tsnap keeps it exactly.
The file is written to a temporary file beside FILE and renamed, so FILE is never left half-written.
)";

/// `export PATH -o FILE.tsnap`: the imported trace as a snapshot, with PATH's identity in its header.
int exportSnapshot(const std::filesystem::path& input, const std::filesystem::path& output)
{
    std::string error;
    const std::filesystem::path inputs[] = {input};
    if (!output::checkOutputPath(output, inputs, error)) {
        std::cerr << "timesink-cli export: " << terminalText(error) << '\n';
        return kExitUsage;
    }
    const model::Expected<parsers::snapshot::SourceIdentity> identity = parsers::snapshot::identifySource(input);
    if (!identity.ok()) {
        std::cerr << "timesink-cli: " << terminalText(identity.status().message()) << '\n';
        return kExitInput;
    }
    int exitCode = kExitOk;
    model::TracePtr trace = loadForCommand(input.string(), exitCode);
    if (!trace)
        return exitCode;
    if (const model::Status written = parsers::snapshot::writeSnapshot(*trace, identity.value(), output);
        !written.ok()) {
        std::cerr << "timesink-cli export: " << terminalText(written.message()) << '\n';
        return kExitInput;
    }
    std::cerr << "timesink-cli export: wrote " << terminalText(output.string()) << " (" << trace->sliceCount()
              << " slices)\n";
    return kExitOk;
}

} // namespace

int runExport(int argc, char** argv)
{
    Arguments args;
    std::string error;
    if (!parseArguments(argc, argv, 2, {"-o", "--format"}, {"--help", "-h", "--no-findings", "--no-args", "--no-flows"},
                        args, error)) {
        std::cerr << "timesink-cli export: " << terminalText(error) << '\n' << kExportUsage;
        return kExitUsage;
    }
    if (args.has("--help") || args.has("-h")) {
        std::cout << kExportUsage << '\n' << kExportHelp;
        return kExitOk;
    }
    if (args.positional.size() != 1 || !args.has("-o") || args.value("-o").empty()) {
        std::cerr << kExportUsage;
        return kExitUsage;
    }
    const std::filesystem::path input = args.positional.front();
    const std::filesystem::path output = args.value("-o");
    const bool snapshot = args.has("--format") ? args.value("--format") == "tsnap"
                                               : output.extension() == parsers::snapshot::kExtension;
    if (snapshot)
        return exportSnapshot(input, output);
    const std::optional<exporters::TraceFormat> format = args.has("--format")
        ? exporters::traceFormatFromName(args.value("--format"))
        : exporters::traceFormatFromPath(output);
    if (!format) {
        if (args.has("--format"))
            std::cerr << "timesink-cli export: unknown format '" << args.value("--format")
                      << "' (expected pftrace, json or tsnap)\n";
        else
            std::cerr << "timesink-cli export: cannot tell the format from '" << output.string()
                      << "'; name it .pftrace or .json, or give --format\n";
        return kExitUsage;
    }
    // Checked before the (possibly long) load so that a typo costs nothing.
    const std::filesystem::path inputs[] = {input};
    if (!output::checkOutputPath(output, inputs, error)) {
        std::cerr << "timesink-cli export: " << terminalText(error) << '\n';
        return kExitUsage;
    }

    int exitCode = kExitOk;
    model::TracePtr trace = loadForCommand(input.string(), exitCode);
    if (!trace)
        return exitCode;
    exporters::TraceExportOptions options;
    options.includeFindings = !args.has("--no-findings");
    options.includeArgs = !args.has("--no-args");
    options.includeFlows = !args.has("--no-flows");
    analysis::AnalysisResult result;
    if (options.includeFindings) {
        analysis::CancelToken cancel;
        result = analysis::analyze(*trace, {}, cancel);
    }
    if (!exporters::exportTrace(*trace, result.findings, *format, output, inputs, error, options)) {
        std::cerr << "timesink-cli export: " << terminalText(error) << '\n';
        return kExitOutput;
    }
    std::cerr << "timesink-cli export: wrote " << terminalText(output.string()) << " (" << trace->sliceCount()
              << " slices, " << result.findings.size() << " finding" << (result.findings.size() == 1 ? "" : "s")
              << ")\n";
    return kExitOk;
}

} // namespace timesink::cli
