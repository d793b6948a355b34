// SPDX-License-Identifier: MIT
// The Ascend CSV tables: the first byte picks the table (kernel_details, op_summary, task_time, op_statistic,
// api_statistic, step_trace_time); the rest is the file, read by the table reader and then imported as a bundle
// file through detection.
#include "fuzzfile.h"
#include "parsers/ascendcsv/ascendcsvtables.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    if (size == 0)
        return 0;
    using namespace timesink::parsers;
    static constexpr const char* kNames[] = {"kernel_details.csv", "op_summary_0.csv",    "task_time_0.csv",
                                             "op_statistic_0.csv", "api_statistic_0.csv", "step_trace_time.csv"};
    const unsigned which = data[0] % 6;
    const auto path = timesink::fuzz::writeInput(kNames[which], data + 1, size - 1);
    switch (which) {
    case 0:
    case 1:
        (void)readKernelTable(path);
        break;
    case 2:
        (void)readTaskTime(path);
        break;
    case 3:
        (void)readOpStatistic(path);
        break;
    case 4:
        (void)readApiStatistic(path);
        break;
    default:
        (void)readStepTraceTime(path);
        break;
    }
    timesink::fuzz::importPath(path);
    return 0;
}
