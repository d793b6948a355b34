// SPDX-License-Identifier: MIT
#include "report/writers/text/efficiencytext.h"

#include "analysis/core/textformat.h"
#include "report/core/textformat.h"

#include <cstdio>
#include <string>

namespace timesink::report {

namespace {

using analysis::efficiency::BoundedFraction;
using analysis::efficiency::EfficiencyReport;

std::string percent(const std::optional<BoundedFraction>& f)
{
    if (!f)
        return "-";
    return analysis::efficiency::formatFraction(*f);
}

} // namespace

void writeEfficiencyText(const EfficiencyReport& r, std::ostream& out, std::size_t maxOperators)
{
    out << "\nEfficiency (" << r.source << ")\n";
    if (r.device) {
        out << "  device: " << terminalText(r.device->device) << " (from \"" << terminalText(r.deviceName) << "\"";
        if (!r.deviceResolvedBy.empty()) {
            out << ", by " << r.deviceResolvedBy;
            if (r.deviceComputeUnits > 0)
                out << "; " << r.deviceComputeUnits << " SMs/CUs";
        }
        out << "); peaks: " << terminalText(r.device->source) << '\n';
        if (!r.deviceResolutionNote.empty())
            out << "  device note: " << terminalText(r.deviceResolutionNote) << '\n';
    } else {
        out << "  device: " << terminalText(r.deviceNotResolved) << '\n';
    }
    if (!r.notAssessed.empty()) {
        out << "  not assessed: " << terminalText(r.notAssessed) << '\n';
        return;
    }
    if (!r.measuredSource.empty())
        out << "  measured: " << terminalText(r.measuredSource) << '\n';
    if (r.deviceNs > 0)
        out << "  modelled operators cover " << analysis::formatDuration(r.modelledDeviceNs) << " of "
            << analysis::formatDuration(r.deviceNs) << " of device work\n";
    for (const auto& s : r.steps) {
        if (s.mfu)
            out << "  step " << s.number << ": MFU " << percent(s.mfu) << '\n';
    }
    for (const auto& c : r.classes) {
        out << "  " << analysis::efficiency::workClassKey(c.workClass) << ": " << c.calls << " calls, "
            << analysis::formatDuration(c.deviceNs) << ", " << analysis::formatGeneral(c.tflopsPerS, 3) << " TFLOP/s, "
            << percent(c.fractionOfPeak) << " of peak\n";
    }
    for (std::size_t i = 0; i < r.operators.size() && i < maxOperators; ++i) {
        const auto& o = r.operators[i];
        out << "  " << terminalText(o.name) << ' ' << terminalText(o.shapes) << ' '
            << analysis::efficiency::dataTypeKey(o.dtype) << ": " << o.calls << " calls, "
            << analysis::formatDuration(o.deviceNs) << ", " << analysis::formatGeneral(o.tflopsPerS, 3) << " TFLOP/s, "
            << analysis::formatGeneral(o.tbPerS, 3) << " TB/s";
        if (o.rooflineFraction)
            out << ", " << o.bound << "-bound at " << percent(o.rooflineFraction) << " of the roofline";
        if (o.measured)
            out << ", measured " << analysis::formatPercent(o.measured->value);
        out << '\n';
    }
}

} // namespace timesink::report
