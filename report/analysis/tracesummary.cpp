// SPDX-License-Identifier: MIT
#include "report/analysis/tracesummary.h"

#include "model/importwarning.h"

#include <algorithm>
#include <map>

namespace timesink::report {

std::string groupDigits(std::int64_t n)
{
    const bool negative = n < 0;
    // The magnitude as unsigned, so that the lowest int64 does not overflow when negated.
    std::uint64_t magnitude = negative ? 0 - static_cast<std::uint64_t>(n) : static_cast<std::uint64_t>(n);
    std::string digits;
    int inGroup = 0;
    do {
        if (inGroup == 3) {
            digits.push_back(',');
            inGroup = 0;
        }
        digits.push_back(static_cast<char>('0' + magnitude % 10));
        magnitude /= 10;
        ++inGroup;
    } while (magnitude > 0);
    if (negative)
        digits.push_back('-');
    std::reverse(digits.begin(), digits.end());
    return digits;
}

namespace {

std::string_view deviceKindWord(model::DeviceKind kind)
{
    switch (kind) {
    case model::DeviceKind::Cpu:
        return "CPU";
    case model::DeviceKind::Gpu:
        return "GPU";
    case model::DeviceKind::Npu:
        return "NPU";
    case model::DeviceKind::EdgeNpu:
        return "edge NPU";
    }
    return "unknown";
}

/// Sorted distinct indices as runs: {0, 1, 2, 5} → "0–2, 5"; past `maxRanges` runs, "… and N more ranges".
std::string indexRanges(std::vector<std::int32_t> indices, std::size_t maxRanges)
{
    std::sort(indices.begin(), indices.end());
    indices.erase(std::unique(indices.begin(), indices.end()), indices.end());
    std::string text;
    std::size_t runs = 0;
    for (std::size_t i = 0; i < indices.size();) {
        std::size_t j = i;
        while (j + 1 < indices.size() && std::int64_t(indices[j + 1]) == std::int64_t(indices[j]) + 1)
            ++j;
        if (runs < maxRanges) {
            text += (runs > 0 ? ", " : "") + groupDigits(indices[i]);
            if (j > i)
                text += "–" + groupDigits(indices[j]);
        }
        ++runs;
        i = j + 1;
    }
    if (runs > maxRanges)
        text += ", … and " + groupDigits(std::int64_t(runs - maxRanges)) + " more range"
            + (runs - maxRanges == 1 ? "" : "s");
    return text;
}

} // namespace

std::vector<std::string> deviceSummaryLines(const std::vector<model::Device>& devices, std::size_t listUpTo,
                                            std::size_t maxRanges)
{
    std::vector<std::string> lines;
    if (devices.empty())
        return lines;
    if (devices.size() <= listUpTo) {
        std::map<std::string, int> grouped;
        for (const model::Device& d : devices)
            ++grouped[std::string(model::deviceKindKey(d.kind)) + " " + (d.name.empty() ? "unnamed" : d.name)];
        std::string text;
        for (const auto& [name, count] : grouped)
            text += (text.empty() ? "" : ", ") + std::to_string(count) + "× " + name;
        lines.push_back(std::move(text));
        return lines;
    }
    struct Kind
    {
        std::vector<std::int32_t> indices;
        std::map<std::string, std::size_t> names; // while at most three distinct ones
        bool manyNames = false;
    };
    std::map<model::DeviceKind, Kind> kinds;
    for (const model::Device& d : devices) {
        Kind& k = kinds[d.kind];
        k.indices.push_back(d.index);
        if (!k.manyNames) {
            ++k.names[d.name.empty() ? "unnamed" : d.name];
            if (k.names.size() > 3) {
                k.manyNames = true;
                k.names.clear();
            }
        }
    }
    for (auto& [kind, k] : kinds) {
        const std::size_t count = k.indices.size();
        std::string line = groupDigits(std::int64_t(count)) + " " + std::string(deviceKindWord(kind)) + " device"
            + (count == 1 ? "" : "s") + " (" + indexRanges(std::move(k.indices), maxRanges) + ")";
        std::string names;
        for (const auto& [name, n] : k.names)
            names += (names.empty() ? "; " : ", ") + groupDigits(std::int64_t(n)) + "× " + name;
        lines.push_back(line + names);
    }
    return lines;
}

std::string unlinkedFlowsMessage(std::size_t unlinked)
{
    return std::to_string(unlinked) + " flow" + (unlinked == 1 ? "" : "s")
        + " could not be linked (no slice at one end, e.g. an \"f\" event without its \"s\"); they are not counted, "
          "drawn or exported";
}

TraceSummary summarizeTrace(const model::Trace& trace)
{
    TraceSummary s;
    s.metadata = trace.metadata();
    s.startNs = trace.startNs();
    s.spanNs = trace.spanNs();
    s.slices = trace.sliceCount();
    s.steps = trace.steps().size();
    s.tracks = trace.tracks().size();
    s.flows = trace.linkedFlowCount();
    s.unlinkedFlows = trace.flows().size() - s.flows;
    for (int c = 0; c < model::kSliceCategoryCount; ++c)
        s.counts[static_cast<std::size_t>(c)] = trace.categoryCount(static_cast<model::SliceCategory>(c));
    s.warnings.assign(trace.warnings().begin(), trace.warnings().end());
    if (s.unlinkedFlows > 0) {
        model::ImportWarning w;
        w.kind = std::string(model::key(model::ImportWarningKind::UnlinkedFlows));
        w.count = s.unlinkedFlows;
        w.message = unlinkedFlowsMessage(s.unlinkedFlows);
        s.warnings.push_back(std::move(w));
    }
    return s;
}

} // namespace timesink::report
