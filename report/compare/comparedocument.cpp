// SPDX-License-Identifier: MIT
#include "report/compare/comparedocument.h"

#include "report/core/textformat.h"

#include <map>

namespace timesink::report {

std::string deviceDescription(const model::Trace& trace)
{
    std::map<std::string, int> grouped; // sorted, so the text is deterministic
    for (const model::Device& d : trace.metadata().devices) {
        std::string key(model::deviceKindKey(d.kind));
        if (!d.name.empty())
            key += " " + d.name;
        ++grouped[key];
    }
    if (grouped.empty())
        return "cpu";
    std::string text;
    for (const auto& [key, count] : grouped)
        text += (text.empty() ? "" : ", ") + (count > 1 ? std::to_string(count) + "\xC3\x97 " : std::string()) + key;
    return text;
}

std::string explanationSharesNote(const analysis::CompareResult& result)
{
    double total = 0.0;
    for (const analysis::CompareExplanation& e : result.explanations)
        total += e.shareOfStepDelta;
    if (total <= 1.0 + 1e-9)
        return {};
    return "These shares add up to " + formatPercent(total)
        + " of the step-time difference because finding kinds can overlap (one idle stretch can be a pipeline bubble "
          "and a wait): they are not parts of it. The waterfall splits the difference into parts that add up "
          "exactly.";
}

} // namespace timesink::report
