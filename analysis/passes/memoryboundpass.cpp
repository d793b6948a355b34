// SPDX-License-Identifier: MIT
#include "analysis/passes/memoryboundpass.h"

#include "analysis/core/context.h"
#include "analysis/core/findingaccumulator.h"
#include "analysis/core/rknnlayers.h"
#include "analysis/core/textformat.h"

#include <algorithm>
#include <cmath>

namespace timesink::analysis {

namespace {

constexpr std::size_t kWorstLayers = 5;

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
    FindingAccumulator acc(clock);
    std::vector<Hit> hits;
    model::TimeNs layerNs = 0;
    std::uint64_t measured = 0;
    for (const RknnLayerRow& l : table.layers) {
        if (context.cancel().cancelled())
            return out;
        if (!l.onNpu || !l.ddrCycles || !l.npuCycles || isRknnDataMovement(l.opType))
            continue;
        ++measured;
        const std::int64_t ddr = *l.ddrCycles;
        const std::int64_t npu = *l.npuCycles;
        if (ddr <= npu)
            continue;
        const model::TimeNs t = analysedPart(clock, l.ts, l.dur);
        // t · (DDR − NPU) / DDR in long double: cycles up to 10^13 times ns up to 10^15 do not fit in 64 bits.
        const auto lost = static_cast<model::TimeNs>(std::llround(
            static_cast<long double>(t) * static_cast<long double>(ddr - npu) / static_cast<long double>(ddr)));
        if (lost <= 0)
            continue;
        acc.addLoss(l.ts, l.ts + lost);
        acc.countOccurrence();
        acc.addEvidence(l.ref.track, l.ts, l.ts + l.dur);
        acc.addEvent(l.ref);
        hits.push_back({&l, t, lost});
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
    f.title = std::to_string(f.occurrences) + (f.occurrences == 1 ? " NPU layer waits" : " NPU layers wait")
        + " for DRAM (DDR cycles > NPU cycles): " + formatDuration(f.lostNs) + " of DDR stall, worst "
        + cleanText(top.opType) + " #" + std::to_string(top.layerId);
    f.details.push_back({"layers", static_cast<std::int64_t>(f.occurrences)});
    f.details.push_back({"layers_with_cycles", static_cast<std::int64_t>(measured)});
    f.details.push_back({"layer_ns", layerNs});
    f.details.push_back({"worst_layers", worst});
    f.details.push_back({"lost_model",
                         std::string("lost = t · (DDR − NPU) / DDR cycles per layer: the time above what the NPU "
                                     "cycles alone would take")});
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
