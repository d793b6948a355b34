// SPDX-License-Identifier: MIT
#pragma once

// What a snapshot's protobuf header holds of a trace (everything but the columns), both ways: the one place that
// maps the model's small fields to snapshot.proto.

#include "model/trace.h"
#include "parsers/snapshot/snapshot.h"
#include "parsers/snapshot/snapshot.pb.h"

#include <string>
#include <string_view>

namespace timesink::parsers::snapshot {

/// Fills `h` from `trace` (metadata, warnings, steps, track descriptors and sizes, counts), `source` and `writer`;
/// the section table is the writer's.
void fillHeader(const model::Trace& trace, const SourceIdentity& source, std::string_view writer, pb::Header& h);

/// Sets what the header holds on a trace whose columns are read and checked: the tracks' descriptors, steps,
/// warnings, metadata (sourcePath = `sourcePath`) and the trace's counts. The header's ids were checked against
/// the columns (validateTrace).
void restoreFromHeader(const pb::Header& h, const std::string& sourcePath, model::Trace& trace);

} // namespace timesink::parsers::snapshot
