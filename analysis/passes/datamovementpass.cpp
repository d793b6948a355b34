// SPDX-License-Identifier: MIT
#include "analysis/passes/datamovementpass.h"

#include "analysis/core/context.h"
#include "analysis/core/findingaccumulator.h"
#include "analysis/core/rknnlayers.h"
#include "analysis/core/textformat.h"

#include <algorithm>
#include <map>

namespace timesink::analysis {

namespace {

constexpr std::size_t kLongestLayers = 5;

struct OpTypeTime
{
    std::uint64_t layers = 0;
    model::TimeNs timeNs = 0;
};

} // namespace

PassOutput DataMovementPass::run(const AnalysisContext& context) const
{
    const model::Trace& trace = context.trace();
    PassOutput out;
    if (trace.metadata().platform != Platform::Rknn)
        return out;
    const RknnLayerTable& table = context.rknnLayers();
    const bool anyNpu
        = std::any_of(table.layers.begin(), table.layers.end(), [](const RknnLayerRow& l) { return l.onNpu; });
    if (!anyNpu)
        return PassOutput::notAssessed("the RKNN output has no NPU layer rows (perf_debug was off or every layer ran "
                                       "on the CPU), so the time spent moving data is unknown");
    const StepClock& clock = context.clock();
    FindingAccumulator acc(clock);
    std::map<std::string, OpTypeTime> byType;
    std::vector<std::pair<const RknnLayerRow*, model::TimeNs>> layers;
    std::vector<LayerSaving> saved;
    for (const RknnLayerRow& l : table.layers) {
        if (context.cancel().cancelled())
            return out;
        if (!l.onNpu || !isRknnDataMovement(l.opType))
            continue;
        const model::TimeNs t = acc.addLoss(l.ts, l.ts + l.dur);
        if (t <= 0)
            continue;
        acc.countOccurrence();
        acc.addEvidence(l.ref.track, l.ts, l.ts + l.dur);
        acc.addEvent(l.ref);
        OpTypeTime& o = byType[cleanText(l.opType)];
        ++o.layers;
        o.timeNs += t;
        layers.emplace_back(&l, t);
        saved.push_back({l.ref, l.ts, t, t}); // the layer goes: all its time
    }
    if (acc.lostNs() <= 0)
        return out;
    std::vector<std::pair<std::string, OpTypeTime>> types(byType.begin(), byType.end());
    std::stable_sort(types.begin(), types.end(),
                     [](const auto& a, const auto& b) { return a.second.timeNs > b.second.timeNs; });
    std::string shares;
    std::string names;
    for (const auto& [type, o] : types) {
        shares += (shares.empty() ? "" : "; ") + type + " ×" + std::to_string(o.layers) + " " + formatDuration(o.timeNs)
            + " (" + formatPercent(static_cast<double>(o.timeNs) / static_cast<double>(clock.analysedNs())) + ")";
        names += (names.empty() ? "" : ", ") + type;
    }
    std::stable_sort(layers.begin(), layers.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    std::string longest;
    for (std::size_t i = 0; i < layers.size() && i < kLongestLayers; ++i)
        longest += (longest.empty() ? "" : "; ") + rknnLayerText(*layers[i].first) + ": "
            + formatDuration(layers[i].second);

    Finding f = acc.finish(std::string(kind()));
    f.platform = Platform::Rknn;
    f.whatIf.layerSavings = std::move(saved);
    const double share = static_cast<double>(f.lostNs) / static_cast<double>(clock.analysedNs());
    f.title = "Data movement (" + names + "): " + formatDuration(f.lostNs) + ", " + formatPercent(share)
        + " of the frame in " + std::to_string(f.occurrences) + (f.occurrences == 1 ? " layer" : " layers");
    f.details.push_back({"layers", static_cast<std::int64_t>(f.occurrences)});
    f.details.push_back({"frame_share", share});
    f.details.push_back({"by_op_type", shares});
    f.details.push_back({"longest_layers", longest});
    f.explanation = "These NPU layers compute nothing: they split, join, reshape, transpose or resize feature maps, "
                    "reading and writing whole tensors through DRAM. The time they take is the price of the graph's "
                    "layout, not of its arithmetic.";
    f.recommendation
        = "Split/Concat pairs (YOLOv8's C2f blocks) copy feature maps the convolutions could read in place: keep "
          "the concatenated channel counts multiples of 16 (INT8) so the compiler can lay the parts out next to "
          "each other, and let rknn.config(optimization_level=3) (the default) fold what it can. Move Reshape, "
          "Transpose and the head's output re-layout into post-processing (rknn.load_onnx(model, outputs=[...]) "
          "before them), replace a Resize the NPU runs slowly by a stride-2 ConvTranspose or nearest upsampling by "
          "an integer factor, and check the op types above in Rockchip's operator support list for your "
          "toolkit version.";
    out.findings.push_back(std::move(f));
    return out;
}

} // namespace timesink::analysis
