// SPDX-License-Identifier: MIT
#include "parsers/rknn/rknnlayercells.h"

#include "parsers/rknn/rknntext.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <vector>

namespace timesink::parsers::rknncells {

std::int64_t coresUsed(std::string_view workload)
{
    std::int64_t n = 0;
    while (!workload.empty()) {
        const std::size_t slash = workload.find('/');
        std::string_view part = workload.substr(0, slash);
        if (!part.empty() && part.back() == '%')
            part.remove_suffix(1);
        if (const auto v = rknntext::parseDouble(part); v && *v > 0.0)
            ++n;
        if (slash == std::string_view::npos)
            break;
        workload.remove_prefix(slash + 1);
    }
    return n;
}

namespace {

// "33.3%/33.3%/33.3%" → {33.3, 33.3, 33.3} (percent signs dropped when `percent`); a part that is no number → nullopt.
std::optional<std::vector<double>> slashNumbers(std::string_view cell, bool percent)
{
    std::vector<double> out;
    while (true) {
        const std::size_t slash = cell.find('/');
        std::string_view part = cell.substr(0, slash);
        if (percent && !part.empty() && part.back() == '%')
            part.remove_suffix(1);
        const auto v = rknntext::parseDouble(part);
        if (!v)
            return std::nullopt;
        out.push_back(*v);
        if (slash == std::string_view::npos)
            return out;
        cell.remove_prefix(slash + 1);
    }
}

} // namespace

std::optional<std::vector<double>> workloadShares(std::string_view workload)
{
    return slashNumbers(workload, true);
}

std::string implausibleCells(const RknnLayer& l)
{
    constexpr std::int64_t kMaxCycles = 10'000'000'000'000;
    std::string why;
    const auto add = [&why](const std::string& what) { why += (why.empty() ? "" : "; ") + what; };
    if (!l.workload.empty()) {
        if (const auto w = slashNumbers(l.workload, true)) {
            double sum = 0;
            bool inRange = true;
            for (double v : *w) {
                inRange = inRange && v >= 0.0 && v <= 100.0;
                sum += v;
            }
            if (!inRange)
                add("WorkLoad " + l.workload + " has a share outside 0-100 %");
            else if (sum > 0.0 && (sum < 98.5 || sum > 101.5)) {
                char buf[32];
                std::snprintf(buf, sizeof buf, "%.1f", sum);
                add("WorkLoad " + l.workload + " adds up to " + buf + " %, not 100 %");
            }
        }
    }
    if (l.ddrCycles || l.npuCycles || l.totalCycles) {
        const std::int64_t d = l.ddrCycles.value_or(-1);
        const std::int64_t n = l.npuCycles.value_or(-1);
        const std::int64_t t = l.totalCycles.value_or(-1);
        if (d < 0 || n < 0 || t < 0 || d > kMaxCycles || n > kMaxCycles || t > kMaxCycles)
            add("cycles " + std::to_string(d) + "/" + std::to_string(n) + "/" + std::to_string(t)
                + " are negative, missing or above 10^13");
        else if (t != std::max(d, n))
            add("Total cycles " + std::to_string(t) + " are not max(DDR, NPU)");
    }
    if (!l.macUsage.empty() && l.macUsage != "\\") {
        const auto m = slashNumbers(l.macUsage, false);
        if (!m || std::any_of(m->begin(), m->end(), [](double v) { return v < 0.0 || v > 100.0; }))
            add("MacUsage " + l.macUsage + " is outside 0-100 %");
    }
    if (l.rwKb && (*l.rwKb < 0.0 || *l.rwKb > 1e9))
        add("RW(KB) is negative or above 10^9");
    return why;
}

bool isEdgeOperator(std::string_view opType)
{
    return opType == "InputOperator" || opType == "OutputOperator";
}

} // namespace timesink::parsers::rknncells
