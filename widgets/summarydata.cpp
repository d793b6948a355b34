// SPDX-License-Identifier: MIT
#include "widgets/summarydata.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace timesink::widgets {

namespace {

using model::SliceCategory;
using model::TimeNs;

struct Edge
{
    TimeNs t;
    int activity;
    int delta; // +1 start, -1 end
};

bool isDeviceTrack(const model::Track& t)
{
    return t.role == model::TrackRole::DeviceCompute || t.role == model::TrackRole::DeviceCopy
        || t.role == model::TrackRole::Communication;
}

int deviceActivity(SliceCategory c)
{
    switch (c) {
    case SliceCategory::Kernel:
    case SliceCategory::Memset:
    case SliceCategory::FallbackOp:
        return SummaryData::Compute;
    case SliceCategory::Memcpy:
        return SummaryData::Copies;
    case SliceCategory::Communication:
        return SummaryData::Communication;
    default:
        return -1;
    }
}

} // namespace

const char* SummaryData::activityLabel(Activity a)
{
    switch (a) {
    case Compute:
        return "Compute";
    case Communication:
        return "Communication";
    case Copies:
        return "Copies";
    case Dataloader:
        return "Dataloader";
    case Idle:
        return "Idle";
    case ActivityCount:
        break;
    }
    return "";
}

SummaryData SummaryData::compute(const model::Trace& trace, const std::vector<analysis::Finding>& findings,
                                 std::size_t topOperatorCount)
{
    SummaryData out;
    const bool hasDevice = std::any_of(trace.tracks().begin(), trace.tracks().end(),
                                       [](const model::Track& t) { return isDeviceTrack(t) && !t.empty(); });

    // All activity intervals of the trace, as start/end edges sorted by time.
    std::vector<Edge> edges;
    std::unordered_map<std::string_view, NamedTime> ops;
    for (const model::Track& track : trace.tracks()) {
        if (track.empty())
            continue;
        const bool device = isDeviceTrack(track);
        // Every depth: the sweep below counts an instant once however many slices cover it, and host
        // work (dataloader, CPU ops) usually sits nested under a ProfilerStep marker.
        for (std::size_t d = 0; d < track.depthCount(); ++d) {
            for (std::uint32_t i : track.slicesAtDepth(d)) {
                int activity = -1;
                const SliceCategory c = track.category(i);
                if (device) {
                    activity = deviceActivity(c);
                    // Operator time from the outermost device slices only, so nested ones do not count twice.
                    if (activity == Compute && d == 0) {
                        NamedTime& op = ops[trace.str(track.sliceName(i))];
                        op.ns += track.dur(i);
                        ++op.count;
                    }
                } else if (c == SliceCategory::Dataloader) {
                    activity = Dataloader;
                } else if (!hasDevice && (c == SliceCategory::HostOp || c == SliceCategory::Kernel
                                          || c == SliceCategory::FallbackOp)) {
                    activity = Compute;
                }
                if (activity < 0 || track.dur(i) <= 0)
                    continue;
                edges.push_back(Edge {track.ts(i), activity, +1});
                edges.push_back(Edge {track.end(i), activity, -1});
            }
        }
    }
    std::sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) { return a.t < b.t; });

    // Sweep once per step; steps are few, and edges are found by binary search.
    for (const model::Step& step : trace.steps()) {
        StepBreakdown sb;
        sb.number = step.number;
        sb.durationNs = step.duration();
        std::array<int, ActivityCount> active {};
        // Edges before the step set the activity that is already running at its start.
        auto it = edges.begin();
        const auto firstInStep = std::partition_point(edges.begin(), edges.end(),
                                                      [&](const Edge& e) { return e.t <= step.start; });
        for (; it != firstInStep; ++it)
            active[static_cast<std::size_t>(it->activity)] += it->delta;
        TimeNs cursor = step.start;
        auto assign = [&](TimeNs until) {
            if (until <= cursor)
                return;
            int winner = Idle;
            for (int a = Compute; a < Idle; ++a) {
                if (active[static_cast<std::size_t>(a)] > 0) {
                    winner = a;
                    break;
                }
            }
            sb.ns[static_cast<std::size_t>(winner)] += until - cursor;
            cursor = until;
        };
        for (; it != edges.end() && it->t < step.end; ++it) {
            assign(it->t);
            active[static_cast<std::size_t>(it->activity)] += it->delta;
        }
        assign(step.end);
        out.steps.push_back(sb);
    }

    std::map<std::string, NamedTime> lost;
    for (const analysis::Finding& f : findings) {
        NamedTime& n = lost[f.kind];
        n.name = f.kind;
        n.ns += f.lostNs;
        ++n.count;
    }
    for (auto& [kind, n] : lost)
        out.lostByKind.push_back(std::move(n));
    std::stable_sort(out.lostByKind.begin(), out.lostByKind.end(),
                     [](const NamedTime& a, const NamedTime& b) { return a.ns > b.ns; });

    for (auto& [name, n] : ops) {
        n.name = std::string(name);
        out.topOperators.push_back(std::move(n));
    }
    std::sort(out.topOperators.begin(), out.topOperators.end(), [](const NamedTime& a, const NamedTime& b) {
        return a.ns != b.ns ? a.ns > b.ns : a.name < b.name;
    });
    if (out.topOperators.size() > topOperatorCount)
        out.topOperators.resize(topOperatorCount);
    return out;
}

} // namespace timesink::widgets
