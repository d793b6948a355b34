// SPDX-License-Identifier: MIT
#include "analysis/efficiency/efficiencybyname.h"

#include <algorithm>
#include <string_view>
#include <tuple>
#include <unordered_map>

namespace timesink::analysis::efficiency {

namespace {

constexpr double kNsPerSecond = 1e9;

struct Sums
{
    NameEfficiency row;
    double rooflineNs = 0.0; // Σ fraction × device time
    model::TimeNs judgedNs = 0;
    const BoundedFraction* firstClamped = nullptr;
    double measuredNs = 0.0;
    model::TimeNs measuredOverNs = 0;
    bool measuredClamped = false;
    std::unordered_map<std::string_view, model::TimeNs> nsByBound;
};

} // namespace

std::vector<NameEfficiency> efficiencyByName(const EfficiencyReport& report)
{
    std::unordered_map<std::string_view, Sums> byName;
    std::vector<std::string_view> order; // first appearance, so equal times sort the same every run
    for (const OperatorEfficiency& o : report.operators) {
        auto [it, fresh] = byName.try_emplace(o.name);
        Sums& s = it->second;
        if (fresh) {
            s.row.name = o.name;
            order.push_back(o.name);
        }
        s.row.calls += o.calls;
        s.row.flops += o.flops;
        s.row.bytes += o.bytes;
        s.row.deviceNs += o.deviceNs;
        if (o.rooflineFraction) {
            s.rooflineNs += o.rooflineFraction->value * static_cast<double>(o.deviceNs);
            s.judgedNs += o.deviceNs;
            if (o.rooflineFraction->clamped && !s.firstClamped)
                s.firstClamped = &*o.rooflineFraction;
        }
        if (o.measured) {
            s.measuredNs += o.measured->value * static_cast<double>(o.deviceNs);
            s.measuredOverNs += o.deviceNs;
            s.measuredClamped = s.measuredClamped || o.measured->clamped;
        }
        if (!o.bound.empty())
            s.nsByBound[o.bound] += o.deviceNs;
    }
    std::vector<NameEfficiency> rows;
    rows.reserve(order.size());
    for (const std::string_view name : order) {
        Sums& s = byName.at(name);
        NameEfficiency r = std::move(s.row);
        if (r.deviceNs > 0) {
            const double seconds = static_cast<double>(r.deviceNs) / kNsPerSecond;
            r.tflopsPerS = r.flops / seconds / 1e12;
            r.tbPerS = r.bytes / seconds / 1e12;
        }
        if (s.judgedNs > 0) {
            // Each fraction is at most 1, so their weighted mean is too; a clamped one keeps its flag and reason.
            BoundedFraction f = boundFraction(s.rooflineNs / static_cast<double>(s.judgedNs), {});
            if (s.firstClamped) {
                f.clamped = true;
                f.reason = s.firstClamped->reason;
            }
            r.rooflineFraction = std::move(f);
        }
        if (s.measuredOverNs > 0) {
            BoundedFraction f = boundFraction(s.measuredNs / static_cast<double>(s.measuredOverNs), {});
            f.clamped = f.clamped || s.measuredClamped;
            r.measured = std::move(f);
        }
        const auto dominant
            = std::max_element(s.nsByBound.begin(), s.nsByBound.end(), [](const auto& a, const auto& b) {
                  return std::tie(a.second, b.first) < std::tie(b.second, a.first);
              });
        if (dominant != s.nsByBound.end())
            r.bound = std::string(dominant->first);
        rows.push_back(std::move(r));
    }
    std::stable_sort(rows.begin(), rows.end(),
                     [](const NameEfficiency& a, const NameEfficiency& b) { return a.deviceNs > b.deviceNs; });
    return rows;
}

} // namespace timesink::analysis::efficiency
