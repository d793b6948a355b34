// SPDX-License-Identifier: MIT
#include "analysis/efficiency/ascendchip.h"

#include "analysis/core/textformat.h"
#include "model/argnames.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <vector>

namespace timesink::analysis::efficiency {

namespace {

constexpr double kAgreeWithin = 0.01;  // a task's figure agrees with the median within 1 %
constexpr double kAgreeingShare = 0.8; // … for at least 80 % of the tasks
constexpr double kWholeWithin = 0.02;  // a core count is a whole number within 2 %
// … over at least 3 tasks: one or two are no evidence. A task with more blocks than the chip has cores (a MIX task of
// 256 blocks) runs several blocks a core, so its cycles over aicore_time × Block Dim understate the clock; only
// agreement across tasks tells the figure apart from such a task (the neo-pan fixture's two give 164 MHz).
constexpr std::size_t kMinTasks = 3;
constexpr double kTera = 1e12;

struct PmuKeys
{
    explicit PmuKeys(const model::Trace& t)
        : aicoreTime(t.strings().find(model::argnames::kAicoreTime))
        , cycles(t.strings().find(model::argnames::kAicTotalCycles))
        , cube(t.strings().find(model::argnames::kCubeUtilization))
        , blockDim(t.strings().find(model::argnames::kBlockDim))
    {
    }
    model::StringId aicoreTime, cycles, cube, blockDim;
};

/// The AI-core counters of one task: aicore_time (µs), cycles, Block Dim, cube_utilization (%); 0 where absent.
struct TaskCounters
{
    double aicoreUs = 0.0, cycles = 0.0, blockDim = 0.0, cubePercent = 0.0, durationUs = 0.0;
};

TaskCounters countersOf(const model::Trace& t, model::ArgSetId set, const PmuKeys& k)
{
    TaskCounters c;
    for (const model::Arg a : t.args(set)) {
        double v = 0.0;
        if (a.value.type == model::ArgValue::Type::Double)
            v = a.value.d;
        else if (a.value.type == model::ArgValue::Type::Int)
            v = static_cast<double>(a.value.i);
        else
            continue;
        if (a.key == k.aicoreTime)
            c.aicoreUs = v;
        else if (a.key == k.cycles)
            c.cycles = v;
        else if (a.key == k.blockDim)
            c.blockDim = v;
        else if (a.key == k.cube)
            c.cubePercent = v;
    }
    return c;
}

/// The median of `values` when at least 80 % of them lie within 1 % of it; nothing otherwise.
std::optional<double> agreedMedian(std::vector<double> values)
{
    if (values.size() < kMinTasks)
        return std::nullopt;
    std::sort(values.begin(), values.end());
    const double median = values[values.size() / 2];
    const auto agreeing = std::count_if(values.begin(), values.end(),
                                        [&](double v) { return std::abs(v - median) <= kAgreeWithin * median; });
    if (static_cast<double>(agreeing) < kAgreeingShare * static_cast<double>(values.size()))
        return std::nullopt;
    return median;
}

std::string lower(std::string_view s)
{
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

std::string tasks(std::size_t n)
{
    return std::to_string(n) + (n == 1 ? " AI-core task" : " AI-core tasks");
}

} // namespace

bool isAscendDevice(const model::Trace& trace, const model::Device& device)
{
    if (device.kind != model::DeviceKind::Npu)
        return false;
    return trace.metadata().platform == model::Platform::TorchNpuCann
        || lower(device.name).find("ascend") != std::string::npos;
}

AscendChipFacts ascendChipFacts(const model::Trace& trace, const model::Device& device)
{
    AscendChipFacts f;
    if (device.aiCores > 0) {
        f.aiCores = device.aiCores;
        f.coresFrom = device.computeSource;
    }
    if (device.aiCoreClockMHz > 0.0) {
        f.clockMHz = device.aiCoreClockMHz;
        f.clockFrom = device.computeSource;
    }
    if (f.complete())
        return f;
    const PmuKeys keys(trace);
    if (keys.cycles.isEmpty())
        return f; // no task carries the counters
    std::vector<TaskCounters> counters;
    for (const model::Track& t : trace.tracks()) {
        if (!model::isDeviceTrack(t) || (t.deviceIndex >= 0 && t.deviceIndex != device.index))
            continue;
        for (std::uint32_t i = 0; i < t.size(); ++i) {
            if (t.category(i) != model::SliceCategory::Kernel)
                continue;
            TaskCounters c = countersOf(trace, t.args(i), keys);
            c.durationUs = static_cast<double>(t.dur(i)) / 1000.0;
            if (c.cycles > 0.0 && c.aicoreUs > 0.0 && c.blockDim > 0.0)
                counters.push_back(c);
        }
    }
    if (f.clockMHz <= 0.0) {
        std::vector<double> clocks;
        clocks.reserve(counters.size());
        for (const TaskCounters& c : counters)
            clocks.push_back(c.cycles / (c.aicoreUs * c.blockDim));
        if (const auto clock = agreedMedian(clocks)) {
            f.clockMHz = std::round(*clock);
            f.clockFrom = "aic_total_cycles / (aicore_time x Block Dim), the median of " + tasks(clocks.size());
        }
    }
    if (f.aiCores <= 0 && f.clockMHz > 0.0) {
        std::vector<double> cores;
        for (const TaskCounters& c : counters) {
            if (c.cubePercent > 0.0 && c.durationUs > 0.0)
                cores.push_back(c.cycles / (c.durationUs * f.clockMHz * c.cubePercent / 100.0));
        }
        if (const auto n = agreedMedian(cores); n && std::abs(*n - std::round(*n)) <= kWholeWithin * *n) {
            f.aiCores = static_cast<std::int32_t>(std::round(*n));
            f.coresFrom
                = "aic_total_cycles / (Duration x clock x cube_utilization(%)), the median of " + tasks(cores.size());
        }
    }
    return f;
}

DevicePeaks ascendDevicePeaks(const std::string& traceName, const AscendChipFacts& facts, const DevicePeaks* row)
{
    DevicePeaks d;
    d.device = traceName + " (" + std::to_string(facts.aiCores) + " AI cores at " + formatGeneral(facts.clockMHz, 6)
        + " MHz)";
    const auto tflops = [&](DataType t) -> std::optional<double> {
        const auto p = ascendPeakFlops(facts.aiCores, facts.clockMHz, t);
        return p ? std::optional<double>(*p / kTera) : std::nullopt;
    };
    d.bf16 = tflops(DataType::Bf16);
    d.fp16 = tflops(DataType::Fp16);
    d.int8 = tflops(DataType::Int8);
    d.fp32MatrixAs = DataType::Fp16;
    d.aiCores = facts.aiCores;
    d.aiCoreClockMHz = facts.clockMHz;
    d.source = "AI cores x AI-core clock x 8192 FLOP a cycle for FP16/BF16 (16384 INT8), msprof-analyze's "
               "operator_mfu formula; FP32 matrix work judged at the FP16 rate as it does. AI cores: "
        + facts.coresFrom + ". Clock: " + facts.clockFrom + ".";
    if (row && row->bandwidthGBps) {
        d.bandwidthGBps = row->bandwidthGBps;
        d.source += " Memory bandwidth of " + row->device + ": " + row->source;
    } else {
        d.source += " No memory bandwidth: the trace's name (\"" + traceName
            + "\") selects no variant of the peak table, so there is no memory roofline.";
    }
    return d;
}

std::string ascendNotResolved(const std::string& traceName, const AscendChipFacts& facts, const DevicePeaks* row)
{
    std::string missing;
    if (facts.aiCores <= 0)
        missing = "no AI-core count";
    if (facts.clockMHz <= 0.0)
        missing += std::string(missing.empty() ? "" : " and ") + "no AI-core clock";
    std::string said;
    if (facts.aiCores > 0)
        said = "; it says " + std::to_string(facts.aiCores) + " AI cores (" + facts.coresFrom + ")";
    if (facts.clockMHz > 0.0)
        said += std::string(said.empty() ? "; it says " : " and ") + formatGeneral(facts.clockMHz, 6) + " MHz ("
            + facts.clockFrom + ")";
    const std::string name = row ? "\"" + traceName + "\" selects the peak table's " + row->device
            + " row, which has no figures (" + row->source + ")"
                                 : "\"" + traceName + "\" names no Ascend variant of the peak table";
    return name + ", and the trace gives " + missing
        + " (no PROF_*/device_N/info.json; the AI-core count also follows from kernel_details' cube_utilization(%), "
          "the clock from aic_total_cycles at Level1 with aic_metrics)"
        + said + ": no roofline (a chip's numbers are never borrowed from another)";
}

} // namespace timesink::analysis::efficiency
