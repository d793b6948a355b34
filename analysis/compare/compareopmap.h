// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>

namespace timesink::analysis {

/// Maps the names one operator has on different platforms to one canonical name, so that a PyTorch
/// `aten::relu_` on a GPU, an Ascend `Relu` task and an RKNN `ReLU` layer line up in a comparison.
///
/// The table is tab-separated text (resources/opmap/default.tsv, documented in docs/compare.md):
///   canonical <TAB> alias <TAB> alias ...
/// '#' starts a comment line; blank lines are ignored. Every field (the canonical one included) maps
/// to the canonical name. A later row or file wins over an earlier one for the same alias, so a user
/// file given with `--op-map` overrides the built-in table.
///
/// Lookup, in order: exact; case-insensitive; case-insensitive without a trailing instance number
/// (digits, optionally after '_'); otherwise the name is its own canonical name.
///   "aten::relu_" → "aten::relu", "RELU" → "aten::relu", "Conv2D1" → "aten::conv2d",
///   "trans_TransData_12" → the row of "trans_TransData" if there is one, "my_op" → "my_op".
class CompareOpMap
{
public:
    /// The table shipped in resources/opmap/default.tsv (embedded in the binary at build time).
    static const CompareOpMap& builtIn();

    /// Adds the rows of `text`. On a malformed row nothing is added and `error` reads
    /// "<sourceName>:<line>: <what is wrong>".
    bool addTsv(std::string_view text, std::string_view sourceName, std::string& error);

    /// The canonical name of `name` (see the lookup order above).
    [[nodiscard]] std::string canonical(std::string_view name) const;

    /// Number of distinct aliases known (canonical names included).
    [[nodiscard]] std::size_t size() const { return m_exact.size(); }

private:
    std::unordered_map<std::string, std::string> m_exact;  // alias → canonical
    std::unordered_map<std::string, std::string> m_folded; // lower-case alias → canonical
};

} // namespace timesink::analysis
