// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/efficiency/efficiency.h"

#include <cstddef>
#include <ostream>

namespace timesink::report {

/// A short section for the terminal: the device and its peaks, MFU per step, per class, the top operators.
void writeEfficiencyText(const analysis::efficiency::EfficiencyReport& r, std::ostream& out,
                         std::size_t maxOperators = 10);

} // namespace timesink::report
