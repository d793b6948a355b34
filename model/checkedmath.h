// SPDX-License-Identifier: MIT
#pragma once

#include "model/types.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

namespace timesink::model {

/// The times a trace may hold: ±2^62 ns (±146 years around the clock's zero). Keeping every timestamp and every
/// slice end inside this range means a span (end − start) and the difference of any two times fit in int64;
/// importers drop events outside it and count them as the warning "time_out_of_range".
inline constexpr TimeNs kMaxTimeNs = (TimeNs(1) << 62) - 1;

[[nodiscard]] constexpr bool timeInRange(TimeNs t)
{
    return t >= -kMaxTimeNs && t <= kMaxTimeNs;
}

/// a + b, clamped to int64 instead of wrapping (a clamped time is then outside timeInRange()).
[[nodiscard]] constexpr std::int64_t saturatingAdd(std::int64_t a, std::int64_t b)
{
    std::int64_t r = 0;
    if (__builtin_add_overflow(a, b, &r))
        return b > 0 ? std::numeric_limits<std::int64_t>::max() : std::numeric_limits<std::int64_t>::min();
    return r;
}

/// a − b, clamped to int64 instead of wrapping.
[[nodiscard]] constexpr std::int64_t saturatingSub(std::int64_t a, std::int64_t b)
{
    std::int64_t r = 0;
    if (__builtin_sub_overflow(a, b, &r))
        return b < 0 ? std::numeric_limits<std::int64_t>::max() : std::numeric_limits<std::int64_t>::min();
    return r;
}

/// a + b for unsigned counters (bytes, calls), clamped instead of wrapping.
[[nodiscard]] constexpr std::uint64_t saturatingAdd(std::uint64_t a, std::uint64_t b)
{
    std::uint64_t r = 0;
    return __builtin_add_overflow(a, b, &r) ? std::numeric_limits<std::uint64_t>::max() : r;
}

/// A double rounded to the nearest int64, or nullopt when it is NaN, infinite or outside int64 (a plain
/// static_cast is undefined behaviour there). 2^63 itself is out of range; −2^63 is in.
[[nodiscard]] inline std::optional<std::int64_t> doubleToInt64(double v)
{
    if (!std::isfinite(v))
        return std::nullopt;
    const double r = std::nearbyint(v);
    // Both bounds are exact powers of two, so the comparisons are exact.
    if (r < -9223372036854775808.0 || r >= 9223372036854775808.0)
        return std::nullopt;
    return static_cast<std::int64_t>(r);
}

/// doubleToInt64() clamped to int64 instead of failing (NaN → 0), for sizes and counts where "very large" is
/// the honest answer.
[[nodiscard]] inline std::int64_t doubleToInt64Clamped(double v)
{
    if (std::isnan(v))
        return 0;
    if (const auto r = doubleToInt64(v))
        return *r;
    return v > 0 ? std::numeric_limits<std::int64_t>::max() : std::numeric_limits<std::int64_t>::min();
}

} // namespace timesink::model
