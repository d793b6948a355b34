// SPDX-License-Identifier: MIT
#pragma once

namespace timesink::cli {

/// `timesink-cli export PATH -o FILE [--format pftrace|json] [--no-findings] [--no-args] [--no-flows]`:
/// the unified trace, with the findings as an annotation track, as a Perfetto protobuf trace (.pftrace) or
/// Chrome trace JSON (.json), both for ui.perfetto.dev. The format comes from FILE's extension unless --format
/// is given. Exit codes: 0 ok, 1 usage (also: FILE would overwrite PATH), 2 unreadable input or FILE not written.
int runExport(int argc, char** argv);

} // namespace timesink::cli
