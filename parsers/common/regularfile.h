// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace timesink::parsers {

/// "not a regular file (it is a FIFO)" style text for `path` when it exists and is not a regular file (FIFO,
/// device such as /dev/zero, socket — also behind a symlink), or a folder when `allowDirectory` is false.
/// Empty when it is a regular file (or missing: opening it will say so). Importers call this before they open
/// anything: opening a FIFO for reading blocks until a writer comes, and /dev/zero never ends.
std::string notRegularFileReason(const std::filesystem::path& path, bool allowDirectory = false);

/// Opens `path` for reading without ever blocking on a FIFO (O_NONBLOCK until the type is known), and only
/// when it is a regular file. Returns the descriptor, or −1 with `error` set: "cannot read PATH: not a regular
/// file (it is a FIFO)", "cannot open PATH: Permission denied".
int openRegularFile(const std::filesystem::path& path, std::string& error);

/// Reads a whole regular file of at most `maxBytes` into `out`; false with `error` naming the file and the
/// limit (`what` says what the file is for: "operator map"). Used for small side files (maps, configs).
bool readSmallRegularFile(const std::filesystem::path& path, std::uint64_t maxBytes, std::string_view what,
                          std::string& out, std::string& error);

} // namespace timesink::parsers
