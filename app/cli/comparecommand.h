// SPDX-License-Identifier: MIT
#pragma once

namespace timesink::cli {

/// `timesink-cli compare BASELINE CANDIDATE [--format text|json] [--steps B:C] [--op-map FILE] [--top N]`
/// (docs/compare.md). Returns an exit code (clicommon.h).
int runCompare(int argc, char** argv);

} // namespace timesink::cli
