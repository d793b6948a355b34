// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace timesink::model {

/// True when `text` is well-formed UTF-8 (no overlong forms, no surrogates, nothing above U+10FFFF).
[[nodiscard]] bool isValidUtf8(std::string_view text);

/// `text` with every ill-formed sequence replaced by U+FFFD (one per maximal ill-formed subpart, as Unicode
/// recommends); valid text is returned unchanged. `replaced`, when given, is increased by the replacements made.
[[nodiscard]] std::string toValidUtf8(std::string_view text, std::size_t* replaced = nullptr);

/// Sanitises `text` in place; true when it changed.
bool makeValidUtf8(std::string& text);

} // namespace timesink::model
