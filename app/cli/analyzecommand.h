// SPDX-License-Identifier: MIT
#pragma once

namespace timesink::cli {

/// `timesink-cli analyze PATH [--format text|json] [--min-lost-ms X] [--fail-above PERCENT]
///  [--bubble-threshold-us X] [--tiny-kernel-us X] [--small-copy-kb X]`.
/// Exit codes: 0 ok, 1 usage, 2 unreadable input, 3 when the total lost fraction exceeds --fail-above percent.
int runAnalyze(int argc, char** argv);

} // namespace timesink::cli
