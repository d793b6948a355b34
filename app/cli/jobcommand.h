// SPDX-License-Identifier: MIT
#pragma once

namespace timesink::cli {

/// `timesink-cli job PATH... [--format text|json|md|html|csv] [-o FILE] [-j N]`: all ranks of a distributed job,
/// aligned step by step, with stragglers and the job's communication (docs/analysis.md, docs/report-schema.md).
int runJob(int argc, char** argv);

} // namespace timesink::cli
