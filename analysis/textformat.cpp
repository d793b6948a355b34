// SPDX-License-Identifier: MIT
#include "analysis/textformat.h"

#include <cmath>
#include <cstdio>

namespace timesink::analysis {

std::string formatMs(model::TimeNs ns)
{
    const double ms = double(ns) / 1e6;
    char buf[48];
    if (std::fabs(ms) >= 100.0)
        std::snprintf(buf, sizeof buf, "%.0f ms", ms);
    else if (std::fabs(ms) >= 1.0)
        std::snprintf(buf, sizeof buf, "%.2f ms", ms);
    else
        std::snprintf(buf, sizeof buf, "%.3f ms", ms);
    return buf;
}

std::string formatShare(double fraction)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f%%", fraction * 100.0);
    return buf;
}

} // namespace timesink::analysis
