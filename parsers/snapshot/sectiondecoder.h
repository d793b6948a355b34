// SPDX-License-Identifier: MIT
#pragma once

// Decompressing a snapshot's column sections into the columns planned for them (snapshotcolumns.h), a few at a time.

#include "model/expected.h"
#include "parsers/common/importer.h"
#include "parsers/snapshot/bytesource.h"
#include "parsers/snapshot/snapshotcolumns.h"

namespace timesink::parsers::snapshot {

/// Decodes every section of `plan` from `source` into its targets, largest first, on up to `options.threads`
/// threads (0: up to four), the calling thread among them (it alone reports to `progress`, which may be null).
/// Each frame must decode to exactly its raw size with a valid checksum. Returns what is wrong (Malformed, without
/// the file's name), Cancelled when `progress` asked to stop, or success. An allocation failure on any thread is
/// rethrown here, after every join.
[[nodiscard]] model::Status decodeSections(const ByteSource& source, const ColumnPlan& plan,
                                           const ImportOptions& options, ProgressSink* progress);

} // namespace timesink::parsers::snapshot
