// SPDX-License-Identifier: MIT
#include "report/compare/comparefacts.h"

#include "report/core/textformat.h"

namespace timesink::report {

namespace comparefacts {

using model::TimeNs;

std::string signedDuration(TimeNs delta)
{
    return delta > 0 ? "+" + formatDuration(delta) : formatDuration(delta);
}

/// The share column of an explanation: a percentage when the finding moved with the step time; a finding that
/// moved against it explains none of it, which "0.0 %" would hide.
std::string shareText(const analysis::CompareExplanation& e, TimeNs stepDelta)
{
    if (e.deltaNs() == 0 || stepDelta == 0)
        return "–";
    if ((e.deltaNs() > 0) != (stepDelta > 0))
        return "opposite to the step change";
    return formatPercent(e.shareOfStepDelta);
}

TimeNs magnitude(TimeNs d)
{
    return d < 0 ? -d : d;
}

std::string ratioText(std::optional<double> ratio)
{
    return ratio ? formatFixed(*ratio, 2) + "×" : std::string("–");
}

std::string statusLabel(analysis::CompareExplanation::Status s)
{
    using Status = analysis::CompareExplanation::Status;
    switch (s) {
    case Status::CandidateOnly:
        return "only in the candidate";
    case Status::BaselineOnly:
        return "only in the baseline";
    case Status::Grew:
        return "grew";
    case Status::Shrank:
        return "shrank";
    }
    return "";
}

std::string stepNumber(std::int64_t n, bool synthetic)
{
    return synthetic ? std::string("whole trace") : "#" + std::to_string(n);
}

/// "6 steps (#1009 … #1014)", "the whole trace", "1 step (#50)".
std::string stepsText(const model::Trace& trace, const analysis::CompareSide& side)
{
    const auto steps = trace.steps();
    if (side.pairedSteps.empty())
        return "none";
    const model::Step& first = steps[side.pairedSteps.front()];
    const model::Step& last = steps[side.pairedSteps.back()];
    if (side.pairedSteps.size() == 1 && first.synthetic)
        return "the whole trace (no step markers)";
    std::string text = std::to_string(side.pairedSteps.size())
        + (side.pairedSteps.size() == 1 ? " step (#" : " steps (#") + std::to_string(first.number);
    if (side.pairedSteps.size() > 1)
        text += " … #" + std::to_string(last.number);
    return text + ")";
}

std::string attributionText(const analysis::CompareSide& side)
{
    if (!side.deviceTimed)
        return "host";
    return "device (" + std::to_string(side.attributedSlices) + " of " + std::to_string(side.workSlices)
        + " device slices linked to operators)";
}

std::string summarySentence(const analysis::CompareResult& r)
{
    const TimeNs base = r.baselineStepsNs();
    const TimeNs cand = r.candidateStepsNs();
    const TimeNs delta = cand - base;
    std::string text
        = "The candidate takes " + formatDuration(cand) + " against the baseline's " + formatDuration(base);
    if (base > 0)
        text += " (" + formatFixed(double(cand) / double(base), 2) + "× the baseline";
    else
        text += " (";
    text += std::string(base > 0 ? ", " : "") + signedDuration(delta) + ") over the compared steps.";
    return text;
}

bool syntheticStep(const model::Trace& trace, std::size_t index)
{
    return index < trace.steps().size() && trace.steps()[index].synthetic;
}

std::vector<DeviceRow> deviceRows(const analysis::CompareResult& r)
{
    const analysis::DeviceBreakdown& b = r.baseline.device;
    const analysis::DeviceBreakdown& c = r.candidate.device;
    return {{"compute", b.computeNs, c.computeNs},
            {"exposed communication", b.exposedCommunicationNs, c.exposedCommunicationNs},
            {"exposed copies", b.exposedCopyNs, c.exposedCopyNs},
            {"idle", b.idleNs, c.idleNs},
            {"device window", b.windowNs, c.windowNs}};
}

bool hasDeviceBreakdown(const analysis::CompareResult& r)
{
    return r.baseline.device.hasDeviceWork || r.candidate.device.hasDeviceWork;
}

} // namespace comparefacts

} // namespace timesink::report
