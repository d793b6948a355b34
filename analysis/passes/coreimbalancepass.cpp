// SPDX-License-Identifier: MIT
#include "analysis/passes/coreimbalancepass.h"

#include "analysis/core/context.h"
#include "analysis/core/findingaccumulator.h"
#include "analysis/core/rknnlayers.h"
#include "analysis/core/textformat.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace timesink::analysis {

namespace {

struct OpTypeLoss
{
    std::uint64_t layers = 0;
    model::TimeNs timeNs = 0;
    model::TimeNs lostNs = 0;
};

std::string joined(const std::set<std::string>& names)
{
    std::string text;
    for (const std::string& n : names)
        text += (text.empty() ? "" : ", ") + n;
    return text;
}

} // namespace

PassOutput CoreImbalancePass::run(const AnalysisContext& context) const
{
    const model::Trace& trace = context.trace();
    PassOutput out;
    if (trace.metadata().platform != Platform::Rknn)
        return out; // an RKNN table's WorkLoad column is what this kind reads
    const RknnLayerTable& table = context.rknnLayers();
    const bool anyNpu
        = std::any_of(table.layers.begin(), table.layers.end(), [](const RknnLayerRow& l) { return l.onNpu; });
    if (!anyNpu)
        return PassOutput::notAssessed("the RKNN output has no NPU layer rows (perf_debug was off or every layer ran "
                                       "on the CPU), so which NPU cores ran the model is unknown");
    if (!table.hasWorkloadColumn)
        return PassOutput::notAssessed("this table (rknn-toolkit v1 eval_perf) has no WorkLoad column, so which NPU "
                                       "core ran each layer is unknown");
    const bool anyShares = std::any_of(table.layers.begin(), table.layers.end(),
                                       [](const RknnLayerRow& l) { return !l.workload.empty(); });
    if (!anyShares)
        return PassOutput::notAssessed("no NPU layer prints a usable WorkLoad share (toolkit2 1.x prints 0.0% on "
                                       "every core; implausible cells are left out, see the import warnings), so "
                                       "which core ran each layer is unknown");
    const StepClock& clock = context.clock();
    const std::optional<NpuCoreUse> use = npuCoreUse(trace, table, clock);
    if (!use)
        return PassOutput::notAssessed("no analysed frame holds NPU layers");
    if (use->splitLayers == 0) {
        std::string why = "every NPU layer ran on one core (WorkLoad 100%/0%/0%): a single-core run";
        if (use->coresOnChip > 1)
            why += " on a chip with " + std::to_string(use->coresOnChip)
                + " NPU cores (core mask auto or one core), so no layer shows how far a split would go";
        return PassOutput::notAssessed(why);
    }
    const int cores = use->cores;

    FindingAccumulator acc(clock);
    std::map<std::string, OpTypeLoss> single;
    std::set<std::string> splitTypes;
    model::TimeNs singleNs = 0;
    std::vector<LayerSaving> saved;
    for (const RknnLayerRow& l : table.layers) {
        if (context.cancel().cancelled())
            return out;
        if (!l.onNpu || l.workload.empty())
            continue;
        const double top = *std::max_element(l.workload.begin(), l.workload.end());
        double busyCores = 0; // Σ_c w_c / max_k w_k: the core-time of the layer in units of its time
        int ran = 0;
        for (double w : l.workload) {
            if (w > 0) {
                busyCores += w / top;
                ++ran;
            }
        }
        if (ran >= cores) {
            splitTypes.insert(cleanText(l.opType));
            continue;
        }
        if (ran >= 2)
            splitTypes.insert(cleanText(l.opType));
        const model::TimeNs t = analysedPart(clock, l.ts, l.dur);
        const model::TimeNs splitNs
            = static_cast<model::TimeNs>(std::llround(static_cast<double>(t) * busyCores / cores));
        const model::TimeNs lost = t - splitNs;
        if (lost <= 0)
            continue;
        acc.addLoss(l.ts, l.ts + lost);
        acc.countOccurrence();
        acc.addEvidence(l.ref.track, l.ts, l.ts + l.dur);
        acc.addEvent(l.ref);
        saved.push_back({l.ref, l.ts, t, lost});
        OpTypeLoss& o = single[cleanText(l.opType)];
        ++o.layers;
        o.timeNs += t;
        o.lostNs += lost;
        singleNs += t;
    }
    if (acc.lostNs() <= 0)
        return out;

    std::vector<std::pair<std::string, OpTypeLoss>> byLoss(single.begin(), single.end());
    std::stable_sort(byLoss.begin(), byLoss.end(),
                     [](const auto& a, const auto& b) { return a.second.lostNs > b.second.lostNs; });
    std::string byType;
    std::string topTypes;
    for (std::size_t i = 0; i < byLoss.size(); ++i) {
        const auto& [type, o] = byLoss[i];
        byType += (byType.empty() ? "" : "; ") + type + " ×" + std::to_string(o.layers) + " " + formatDuration(o.timeNs)
            + " (lost " + formatDuration(o.lostNs) + ")";
        if (i < 3)
            topTypes += (topTypes.empty() ? "" : ", ") + type;
    }

    Finding f = acc.finish(std::string(kind()));
    f.platform = Platform::Rknn;
    f.whatIf.layerSavings = std::move(saved);
    const std::string coresText = std::to_string(cores) + " NPU cores";
    f.title = std::to_string(f.occurrences) + (f.occurrences == 1 ? " NPU layer" : " NPU layers")
        + " ran on fewer of the " + coresText + " than the split layers: up to " + formatDuration(f.lostNs) + " lost";
    f.details.push_back({"cores", static_cast<std::int64_t>(cores)});
    f.details.push_back({"cores_source", use->coresSource});
    f.details.push_back({"split_layers", static_cast<std::int64_t>(use->splitLayers)});
    f.details.push_back({"imbalanced_layers", static_cast<std::int64_t>(f.occurrences)});
    f.details.push_back({"imbalanced_ns", singleNs});
    f.details.push_back({"npu_core_busy_fraction", use->busyFraction.value_or(0.0)});
    f.details.push_back({"split_op_types", joined(splitTypes)});
    f.details.push_back({"imbalanced_by_op_type", byType});
    f.details.push_back({"lost_model",
                         std::string("upper bound: lost = t − t·Σ_c(w_c / max w) / cores, as if the layer split "
                                     "evenly over every core with perfect scaling")});
    if (table.badLayers > 0)
        f.details.push_back({"layers_left_out", static_cast<std::int64_t>(table.badLayers)});
    f.explanation = "The run enabled " + coresText + " and split " + joined(splitTypes)
        + " layers across them, but these layers ran on fewer cores while the others waited: the NPU's core-time was "
        + formatPercent(use->busyFraction.value_or(0.0))
        + " busy. The lost time assumes each layer would split evenly over every core with perfect scaling, so it "
          "is an upper bound: splitting costs synchronisation and small layers scale worse.";
    const std::string toolkit = rknnToolkitText(trace);
    f.recommendation = "Op types that stayed on one core: " + topTypes
        + ". For the latency of one frame, keep the multi-core mask (Python: rknn.init_runtime(target='rk3588', "
          "core_mask=RKNN.NPU_CORE_0_1_2); C: rknn_set_core_mask(ctx, RKNN_NPU_CORE_0_1_2)) and use a recent "
          "rknn-toolkit2/librknnrt pair: which op types the compiler splits across cores grows from release to "
          "release (check the release notes for multi-core convolution support"
        + (toolkit.empty() ? std::string() : "; this log shows " + toolkit)
        + "). For throughput (several streams or frames in flight), run one model instance per core instead: "
          "create the context once, copy it with rknn_dup_context, pin each copy to one core "
          "(rknn_set_core_mask RKNN_NPU_CORE_0 / _1 / _2) and feed them frames in turn, so no core idles during "
          "single-core layers. A model built with rknn.build(..., rknn_batch_size=N) runs N frames per call, "
          "which also gives every core work.";
    out.findings.push_back(std::move(f));
    return out;
}

} // namespace timesink::analysis
