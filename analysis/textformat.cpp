// SPDX-License-Identifier: MIT
#include "analysis/textformat.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace timesink::analysis {

std::string formatMs(model::TimeNs ns)
{
    const double ms = double(ns) / 1e6;
    char buf[48];
    if (std::fabs(ms) >= 100.0)
        std::snprintf(buf, sizeof buf, "%.0f ms", ms);
    else if (std::fabs(ms) >= 1.0)
        std::snprintf(buf, sizeof buf, "%.2f ms", ms);
    else
        std::snprintf(buf, sizeof buf, "%.3f ms", ms);
    return buf;
}

std::string formatShare(double fraction)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f%%", fraction * 100.0);
    return buf;
}

namespace {

std::string fixed(double value, int decimals)
{
    char buf[64];
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::fixed, decimals);
    return ec == std::errc() ? std::string(buf, end) : std::string("–");
}

bool endsWith(std::string_view s, std::string_view suffix)
{
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

} // namespace

std::string formatDuration(model::TimeNs ns)
{
    const char* sign = ns < 0 ? "-" : "";
    // Unsigned magnitude: -INT64_MIN does not fit an int64.
    const auto magnitude = ns < 0 ? static_cast<std::uint64_t>(-(ns + 1)) + 1 : static_cast<std::uint64_t>(ns);
    if (magnitude < 1000)
        return sign + std::to_string(magnitude) + " ns";
    struct Unit
    {
        double scale;
        const char* name;
    };
    static constexpr Unit kUnits[] = {{1e3, "µs"}, {1e6, "ms"}, {1e9, "s"}};
    std::size_t u = 0;
    while (u + 1 < std::size(kUnits) && static_cast<double>(magnitude) >= kUnits[u + 1].scale)
        ++u;
    const double value = static_cast<double>(magnitude) / kUnits[u].scale;
    const int decimals = value >= 100 ? 0 : value >= 10 ? 1 : 2;
    return sign + fixed(value, decimals) + " " + kUnits[u].name;
}

std::string formatBytes(std::int64_t bytes)
{
    const char* sign = bytes < 0 ? "-" : "";
    const auto magnitude = bytes < 0 ? static_cast<std::uint64_t>(-(bytes + 1)) + 1 : static_cast<std::uint64_t>(bytes);
    if (magnitude < 1024)
        return sign + std::to_string(magnitude) + " B";
    static constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double value = static_cast<double>(magnitude) / 1024.0;
    std::size_t u = 0;
    while (u + 1 < std::size(kUnits) && value >= 1024.0) {
        value /= 1024.0;
        ++u;
    }
    const int decimals = value >= 100 ? 0 : value >= 10 ? 1 : 2;
    return sign + fixed(value, decimals) + " " + kUnits[u];
}

std::string formatWithUnit(std::string_view key, double value)
{
    if (!std::isfinite(value))
        return {};
    if (key == "ns" || endsWith(key, "_ns"))
        return formatDuration(static_cast<model::TimeNs>(std::llround(value)));
    if (key == "bytes" || endsWith(key, "_bytes"))
        return formatBytes(static_cast<std::int64_t>(std::llround(value)));
    if (endsWith(key, "_share"))
        return formatShare(value);
    return {};
}

} // namespace timesink::analysis
