// SPDX-License-Identifier: MIT
#include "analysis/core/findingextent.h"

#include <algorithm>
#include <limits>

namespace timesink::analysis {

FindingExtent findingExtent(const Finding& finding, const model::Trace* trace)
{
    FindingExtent x;
    x.start = std::numeric_limits<model::TimeNs>::max();
    x.end = std::numeric_limits<model::TimeNs>::min();
    const auto include = [&x](model::TimeNs start, model::TimeNs end, model::TrackId track) {
        if (start < x.start)
            x.firstTrack = track;
        x.start = std::min(x.start, start);
        x.end = std::max(x.end, end);
    };
    for (const EvidenceRange& e : finding.evidence)
        include(e.start, e.end, e.track);
    if (x.start > x.end && trace) {
        for (const model::SliceRef& ref : finding.events) {
            if (!ref.isValid() || ref.track.value >= trace->tracks().size())
                continue;
            const model::Track& track = trace->track(ref.track);
            if (ref.index.value < track.size())
                include(track.ts(ref.index.value), track.end(ref.index.value), ref.track);
        }
    }
    x.valid = x.start <= x.end;
    if (!x.valid)
        x = FindingExtent {};
    return x;
}

} // namespace timesink::analysis
