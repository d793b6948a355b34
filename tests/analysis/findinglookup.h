// SPDX-License-Identifier: MIT
#pragma once

// Picking findings out of an AnalysisResult in the analysis tests (builder-made traces and real fixtures).

#include "analysis/core/pass.h"
#include "tests/common/qteststring.h"

#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
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

/// A finding's detail of type T by key (throws when it has none): detail<std::int64_t>(f, "rank").
template <typename T> T detail(const analysis::Finding& f, std::string_view key)
{
    for (const analysis::Detail& d : f.details) {
        if (d.key == key)
            return std::get<T>(d.value);
    }
    throw std::runtime_error("no detail " + std::string(key));
}

} // namespace timesink::testing
