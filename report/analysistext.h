// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/pass.h"
#include "model/trace.h"

#include <ostream>

namespace timesink::report {

/// The analysis as text for a terminal (`analyze`, the default format): the trace's headline figures, the ranked
/// findings table, what was not assessed, then each finding with its numbers, why and what to do. Every string from
/// the trace passes terminalText(), so the input cannot act on the terminal.
void writeAnalysisText(const model::Trace& trace, const analysis::AnalysisResult& result, std::ostream& out);

} // namespace timesink::report
