// SPDX-License-Identifier: MIT
#pragma once

// Picking findings out of an AnalysisResult in the analysis tests (builder-made traces and real fixtures).

#include "analysis/core/pass.h"
#include "tests/common/qteststring.h"

#include <string_view>
#include <vector>

namespace timesink::testing {

/// The findings of one kind, in their order in r.findings: ofKind(r, "cpu_fallback").
inline std::vector<const analysis::Finding*> ofKind(const analysis::AnalysisResult& r, std::string_view kind)
{
    std::vector<const analysis::Finding*> out;
    for (const analysis::Finding& f : r.findings) {
        if (f.kind == kind)
            out.push_back(&f);
    }
    return out;
}

} // namespace timesink::testing
