// SPDX-License-Identifier: MIT
// The Ascend / msprof SQLite readers: the input is the bytes of a database file (seeds: the fixture databases),
// imported through detection as msprof_0.db.
#include "fuzzfile.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    timesink::fuzz::importPath(timesink::fuzz::writeInput("msprof_0.db", data, size));
    return 0;
}
