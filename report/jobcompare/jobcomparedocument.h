// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/job/jobcompare.h"

#include <string>

namespace timesink::report {

/// The job-compare document: the two jobs' paths as given, the comparison, the generator.
struct JobCompareInput
{
    std::string baselinePath;
    std::string candidatePath;
    const analysis::JobCompareResult& result;
    std::string generator = "timesink";
};

} // namespace timesink::report
