// SPDX-License-Identifier: MIT
#include "report/reportmodel.h"

#include "report/reportjson.h"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <unordered_map>

namespace timesink::report {

using model::SliceCategory;
using model::TimeNs;

namespace {

struct Interval
{
    TimeNs start;
    TimeNs end;
};

/// Sorts and merges in place; returns the covered length.
TimeNs mergeIntervals(std::vector<Interval>& v)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end(), [](const Interval& a, const Interval& b) { return a.start < b.start; });
    std::size_t out = 0;
    for (std::size_t i = 1; i < v.size(); ++i) {
        if (v[i].start <= v[out].end)
            v[out].end = std::max(v[out].end, v[i].end);
        else
            v[++out] = v[i];
    }
    v.resize(out + 1);
    TimeNs covered = 0;
    for (const Interval& iv : v)
        covered += iv.end - iv.start;
    return covered;
}

enum WorkClass : std::size_t { kCompute, kCommunication, kCopy, kDataloader, kWorkClassCount };

bool isDeviceRole(model::TrackRole role)
{
    return role == model::TrackRole::DeviceCompute || role == model::TrackRole::DeviceCopy
        || role == model::TrackRole::Communication;
}

bool hasDeviceWork(const model::Trace& trace)
{
    return std::any_of(trace.tracks().begin(), trace.tracks().end(),
                       [](const model::Track& t) { return isDeviceRole(t.role) && !t.empty(); });
}

std::optional<WorkClass> classify(SliceCategory category, bool deviceTrace)
{
    switch (category) {
    case SliceCategory::Kernel:
    case SliceCategory::FallbackOp:
        return kCompute;
    case SliceCategory::HostOp:
        // Without device tracks the host ops are the compute (CPU-only runs, RKNN host-side layers).
        return deviceTrace ? std::nullopt : std::optional<WorkClass>(kCompute);
    case SliceCategory::Communication:
        return kCommunication;
    case SliceCategory::Memcpy:
    case SliceCategory::Memset:
        return kCopy;
    case SliceCategory::Dataloader:
        return kDataloader;
    default:
        return std::nullopt;
    }
}

StepBreakdown breakdownOf(const model::Trace& trace, const model::Step& step, bool deviceTrace)
{
    StepBreakdown b;
    b.number = step.number;
    b.synthetic = step.synthetic;
    b.startNs = step.start;
    b.durationNs = step.duration();
    std::array<std::vector<Interval>, kWorkClassCount> byClass;
    for (const model::Track& track : trace.tracks()) {
        if (track.role == model::TrackRole::Counter)
            continue;
        for (std::size_t depth = 0; depth < track.depthCount(); ++depth) {
            const auto [first, last] = track.rangeAtDepth(depth, step.start, step.end);
            const auto indices = track.slicesAtDepth(depth);
            for (std::size_t k = first; k < last; ++k) {
                const std::uint32_t i = indices[k];
                const auto cls = classify(track.category(i), deviceTrace);
                if (!cls)
                    continue;
                const TimeNs s = std::max(track.ts(i), step.start);
                const TimeNs e = std::min(track.end(i), step.end);
                if (e > s)
                    byClass[*cls].push_back({s, e});
            }
        }
    }
    // Exclusive attribution by priority: each class gets what the union grows by when it is added.
    std::vector<Interval> covered;
    TimeNs coveredNs = 0;
    std::array<TimeNs, kWorkClassCount> share {};
    for (std::size_t c = 0; c < kWorkClassCount; ++c) {
        covered.insert(covered.end(), byClass[c].begin(), byClass[c].end());
        const TimeNs now = mergeIntervals(covered);
        share[c] = now - coveredNs;
        coveredNs = now;
    }
    b.computeNs = share[kCompute];
    b.communicationNs = share[kCommunication];
    b.copyNs = share[kCopy];
    b.dataloaderNs = share[kDataloader];
    b.idleNs = b.durationNs - coveredNs;
    return b;
}

bool hasHostOpAncestor(const model::Track& track, std::uint32_t i)
{
    for (model::SliceIndex p = track.parent(i); p.isValid(); p = track.parent(p.value)) {
        const SliceCategory c = track.category(p.value);
        if (c == SliceCategory::HostOp || c == SliceCategory::FallbackOp)
            return true;
    }
    return false;
}

std::vector<OperatorTime> topOperators(const model::Trace& trace, bool deviceTrace, std::size_t limit)
{
    struct Acc
    {
        TimeNs total = 0;
        std::uint64_t count = 0;
        std::array<TimeNs, model::kSliceCategoryCount> byCategory {};
    };
    // Keyed by StringId: names are interned, so equal ids mean equal names.
    std::unordered_map<std::uint32_t, Acc> acc;
    TimeNs scopeTotal = 0;
    for (const model::Track& track : trace.tracks()) {
        if (deviceTrace ? !isDeviceRole(track.role) : track.role != model::TrackRole::HostThread)
            continue;
        for (std::uint32_t i = 0; i < track.size(); ++i) {
            const SliceCategory c = track.category(i);
            if (deviceTrace) {
                // Top level only: a nested device slice is already inside its parent's time.
                if (track.depth(i) != 0 || c == SliceCategory::Step || c == SliceCategory::Annotation)
                    continue;
            } else if ((c != SliceCategory::HostOp && c != SliceCategory::FallbackOp) || hasHostOpAncestor(track, i)) {
                continue;
            }
            Acc& a = acc[track.sliceName(i).value];
            a.total += track.dur(i);
            ++a.count;
            a.byCategory[static_cast<std::size_t>(c)] += track.dur(i);
            scopeTotal += track.dur(i);
        }
    }
    std::vector<OperatorTime> ops;
    ops.reserve(acc.size());
    for (const auto& [name, a] : acc) {
        OperatorTime op;
        op.name = std::string(trace.str(model::StringId(name)));
        op.totalNs = a.total;
        op.count = a.count;
        op.category = static_cast<SliceCategory>(std::max_element(a.byCategory.begin(), a.byCategory.end())
                                                 - a.byCategory.begin());
        op.fraction = scopeTotal > 0 ? static_cast<double>(a.total) / static_cast<double>(scopeTotal) : 0.0;
        ops.push_back(std::move(op));
    }
    std::sort(ops.begin(), ops.end(), [](const OperatorTime& a, const OperatorTime& b) {
        return a.totalNs != b.totalNs ? a.totalNs > b.totalNs : a.name < b.name;
    });
    if (ops.size() > limit)
        ops.resize(limit);
    return ops;
}

} // namespace

std::vector<StepBreakdown> computeStepBreakdown(const model::Trace& trace)
{
    const bool deviceTrace = hasDeviceWork(trace);
    std::vector<StepBreakdown> steps;
    steps.reserve(trace.steps().size());
    for (const model::Step& step : trace.steps())
        steps.push_back(breakdownOf(trace, step, deviceTrace));
    return steps;
}

ReportModel buildReportModel(const model::Trace& trace, const analysis::AnalysisResult& result,
                             const ReportOptions& options)
{
    ReportModel m;
    m.generator = options.generator;
    const model::TraceMetadata& meta = trace.metadata();
    ReportSummary& s = m.summary;
    s.sourcePath = meta.sourcePath;
    s.format = meta.format;
    s.formatVersion = meta.formatVersion;
    s.devices = meta.devices;
    s.rank = meta.rank;
    s.worldSize = meta.worldSize;
    s.startNs = trace.startNs();
    s.spanNs = trace.spanNs();
    s.slices = trace.sliceCount();
    s.tracks = trace.tracks().size();
    s.steps = trace.steps().size();
    s.syntheticSteps = s.steps == 1 && trace.steps().front().synthetic;
    TimeNs stepTotal = 0;
    for (const model::Step& step : trace.steps())
        stepTotal += step.duration();
    s.meanStepNs = s.steps > 0 ? stepTotal / static_cast<TimeNs>(s.steps) : 0;
    s.analysedNs = result.analysedNs > 0 ? result.analysedNs : stepTotal;
    s.syntheticTimestamps = meta.syntheticTimestamps;
    s.warnings.assign(trace.warnings().begin(), trace.warnings().end());

    m.findings = result.findings;
    m.notAssessed = result.notAssessed;
    m.cancelled = result.cancelled;

    std::map<std::string, KindLoss> byKind;
    for (const analysis::Finding& f : m.findings) {
        s.lostNs += f.lostNs;
        KindLoss& k = byKind[f.kind];
        k.kind = f.kind;
        k.lostNs += f.lostNs;
        ++k.findings;
    }
    const auto share = [&](TimeNs ns) {
        return s.analysedNs > 0 ? static_cast<double>(ns) / static_cast<double>(s.analysedNs) : 0.0;
    };
    s.lostFraction = share(s.lostNs);
    for (auto& [kind, loss] : byKind) {
        loss.fraction = share(loss.lostNs);
        m.lostByKind.push_back(loss);
    }
    std::stable_sort(m.lostByKind.begin(), m.lostByKind.end(),
                     [](const KindLoss& a, const KindLoss& b) { return a.lostNs > b.lostNs; });

    const bool deviceTrace = hasDeviceWork(trace);
    m.steps = computeStepBreakdown(trace);
    m.communication = analysis::computeCommunicationProfile(trace, analysis::StepClock(trace), analysis::CancelToken());
    m.operatorScope = deviceTrace ? "device" : "host";
    m.topOperators = topOperators(trace, deviceTrace, options.topOperators);

    m.trackNames.reserve(trace.tracks().size());
    for (const model::Track& t : trace.tracks()) {
        std::string name(trace.str(t.name));
        const std::string_view process = trace.str(t.processName);
        if (!process.empty())
            name = std::string(process) + " / " + name;
        m.trackNames.push_back(std::move(name));
    }
    m.analysisJson = analysisReportJson(trace, result, options.analysisOptions);
    return m;
}

} // namespace timesink::report
