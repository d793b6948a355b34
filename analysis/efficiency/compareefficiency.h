// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/efficiency/efficiency.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

// Efficiency side by side (issue 51 item 5): per work class, how close each run comes to its own chip, and whether
// a class that got slower did so because the candidate's chip is slower (it runs as close to its roofline as the
// baseline does to its own) or because of the port (it runs far below its own roofline).
namespace timesink::analysis::efficiency {

/// Why a class that got slower did (docs/analysis.md "Efficiency side by side").
enum class SlowdownCause : std::uint8_t {
    NotSlower,  // the candidate runs the class at least as fast (TFLOP/s), or the class does no arithmetic
    NotJudged,  // a side has no roofline for it (device not resolved, no shapes): `why` says which
    Chip,       // roofline fractions within 20 % of each other: the candidate's chip is the limit
    Port,       // the candidate reaches less than half the baseline's roofline fraction: the port is the limit
    ChipAndPort // in between: both count
};
/// "not_slower", "not_judged", "chip", "port", "chip_and_port".
std::string_view slowdownCauseKey(SlowdownCause c);

/// One side's figures for a class: the class itself (efficiency.h) and its roofline fraction, the device time of its
/// operators with a roofline over the time they would take at the roofline (a time-weighted mean of the operators'
/// roofline fractions, each at most 1), so that memory-bound classes are judged against bandwidth, not FLOPs.
struct ClassSide
{
    ClassEfficiency cls;
    std::optional<double> rooflineFraction; // 0–1; nothing when none of its operators has a roofline
};

struct CompareEfficiencyClass
{
    WorkClass workClass = WorkClass::Gemm;
    std::optional<ClassSide> baseline; // nothing when the side has no call of the class
    std::optional<ClassSide> candidate;
    /// candidate TFLOP/s / baseline TFLOP/s (below 1: slower); nothing when either side does no arithmetic.
    std::optional<double> speedRatio;
    SlowdownCause cause = SlowdownCause::NotJudged;
    std::string why; // one sentence for people ("the candidate reaches 34 % of its roofline, the baseline 61 %")
};

struct CompareEfficiency
{
    EfficiencyReport baseline; // each run's own, over its whole trace, as `analyze` reports it
    EfficiencyReport candidate;
    std::vector<CompareEfficiencyClass> classes; // classes with calls on either side, in WorkClass order
};

/// The two runs' efficiency per class, and what limits each class that got slower.
CompareEfficiency compareEfficiency(EfficiencyReport baseline, EfficiencyReport candidate);

/// The device a run is judged against ("NVIDIA H100 SXM"), or why there is none.
std::string judgedDeviceText(const EfficiencyReport& r);

/// One row of "Efficiency by class" as every report format and the compare window show it.
struct EfficiencyRow
{
    std::string cls;      // "gemm"
    std::string baseline; // "61.0 % of peak, 70.0 % of roofline", "no roofline", "not run"
    std::string candidate;
    std::string speed;      // candidate TFLOP/s over baseline TFLOP/s: "0.55×", or "–"
    std::string_view cause; // slowdownCauseKey
    std::string why;        // CompareEfficiencyClass::why
};
std::vector<EfficiencyRow> efficiencyRows(const CompareEfficiency& e);
/// "Each run against its own chip: baseline NVIDIA H100 SXM, candidate Ascend 910B2." (or why a side has none).
std::string efficiencyHeadline(const CompareEfficiency& e);

/// Thresholds of SlowdownCause: the candidate's roofline fraction over the baseline's.
inline constexpr double kChipRatio = 0.8; // at or above: the chip
inline constexpr double kPortRatio = 0.5; // below: the port

} // namespace timesink::analysis::efficiency
