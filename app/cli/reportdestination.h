// SPDX-License-Identifier: MIT
#pragma once

#include "clicommon.h"
#include "report/analysis/reportmodel.h"
#include "report/reportoutput.h"

#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace timesink::cli {

/// Where a report command (analyze, compare) writes: `--format text|json|md|html|csv` and `-o FILE`.
/// Without --format the format comes from the extension of FILE (report.html → HTML), else it is text.
/// Text only goes to the terminal; the other formats go to FILE (atomically) or to stdout.
struct ReportDestination
{
    bool text = true;
    report::ReportFormat format = report::ReportFormat::Json;
    std::optional<std::filesystem::path> file;
};

/// Reads --format and -o; false with `error` set for an unknown format, a text report with -o, or a file
/// whose format cannot be told from its extension.
/// Example: {"-o", "out/run.md"} → {text: false, format: Markdown, file: "out/run.md"}.
bool resolveReportDestination(const Arguments& args, ReportDestination& out, std::string& error);

/// False with `error` set when the destination file would overwrite one of `inputs` or is a folder
/// (output::checkOutputPath); true for stdout. Commands call it before loading, so a typo costs nothing.
bool checkReportDestination(const ReportDestination& destination, std::span<const std::filesystem::path> inputs,
                            std::string& error);

/// Writes through `write` to stdout, or to the destination file via an atomic write that refuses to overwrite
/// any of `inputs`. Returns kExitOk, kExitUsage (refused output path) or kExitOutput (the file or stdout could
/// not be written); errors go to stderr prefixed with "timesink-cli COMMAND: ".
int emitTo(const ReportDestination& destination, std::span<const std::filesystem::path> inputs,
           std::string_view command, const std::function<void(std::ostream&)>& write);

/// Writes a non-text report to the destination: stdout, or the file via an atomic write that refuses to
/// overwrite any of `inputs`. Returns an exit code: kExitOk, kExitUsage (refused output path), or kExitOutput
/// when the file could not be written. Errors go to stderr prefixed with "timesink-cli COMMAND: ".
int emitReport(const report::ReportModel& model, const ReportDestination& destination,
               std::span<const std::filesystem::path> inputs, std::string_view command);

} // namespace timesink::cli
