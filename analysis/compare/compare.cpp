// SPDX-License-Identifier: MIT
#include "analysis/compare/compare.h"

#include "analysis/core/stepclock.h"
#include "model/checkedmath.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <unordered_set>

namespace timesink::analysis {

namespace {

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

bool isLetter(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/// "AI_CPU fallback of Cast: 412.5 ms lost over 5 steps" → "AI_CPU fallback of Cast: # lost over # steps".
/// Digits inside words (AI_CPU, Conv2D, fp16) stay: they name things, they do not measure them.
std::string titleKey(std::string_view title)
{
    static constexpr std::string_view kUnits[] = {"ns", "us", "\xC2\xB5s", "ms", "s", "min", "%", "x", "\xC3\x97"};
    std::string out;
    std::size_t i = 0;
    while (i < title.size()) {
        const bool startsNumber = isDigit(title[i]) && (i == 0 || !(isLetter(title[i - 1]) || title[i - 1] == '_'));
        if (!startsNumber) {
            out += title[i++];
            continue;
        }
        while (i < title.size()
               && (isDigit(title[i])
                   || ((title[i] == '.' || title[i] == ',') && i + 1 < title.size() && isDigit(title[i + 1]))))
            ++i;
        out += '#';
        std::size_t j = i;
        while (j < title.size() && title[j] == ' ')
            ++j;
        for (std::string_view unit : kUnits) {
            if (title.substr(j, unit.size()) == unit
                && (j + unit.size() == title.size() || !isLetter(title[j + unit.size()]))) {
                i = j + unit.size();
                break;
            }
        }
    }
    return out;
}

std::vector<model::TimeNs> lostOverSteps(std::span<const Finding> findings, std::span<const std::size_t> steps)
{
    const std::unordered_set<std::size_t> paired(steps.begin(), steps.end());
    std::vector<model::TimeNs> out;
    out.reserve(findings.size());
    for (const Finding& f : findings) {
        if (f.perStep.empty()) {
            out.push_back(f.lostNs);
            continue;
        }
        model::TimeNs lost = 0;
        for (const StepLoss& s : f.perStep) {
            if (paired.count(s.stepIndex))
                lost = model::saturatingAdd(lost, s.lostNs);
        }
        out.push_back(lost);
    }
    return out;
}

void addOperators(std::map<std::string, CompareOperator, std::less<>>& merged, const CompareAttribution& attribution,
                  std::span<const std::size_t> steps, const CompareOpMap& map, bool baseline)
{
    // Unlinked work that only has a raw vendor kernel name the operator-name map does not know
    // (`sm90_xmma_gemm_…`, `Cijk_…`) can never match across vendors: it is grouped by kernel class.
    const auto groupable = [&map](std::string_view name) { return map.canonical(name) == name; };
    for (auto& [name, total] : attribution.totals(steps, groupable)) {
        const std::string canonical = total.rawNames.empty() ? map.canonical(name) : name;
        CompareOperator& op = merged[canonical];
        op.name = canonical;
        auto& names = baseline ? op.baselineNames : op.candidateNames;
        if (total.rawNames.empty())
            names.push_back(name);
        else
            names.insert(names.end(), total.rawNames.begin(), total.rawNames.end());
        model::TimeNs& ns = baseline ? op.baselineNs : op.candidateNs;
        ns = model::saturatingAdd(ns, total.ns);
        (baseline ? op.baselineCalls : op.candidateCalls) += total.calls;
        auto& occ = baseline ? op.baselineOccurrences : op.candidateOccurrences;
        occ.insert(occ.end(), total.occurrences.begin(), total.occurrences.end());
    }
}

std::string sideLabel(bool baseline)
{
    return baseline ? "baseline" : "candidate";
}

/// Resolves both sides' step selections and pairs them by position (the longer one cut, with a note); false with
/// `error` when a selection is invalid or empty.
bool selectSteps(const model::Trace& baseline, const model::Trace& candidate, const CompareOptions& options,
                 CompareResult& result, std::vector<std::size_t>& baseSel, std::vector<std::size_t>& candSel,
                 std::string& error)
{
    if (!options.baselineSteps.resolve(baseline.steps(), baseSel, error)) {
        error = "baseline: " + error;
        return false;
    }
    if (!options.candidateSteps.resolve(candidate.steps(), candSel, error)) {
        error = "candidate: " + error;
        return false;
    }
    if (baseSel.empty() || candSel.empty()) {
        error = std::string(baseSel.empty() ? "baseline" : "candidate") + ": no steps to compare";
        return false;
    }
    const std::size_t pairs = std::min(baseSel.size(), candSel.size());
    if (baseSel.size() != candSel.size()) {
        const bool baseLonger = baseSel.size() > candSel.size();
        result.notes.push_back("the " + sideLabel(baseLonger) + " selects "
                               + std::to_string(std::max(baseSel.size(), candSel.size())) + " steps and the "
                               + sideLabel(!baseLonger) + " " + std::to_string(pairs) + "; only the first "
                               + std::to_string(pairs) + " of each are compared (choose with --steps)");
    }
    baseSel.resize(pairs);
    candSel.resize(pairs);
    return true;
}

/// The paired steps and their times (CompareResult::steps, each side's pairedSteps), with a note when only one side
/// has step markers.
void pairStepTimes(const model::Trace& baseline, const model::Trace& candidate, const StepClock& baseClock,
                   const StepClock& candClock, const std::vector<std::size_t>& baseSel,
                   const std::vector<std::size_t>& candSel, CompareResult& result)
{
    // A marked step's time is its analysis window, as `analyze` reports it (stepclock.h: the host step moved to
    // follow the device; a selected warm-up step gets its window too). A trace without markers is compared whole.
    const auto stepNs = [](const model::Step& s, const StepClock& clock, std::size_t i) {
        return s.synthetic ? s.duration() : clock.fullWindow(i).length();
    };
    for (std::size_t i = 0; i < baseSel.size(); ++i) {
        const model::Step& b = baseline.steps()[baseSel[i]];
        const model::Step& c = candidate.steps()[candSel[i]];
        result.steps.push_back(CompareStepPair {baseSel[i], candSel[i], b.number, c.number,
                                                stepNs(b, baseClock, baseSel[i]), stepNs(c, candClock, candSel[i])});
    }
    const bool baseSynthetic = baseline.steps().size() == 1 && baseline.steps().front().synthetic;
    const bool candSynthetic = candidate.steps().size() == 1 && candidate.steps().front().synthetic;
    if (baseSynthetic != candSynthetic) {
        result.notes.push_back("the " + sideLabel(baseSynthetic)
                               + " has no step markers, so its whole trace is paired with one marked step of the "
                               + sideLabel(!baseSynthetic) + "; times are not like for like");
    }
    result.baseline.pairedSteps = baseSel;
    result.candidate.pairedSteps = candSel;
}

/// Both sides' operators merged under their canonical names (CompareResult::operators, largest change first) and
/// each side's operator total.
void compareOperators(const CompareAttribution& baseAttr, const CompareAttribution& candAttr,
                      const std::vector<std::size_t>& baseSel, const std::vector<std::size_t>& candSel,
                      const CompareOpMap& map, CompareResult& result)
{
    std::map<std::string, CompareOperator, std::less<>> merged;
    addOperators(merged, baseAttr, baseSel, map, true);
    addOperators(merged, candAttr, candSel, map, false);
    for (auto& [name, op] : merged) {
        std::sort(op.baselineNames.begin(), op.baselineNames.end());
        std::sort(op.candidateNames.begin(), op.candidateNames.end());
        result.baseline.operatorNs = model::saturatingAdd(result.baseline.operatorNs, op.baselineNs);
        result.candidate.operatorNs = model::saturatingAdd(result.candidate.operatorNs, op.candidateNs);
        result.operators.push_back(std::move(op));
    }
    std::sort(result.operators.begin(), result.operators.end(), [](const CompareOperator& a, const CompareOperator& b) {
        const model::TimeNs da = std::llabs(a.deltaNs());
        const model::TimeNs db = std::llabs(b.deltaNs());
        return da != db ? da > db : a.name < b.name;
    });
}

/// How much of each side's device work reached an operator, with a note for a side without device work or with
/// less than half of it attributed.
void noteAttributionCoverage(const model::Trace& baseline, const model::Trace& candidate,
                             const CompareAttribution& baseAttr, const CompareAttribution& candAttr,
                             CompareResult& result)
{
    for (bool isBase : {true, false}) {
        const CompareAttribution& attr = isBase ? baseAttr : candAttr;
        CompareSide& side = isBase ? result.baseline : result.candidate;
        side.deviceTimed = attr.deviceTimed();
        side.workSlices = attr.deviceTimed() ? attr.items().size() : 0;
        side.attributedSlices = attr.deviceTimed() ? attr.attributedCount() : 0;
        if (!attr.deviceTimed()) {
            result.notes.push_back("the " + sideLabel(isBase)
                                   + " has no device work: its operator times are host time");
        } else if (const model::Trace& t = isBase ? baseline : candidate;
                   (!t.flows().empty() || t.categoryCount(model::SliceCategory::RuntimeApi) > 0)
                   && attr.attributedCount() * 2 < attr.items().size()) {
            // Only worth saying when the trace records launches at all (RKNN layers are the operators).
            result.notes.push_back("only " + std::to_string(attr.attributedCount()) + " of "
                                   + std::to_string(attr.items().size()) + " device work slices of the "
                                   + sideLabel(isBase)
                                   + " link to a framework operator; the rest are listed under their own names");
        }
    }
}

/// Device time per kernel class on both sides (CompareResult::classes, largest change first).
void compareKernelClasses(const CompareAttribution& baseAttr, const CompareAttribution& candAttr,
                          const std::vector<std::size_t>& baseSel, const std::vector<std::size_t>& candSel,
                          CompareResult& result)
{
    const auto baseClasses = baseAttr.classTotals(baseSel);
    const auto candClasses = candAttr.classTotals(candSel);
    for (std::size_t c = 0; c < kKernelClassCount; ++c) {
        if (baseClasses[c].slices == 0 && candClasses[c].slices == 0)
            continue;
        result.classes.push_back(CompareClass {static_cast<KernelClass>(c), baseClasses[c].ns, candClasses[c].ns,
                                               baseClasses[c].slices, candClasses[c].slices});
    }
    std::stable_sort(result.classes.begin(), result.classes.end(), [](const CompareClass& a, const CompareClass& b) {
        return std::llabs(a.deltaNs()) > std::llabs(b.deltaNs());
    });
}

/// One side's paired steps split into compute, communication, copies and idle (CompareSide::split), and its device
/// breakdown over the device windows of those steps.
void splitStepTime(const model::Trace& t, const StepClock& clock, const std::vector<std::size_t>& sel,
                   CompareSide& side)
{
    const TraceTimeSplitter splitter(t);
    std::vector<Interval> windows;
    std::vector<Interval> deviceWindows;
    for (std::size_t i : sel) {
        const model::Step& s = t.steps()[i];
        // The same window the step time is (see pairStepTimes).
        const Interval w = s.synthetic ? Interval {s.start, s.end} : clock.fullWindow(i);
        windows.push_back(w);
        if (!s.synthetic && clock.hasDeviceWindow(i))
            deviceWindows.push_back(clock.deviceWindow(i));
        else if (const auto hull = splitter.busyHull(w))
            deviceWindows.push_back(*hull);
    }
    side.split = splitter.split(windows);
    side.device = splitter.deviceBreakdown(deviceWindows);
}

/// The step-time delta as a waterfall of the splits' parts that changed, and what none of them explains.
void buildWaterfall(CompareResult& result)
{
    const StepTimeSplit& b = result.baseline.split;
    const StepTimeSplit& c = result.candidate.split;
    auto add
        = [&](std::string key, std::string_view label, WaterfallPart::Kind kind, model::TimeNs bns, model::TimeNs cns) {
              if (bns != cns)
                  result.waterfall.push_back(WaterfallPart {std::move(key), std::string(label), kind, bns, cns});
          };
    for (std::size_t k = 0; k < kKernelClassCount; ++k) {
        const auto cls = static_cast<KernelClass>(k);
        add(std::string(kernelClassKey(cls)), kernelClassLabel(cls), WaterfallPart::Kind::Compute, b.computeNs[k],
            c.computeNs[k]);
    }
    add("exposed_communication", "exposed communication", WaterfallPart::Kind::Communication, b.exposedCommunicationNs,
        c.exposedCommunicationNs);
    add("exposed_copy", "exposed copies", WaterfallPart::Kind::Copy, b.exposedCopyNs, c.exposedCopyNs);
    for (std::size_t k = 0; k < kIdleCauseCount; ++k) {
        const auto cause = static_cast<IdleCause>(k);
        add("idle_" + std::string(idleCauseKey(cause)), idleCauseLabel(cause), WaterfallPart::Kind::Idle, b.idleNs[k],
            c.idleNs[k]);
    }
    model::TimeNs explained = 0;
    for (const WaterfallPart& p : result.waterfall)
        explained += p.deltaNs();
    const model::TimeNs remainder = (result.candidateStepsNs() - result.baselineStepsNs()) - explained;
    if (remainder != 0) {
        result.waterfall.push_back(
            WaterfallPart {"remainder", "not attributed", WaterfallPart::Kind::Remainder, 0, remainder});
        result.notes.push_back("the waterfall leaves " + std::to_string(remainder)
                               + " ns of the step-time delta unattributed");
    }
}

/// The layers of edge (RKNN) runs, with a note when matched layers saw other input shapes.
void compareLayersOfEdgeRuns(const model::Trace& baseline, const model::Trace& candidate,
                             const std::vector<std::size_t>& baseSel, const std::vector<std::size_t>& candSel,
                             CompareResult& result)
{
    result.layers = compareRknnLayers(baseline, baseSel, candidate, candSel);
    if (!result.layers.present || result.layers.shapeChanged == 0)
        return;
    const auto first = std::find_if(result.layers.layers.begin(), result.layers.layers.end(),
                                    [](const CompareLayer& l) { return l.inputShapeChanged(); });
    std::uint64_t matched = 0;
    for (const CompareLayer& l : result.layers.layers)
        matched += l.baselineId && l.candidateId ? 1 : 0;
    result.notes.push_back(std::to_string(result.layers.shapeChanged) + " of " + std::to_string(matched)
                           + " matched layers have other input shapes in the candidate (layer "
                           + std::to_string(first->candidateId.value_or(0)) + " " + first->opType + ": "
                           + first->baselineInputShape + " → " + first->candidateInputShape
                           + "): the runs did not process the same tensors, so layer times are not like for like");
}

/// Which baseline finding each candidate finding is the same problem as (by kind and title with the numbers taken
/// out, then one leftover of a kind on each side), and which baseline findings found a partner.
struct FindingPairs
{
    std::vector<std::optional<std::size_t>> counterpart; // per candidate finding
    std::vector<char> baseTaken;                         // per baseline finding
};

/// Pairs the two sides' findings (FindingPairs).
FindingPairs pairFindings(std::span<const Finding> baselineFindings, std::span<const Finding> candidateFindings)
{
    FindingPairs pairs;
    pairs.counterpart.resize(candidateFindings.size());
    pairs.baseTaken.assign(baselineFindings.size(), 0);
    auto& counterpart = pairs.counterpart;
    auto& baseTaken = pairs.baseTaken;
    std::multimap<std::string, std::size_t> baseByKey;
    for (std::size_t i = 0; i < baselineFindings.size(); ++i)
        baseByKey.emplace(baselineFindings[i].kind + '\x1f' + titleKey(baselineFindings[i].title), i);
    for (std::size_t c = 0; c < candidateFindings.size(); ++c) {
        auto [lo, hi]
            = baseByKey.equal_range(candidateFindings[c].kind + '\x1f' + titleKey(candidateFindings[c].title));
        for (auto it = lo; it != hi; ++it) {
            if (!baseTaken[it->second]) {
                baseTaken[it->second] = 1;
                counterpart[c] = it->second;
                break;
            }
        }
    }
    // Vendors word the same problem differently; one leftover of a kind on each side is the same problem.
    std::map<std::string, std::pair<std::vector<std::size_t>, std::vector<std::size_t>>> leftovers;
    for (std::size_t b = 0; b < baselineFindings.size(); ++b) {
        if (!baseTaken[b])
            leftovers[baselineFindings[b].kind].first.push_back(b);
    }
    for (std::size_t c = 0; c < candidateFindings.size(); ++c) {
        if (!counterpart[c])
            leftovers[candidateFindings[c].kind].second.push_back(c);
    }
    for (auto& [kind, sides] : leftovers) {
        if (sides.first.size() == 1 && sides.second.size() == 1) {
            baseTaken[sides.first.front()] = 1;
            counterpart[sides.second.front()] = sides.first.front();
        }
    }
    return pairs;
}

/// What each finding contributes to the step-time delta (CompareResult::explanations, largest change first): those
/// that grew, shrank, or appear on one side only, over the paired steps.
void explainFindings(std::span<const Finding> baselineFindings, std::span<const Finding> candidateFindings,
                     const std::vector<std::size_t>& baseSel, const std::vector<std::size_t>& candSel,
                     CompareResult& result)
{
    result.baseline.findingLostNs = lostOverSteps(baselineFindings, baseSel);
    result.candidate.findingLostNs = lostOverSteps(candidateFindings, candSel);
    const FindingPairs pairs = pairFindings(baselineFindings, candidateFindings);
    const model::TimeNs stepDelta = result.candidateStepsNs() - result.baselineStepsNs();
    auto finish = [&](CompareExplanation e) {
        if (e.baselineLostNs == 0 && e.candidateLostNs == 0)
            return;
        const model::TimeNs d = e.deltaNs();
        if (stepDelta != 0 && ((d > 0) == (stepDelta > 0)) && d != 0)
            e.shareOfStepDelta = static_cast<double>(d) / static_cast<double>(stepDelta);
        result.explanations.push_back(std::move(e));
    };
    for (std::size_t c = 0; c < candidateFindings.size(); ++c) {
        CompareExplanation e;
        e.kind = candidateFindings[c].kind;
        e.title = candidateFindings[c].title;
        e.candidateFinding = c;
        e.candidateLostNs = result.candidate.findingLostNs[c];
        if (pairs.counterpart[c]) {
            const std::size_t b = *pairs.counterpart[c];
            e.baselineFinding = b;
            e.baselineLostNs = result.baseline.findingLostNs[b];
            e.counterpartTitle = baselineFindings[b].title;
            if (e.candidateLostNs == e.baselineLostNs)
                continue;
            e.status = e.candidateLostNs > e.baselineLostNs ? CompareExplanation::Status::Grew
                                                            : CompareExplanation::Status::Shrank;
        } else {
            e.status = CompareExplanation::Status::CandidateOnly;
        }
        finish(std::move(e));
    }
    for (std::size_t b = 0; b < baselineFindings.size(); ++b) {
        if (pairs.baseTaken[b])
            continue;
        CompareExplanation e;
        e.status = CompareExplanation::Status::BaselineOnly;
        e.kind = baselineFindings[b].kind;
        e.title = baselineFindings[b].title;
        e.baselineFinding = b;
        e.baselineLostNs = result.baseline.findingLostNs[b];
        finish(std::move(e));
    }
    std::sort(result.explanations.begin(), result.explanations.end(),
              [](const CompareExplanation& a, const CompareExplanation& b) {
                  const model::TimeNs da = std::llabs(a.deltaNs());
                  const model::TimeNs db = std::llabs(b.deltaNs());
                  if (da != db)
                      return da > db;
                  if (a.kind != b.kind)
                      return a.kind < b.kind;
                  return a.title < b.title;
              });
}

} // namespace

std::optional<double> CompareOperator::ratio() const
{
    if (baselineNs == 0)
        return std::nullopt;
    return static_cast<double>(candidateNs) / static_cast<double>(baselineNs);
}

std::string_view waterfallKindKey(WaterfallPart::Kind k)
{
    switch (k) {
    case WaterfallPart::Kind::Compute:
        return "compute";
    case WaterfallPart::Kind::Communication:
        return "communication";
    case WaterfallPart::Kind::Copy:
        return "copy";
    case WaterfallPart::Kind::Idle:
        return "idle";
    case WaterfallPart::Kind::Remainder:
        break;
    }
    return "remainder";
}

std::string_view explanationStatusKey(CompareExplanation::Status s)
{
    switch (s) {
    case CompareExplanation::Status::CandidateOnly:
        return "candidate_only";
    case CompareExplanation::Status::BaselineOnly:
        return "baseline_only";
    case CompareExplanation::Status::Grew:
        return "grew";
    case CompareExplanation::Status::Shrank:
        return "shrank";
    }
    return "candidate_only";
}

model::TimeNs CompareResult::baselineStepsNs() const
{
    model::TimeNs total = 0;
    for (const CompareStepPair& p : steps)
        total = model::saturatingAdd(total, p.baselineNs);
    return total;
}

model::TimeNs CompareResult::candidateStepsNs() const
{
    model::TimeNs total = 0;
    for (const CompareStepPair& p : steps)
        total = model::saturatingAdd(total, p.candidateNs);
    return total;
}

bool compareRuns(const model::Trace& baseline, std::span<const Finding> baselineFindings, const model::Trace& candidate,
                 std::span<const Finding> candidateFindings, const CompareOptions& options, CompareResult& result,
                 std::string& error)
{
    result = CompareResult {};
    const CompareOpMap& map = options.opMap ? *options.opMap : CompareOpMap::builtIn();
    std::vector<std::size_t> baseSel;
    std::vector<std::size_t> candSel;
    if (!selectSteps(baseline, candidate, options, result, baseSel, candSel, error))
        return false;
    const StepClock baseClock(baseline, true);
    const StepClock candClock(candidate, true);
    pairStepTimes(baseline, candidate, baseClock, candClock, baseSel, candSel, result);
    const CompareAttribution baseAttr(baseline);
    const CompareAttribution candAttr(candidate);
    compareOperators(baseAttr, candAttr, baseSel, candSel, map, result);
    noteAttributionCoverage(baseline, candidate, baseAttr, candAttr, result);
    compareKernelClasses(baseAttr, candAttr, baseSel, candSel, result);
    splitStepTime(baseline, baseClock, baseSel, result.baseline);
    splitStepTime(candidate, candClock, candSel, result.candidate);
    buildWaterfall(result);
    compareLayersOfEdgeRuns(baseline, candidate, baseSel, candSel, result);
    explainFindings(baselineFindings, candidateFindings, baseSel, candSel, result);
    const efficiency::PeakTable& peaks = options.peaks ? *options.peaks : efficiency::builtinPeakTable();
    result.efficiency = efficiency::compareEfficiency(efficiency::computeEfficiency(baseline, peaks),
                                                      efficiency::computeEfficiency(candidate, peaks));
    error.clear();
    return true;
}

} // namespace timesink::analysis
