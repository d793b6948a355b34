// SPDX-License-Identifier: MIT
#pragma once

#include "model/trace.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace timesink::analysis {

/// Which steps of one run take part in a comparison.
///
/// Text form (one side of `--steps B:C`): a comma-separated list of items, each
///   I      step index I (0 = the first step of the trace, in time order)
///   I-J    indices I to J inclusive
///   #N     the step numbered N (ProfilerStep#N, msprof step id)
///   #N-#M  steps numbered N to M inclusive (also "#N-M")
/// or empty / "all" for every step. The order given is the order of pairing; a step listed twice
/// counts once (its first place).
///   "0-2"      → indices 0, 1, 2
///   "#1010,#1012" → the steps numbered 1010 and 1012
///   "all"      → every step
class CompareStepSelection
{
public:
    /// Parses one side. On error returns false and `error` says what is wrong with `text`.
    static bool parse(std::string_view text, CompareStepSelection& out, std::string& error);
    /// Splits "B:C" into its two sides (either may be empty = all); "B" alone selects B on both sides.
    static bool parsePair(std::string_view text, CompareStepSelection& baseline, CompareStepSelection& candidate,
                          std::string& error);

    [[nodiscard]] bool selectsAll() const { return m_items.empty(); }

    /// Indices into `steps` (which must be the trace's steps, in time order), in pairing order.
    /// Fails, naming the step and what the trace has, when an index or number does not exist.
    bool resolve(std::span<const model::Step> steps, std::vector<std::size_t>& indices, std::string& error) const;

    /// The text this selection was parsed from ("all" when it selects every step).
    [[nodiscard]] std::string text() const;

private:
    struct Item
    {
        bool byNumber = false;
        std::int64_t first = 0;
        std::int64_t last = 0;
    };
    std::vector<Item> m_items;
    std::string m_text;
};

} // namespace timesink::analysis
