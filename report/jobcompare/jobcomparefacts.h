// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/job/jobcompare.h"
#include "model/types.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

// What every job-compare writer says alike: labels and sentences derived from the comparison.
namespace timesink::report::jobcomparefacts {

/// "+1.20 ms", "-3.00 µs", "0 ns".
std::string signedDuration(model::TimeNs delta);
/// "0, 3, 5", or "none".
std::string ranksText(const std::vector<std::int64_t>& ranks);
/// "8", or "unknown" for a world size of 0.
std::string worldText(std::int32_t world);
/// " (straggler)" or "".
std::string rankMark(bool straggler);
/// "The candidate's step takes 50.0 ms against the baseline's 54.0 ms (0.93×)."
std::string summarySentence(const analysis::JobCompareResult& r);
/// Each job's warnings with the side they belong to, in the order baseline, candidate.
std::vector<std::pair<const char*, const std::string*>> sideWarnings(const analysis::JobCompareResult& r);
/// A side's mean step time for a table cell, "–" when it has no steps.
std::string stepsCell(std::size_t steps, model::TimeNs ns);

} // namespace timesink::report::jobcomparefacts
