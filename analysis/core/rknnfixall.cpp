// SPDX-License-Identifier: MIT
#include "analysis/core/rknnfixall.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

namespace timesink::analysis {

namespace {

struct LayerState
{
    std::size_t step = 0;
    model::TimeNs layerNs = 0;
    long double left = 1.0L; // the share of the layer's time that every fix so far leaves
};

} // namespace

LayerFixAll composeLayerSavings(std::span<const Finding> findings, const StepClock& clock)
{
    const std::size_t steps = clock.size();
    LayerFixAll out;
    out.savingNs.assign(steps, 0);
    out.lostNs.assign(steps, 0);
    std::vector<std::uint8_t> broken(steps, 0);
    const auto violation = [&](std::size_t step, std::string why) {
        if (step < steps)
            broken[step] = 1;
        if (out.firstViolation.empty())
            out.firstViolation = std::move(why);
    };
    std::map<model::SliceRef, LayerState> layers;
    for (const Finding& f : findings) {
        const std::vector<LayerSaving>& saved = f.whatIf.layerSavings;
        if (saved.empty())
            continue;
        out.any = true;
        for (const StepLoss& ps : f.perStep) {
            if (ps.stepIndex < steps)
                out.lostNs[ps.stepIndex] += ps.lostNs;
        }
        // Per step: what this finding saves and the time of the layers it touches.
        std::map<std::size_t, std::pair<model::TimeNs, model::TimeNs>> touched;
        for (const LayerSaving& s : saved) {
            const std::size_t step = clock.stepAt(s.ts);
            if (step >= steps || s.layerNs <= 0)
                continue; // a layer of an excluded frame: nothing analysed to save
            if (s.savedNs < 0 || s.savedNs > s.layerNs) {
                violation(step,
                          f.kind + " saves " + std::to_string(s.savedNs) + " ns of a layer of "
                              + std::to_string(s.layerNs) + " ns");
                continue;
            }
            auto& [savedInStep, layersInStep] = touched[step];
            savedInStep += s.savedNs;
            layersInStep += s.layerNs;
            auto [it, fresh] = layers.try_emplace(s.layer, LayerState {step, s.layerNs});
            LayerState& l = it->second;
            if (!fresh && l.layerNs != s.layerNs) {
                violation(step,
                          "two findings disagree on a layer's time (" + std::to_string(l.layerNs) + " and "
                              + std::to_string(s.layerNs) + " ns)");
                continue;
            }
            l.left *= 1.0L - static_cast<long double>(s.savedNs) / static_cast<long double>(s.layerNs);
        }
        for (const auto& [step, pair] : touched) {
            if (pair.first > pair.second)
                violation(step, f.kind + " saves more than the layers it touches");
        }
    }
    for (const auto& [key, l] : layers) {
        const auto kept = static_cast<model::TimeNs>(std::llround(static_cast<long double>(l.layerNs) * l.left));
        out.savingNs[l.step] += l.layerNs - std::clamp<model::TimeNs>(kept, 0, l.layerNs);
    }
    for (std::size_t i = 0; i < steps; ++i) {
        if (out.savingNs[i] > clock.window(i).length())
            violation(i, "fixing every layer of a frame saves more than the frame");
        if (broken[i] != 0) {
            out.savingNs[i] = -1;
            ++out.inconsistentSteps;
        }
    }
    return out;
}

} // namespace timesink::analysis
