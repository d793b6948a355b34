// SPDX-License-Identifier: MIT
#pragma once

#include "model/types.h"

#include <string>

namespace timesink::analysis {

/// Milliseconds with enough precision for titles: 1234567 ns → "1.23 ms", 45000 ns → "0.045 ms".
std::string formatMs(model::TimeNs ns);
/// A fraction as a percentage with one decimal: 0.1234 → "12.3%".
std::string formatShare(double fraction);

} // namespace timesink::analysis
