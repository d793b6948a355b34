// SPDX-License-Identifier: MIT
#include "reportdestination.h"

#include "output/outputfile.h"

#include <iostream>

namespace timesink::cli {

bool resolveReportDestination(const Arguments& args, ReportDestination& out, std::string& error)
{
    out = {};
    if (args.has("-o")) {
        out.file = std::filesystem::path(args.value("-o"));
        if (out.file->empty()) {
            error = "-o needs a file name";
            return false;
        }
    }
    if (args.has("--format")) {
        const std::string name = args.value("--format");
        if (name == "text") {
            if (out.file) {
                error = "text goes to the terminal; with -o use --format json, md, html or csv";
                return false;
            }
            return true;
        }
        // Other spellings of text ("TEXT", "txt") are not taken here: text goes only to the terminal.
        const auto format = report::reportFormatFromName(name);
        if (!format || *format == report::ReportFormat::Text) {
            error = "unknown format '" + name + "' (expected text, json, md, html or csv)";
            return false;
        }
        out.text = false;
        out.format = *format;
        return true;
    }
    if (out.file) {
        const auto format = report::reportFileFormatFromPath(*out.file);
        if (!format) {
            error = "cannot tell the report format from '" + out.file->string()
                + "'; name it .json, .md, .html or .csv, or give --format";
            return false;
        }
        out.text = false;
        out.format = *format;
    }
    return true;
}

bool checkReportDestination(const ReportDestination& destination, std::span<const std::filesystem::path> inputs,
                            std::string& error)
{
    return !destination.file || output::checkOutputPath(*destination.file, inputs, error);
}

int emitTo(const ReportDestination& destination, std::span<const std::filesystem::path> inputs,
           std::string_view command, const std::function<void(std::ostream&)>& write)
{
    if (!destination.file) {
        write(std::cout);
        return finishStdout(command, kExitOk);
    }
    std::string error;
    if (!output::checkOutputPath(*destination.file, inputs, error)) {
        std::cerr << "timesink-cli " << command << ": " << terminalText(error) << '\n';
        return kExitUsage;
    }
    output::AtomicFile file(*destination.file);
    if (file.open(error)) {
        write(file.stream());
        if (file.commit(error))
            return kExitOk;
    }
    std::cerr << "timesink-cli " << command << ": " << terminalText(error) << '\n';
    return kExitOutput;
}

int emitReport(const report::ReportModel& model, const ReportDestination& destination,
               std::span<const std::filesystem::path> inputs, std::string_view command)
{
    return emitTo(destination, inputs, command,
                  [&](std::ostream& out) { report::writeReport(model, destination.format, out); });
}

} // namespace timesink::cli
