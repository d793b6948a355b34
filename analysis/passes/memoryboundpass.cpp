// SPDX-License-Identifier: MIT
#include "analysis/passes/memoryboundpass.h"

#include "analysis/core/context.h"
#include "analysis/core/findingaccumulator.h"
#include "analysis/core/rknnlayers.h"
#include "analysis/core/textformat.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace timesink::analysis {

namespace {

constexpr std::size_t kWorstLayers = 5;
constexpr std::size_t kOutlierLayers = 5;
/// A layer is an outlier when it takes more than this many times the median of its twins (same op type, shapes and
/// DDR/NPU cycles: the same work).
constexpr double kOutlierFactor = 2.0;

bool measured(const RknnLayerRow& l)
{
    return l.onNpu && l.ddrCycles && l.npuCycles && !isRknnDataMovement(l.opType);
}

// Layers doing the same work: the same op type, shapes and cycle counts.
using TwinKey = std::tuple<std::string_view, std::string_view, std::string_view, std::int64_t, std::int64_t>;
TwinKey twinKey(const RknnLayerRow& l)
{
    return {l.opType, l.inputShape, l.outputShape, *l.ddrCycles, *l.npuCycles};
}

model::TimeNs median(std::vector<model::TimeNs> v)
{
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 == 1 ? v[n / 2] : v[n / 2 - 1] + (v[n / 2] - v[n / 2 - 1]) / 2;
}

struct Hit
{
    const RknnLayerRow* layer = nullptr;
    model::TimeNs timeNs = 0;
    model::TimeNs lostNs = 0;
};

} // namespace

PassOutput MemoryBoundPass::run(const AnalysisContext& context) const
{
    const model::Trace& trace = context.trace();
    PassOutput out;
    if (trace.metadata().platform != Platform::Rknn)
        return out; // the DDR/NPU cycle split is an RKNN table's
    const RknnLayerTable& table = context.rknnLayers();
    const bool anyNpu
        = std::any_of(table.layers.begin(), table.layers.end(), [](const RknnLayerRow& l) { return l.onNpu; });
    if (!anyNpu)
        return PassOutput::notAssessed("the RKNN output has no NPU layer rows (perf_debug was off or every layer ran "
                                       "on the CPU), so no layer's memory traffic is known");
    if (!table.hasCyclesColumn)
        return PassOutput::notAssessed("this table (rknn-toolkit v1 eval_perf) has no DDR/NPU cycles column, so "
                                       "whether a layer waits for memory is unknown");
    const bool anyCycles = std::any_of(table.layers.begin(), table.layers.end(),
                                       [](const RknnLayerRow& l) { return l.onNpu && l.ddrCycles.has_value(); });
    if (!anyCycles)
        return PassOutput::notAssessed("every NPU layer prints 0 cycles (not measured) or implausible ones (see the "
                                       "import warnings), so whether a layer waits for memory is unknown");
    const StepClock& clock = context.clock();
    // The times of each group of twins: the same cycles take about the same time, so a twin's time is what the
    // cycles explain (MaxPool #43 of the multi-core YOLOv8n fixture takes 5.1 ms, its two twins 0.27 and 0.24 ms).
    std::map<TwinKey, std::vector<std::pair<const RknnLayerRow*, model::TimeNs>>> twins;
    for (const RknnLayerRow& l : table.layers) {
        if (measured(l) && *l.ddrCycles > *l.npuCycles)
            twins[twinKey(l)].emplace_back(&l, analysedPart(clock, l.ts, l.dur));
    }
    FindingAccumulator acc(clock);
    std::vector<Hit> hits;
    std::vector<LayerSaving> saved;
    std::vector<std::string> outliers;
    model::TimeNs layerNs = 0;
    model::TimeNs outlierNs = 0;
    std::uint64_t measuredLayers = 0;
    for (const RknnLayerRow& l : table.layers) {
        if (context.cancel().cancelled())
            return out;
        if (!measured(l))
            continue;
        ++measuredLayers;
        const std::int64_t ddr = *l.ddrCycles;
        const std::int64_t npu = *l.npuCycles;
        if (ddr <= npu)
            continue;
        const model::TimeNs t = analysedPart(clock, l.ts, l.dur);
        // The cycles explain at most what they take in the layer's twins: the rest is an outlier, not memory.
        model::TimeNs explained = t;
        std::vector<model::TimeNs> others;
        std::string otherIds;
        for (const auto& [twin, ns] : twins[twinKey(l)]) {
            if (twin != &l && ns > 0) {
                others.push_back(ns);
                otherIds += (otherIds.empty() ? "#" : ", #") + std::to_string(twin->layerId);
            }
        }
        if (!others.empty()) {
            const model::TimeNs typical = median(others);
            if (static_cast<double>(t) > kOutlierFactor * static_cast<double>(typical)) {
                explained = typical;
                outlierNs += t - typical;
                if (outliers.size() < kOutlierLayers)
                    outliers.push_back(rknnLayerText(l) + ": " + formatDuration(t)
                                       + ", its twins with the same cycles (" + otherIds + ") take "
                                       + formatDuration(typical) + ": " + formatDuration(t - typical)
                                       + " its cycles do not explain");
            }
        }
        // explained · (DDR − NPU) / DDR in long double: cycles up to 10^13 times ns up to 10^15 do not fit in 64 bits.
        const auto lost = static_cast<model::TimeNs>(std::llround(
            static_cast<long double>(explained) * static_cast<long double>(ddr - npu) / static_cast<long double>(ddr)));
        if (lost <= 0)
            continue;
        acc.addLoss(l.ts, l.ts + lost);
        acc.countOccurrence();
        acc.addEvidence(l.ref.track, l.ts, l.ts + l.dur);
        acc.addEvent(l.ref);
        hits.push_back({&l, t, lost});
        saved.push_back({l.ref, l.ts, t, lost});
        layerNs += t;
    }
    if (acc.lostNs() <= 0)
        return out;
    std::stable_sort(hits.begin(), hits.end(), [](const Hit& a, const Hit& b) { return a.lostNs > b.lostNs; });
    std::string worst;
    for (std::size_t i = 0; i < hits.size() && i < kWorstLayers; ++i) {
        const Hit& h = hits[i];
        std::string line = rknnLayerText(*h.layer) + ": " + formatDuration(h.timeNs) + ", DDR/NPU cycles "
            + std::to_string(*h.layer->ddrCycles) + "/" + std::to_string(*h.layer->npuCycles);
        if (h.layer->rwKb && h.timeNs > 0)
            line += ", " + formatFixed(*h.layer->rwKb * 1024.0 / static_cast<double>(h.timeNs), 2) + " GB/s";
        worst += (worst.empty() ? "" : "; ") + line;
    }
    const RknnLayerRow& top = *hits.front().layer;

    Finding f = acc.finish(std::string(kind()));
    f.platform = Platform::Rknn;
    f.whatIf.layerSavings = std::move(saved);
    f.title = std::to_string(f.occurrences) + (f.occurrences == 1 ? " NPU layer waits" : " NPU layers wait")
        + " for DRAM (DDR cycles > NPU cycles): " + formatDuration(f.lostNs) + " of DDR stall, worst "
        + cleanText(top.opType) + " #" + std::to_string(top.layerId);
    f.details.push_back({"layers", static_cast<std::int64_t>(f.occurrences)});
    f.details.push_back({"layers_with_cycles", static_cast<std::int64_t>(measuredLayers)});
    f.details.push_back({"layer_ns", layerNs});
    f.details.push_back({"worst_layers", worst});
    f.details.push_back({"lost_model",
                         std::string("lost = t · (DDR − NPU) / DDR cycles per layer: the time above what the NPU "
                                     "cycles alone would take; t is at most what the layer's twins (same op type, "
                                     "shapes and cycles) take, when it takes more than twice their median")});
    if (!outliers.empty()) {
        std::string text;
        for (const std::string& o : outliers)
            text += (text.empty() ? "" : "; ") + o;
        f.details.push_back({"outlier_layers", text});
        f.details.push_back({"outlier_ns", outlierNs});
    }
    if (table.badLayers > 0)
        f.details.push_back({"layers_left_out", static_cast<std::int64_t>(table.badLayers)});
    f.explanation = "For these layers the NPU spends more cycles waiting for DRAM (DDR cycles) than computing (NPU "
                    "cycles): their feature maps or weights do not fit the NPU's on-chip buffers, so each is read "
                    "from and written to DDR, and the layer runs at memory speed.";
    f.recommendation = "Start with " + rknnLayerText(top)
        + ". Keep channel counts multiples of the NPU's alignment (16 for INT8, 8 for FP16 on RK3588-class NPUs) so "
          "tensors are not padded and re-laid out; let the compiler fuse the layer with its neighbours (activation, "
          "Add, Concat) by leaving rknn.config(optimization_level=3), the default; quantize to INT8 "
          "(rknn.build(do_quantization=True, dataset=...)) instead of FP16, which halves the bytes moved; and "
          "consider a smaller input resolution: the feature maps, and the DRAM traffic of these layers, shrink "
          "with the square of the input side.";
    out.findings.push_back(std::move(f));
    return out;
}

} // namespace timesink::analysis
