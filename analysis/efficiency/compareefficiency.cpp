// SPDX-License-Identifier: MIT
#include "analysis/efficiency/compareefficiency.h"

#include "analysis/core/textformat.h"

#include <array>
#include <cstddef>
#include <string>
#include <utility>

namespace timesink::analysis::efficiency {

namespace {

/// Per class, the time-weighted roofline fraction of the operators that have one.
std::array<std::optional<double>, kWorkClassCount> rooflineFractions(const EfficiencyReport& r)
{
    std::array<double, kWorkClassCount> weighted {};
    std::array<double, kWorkClassCount> time {};
    for (const OperatorEfficiency& o : r.operators) {
        if (!o.rooflineFraction || o.deviceNs <= 0)
            continue;
        const auto k = static_cast<std::size_t>(o.workClass);
        weighted[k] += o.rooflineFraction->value * static_cast<double>(o.deviceNs);
        time[k] += static_cast<double>(o.deviceNs);
    }
    std::array<std::optional<double>, kWorkClassCount> out {};
    for (std::size_t k = 0; k < kWorkClassCount; ++k) {
        if (time[k] > 0)
            out[k] = weighted[k] / time[k]; // a mean of values in [0, 1]: within [0, 1]
    }
    return out;
}

/// The cause of a slowdown from the two roofline fractions, with its sentence.
void judge(CompareEfficiencyClass& c)
{
    if (!c.baseline || !c.candidate) {
        c.cause = SlowdownCause::NotJudged;
        c.why = !c.baseline ? "only the candidate runs it" : "only the baseline runs it";
        return;
    }
    if (!c.speedRatio || *c.speedRatio >= 1.0) {
        c.cause = SlowdownCause::NotSlower;
        c.why = c.speedRatio ? "the candidate runs it at least as fast" : "no arithmetic to compare";
        return;
    }
    const std::optional<double> b = c.baseline ? c.baseline->rooflineFraction : std::nullopt;
    const std::optional<double> k = c.candidate ? c.candidate->rooflineFraction : std::nullopt;
    if (!b || !k || *b <= 0.0) {
        c.cause = SlowdownCause::NotJudged;
        c.why = std::string("slower, but ") + (!k ? "the candidate" : "the baseline")
            + " has no roofline for it (device not resolved or no shapes)";
        return;
    }
    const double ratio = *k / *b;
    const std::string figures = "the candidate reaches " + formatPercent(*k) + " of its roofline, the baseline "
        + formatPercent(*b) + " of its own";
    if (ratio >= kChipRatio) {
        c.cause = SlowdownCause::Chip;
        c.why = "the chip: " + figures + "; the candidate's chip is slower at this work";
    } else if (ratio < kPortRatio) {
        c.cause = SlowdownCause::Port;
        c.why = "the port: " + figures + "; the kernels, not the chip, are the limit";
    } else {
        c.cause = SlowdownCause::ChipAndPort;
        c.why = "the chip and the port: " + figures;
    }
}

std::string sideText(const std::optional<ClassSide>& side)
{
    if (!side)
        return "not run";
    std::string text;
    if (side->cls.fractionOfPeak)
        text = formatPercent(side->cls.fractionOfPeak->value) + " of peak";
    if (side->rooflineFraction)
        text += (text.empty() ? "" : ", ") + formatPercent(*side->rooflineFraction) + " of roofline";
    return text.empty() ? std::string("no roofline") : text;
}

} // namespace

std::vector<EfficiencyRow> efficiencyRows(const CompareEfficiency& e)
{
    std::vector<EfficiencyRow> rows;
    rows.reserve(e.classes.size());
    for (const CompareEfficiencyClass& c : e.classes) {
        rows.push_back({std::string(workClassKey(c.workClass)), sideText(c.baseline), sideText(c.candidate),
                        c.speedRatio ? formatFixed(*c.speedRatio, 2) + "×" : std::string("–"),
                        slowdownCauseKey(c.cause), c.why});
    }
    return rows;
}

std::string efficiencyHeadline(const CompareEfficiency& e)
{
    return "Each run against its own chip: baseline " + judgedDeviceText(e.baseline) + ", candidate "
        + judgedDeviceText(e.candidate) + ".";
}

std::string judgedDeviceText(const EfficiencyReport& r)
{
    if (r.device)
        return r.device->device;
    return r.deviceNotResolved.empty() ? std::string("device not resolved") : r.deviceNotResolved;
}

std::string_view slowdownCauseKey(SlowdownCause c)
{
    switch (c) {
    case SlowdownCause::NotSlower:
        return "not_slower";
    case SlowdownCause::NotJudged:
        return "not_judged";
    case SlowdownCause::Chip:
        return "chip";
    case SlowdownCause::Port:
        return "port";
    case SlowdownCause::ChipAndPort:
        return "chip_and_port";
    }
    return "not_judged";
}

CompareEfficiency compareEfficiency(EfficiencyReport baseline, EfficiencyReport candidate)
{
    CompareEfficiency out;
    const auto baselineRoofline = rooflineFractions(baseline);
    const auto candidateRoofline = rooflineFractions(candidate);
    std::array<CompareEfficiencyClass, kWorkClassCount> byClass {};
    std::array<bool, kWorkClassCount> present {};
    for (const ClassEfficiency& c : baseline.classes) {
        const auto k = static_cast<std::size_t>(c.workClass);
        byClass[k].baseline = ClassSide {c, baselineRoofline[k]};
        present[k] = true;
    }
    for (const ClassEfficiency& c : candidate.classes) {
        const auto k = static_cast<std::size_t>(c.workClass);
        byClass[k].candidate = ClassSide {c, candidateRoofline[k]};
        present[k] = true;
    }
    for (std::size_t k = 0; k < kWorkClassCount; ++k) {
        if (!present[k])
            continue;
        CompareEfficiencyClass& c = byClass[k];
        c.workClass = static_cast<WorkClass>(k);
        if (c.baseline && c.candidate && c.baseline->cls.tflopsPerS > 0 && c.candidate->cls.tflopsPerS > 0)
            c.speedRatio = c.candidate->cls.tflopsPerS / c.baseline->cls.tflopsPerS;
        judge(c);
        out.classes.push_back(std::move(c));
    }
    out.baseline = std::move(baseline);
    out.candidate = std::move(candidate);
    return out;
}

} // namespace timesink::analysis::efficiency
