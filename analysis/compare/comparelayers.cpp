// SPDX-License-Identifier: MIT
#include "analysis/compare/comparelayers.h"

#include "analysis/core/rknnlayers.h"
#include "model/checkedmath.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

namespace timesink::analysis {

namespace {

constexpr std::int64_t kMaxLayerUs = 1'000'000'000'000; // 11 days: any larger cell is not a layer time

/// One layer of one side, its time summed over the paired frames.
struct SideLayer
{
    std::int64_t id = -1;
    std::string name;
    std::string opType;
    std::string target;
    std::string inputShape;
    std::string workload;
    std::vector<int> cores;
    model::TimeNs ns = 0;
    std::vector<std::string> path; // node path components, "Conv:/model.0/conv/Conv" → {model.0, conv, Conv}
    bool taken = false;
};

std::vector<std::string> nodePath(std::string_view fullName)
{
    // The part before ':' names the source op (Conv, Split); the path after it names the node.
    if (const std::size_t colon = fullName.find(':'); colon != std::string_view::npos)
        fullName.remove_prefix(colon + 1);
    std::vector<std::string> parts;
    while (!fullName.empty()) {
        const std::size_t slash = fullName.find('/');
        if (slash != 0)
            parts.emplace_back(fullName.substr(0, slash));
        if (slash == std::string_view::npos)
            break;
        fullName.remove_prefix(slash + 1);
    }
    return parts;
}

/// `shorter` equals the last components of `longer` (and has at least two, so that a bare "Conv" matches nothing).
bool pathSuffix(const std::vector<std::string>& shorter, const std::vector<std::string>& longer)
{
    if (shorter.size() < 2 || shorter.size() > longer.size())
        return false;
    return std::equal(shorter.rbegin(), shorter.rend(), longer.rbegin());
}

bool samePath(const SideLayer& a, const SideLayer& b)
{
    return a.path.size() <= b.path.size() ? pathSuffix(a.path, b.path) : pathSuffix(b.path, a.path);
}

/// The layer's Time(us) as printed: the slice may be 1 ns off it, as the importer gives a 0 µs layer 1 ns of its
/// neighbour's time so that every layer shows on the timeline.
model::TimeNs printedTime(const model::Trace& trace, const RknnLayerRow& row)
{
    const std::optional<model::ArgValue> v = trace.arg(row.ref, "time_us");
    if (v && v->type == model::ArgValue::Type::Int && v->i >= 0 && v->i < kMaxLayerUs)
        return v->i * 1000;
    if (v && v->type == model::ArgValue::Type::Double && v->d >= 0 && v->d < static_cast<double>(kMaxLayerUs))
        return static_cast<model::TimeNs>(std::llround(v->d * 1000.0));
    return row.dur;
}

std::vector<SideLayer> sideLayers(const model::Trace& trace, std::span<const std::size_t> steps)
{
    const RknnLayerTable table = readRknnLayers(trace);
    std::vector<SideLayer> out;
    // A layer repeats once per frame: the same ID and FullName is the same layer.
    std::map<std::pair<std::int64_t, std::string_view>, std::size_t> index;
    for (const RknnLayerRow& row : table.layers) {
        const bool paired = std::any_of(steps.begin(), steps.end(), [&](std::size_t i) {
            const model::Step& s = trace.steps()[i];
            return row.ts >= s.start && (row.ts < s.end || (row.dur == 0 && row.ts == s.end));
        });
        if (!paired)
            continue;
        const auto [it, added] = index.try_emplace({row.layerId, row.fullName}, out.size());
        if (!added) {
            out[it->second].ns = model::saturatingAdd(out[it->second].ns, printedTime(trace, row));
            continue;
        }
        SideLayer l;
        l.id = row.layerId;
        l.name = std::string(row.fullName);
        l.opType = std::string(row.opType);
        l.target = row.target.empty() ? std::string(row.onNpu ? "NPU" : "") : std::string(row.target);
        l.inputShape = std::string(row.inputShape);
        l.workload = std::string(row.workloadText);
        if (row.onNpu) {
            for (std::size_t c = 0; c < row.workload.size(); ++c) {
                if (row.workload[c] > 0)
                    l.cores.push_back(static_cast<int>(c));
            }
        }
        l.ns = printedTime(trace, row);
        l.path = nodePath(row.fullName);
        out.push_back(std::move(l));
    }
    return out;
}

CompareLayer pairOf(const SideLayer* b, const SideLayer* c, CompareLayer::Match match)
{
    CompareLayer l;
    l.match = match;
    if (b) {
        l.baselineId = b->id;
        l.baselineOpType = b->opType;
        l.baselineName = b->name;
        l.baselineTarget = b->target;
        l.baselineCores = b->cores;
        l.baselineWorkload = b->workload;
        l.baselineInputShape = b->inputShape;
        l.baselineNs = b->ns;
    }
    if (c) {
        l.candidateId = c->id;
        l.candidateTarget = c->target;
        l.candidateCores = c->cores;
        l.candidateWorkload = c->workload;
        l.candidateInputShape = c->inputShape;
        l.candidateNs = c->ns;
    }
    const SideLayer& named = c ? *c : *b;
    l.opType = named.opType;
    l.name = named.name;
    return l;
}

std::string plural(std::uint64_t n, std::string_view one, std::string_view many)
{
    return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}

} // namespace

std::optional<double> CompareLayer::ratio() const
{
    if (baselineNs == 0)
        return std::nullopt;
    return static_cast<double>(candidateNs) / static_cast<double>(baselineNs);
}

bool CompareLayer::placementChanged() const
{
    if (!baselineId || !candidateId)
        return false;
    if (!baselineTarget.empty() && !candidateTarget.empty() && baselineTarget != candidateTarget)
        return true;
    return !baselineCores.empty() && !candidateCores.empty() && baselineCores != candidateCores;
}

bool CompareLayer::inputShapeChanged() const
{
    return baselineId && candidateId && !baselineInputShape.empty() && !candidateInputShape.empty()
        && baselineInputShape != candidateInputShape;
}

std::optional<double> CompareLayerOpType::ratio() const
{
    if (baselineNs == 0)
        return std::nullopt;
    return static_cast<double>(candidateNs) / static_cast<double>(baselineNs);
}

std::string_view layerMatchKey(CompareLayer::Match m)
{
    switch (m) {
    case CompareLayer::Match::Name:
        return "name";
    case CompareLayer::Match::Path:
        return "path";
    case CompareLayer::Match::OpOrder:
        return "op_order";
    case CompareLayer::Match::BaselineOnly:
        return "baseline_only";
    case CompareLayer::Match::CandidateOnly:
        break;
    }
    return "candidate_only";
}

std::string layerPlacementText(std::string_view target, std::span<const int> cores)
{
    if (target.empty() && cores.empty())
        return "—";
    if (target != "NPU")
        return std::string(target);
    if (cores.empty())
        return "NPU (cores unknown)";
    std::string text = cores.size() == 1 ? "core " : "cores ";
    for (std::size_t i = 0; i < cores.size(); ++i)
        text += (i ? "+" : "") + std::to_string(cores[i]);
    return text;
}

CompareLayers compareRknnLayers(const model::Trace& baseline, std::span<const std::size_t> baselineSteps,
                                const model::Trace& candidate, std::span<const std::size_t> candidateSteps)
{
    CompareLayers out;
    if (baseline.metadata().platform != model::Platform::Rknn || candidate.metadata().platform != model::Platform::Rknn)
        return out;
    std::vector<SideLayer> base = sideLayers(baseline, baselineSteps);
    std::vector<SideLayer> cand = sideLayers(candidate, candidateSteps);
    if (base.empty() || cand.empty())
        return out;
    out.present = true;

    // 1. The same FullName, occurrence by occurrence.
    std::unordered_map<std::string_view, std::vector<std::size_t>> candByName;
    for (std::size_t i = cand.size(); i-- > 0;) {
        if (!cand[i].name.empty())
            candByName[cand[i].name].push_back(i); // reversed: back() is the first occurrence
    }
    for (SideLayer& b : base) {
        if (b.name.empty())
            continue;
        auto it = candByName.find(b.name);
        if (it == candByName.end() || it->second.empty())
            continue;
        SideLayer& c = cand[it->second.back()];
        it->second.pop_back();
        b.taken = c.taken = true;
        out.layers.push_back(pairOf(&b, &c, CompareLayer::Match::Name));
    }
    // 2. The same node path once one side's extra leading components are dropped, when that pairing is the only
    //    one either layer has among the layers left.
    std::vector<std::size_t> baseLeft;
    std::vector<std::size_t> candLeft;
    for (std::size_t i = 0; i < base.size(); ++i) {
        if (!base[i].taken && base[i].path.size() >= 2)
            baseLeft.push_back(i);
    }
    for (std::size_t i = 0; i < cand.size(); ++i) {
        if (!cand[i].taken && cand[i].path.size() >= 2)
            candLeft.push_back(i);
    }
    std::vector<int> candHits(cand.size(), 0);
    std::vector<std::optional<std::size_t>> only(base.size());
    for (std::size_t bi : baseLeft) {
        int hits = 0;
        for (std::size_t ci : candLeft) {
            if (samePath(base[bi], cand[ci])) {
                ++hits;
                ++candHits[ci];
                only[bi] = ci;
            }
        }
        if (hits != 1)
            only[bi].reset();
    }
    for (std::size_t bi : baseLeft) {
        if (only[bi] && candHits[*only[bi]] == 1) {
            base[bi].taken = cand[*only[bi]].taken = true;
            out.layers.push_back(pairOf(&base[bi], &cand[*only[bi]], CompareLayer::Match::Path));
        }
    }
    // 3. The n-th layer of an op type with the n-th of the same op type (ID order), when both sides have as many
    //    of that op type left.
    std::map<std::string_view, std::pair<std::vector<std::size_t>, std::vector<std::size_t>>> byType;
    for (std::size_t i = 0; i < base.size(); ++i) {
        if (!base[i].taken)
            byType[base[i].opType].first.push_back(i);
    }
    for (std::size_t i = 0; i < cand.size(); ++i) {
        if (!cand[i].taken)
            byType[cand[i].opType].second.push_back(i);
    }
    for (auto& [type, sides] : byType) {
        if (sides.first.size() != sides.second.size())
            continue;
        for (std::size_t k = 0; k < sides.first.size(); ++k) {
            SideLayer& b = base[sides.first[k]];
            SideLayer& c = cand[sides.second[k]];
            b.taken = c.taken = true;
            out.layers.push_back(pairOf(&b, &c, CompareLayer::Match::OpOrder));
        }
    }
    for (const SideLayer& b : base) {
        if (!b.taken)
            out.layers.push_back(pairOf(&b, nullptr, CompareLayer::Match::BaselineOnly));
    }
    for (const SideLayer& c : cand) {
        if (!c.taken)
            out.layers.push_back(pairOf(nullptr, &c, CompareLayer::Match::CandidateOnly));
    }

    std::map<std::string, CompareLayerOpType> types;
    for (const CompareLayer& l : out.layers) {
        switch (l.match) {
        case CompareLayer::Match::Name:
            ++out.byName;
            break;
        case CompareLayer::Match::Path:
            ++out.byPath;
            break;
        case CompareLayer::Match::OpOrder:
            ++out.byOpOrder;
            break;
        case CompareLayer::Match::BaselineOnly:
            ++out.baselineOnly;
            break;
        case CompareLayer::Match::CandidateOnly:
            ++out.candidateOnly;
            break;
        }
        const bool matched = l.baselineId && l.candidateId;
        out.placementChanged += l.placementChanged() ? 1 : 0;
        out.shapeChanged += l.inputShapeChanged() ? 1 : 0;
        out.slower += matched && l.deltaNs() > 0 ? 1 : 0;
        out.faster += matched && l.deltaNs() < 0 ? 1 : 0;
        out.baselineCoresUsed = std::max(out.baselineCoresUsed, static_cast<int>(l.baselineCores.size()));
        out.candidateCoresUsed = std::max(out.candidateCoresUsed, static_cast<int>(l.candidateCores.size()));
        CompareLayerOpType& t = types[l.opType];
        t.opType = l.opType;
        t.baselineNs = model::saturatingAdd(t.baselineNs, l.baselineNs);
        t.candidateNs = model::saturatingAdd(t.candidateNs, l.candidateNs);
        t.baselineLayers += l.baselineId ? 1 : 0;
        t.candidateLayers += l.candidateId ? 1 : 0;
        t.baselineSplitLayers += l.baselineCores.size() >= 2 ? 1 : 0;
        t.candidateSplitLayers += l.candidateCores.size() >= 2 ? 1 : 0;
        t.placementChanged += l.placementChanged() ? 1 : 0;
    }
    for (auto& [name, t] : types)
        out.opTypes.push_back(std::move(t));
    std::stable_sort(
        out.opTypes.begin(), out.opTypes.end(),
        [](const CompareLayerOpType& a, const CompareLayerOpType& b) { return a.deltaNs() > b.deltaNs(); });
    std::stable_sort(out.layers.begin(), out.layers.end(), [](const CompareLayer& a, const CompareLayer& b) {
        if (a.deltaNs() != b.deltaNs())
            return a.deltaNs() > b.deltaNs();
        return a.candidateId.value_or(a.baselineId.value_or(0)) < b.candidateId.value_or(b.baselineId.value_or(0));
    });
    return out;
}

std::string layerPlacementChange(const CompareLayer& l)
{
    const std::string before = layerPlacementText(l.baselineTarget, l.baselineCores);
    const std::string after = layerPlacementText(l.candidateTarget, l.candidateCores);
    return before == after ? after : before + " → " + after;
}

std::string layerSummaryText(const CompareLayers& l)
{
    if (!l.present)
        return {};
    const std::uint64_t matched = l.byName + l.byPath + l.byOpOrder;
    std::string text = plural(matched, "layer", "layers") + " matched (" + std::to_string(l.byName) + " by FullName, "
        + std::to_string(l.byPath) + " by node path, " + std::to_string(l.byOpOrder) + " by op type and order), "
        + std::to_string(l.baselineOnly) + " only in the baseline, " + std::to_string(l.candidateOnly)
        + " only in the candidate. " + std::to_string(l.slower) + " got slower, " + std::to_string(l.faster)
        + " faster. ";
    std::uint64_t npu = 0;
    std::uint64_t oneCore = 0;
    for (const CompareLayer& x : l.layers) {
        if (x.candidateId && !x.candidateCores.empty()) {
            ++npu;
            oneCore += x.candidateCores.size() == 1 ? 1 : 0;
        }
    }
    text += plural(l.placementChanged, "layer", "layers") + " changed placement (core split or target)";
    if (l.baselineCoresUsed > 0 && l.candidateCoresUsed > 0)
        text += "; a layer used up to "
            + plural(static_cast<std::uint64_t>(l.baselineCoresUsed), "NPU core", "NPU cores") + " in the baseline and "
            + std::to_string(l.candidateCoresUsed) + " in the candidate";
    text += ".";
    if (l.candidateCoresUsed > 1 && npu > 0)
        text += " " + std::to_string(oneCore) + " of the candidate's " + std::to_string(npu)
            + " NPU layers still ran on one core.";
    return text;
}

} // namespace timesink::analysis
