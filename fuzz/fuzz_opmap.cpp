// SPDX-License-Identifier: MIT
// The operator-map parser (compare --op-map): any text is a map or an error naming FILE:LINE, and a map answers
// canonical() for any name.
#include "analysis/compare/compareopmap.h"

#include <cstdint>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    timesink::analysis::CompareOpMap map;
    std::string error;
    const bool ok = map.addTsv(text, "fuzz.tsv", error);
    if (!ok && error.empty())
        __builtin_trap(); // a refused map always says why
    (void)map.canonical(text.substr(0, text.find('\t')));
    (void)map.canonical("aten::mm");
    return 0;
}
