// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/compare/compare.h"
#include "model/trace.h"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// What the Markdown and HTML compare writers say alike: labels, sentences and rows derived from the comparison.
namespace timesink::report::comparefacts {

/// "+1.20 ms", "-3.00 µs", "0 ns".
std::string signedDuration(model::TimeNs delta);
/// The share column of an explanation: a percentage when the finding moved with the step time; a finding that
/// moved against it explains none of it, which "0.0 %" would hide.
std::string shareText(const analysis::CompareExplanation& e, model::TimeNs stepDelta);
model::TimeNs magnitude(model::TimeNs d);
/// "1.25×", or "–" without a ratio.
std::string ratioText(std::optional<double> ratio);
std::string statusLabel(analysis::CompareExplanation::Status s);
/// "#12", or "whole trace" for a synthetic step.
std::string stepNumber(std::int64_t n, bool synthetic);
/// "6 steps (#1009 … #1014)", "the whole trace", "1 step (#50)".
std::string stepsText(const model::Trace& trace, const analysis::CompareSide& side);
/// "host", or "device (N of M device slices linked to operators)".
std::string attributionText(const analysis::CompareSide& side);
/// "The candidate takes … against the baseline's … (1.10× the baseline, +2.00 ms) over the compared steps."
std::string summarySentence(const analysis::CompareResult& r);
bool syntheticStep(const model::Trace& trace, std::size_t index);

/// The rows every format shows for the device breakdown: label, baseline, candidate.
struct DeviceRow
{
    std::string_view label;
    model::TimeNs baselineNs;
    model::TimeNs candidateNs;
};
std::vector<DeviceRow> deviceRows(const analysis::CompareResult& r);

/// At most this many placement changes in the Markdown and HTML tables (the JSON lists every layer).
inline constexpr std::size_t kMaxPlacementRows = 50;

bool hasDeviceBreakdown(const analysis::CompareResult& r);

} // namespace timesink::report::comparefacts
