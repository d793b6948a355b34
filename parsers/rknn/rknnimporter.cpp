// SPDX-License-Identifier: MIT
#include "parsers/rknn/rknnimporter.h"

#include "model/tracebuilder.h"
#include "parsers/common/inputstream.h"
#include "parsers/rknn/rknnperfparser.h"
#include "parsers/rknn/rknntext.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string_view>
#include <vector>

namespace timesink::parsers {

using rknntext::usText;

namespace {

constexpr std::size_t kChunkBytes = 1 << 20;
constexpr std::size_t kMaxLineBytes = 1 << 20; // longer lines are not table text

/// Feeds `text` to the parser line by line; the last piece without '\n' stays in `carry`.
class LineSplitter
{
public:
    explicit LineSplitter(RknnPerfParser& parser)
        : m_parser(parser)
    {
    }
    void feed(std::string_view text)
    {
        while (!text.empty()) {
            const std::size_t nl = text.find('\n');
            const std::string_view piece = text.substr(0, nl);
            if (!m_skipping) {
                if (m_carry.size() + piece.size() > kMaxLineBytes) {
                    m_skipping = true;
                    ++m_longLines;
                    m_carry.clear();
                } else {
                    m_carry.append(piece);
                }
            }
            if (nl == std::string_view::npos)
                return;
            if (!m_skipping)
                m_parser.addLine(m_carry);
            else
                m_parser.addLine({}); // keep line numbers right
            m_carry.clear();
            m_skipping = false;
            text.remove_prefix(nl + 1);
        }
    }
    void end()
    {
        if (!m_carry.empty() && !m_skipping)
            m_parser.addLine(m_carry);
        m_carry.clear();
    }
    [[nodiscard]] std::uint64_t longLines() const { return m_longLines; }

private:
    RknnPerfParser& m_parser;
    std::string m_carry;
    bool m_skipping = false;
    std::uint64_t m_longLines = 0;
};

/// Number of NPU cores a workload cell shows busy: "33.3%/33.3%/33.3%" → 3, "100.0%/0.0%/0.0%" → 1.
std::int64_t coresUsed(std::string_view workload)
{
    std::int64_t n = 0;
    while (!workload.empty()) {
        const std::size_t slash = workload.find('/');
        std::string_view part = workload.substr(0, slash);
        if (!part.empty() && part.back() == '%')
            part.remove_suffix(1);
        if (const auto v = rknntext::parseDouble(part); v && *v > 0.0)
            ++n;
        if (slash == std::string_view::npos)
            break;
        workload.remove_prefix(slash + 1);
    }
    return n;
}

/// Why a layer's WorkLoad, cycles, MacUsage or RW cell cannot be right, or empty. The same rules make
/// analysis::readRknnLayers leave the cell out (analysis/core/rknnlayers.h), so the advisor draws no finding
/// from it: shares outside 0–100 % or not adding up to 100 % (±1.5 points; all 0.0% is "not printed"), cycles
/// negative or above 10^13 or a Total that is not max(DDR, NPU), MAC usage outside 0–100 %, RW(KB) negative or
/// above 10^9. Example: "50.0%/0.0%/0.0%" → "WorkLoad 50.0%/0.0%/0.0% adds up to 50.0 %, not 100 %".
std::string implausibleCells(const RknnLayer& l)
{
    constexpr std::int64_t kMaxCycles = 10'000'000'000'000;
    std::string why;
    const auto add = [&why](const std::string& what) { why += (why.empty() ? "" : "; ") + what; };
    const auto shares = [](std::string_view cell, bool percent) -> std::optional<std::vector<double>> {
        std::vector<double> out;
        while (true) {
            const std::size_t slash = cell.find('/');
            std::string_view part = cell.substr(0, slash);
            if (percent && !part.empty() && part.back() == '%')
                part.remove_suffix(1);
            const auto v = rknntext::parseDouble(part);
            if (!v)
                return std::nullopt;
            out.push_back(*v);
            if (slash == std::string_view::npos)
                return out;
            cell.remove_prefix(slash + 1);
        }
    };
    if (!l.workload.empty()) {
        if (const auto w = shares(l.workload, true)) {
            double sum = 0;
            bool inRange = true;
            for (double v : *w) {
                inRange = inRange && v >= 0.0 && v <= 100.0;
                sum += v;
            }
            if (!inRange)
                add("WorkLoad " + l.workload + " has a share outside 0-100 %");
            else if (sum > 0.0 && (sum < 98.5 || sum > 101.5)) {
                char buf[32];
                std::snprintf(buf, sizeof buf, "%.1f", sum);
                add("WorkLoad " + l.workload + " adds up to " + buf + " %, not 100 %");
            }
        }
    }
    if (l.ddrCycles || l.npuCycles || l.totalCycles) {
        const std::int64_t d = l.ddrCycles.value_or(-1);
        const std::int64_t n = l.npuCycles.value_or(-1);
        const std::int64_t t = l.totalCycles.value_or(-1);
        if (d < 0 || n < 0 || t < 0 || d > kMaxCycles || n > kMaxCycles || t > kMaxCycles)
            add("cycles " + std::to_string(d) + "/" + std::to_string(n) + "/" + std::to_string(t)
                + " are negative, missing or above 10^13");
        else if (t != std::max(d, n))
            add("Total cycles " + std::to_string(t) + " are not max(DDR, NPU)");
    }
    if (!l.macUsage.empty() && l.macUsage != "\\") {
        const auto m = shares(l.macUsage, false);
        if (!m || std::any_of(m->begin(), m->end(), [](double v) { return v < 0.0 || v > 100.0; }))
            add("MacUsage " + l.macUsage + " is outside 0-100 %");
    }
    if (l.rwKb && (*l.rwKb < 0.0 || *l.rwKb > 1e9))
        add("RW(KB) is negative or above 10^9");
    return why;
}

bool isEdgeOperator(std::string_view opType)
{
    return opType == "InputOperator" || opType == "OutputOperator";
}

} // namespace

FormatDescription RknnImporter::describe() const
{
    return {"an RKNN perf table or runtime log (eval_perf(), perf-detail)", {"*.txt", "*.log", "*.csv"}, {}, {"rknn"}};
}

int RknnImporter::probe(const SourceProbe& source) const
{
    if (source.isDirectory || source.head.empty())
        return 0;
    const std::string_view head = source.head;
    if (head.find('\0') != std::string_view::npos)
        return 0; // binary
    const std::size_t first = head.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos || head[first] == '{' || head[first] == '[')
        return 0; // JSON traces
    RknnPerfParser parser;
    LineSplitter lines(parser);
    // The head may end in the middle of a line; only whole lines are judged.
    const std::size_t lastNl = head.rfind('\n');
    lines.feed(lastNl == std::string_view::npos ? head : head.substr(0, lastNl + 1));
    if (lastNl == std::string_view::npos)
        lines.end();
    const RknnPerfReport report = parser.finish();
    int score = 0;
    for (const RknnFrame& f : report.frames) {
        if (f.hasLayerTable && !f.layers.empty())
            score = std::max(score, 95);
        else if (f.hasLayerTable)
            score = std::max(score, 80);
        else if (f.elapsedTotalNs || !f.ranking.empty())
            score = std::max(score, 70);
        else if (f.totalTimeNs && !f.fps.empty())
            score = std::max(score, 60);
        else if (f.totalTimeNs) {
            for (const auto& [key, value] : report.properties) {
                if (key.find("_frequencies_hz") != std::string::npos)
                    score = std::max(score, 50);
            }
        }
    }
    if (score == 0 && head.size() >= 64 * 1024 - 1
        && (head.find("RKNN: [") != std::string_view::npos || head.find("rknn_run") != std::string_view::npos)) {
        // A long runtime log whose table starts further in: worth a full read, but any real format wins.
        score = 10;
    }
    return score;
}

ImportResult RknnImporter::import(const SourceProbe& source, const ImportOptions& options, ProgressSink& progress)
{
    const std::string path = source.path.string();
    std::string error;
    auto stream = InputStream::open(source.path, error, DecompressionLimits::from(options));
    if (!stream)
        return ImportResult::failure(ImportErrorKind::CannotRead, error);

    RknnPerfParser parser;
    LineSplitter lines(parser);
    std::string buffer(kChunkBytes, '\0');
    while (true) {
        if (progress.cancelled())
            return ImportResult::failure(ImportErrorKind::Cancelled, path + ": import cancelled");
        const std::size_t n = stream->read(buffer.data(), buffer.size());
        if (n == 0)
            break;
        lines.feed(std::string_view(buffer.data(), n));
        progress.report(stream->fileBytesRead(), stream->fileSize(), "reading RKNN perf table");
    }
    lines.end();
    const bool overLimit = stream->limitHit();
    if (stream->bytesProduced() == 0 && !stream->error().empty())
        return ImportResult::failure(ImportErrorKind::CannotRead, "cannot read " + path + ": " + stream->error());

    RknnPerfReport report = parser.finish();
    if (report.frames.empty()) {
        return ImportResult::failure(
            ImportErrorKind::NotRecognised,
            path
                + ": not an RKNN perf table (no layer table header such as 'ID  OpType ... Time(us) ... FullName' or "
                  "'Layer ID  Name  Operator  Uid  Time(us)', no ranking table and no 'Total Time(us)' summary)");
    }
    bool anyContent = false;
    for (const RknnFrame& f : report.frames)
        anyContent = anyContent || !f.layers.empty() || f.elapsedTotalNs || f.totalTimeNs || !f.ranking.empty();
    if (!anyContent) {
        std::string why = report.warnings.empty() ? std::string("no row under it") : report.warnings.front().message;
        return ImportResult::failure(ImportErrorKind::Malformed,
                                     path + ": RKNN perf table header at line "
                                         + std::to_string(report.frames.front().headerLine)
                                         + " but no layer could be read: " + why);
    }
    if (lines.longLines() > 0) {
        report.warnings.push_back(RknnWarning {model::ImportWarningKind::LongLine, lines.longLines(),
                                               "lines longer than 1 MiB were skipped (not RKNN table text)"});
    }
    if (stream->truncated())
        report.warnings.push_back(
            RknnWarning {model::ImportWarningKind::Truncated, 1, "the compressed file ends early; read up to the cut"});
    if (!stream->error().empty())
        report.warnings.push_back(RknnWarning {model::ImportWarningKind::ReadError, 1, stream->error()});
    if (overLimit)
        report.warnings.push_back(RknnWarning {model::ImportWarningKind::DecompressedLimit, 1, stream->limitMessage()});
    progress.report(stream->fileSize(), stream->fileSize(), "building trace");
    return ImportResult::success(buildTrace(std::move(report), path));
}

model::TracePtr RknnImporter::buildTrace(RknnPerfReport report, const std::string& sourcePath)
{
    using model::Arg;
    using model::ArgValue;
    model::TraceBuilder b;
    model::TraceMetadata& meta = b.metadata();
    meta.format = "rknn";
    meta.platform = model::Platform::Rknn;
    meta.sourcePath = sourcePath;
    const std::string deviceName = report.deviceName.empty() ? std::string("RKNN NPU") : report.deviceName;
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

    auto& props = meta.properties;
    props.emplace_back("timestamps",
                       "synthetic: the table has no timestamps; layers are laid end to end in ID "
                       "order from 0, one frame after the other");

    model::TrackId npu;
    model::TrackId cpu;
    model::TrackId gpu;
    auto trackFor = [&](const std::string& target) {
        model::TrackId* slot = &npu;
        model::TrackInfo info;
        info.processName = deviceName;
        info.processKey = "rknn";
        info.deviceIndex = 0;
        if (target == "CPU") {
            slot = &cpu;
            info.name = "CPU";
            info.threadKey = "cpu";
            info.deviceKind = model::DeviceKind::Cpu;
            info.role = model::TrackRole::HostThread;
            info.sortIndex = 1;
        } else if (target == "GPU") {
            slot = &gpu;
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
            *slot = b.addTrack(info);
        return *slot;
    };

    const model::StringId kLayerId = b.intern("layer_id");
    const model::StringId kOpType = b.intern("op_type");
    const model::StringId kFullName = b.intern("full_name");
    const model::StringId kSourceOp = b.intern("source_op");
    const model::StringId kNode = b.intern("node");
    const model::StringId kDataType = b.intern("data_type");
    const model::StringId kTarget = b.intern("target");
    const model::StringId kInputShape = b.intern("input_shape");
    const model::StringId kOutputShape = b.intern("output_shape");
    const model::StringId kDdrCycles = b.intern("ddr_cycles");
    const model::StringId kNpuCycles = b.intern("npu_cycles");
    const model::StringId kTotalCycles = b.intern("total_cycles");
    const model::StringId kTimeUs = b.intern("time_us");
    const model::StringId kMacUsage = b.intern("mac_usage");
    const model::StringId kWorkload = b.intern("workload");
    const model::StringId kWorkloadImprove = b.intern("workload_improve");
    const model::StringId kCoresUsed = b.intern("cores_used");
    const model::StringId kRwKb = b.intern("rw_kb");
    const model::StringId kUid = b.intern("uid");

    struct FrameSpan
    {
        model::TimeNs start;
        model::TimeNs end;
        bool needsCounter;
    };
    std::vector<FrameSpan> spans;
    std::uint64_t layerCount = 0;
    std::uint64_t cpuLayers = 0;
    std::uint64_t fallbackLayers = 0;
    model::TimeNs cursor = 0;
    std::uint64_t implausibleLayers = 0;
    std::string firstImplausible;
    for (std::size_t fi = 0; fi < report.frames.size(); ++fi) {
        RknnFrame& f = report.frames[fi];
        std::stable_sort(f.layers.begin(), f.layers.end(),
                         [](const RknnLayer& a, const RknnLayer& c) { return a.id < c.id; });
        std::vector<model::TimeNs> dur(f.layers.size());
        model::TimeNs sum = 0;
        for (std::size_t i = 0; i < f.layers.size(); ++i) {
            dur[i] = f.layers[i].timeNs;
            sum += dur[i];
        }
        for (std::size_t i = 0; i < dur.size(); ++i) {
            if (dur[i] != 0)
                continue;
            std::size_t j = i + 1;
            while (j < dur.size() && dur[j] <= 1)
                ++j;
            if (j >= dur.size()) {
                j = i;
                while (j > 0 && dur[j - 1] <= 1)
                    --j;
                if (j == 0)
                    continue; // nothing to borrow from: stays a 0 ns slice
                --j;
            }
            --dur[j];
            dur[i] = 1;
        }
        const model::TimeNs start = cursor;
        model::TimeNs t = start;
        for (std::size_t i = 0; i < f.layers.size(); ++i) {
            const RknnLayer& l = f.layers[i];
            if (std::string why = implausibleCells(l); !why.empty()) {
                if (implausibleLayers++ == 0)
                    firstImplausible = "line " + std::to_string(l.line) + ", layer " + std::to_string(l.id) + " ("
                        + l.opType + "): " + why + "; the advisor leaves these cells out";
            }
            std::vector<Arg> args;
            args.push_back({kLayerId, ArgValue::fromInt(l.id)});
            args.push_back({kOpType, ArgValue::fromString(b.intern(l.opType))});
            if (!l.fullName.empty()) {
                args.push_back({kFullName, ArgValue::fromString(b.intern(l.fullName))});
                if (const std::size_t colon = l.fullName.find(':'); colon != std::string::npos && colon > 0 && !l.uid) {
                    args.push_back({kSourceOp, ArgValue::fromString(b.intern(l.fullName.substr(0, colon)))});
                    args.push_back({kNode, ArgValue::fromString(b.intern(l.fullName.substr(colon + 1)))});
                }
            }
            if (!l.dataType.empty())
                args.push_back({kDataType, ArgValue::fromString(b.intern(l.dataType))});
            if (!l.target.empty())
                args.push_back({kTarget, ArgValue::fromString(b.intern(l.target))});
            if (!l.inputShape.empty())
                args.push_back({kInputShape, ArgValue::fromString(b.intern(l.inputShape))});
            if (!l.outputShape.empty())
                args.push_back({kOutputShape, ArgValue::fromString(b.intern(l.outputShape))});
            if (l.ddrCycles)
                args.push_back({kDdrCycles, ArgValue::fromInt(*l.ddrCycles)});
            if (l.npuCycles)
                args.push_back({kNpuCycles, ArgValue::fromInt(*l.npuCycles)});
            if (l.totalCycles)
                args.push_back({kTotalCycles, ArgValue::fromInt(*l.totalCycles)});
            if (l.timeNs % 1000 == 0)
                args.push_back({kTimeUs, ArgValue::fromInt(l.timeNs / 1000)});
            else
                args.push_back({kTimeUs, ArgValue::fromDouble(static_cast<double>(l.timeNs) / 1000.0)});
            if (!l.macUsage.empty())
                args.push_back({kMacUsage, ArgValue::fromString(b.intern(l.macUsage))});
            if (!l.workload.empty()) {
                args.push_back({kWorkload, ArgValue::fromString(b.intern(l.workload))});
                args.push_back({kCoresUsed, ArgValue::fromInt(coresUsed(l.workload))});
            }
            if (!l.workloadImprove.empty())
                args.push_back({kWorkloadImprove, ArgValue::fromString(b.intern(l.workloadImprove))});
            if (l.rwKb)
                args.push_back({kRwKb, ArgValue::fromDouble(*l.rwKb)});
            if (l.uid)
                args.push_back({kUid, ArgValue::fromInt(*l.uid)});
            for (const auto& [key, value] : l.extra) {
                const model::StringId k = b.intern(key);
                if (const auto n = rknntext::parseInt(value))
                    args.push_back({k, ArgValue::fromInt(*n)});
                else
                    args.push_back({k, ArgValue::fromString(b.intern(value))});
            }

            model::SliceInput in;
            in.ts = t;
            in.dur = dur[i];
            in.name = b.intern(l.opType);
            in.rawCategory = b.intern(l.target.empty() ? std::string("NPU") : l.target);
            in.args = b.addArgs(args);
            if (l.target == "CPU") {
                ++cpuLayers;
                in.category
                    = isEdgeOperator(l.opType) ? model::SliceCategory::HostOp : model::SliceCategory::FallbackOp;
                if (!isEdgeOperator(l.opType))
                    ++fallbackLayers;
            } else {
                in.category = model::SliceCategory::Kernel;
            }
            b.addSlice(trackFor(l.target), in);
            t += dur[i];
        }
        layerCount += f.layers.size();
        std::optional<model::TimeNs> printed = f.elapsedTotalNs ? f.elapsedTotalNs : f.totalTimeNs;
        if (!printed && f.layers.empty() && (f.rankingTotal || !f.ranking.empty())) {
            // A ranking table alone: its total is the frame.
            model::TimeNs ranked = 0;
            for (const RknnRankingRow& row : f.ranking)
                ranked += row.totalNs;
            printed = f.rankingTotal ? f.rankingTotal->totalNs : ranked;
        }
        const model::TimeNs length = std::max(sum, printed.value_or(0));
        spans.push_back(FrameSpan {start, start + length, length > sum});
        cursor = start + length;

        const std::string prefix = fi == 0 ? std::string() : "frame" + std::to_string(fi + 1) + "_";
        if (printed)
            props.emplace_back(prefix + "total_time_us", usText(*printed));
        if (!f.layers.empty())
            props.emplace_back(prefix + "layer_time_sum_us", usText(sum));
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

    const bool needsCounter
        = std::any_of(spans.begin(), spans.end(), [](const FrameSpan& s) { return s.needsCounter; });
    if (needsCounter) {
        model::TrackInfo info;
        info.name = "Frame";
        info.threadName = "Frame";
        info.processName = deviceName;
        info.processKey = "rknn";
        info.threadKey = "frame";
        info.deviceKind = model::DeviceKind::EdgeNpu;
        info.role = model::TrackRole::Counter;
        info.deviceIndex = 0;
        info.sortIndex = 3;
        const model::TrackId frameTrack = b.addTrack(info);
        for (const FrameSpan& s : spans) {
            b.addCounterSample(frameTrack, s.start, 1.0);
            b.addCounterSample(frameTrack, s.end, 0.0);
        }
    }
    for (std::size_t fi = 0; fi < spans.size(); ++fi) {
        const std::string name = spans.size() == 1 ? std::string("frame") : "frame " + std::to_string(fi + 1);
        b.addStep(static_cast<std::int64_t>(fi), b.intern(name), spans[fi].start, spans[fi].end);
    }

    props.emplace_back("frames", std::to_string(report.frames.size()));
    props.emplace_back("layers", std::to_string(layerCount));
    if (layerCount > 0) {
        props.emplace_back("slice_naming",
                           "slice name = RKNN op type (OpType, v1 Operator); args.full_name = "
                           "FullName (v1 Name), args.source_op = the model op before ':'");
        props.emplace_back("cpu_layers", std::to_string(cpuLayers));
        props.emplace_back("fallback_layers", std::to_string(fallbackLayers));
        props.emplace_back("perf_debug_note",
                           "per-layer times come from a perf_debug run, which inflates them; compare with the "
                           "Total Time / FPS of a run without perf_debug, not with other per-layer tables' sums");
    }
    if (needsCounter)
        props.emplace_back("frame_counter",
                           "the printed total is longer than the layers; the 'Frame' counter track "
                           "spans it (no slice is added)");
    for (auto& p : report.properties)
        props.push_back(std::move(p));
    for (const RknnWarning& w : report.warnings)
        b.warn(w.kind, w.message, w.count);
    if (implausibleLayers > 0)
        b.warn(model::ImportWarningKind::BadField, firstImplausible, implausibleLayers);
    return b.finalize();
}

} // namespace timesink::parsers
