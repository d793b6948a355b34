// SPDX-License-Identifier: MIT
#include "parsers/rknn/rknntimeline.h"

#include <algorithm>

namespace timesink::parsers::rknntimeline {

std::vector<model::TimeNs> layerDurations(const std::vector<RknnLayer>& layers)
{
    std::vector<model::TimeNs> dur(layers.size());
    for (std::size_t i = 0; i < layers.size(); ++i)
        dur[i] = layers[i].timeNs;
    for (std::size_t i = 0; i < dur.size(); ++i) {
        if (dur[i] != 0)
            continue;
        std::size_t j = i + 1;
        while (j < dur.size() && dur[j] <= 1)
            ++j;
        if (j >= dur.size()) {
            j = i;
            while (j > 0 && dur[j - 1] <= 1)
                --j;
            if (j == 0)
                continue; // nothing to borrow from: stays a 0 ns slice
            --j;
        }
        --dur[j];
        dur[i] = 1;
    }
    return dur;
}

std::optional<model::TimeNs> printedTotal(const RknnFrame& frame)
{
    std::optional<model::TimeNs> printed = frame.elapsedTotalNs ? frame.elapsedTotalNs : frame.totalTimeNs;
    if (!printed && frame.layers.empty() && (frame.rankingTotal || !frame.ranking.empty())) {
        // A ranking table alone: its total is the frame.
        model::TimeNs ranked = 0;
        for (const RknnRankingRow& row : frame.ranking)
            ranked += row.totalNs;
        printed = frame.rankingTotal ? frame.rankingTotal->totalNs : ranked;
    }
    return printed;
}

std::vector<FrameLayout> layOutFrames(std::vector<RknnFrame>& frames)
{
    std::vector<FrameLayout> layouts;
    layouts.reserve(frames.size());
    model::TimeNs cursor = 0;
    for (RknnFrame& f : frames) {
        std::stable_sort(f.layers.begin(), f.layers.end(),
                         [](const RknnLayer& a, const RknnLayer& c) { return a.id < c.id; });
        FrameLayout layout;
        for (const RknnLayer& l : f.layers)
            layout.layerSum += l.timeNs;
        layout.durations = layerDurations(f.layers);
        layout.printed = printedTotal(f);
        layout.start = cursor;
        layout.end = cursor + std::max(layout.layerSum, layout.printed.value_or(0));
        cursor = layout.end;
        layouts.push_back(std::move(layout));
    }
    return layouts;
}

} // namespace timesink::parsers::rknntimeline
