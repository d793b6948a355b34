// SPDX-License-Identifier: MIT
// RknnImporter::buildTrace: a parsed RKNN report → a trace (the mapping is described in rknnimporter.h). Each
// step below does one part: the metadata, the tracks per target, the layers' slices on the synthetic timeline
// (rknntimeline.h), the frames' steps and counter, the properties, the warnings.
#include "model/tracebuilder.h"
#include "parsers/rknn/rknnimporter.h"
#include "parsers/rknn/rknnlayerargs.h"
#include "parsers/rknn/rknnlayercells.h"
#include "parsers/rknn/rknntext.h"
#include "parsers/rknn/rknntimeline.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

namespace timesink::parsers {

namespace {

using rknncells::isEdgeOperator;
using rknntext::usText;
using rknntimeline::FrameLayout;

/// Format, platform, device, format version and the note that the timestamps are made up.
void describeSource(const RknnPerfReport& report, const std::string& deviceName, const std::string& sourcePath,
                    model::TraceMetadata& meta)
{
    meta.format = "rknn";
    meta.platform = model::Platform::Rknn;
    meta.sourcePath = sourcePath;
    meta.devices.push_back(model::Device {model::DeviceKind::EdgeNpu, 0, deviceName});
    meta.syntheticTimestamps = true;
    for (const RknnFrame& f : report.frames) {
        if (f.hasLayerTable) {
            meta.formatVersion = f.formatVersion;
            break;
        }
    }
    if (meta.formatVersion.empty())
        meta.formatVersion = report.frames.front().formatVersion;
    meta.properties.emplace_back("timestamps",
                                 "synthetic: the table has no timestamps; layers are laid end to end in ID "
                                 "order from 0, one frame after the other");
}

/// The device's tracks: "NPU", "CPU" and "GPU" by a layer's Target, each added when its first layer is, and the
/// "Frame" counter.
class RknnTracks
{
public:
    RknnTracks(model::TraceBuilder& b, const std::string& deviceName)
        : m_b(b)
        , m_deviceName(deviceName)
    {
    }

    model::TrackId forTarget(const std::string& target)
    {
        model::TrackId* slot = &m_npu;
        model::TrackInfo info = base();
        if (target == "CPU") {
            slot = &m_cpu;
            info.name = "CPU";
            info.threadKey = "cpu";
            info.deviceKind = model::DeviceKind::Cpu;
            info.role = model::TrackRole::HostThread;
            info.sortIndex = 1;
        } else if (target == "GPU") {
            slot = &m_gpu;
            info.name = "GPU";
            info.threadKey = "gpu";
            info.deviceKind = model::DeviceKind::Gpu;
            info.role = model::TrackRole::DeviceCompute;
            info.sortIndex = 2;
        } else {
            info.name = "NPU";
            info.threadKey = "npu";
            info.deviceKind = model::DeviceKind::EdgeNpu;
            info.role = model::TrackRole::DeviceCompute;
            info.sortIndex = 0;
        }
        info.threadName = info.name;
        if (!slot->isValid())
            *slot = m_b.addTrack(info);
        return *slot;
    }

    /// "NPU core N": where the NPU layers ran, drawn from their WorkLoad shares. A Synthetic track, like Kineto's
    /// annotation lanes: its slices repeat the "NPU" track's layers, so no analysis counts them as device time.
    model::TrackId forCore(std::size_t core)
    {
        if (m_cores.size() <= core)
            m_cores.resize(core + 1);
        if (!m_cores[core].isValid()) {
            // TrackInfo holds views: the texts live here until addTrack has interned them.
            const std::string name = "NPU core " + std::to_string(core);
            const std::string key = "npu_core_" + std::to_string(core);
            model::TrackInfo info = base();
            info.name = name;
            info.threadName = name;
            info.threadKey = key;
            info.deviceKind = model::DeviceKind::EdgeNpu;
            info.role = model::TrackRole::Synthetic;
            info.sortIndex = static_cast<int>(10 + core);
            m_cores[core] = m_b.addTrack(info);
        }
        return m_cores[core];
    }

    model::TrackId addFrameCounter()
    {
        model::TrackInfo info = base();
        info.name = "Frame";
        info.threadName = "Frame";
        info.threadKey = "frame";
        info.deviceKind = model::DeviceKind::EdgeNpu;
        info.role = model::TrackRole::Counter;
        info.sortIndex = 3;
        return m_b.addTrack(info);
    }

private:
    [[nodiscard]] model::TrackInfo base() const
    {
        model::TrackInfo info;
        info.processName = m_deviceName;
        info.processKey = "rknn";
        info.deviceIndex = 0;
        return info;
    }

    model::TraceBuilder& m_b;
    const std::string& m_deviceName;
    model::TrackId m_npu;
    model::TrackId m_cpu;
    model::TrackId m_gpu;
    std::vector<model::TrackId> m_cores;
};

/// A layer's WorkLoad shares when it ran on the NPU and they can be right (rknncells::implausibleCells), else empty.
std::vector<double> npuShares(const RknnLayer& l)
{
    if (l.target != "NPU" || l.workload.empty() || !rknncells::implausibleCells(l).empty())
        return {};
    std::optional<std::vector<double>> shares = rknncells::workloadShares(l.workload);
    return shares ? std::move(*shares) : std::vector<double> {};
}

/// Whether the report's NPU layers ran on more than one core, by their WorkLoad shares: only then do per-core lanes
/// show more than the "NPU" track does.
bool usesSeveralCores(const RknnPerfReport& report)
{
    std::vector<bool> used;
    for (const RknnFrame& f : report.frames) {
        for (const RknnLayer& l : f.layers) {
            const std::vector<double> shares = npuShares(l);
            used.resize(std::max(used.size(), shares.size()), false);
            for (std::size_t c = 0; c < shares.size(); ++c)
                used[c] = used[c] || shares[c] > 0.0;
        }
    }
    return std::count(used.begin(), used.end(), true) >= 2;
}

/// The NPU cores the table's WorkLoad column has a share for (every layer lists all the chip's cores), 0 without it.
std::size_t workloadCores(const RknnPerfReport& report)
{
    std::size_t cores = 0;
    for (const RknnFrame& f : report.frames)
        for (const RknnLayer& l : f.layers)
            cores = std::max(cores, npuShares(l).size());
    return cores;
}

/// The chip: as the log names it, else RK3588 when the WorkLoad column has three cores (the RK3588/RK3588S NPU is
/// the only three-core RKNPU: RK3576 has two, RV1103/RV1106 one; the tables' MacUsage agrees with its 6.144 TOPS,
/// docs/analysis.md), else unknown. An inference says so in the trace's properties.
std::string chipOf(const RknnPerfReport& report, model::TraceMetadata& meta)
{
    if (!report.deviceName.empty())
        return report.deviceName;
    if (workloadCores(report) == 3) {
        meta.properties.emplace_back("device_inferred",
                                     "RK3588: the layer table's WorkLoad column has three NPU cores, and the RK3588 "
                                     "is the only three-core RKNPU");
        return "RK3588";
    }
    return "RKNN NPU";
}

/// The layer's slice again on each "NPU core N" lane its WorkLoad gives a share, from the layer's start for as long
/// as it kept that core busy: duration · share / largest share (the most loaded core sets the layer's time; the
/// same rule as analysis::npuCoreUse). Same name, category and args as the layer's slice on the "NPU" track.
void addCoreSlices(const RknnLayer& l, const model::SliceInput& layer, RknnTracks& tracks, model::TraceBuilder& b)
{
    const std::vector<double> shares = npuShares(l);
    if (shares.empty())
        return;
    const double top = *std::max_element(shares.begin(), shares.end());
    if (top <= 0.0)
        return;
    for (std::size_t c = 0; c < shares.size(); ++c) {
        if (shares[c] <= 0.0)
            continue;
        model::SliceInput copy = layer;
        copy.dur = std::max<model::TimeNs>(layer.dur > 0 ? 1 : 0,
                                           std::llround(static_cast<double>(layer.dur) * (shares[c] / top)));
        b.addSlice(tracks.forCore(c), copy);
    }
}

/// What the layers' slices add up to, for the properties and warnings.
struct LayerTally
{
    std::uint64_t layers = 0;
    std::uint64_t cpu = 0;
    std::uint64_t fallback = 0;
    std::uint64_t implausible = 0;
    std::string firstImplausible;
};

/// One slice per layer of `f`, end to end from the frame's start, on its target's track; with `coreLanes`, an NPU
/// layer also on the lane of each core it ran on.
void addLayerSlices(const RknnFrame& f, const FrameLayout& layout, const RknnLayerArgs& layerArgs, RknnTracks& tracks,
                    bool coreLanes, model::TraceBuilder& b, LayerTally& tally)
{
    model::TimeNs t = layout.start;
    for (std::size_t i = 0; i < f.layers.size(); ++i) {
        const RknnLayer& l = f.layers[i];
        if (std::string why = rknncells::implausibleCells(l); !why.empty()) {
            if (tally.implausible++ == 0)
                tally.firstImplausible = "line " + std::to_string(l.line) + ", layer " + std::to_string(l.id) + " ("
                    + l.opType + "): " + why + "; the advisor leaves these cells out";
        }
        const std::vector<model::Arg> args = layerArgs.of(l);

        model::SliceInput in;
        in.ts = t;
        in.dur = layout.durations[i];
        in.name = b.intern(l.opType);
        in.rawCategory = b.intern(l.target.empty() ? std::string("NPU") : l.target);
        in.args = b.addArgs(args);
        if (l.target == "CPU") {
            ++tally.cpu;
            in.category = isEdgeOperator(l.opType) ? model::SliceCategory::HostOp : model::SliceCategory::FallbackOp;
            if (!isEdgeOperator(l.opType))
                ++tally.fallback;
        } else {
            in.category = model::SliceCategory::Kernel;
        }
        b.addSlice(tracks.forTarget(l.target), in);
        if (coreLanes)
            addCoreSlices(l, in, tracks, b);
        t += layout.durations[i];
    }
    tally.layers += f.layers.size();
}

/// The frame's totals, FPS, memory traffic and ranking table as properties; those of frames after the first are
/// prefixed "frameN_".
void addFrameProperties(std::size_t fi, const RknnFrame& f, const FrameLayout& layout,
                        std::vector<std::pair<std::string, std::string>>& props)
{
    const std::string prefix = fi == 0 ? std::string() : "frame" + std::to_string(fi + 1) + "_";
    if (layout.printed)
        props.emplace_back(prefix + "total_time_us", usText(*layout.printed));
    if (!f.layers.empty())
        props.emplace_back(prefix + "layer_time_sum_us", usText(layout.layerSum));
    if (f.elapsedTotalNs && f.totalTimeNs)
        props.emplace_back(prefix + "total_time_summary_us", usText(*f.totalTimeNs));
    if (!f.fps.empty())
        props.emplace_back(prefix + "fps", f.fps);
    if (!f.memoryRw.empty())
        props.emplace_back(prefix + "memory_rw_per_frame", f.memoryRw);
    if (f.elided)
        props.emplace_back(prefix + "rows_elided", "yes: the source leaves rows out with '...'");
    if (!f.ranking.empty()) {
        // The ranking keeps what elided rows hide, notably op types that ran on the CPU.
        std::string ranking;
        std::string cpuOps;
        for (const RknnRankingRow& row : f.ranking) {
            ranking += (ranking.empty() ? "" : "; ") + row.opType + " "
                + (row.calls ? std::to_string(*row.calls) + "x " : std::string()) + usText(row.totalNs) + " us";
            if (row.cpuNs > 0 && !isEdgeOperator(row.opType))
                cpuOps += (cpuOps.empty() ? "" : "; ") + row.opType + " " + usText(row.cpuNs) + " us";
        }
        props.emplace_back(prefix + "ranking", ranking);
        if (!cpuOps.empty())
            props.emplace_back(prefix + "ranking_cpu_fallback", cpuOps);
    }
}

/// One step per frame and, when a printed total is longer than its layers, the "Frame" counter (1 during each
/// frame, 0 at its end). Returns whether the counter was added.
bool addFrames(const std::vector<FrameLayout>& layouts, RknnTracks& tracks, model::TraceBuilder& b)
{
    const bool needsCounter
        = std::any_of(layouts.begin(), layouts.end(), [](const FrameLayout& s) { return s.needsCounter(); });
    if (needsCounter) {
        const model::TrackId frameTrack = tracks.addFrameCounter();
        for (const FrameLayout& s : layouts) {
            b.addCounterSample(frameTrack, s.start, 1.0);
            b.addCounterSample(frameTrack, s.end, 0.0);
        }
    }
    for (std::size_t fi = 0; fi < layouts.size(); ++fi) {
        const std::string name = layouts.size() == 1 ? std::string("frame") : "frame " + std::to_string(fi + 1);
        b.addStep(static_cast<std::int64_t>(fi), b.intern(name), layouts[fi].start, layouts[fi].end);
    }
    return needsCounter;
}

/// The whole report's counts and notes, then the parser's own properties.
void addSummaryProperties(const RknnPerfReport& report, const LayerTally& tally, bool frameCounter, bool coreLanes,
                          std::vector<std::pair<std::string, std::string>>& props)
{
    props.emplace_back("frames", std::to_string(report.frames.size()));
    props.emplace_back("layers", std::to_string(tally.layers));
    if (tally.layers > 0) {
        props.emplace_back("slice_naming",
                           "slice name = RKNN op type (OpType, v1 Operator); args.full_name = "
                           "FullName (v1 Name), args.source_op = the model op before ':'");
        props.emplace_back("cpu_layers", std::to_string(tally.cpu));
        props.emplace_back("fallback_layers", std::to_string(tally.fallback));
        props.emplace_back("perf_debug_note",
                           "per-layer times come from a perf_debug run, which inflates them; compare with the "
                           "Total Time / FPS of a run without perf_debug, not with other per-layer tables' sums");
    }
    if (coreLanes)
        props.emplace_back("npu_core_lanes",
                           "the 'NPU core N' tracks repeat each NPU layer on the cores its WorkLoad shares name, "
                           "for time x share / largest share; derived rows, not counted as device time (the 'NPU' "
                           "track is)");
    if (frameCounter)
        props.emplace_back("frame_counter",
                           "the printed total is longer than the layers; the 'Frame' counter track "
                           "spans it (no slice is added)");
}

} // namespace

model::TracePtr RknnImporter::buildTrace(RknnPerfReport report, const std::string& sourcePath)
{
    model::TraceBuilder b;
    const std::string deviceName = chipOf(report, b.metadata());
    describeSource(report, deviceName, sourcePath, b.metadata());
    auto& props = b.metadata().properties;

    RknnTracks tracks(b, deviceName);
    const RknnLayerArgs layerArgs(b);
    const std::vector<FrameLayout> layouts = rknntimeline::layOutFrames(report.frames);
    LayerTally tally;
    const bool coreLanes = usesSeveralCores(report);
    for (std::size_t fi = 0; fi < report.frames.size(); ++fi) {
        addLayerSlices(report.frames[fi], layouts[fi], layerArgs, tracks, coreLanes, b, tally);
        addFrameProperties(fi, report.frames[fi], layouts[fi], props);
    }
    const bool frameCounter = addFrames(layouts, tracks, b);

    addSummaryProperties(report, tally, frameCounter, coreLanes, props);
    for (auto& p : report.properties)
        props.push_back(std::move(p));
    for (const RknnWarning& w : report.warnings)
        b.warn(w.kind, w.message, w.count);
    if (tally.implausible > 0)
        b.warn(model::ImportWarningKind::BadField, tally.firstImplausible, tally.implausible);
    return b.finalize();
}

} // namespace timesink::parsers
