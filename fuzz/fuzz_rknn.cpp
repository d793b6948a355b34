// SPDX-License-Identifier: MIT
// The RKNN perf-table text parser, line by line as the importer feeds it, the trace built from its report, and the
// analysis of that trace (the edge NPU advisor reads the layers' cells: WorkLoad, cycles, MacUsage, RW).
#include "analysis/core/breakdown.h"
#include "analysis/core/pass.h"
#include "parsers/rknn/rknnimporter.h"
#include "parsers/rknn/rknnperfparser.h"

#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace timesink::parsers;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    RknnPerfParser parser;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t end = text.find('\n', start);
        parser.addLine(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
        if (end == std::string_view::npos)
            break;
        start = end + 1;
    }
    RknnPerfReport report = parser.finish();
    if (!report.frames.empty()) {
        const auto trace = RknnImporter::buildTrace(std::move(report), "fuzz.txt");
        if (trace && trace->spanNs() < 0)
            __builtin_trap();
        if (trace) {
            const timesink::analysis::CancelToken cancel;
            const auto result = timesink::analysis::analyze(*trace, timesink::analysis::AnalysisOptions {}, cancel);
            const auto breakdown = timesink::analysis::computeBreakdown(*trace, result.findings, result.analysedNs, 15);
            if (breakdown.device.npuCores && breakdown.device.npuCores->busyFraction
                && !(*breakdown.device.npuCores->busyFraction >= 0.0))
                __builtin_trap();
        }
    }
    return 0;
}
