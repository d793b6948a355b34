// SPDX-License-Identifier: MIT
#include "clicommon.h"
#include "report/analysis/tracesummary.h"
#include "report/writers/json/jsonwriter.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

namespace timesink::cli {

namespace {

void printText(const model::Trace& trace)
{
    const model::TraceMetadata& meta = trace.metadata();
    auto row = [](std::string_view label, const std::string& value) {
        std::printf("  %-14.*s %s\n", static_cast<int>(label.size()), label.data(), terminalText(value).c_str());
    };
    std::printf("%s\n", terminalText(meta.sourcePath).c_str());
    row("format", meta.format + (meta.formatVersion.empty() ? "" : " (" + meta.formatVersion + ")"));
    if (meta.devices.empty()) {
        row("devices", "none (host only)");
    } else {
        // Up to 32 devices listed by name; more, one summary line per kind (the JSON output lists them all).
        const std::vector<std::string> lines = report::deviceSummaryLines(meta.devices);
        for (std::size_t i = 0; i < lines.size(); ++i)
            row(i == 0 ? "devices" : "", lines[i]);
    }
    if (meta.rank >= 0)
        row("rank", std::to_string(meta.rank) + (meta.worldSize > 0 ? " of " + std::to_string(meta.worldSize) : ""));
    if (!meta.profilerLevel.empty())
        row("profiler level", meta.profilerLevel);
    row("span", formatDuration(trace.spanNs()) + (meta.syntheticTimestamps ? " (laid out, not measured)" : ""));
    row("slices", std::to_string(trace.sliceCount()));
    row("tracks", std::to_string(trace.tracks().size()));
    const std::size_t linkedFlows = trace.linkedFlowCount();
    row("flows", std::to_string(linkedFlows));

    const auto steps = trace.steps();
    if (steps.size() == 1 && steps.front().synthetic) {
        row("steps", "1 (no step markers; the whole trace is one step)");
    } else {
        model::TimeNs total = 0;
        model::TimeNs longest = 0;
        for (const model::Step& s : steps) {
            total += s.duration();
            longest = std::max(longest, s.duration());
        }
        row("steps",
            std::to_string(steps.size()) + " (mean " + formatDuration(total / model::TimeNs(steps.size()))
                + ", longest " + formatDuration(longest) + ")");
    }

    std::printf("\n  %-16s %10s\n", "category", "slices");
    for (int c = 0; c < model::kSliceCategoryCount; ++c) {
        const auto cat = static_cast<model::SliceCategory>(c);
        if (trace.categoryCount(cat) == 0)
            continue;
        const std::string_view label = model::categoryLabel(cat);
        std::printf("  %-16.*s %10llu\n", static_cast<int>(label.size()), label.data(),
                    static_cast<unsigned long long>(trace.categoryCount(cat)));
    }
    const std::size_t unlinkedFlows = trace.flows().size() - linkedFlows;
    if (!trace.warnings().empty() || unlinkedFlows > 0) {
        std::printf("\n  warnings\n");
        for (const model::ImportWarning& w : trace.warnings()) {
            std::printf("  %8llu × %s: %s\n", static_cast<unsigned long long>(w.count), terminalText(w.kind).c_str(),
                        terminalText(w.message).c_str());
        }
        if (unlinkedFlows > 0)
            std::printf("  %8llu × unlinked_flows: %s\n", static_cast<unsigned long long>(unlinkedFlows),
                        report::unlinkedFlowsMessage(unlinkedFlows).c_str());
    }
}

} // namespace

int runInfo(int argc, char** argv)
{
    Arguments args;
    std::string error;
    if (!parseArguments(argc, argv, 2, {"--format"}, {"--help", "-h"}, args, error)) {
        std::cerr << "timesink-cli info: " << error << "\nusage: timesink-cli info PATH [--format text|json]\n";
        return kExitUsage;
    }
    if (args.has("--help") || args.has("-h")) {
        std::cout << "usage: timesink-cli info PATH [--format text|json]\n"
                     "Detects the format of PATH (a trace file or a profiler output folder) and summarises it.\n";
        return kExitOk;
    }
    const std::string format = args.value("--format", "text");
    if (args.positional.size() != 1 || (format != "text" && format != "json")) {
        std::cerr << "usage: timesink-cli info PATH [--format text|json]\n";
        return kExitUsage;
    }
    int exitCode = kExitOk;
    model::TracePtr trace = loadForCommand(args.positional.front(), exitCode);
    if (!trace)
        return exitCode;
    if (format == "json")
        std::cout << report::traceSummaryJson(*trace).dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
                  << '\n';
    else
        printText(*trace);
    return kExitOk;
}

} // namespace timesink::cli
