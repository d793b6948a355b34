// SPDX-License-Identifier: MIT
#pragma once

#include <string_view>

namespace timesink::model {

/// Warning kinds (ImportWarning::kind) that make a trace partial or its times doubtful (truncated, stopped at the
/// decompression limit, times out of range, disjoint clocks, a damaged or unreadable stream): the viewer's banner
/// shows them, and a job repeats them for the rank they concern, so nobody trusts findings from a cut capture
/// without knowing.
[[nodiscard]] bool isSeriousImportWarning(std::string_view kind);

} // namespace timesink::model
