// SPDX-License-Identifier: MIT
#pragma once

#include "model/types.h"

#include <string>
#include <string_view>

namespace timesink::analysis {

/// Milliseconds with enough precision for titles: 1234567 ns → "1.23 ms", 45000 ns → "0.045 ms".
std::string formatMs(model::TimeNs ns);
/// A fraction as a percentage with one decimal: 0.1234 → "12.3%".
std::string formatShare(double fraction);

/// Human-readable duration with three significant digits, the unit chosen by size (locale-independent):
/// 12 → "12 ns", 2'000 → "2.00 µs", 845'000 → "845 µs", 11'725'163'944 → "11.7 s". Negative values keep their sign.
std::string formatDuration(model::TimeNs ns);
/// Byte count with three significant digits in binary units: 512 → "512 B", 140'649'195'952 → "131 GiB".
std::string formatBytes(std::int64_t bytes);
/// A finding number in the unit its key names, for people: keys "ns" or ending "_ns" are durations, "bytes" or
/// ending "_bytes" byte counts, ending "_share" fractions; else empty (the raw value says it all).
///   ("copy_ns", 11725163944) → "11.7 s"; ("bytes", 140649195952) → "131 GiB"; ("worst_step_share", 0.5) → "50.0%".
std::string formatWithUnit(std::string_view key, double value);

} // namespace timesink::analysis
