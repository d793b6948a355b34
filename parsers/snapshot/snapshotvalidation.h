// SPDX-License-Identifier: MIT
#pragma once

// The snapshot reader's last check: every index that the analyses and widgets follow without checking, read from
// an untrusted file, must point inside the trace.

#include "model/trace.h"
#include "parsers/snapshot/snapshot.pb.h"

#include <string>

namespace timesink::parsers::snapshot {

/// Checks the decoded columns of `trace` and what `h` will add to it: string ids, parents, depths (the depth index
/// with the trace rules, model/tracerules.h), categories, arg sets (every value decodes; on a second thread unless
/// `threads` is 1), flows, steps, devices. Returns what is wrong ("the snapshot is corrupt (…)"), or nothing. Rethrows
/// what a thread threw.
[[nodiscard]] std::string validateTrace(const pb::Header& h, const model::Trace& trace, unsigned threads);

} // namespace timesink::parsers::snapshot
