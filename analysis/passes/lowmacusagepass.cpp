// SPDX-License-Identifier: MIT
#include "analysis/passes/lowmacusagepass.h"

#include "analysis/core/context.h"
#include "analysis/core/findingaccumulator.h"
#include "analysis/core/rknnlayers.h"
#include "analysis/core/textformat.h"

#include <algorithm>
#include <cmath>

namespace timesink::analysis {

namespace {

constexpr double kFarUnder = 0.25; // flagged below a quarter of the median MAC usage
constexpr std::size_t kWorstLayers = 5;

bool isConvolution(std::string_view opType)
{
    return opType.size() >= 4
        && (opType.substr(0, 4) == "Conv" || opType.substr(0, 4) == "CONV" || opType.substr(0, 4) == "conv");
}

// The channel count of the first input: "(1,3,1920,1920),(16,3,3,3),(16)" → 3 (NCHW), or -1.
std::int64_t inputChannels(std::string_view shape)
{
    if (shape.empty() || shape.front() != '(')
        return -1;
    const std::size_t first = shape.find(',');
    const std::size_t close = shape.find(')');
    if (first == std::string_view::npos || close == std::string_view::npos || first > close)
        return -1;
    std::int64_t c = 0;
    std::size_t digits = 0;
    for (std::size_t i = first + 1; i < close && shape[i] != ','; ++i) {
        if (shape[i] < '0' || shape[i] > '9' || ++digits > 9)
            return -1;
        c = c * 10 + (shape[i] - '0');
    }
    return digits > 0 ? c : -1;
}

struct Hit
{
    const RknnLayerRow* layer = nullptr;
    model::TimeNs timeNs = 0;
    model::TimeNs lostNs = 0;
};

} // namespace

PassOutput LowMacUsagePass::run(const AnalysisContext& context) const
{
    const model::Trace& trace = context.trace();
    PassOutput out;
    if (trace.metadata().platform != Platform::Rknn)
        return out;
    const RknnLayerTable& table = context.rknnLayers();
    if (!table.hasMacColumn)
        return PassOutput::notAssessed(
            "this table has no MacUsage column (rknn-toolkit v1 eval_perf, or no per-layer table), so how well "
            "each convolution used the NPU's MAC units is unknown");
    std::vector<double> usage;
    for (const RknnLayerRow& l : table.layers) {
        if (l.onNpu && isConvolution(l.opType) && l.macUsage)
            usage.push_back(*l.macUsage);
    }
    if (usage.empty())
        return PassOutput::notAssessed("no NPU convolution prints a MAC usage, so there is nothing to compare");
    std::sort(usage.begin(), usage.end());
    const std::size_t n = usage.size();
    const double median = n % 2 == 1 ? usage[n / 2] : (usage[n / 2 - 1] + usage[n / 2]) / 2.0;
    if (median <= 0.0)
        return PassOutput::notAssessed("every NPU convolution prints 0 % MAC usage, so there is no rate to compare "
                                       "with");
    const StepClock& clock = context.clock();
    FindingAccumulator acc(clock);
    std::vector<Hit> hits;
    const RknnLayerRow* input = nullptr;
    model::TimeNs layerNs = 0;
    std::vector<LayerSaving> saved;
    for (const RknnLayerRow& l : table.layers) {
        if (context.cancel().cancelled())
            return out;
        if (!l.onNpu || !isConvolution(l.opType) || !l.macUsage || *l.macUsage >= kFarUnder * median)
            continue;
        if (l.ddrCycles && l.npuCycles && *l.ddrCycles > *l.npuCycles)
            continue; // waits for DRAM: memory_bound's
        const model::TimeNs t = analysedPart(clock, l.ts, l.dur);
        const auto lost
            = static_cast<model::TimeNs>(std::llround(static_cast<double>(t) * (1.0 - *l.macUsage / median)));
        if (lost <= 0)
            continue;
        acc.addLoss(l.ts, l.ts + lost);
        acc.countOccurrence();
        acc.addEvidence(l.ref.track, l.ts, l.ts + l.dur);
        acc.addEvent(l.ref);
        hits.push_back({&l, t, lost});
        saved.push_back({l.ref, l.ts, t, lost});
        layerNs += t;
        const std::int64_t channels = inputChannels(l.inputShape);
        if (input == nullptr && channels > 0 && channels <= 4)
            input = &l;
    }
    if (acc.lostNs() <= 0)
        return out;
    std::stable_sort(hits.begin(), hits.end(), [](const Hit& a, const Hit& b) { return a.lostNs > b.lostNs; });
    std::string worst;
    for (std::size_t i = 0; i < hits.size() && i < kWorstLayers; ++i) {
        worst += (worst.empty() ? "" : "; ") + rknnLayerText(*hits[i].layer) + ": " + formatDuration(hits[i].timeNs)
            + " at " + formatFixed(*hits[i].layer->macUsage, 2) + " % MAC usage";
    }

    Finding f = acc.finish(std::string(kind()));
    f.platform = Platform::Rknn;
    f.whatIf.layerSavings = std::move(saved);
    f.title = std::to_string(f.occurrences) + (f.occurrences == 1 ? " convolution uses" : " convolutions use")
        + " under a quarter of the model's median MAC rate (" + formatFixed(median, 2)
        + " %): " + formatDuration(f.lostNs) + (input != nullptr ? ", input layer included" : "");
    f.details.push_back({"layers", static_cast<std::int64_t>(f.occurrences)});
    f.details.push_back({"layer_ns", layerNs});
    f.details.push_back({"median_mac_usage", median});
    f.details.push_back({"convolutions_with_mac", static_cast<std::int64_t>(n)});
    f.details.push_back({"worst_layers", worst});
    if (input != nullptr)
        f.details.push_back({"input_layer", rknnLayerText(*input) + " at " + formatFixed(*input->macUsage, 2) + " %"});
    f.details.push_back({"lost_model",
                         std::string("lost = t · (1 − u / median u): the time above what the layer would take at "
                                     "the median MAC usage of the model's convolutions")});
    f.explanation = "These convolutions keep most of the NPU's multiply-accumulate units idle while they run: too "
                    "few input or output channels to fill the MAC array (a 3-channel image fills 3 of its 16 or 32 "
                    "lanes), or shapes the compiler has to pad.";
    std::string rec;
    if (input != nullptr)
        rec += "The input layer " + rknnLayerText(*input)
            + " computes on 3 channels: let the NPU do the pre-processing — put the normalisation in the model "
              "(rknn.config(mean_values=[[...]], std_values=[[...]]) folds it into the first convolution), feed "
              "NHWC uint8 frames as the camera delivers them, and with the C API set the input's pass_through "
              "(rknn_set_io_mem / rknn_inputs_set with pass_through = 1 and the native layout from "
              "rknn_query(RKNN_QUERY_NATIVE_INPUT_ATTR)) so the runtime does not convert on the CPU. ";
    rec += "For the other layers, keep channel counts multiples of 16 (INT8) or 8 (FP16); replace very thin "
           "convolutions by wider ones with fewer layers, and a depthwise convolution followed by a 1×1 by a "
           "regular convolution where accuracy allows.";
    f.recommendation = rec;
    out.findings.push_back(std::move(f));
    return out;
}

} // namespace timesink::analysis
