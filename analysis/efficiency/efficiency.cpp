// SPDX-License-Identifier: MIT
#include "analysis/efficiency/efficiency.h"

#include "analysis/core/textformat.h"
#include "analysis/efficiency/ascendchip.h"
#include "model/argnames.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <deque>
#include <tuple>
#include <unordered_map>

namespace timesink::analysis::efficiency {

namespace {

using model::SliceRef;
using model::StringId;
using model::TimeNs;
using model::Trace;

constexpr double kNsPerSecond = 1e9;

/// The arg keys the model reads, looked up once (0 where the trace never interned the key).
struct Keys
{
    explicit Keys(const Trace& t)
        : inputDims(t.strings().find(model::argnames::kInputDims))
        , inputType(t.strings().find(model::argnames::kInputType))
        , concrete(t.strings().find(model::argnames::kConcreteInputs))
        , inputShapes(t.strings().find(model::argnames::kInputShapes))
        , outputShapes(t.strings().find(model::argnames::kOutputShapes))
        , inputDataTypes(t.strings().find(model::argnames::kInputDataTypes))
        , opType(t.strings().find(model::argnames::kOpType))
        , rknnOpType(t.strings().find("op_type"))
        , rknnInputShape(t.strings().find("input_shape"))
        , rknnOutputShape(t.strings().find("output_shape"))
        , rknnDataType(t.strings().find("data_type"))
        , rknnMacUsage(t.strings().find("mac_usage"))
        , rknnRwKb(t.strings().find("rw_kb"))
        , aicoreTime(t.strings().find(model::argnames::kAicoreTime))
        , aicMacRatio(t.strings().find(model::argnames::kAicMacRatio))
        , aicMacFp16Ratio(t.strings().find(model::argnames::kAicMacFp16Ratio))
        , aicMacInt8Ratio(t.strings().find(model::argnames::kAicMacInt8Ratio))
    {
    }
    StringId inputDims, inputType, concrete, inputShapes, outputShapes, inputDataTypes, opType;
    StringId rknnOpType, rknnInputShape, rknnOutputShape, rknnDataType, rknnMacUsage, rknnRwKb;
    StringId aicoreTime, aicMacRatio, aicMacFp16Ratio, aicMacInt8Ratio;
};

/// The interned string of a string arg (empty when absent or not a string): what equal args share.
StringId stringArgId(const Trace& t, model::ArgSetId set, StringId key)
{
    if (key.isEmpty())
        return {};
    for (const model::Arg a : t.args(set)) {
        if (a.key == key)
            return a.value.type == model::ArgValue::Type::String ? StringId(a.value.s) : StringId {};
    }
    return {};
}

std::string_view stringArg(const Trace& t, model::ArgSetId set, StringId key)
{
    const StringId id = stringArgId(t, set, key);
    return id.isEmpty() ? std::string_view {} : t.str(id);
}

std::optional<double> numberArg(const Trace& t, model::ArgSetId set, StringId key)
{
    if (key.isEmpty())
        return std::nullopt;
    for (const model::Arg a : t.args(set)) {
        if (a.key != key)
            continue;
        if (a.value.type == model::ArgValue::Type::Double)
            return a.value.d;
        if (a.value.type == model::ArgValue::Type::Int)
            return static_cast<double>(a.value.i);
        return std::nullopt;
    }
    return std::nullopt;
}

/// Counts a call whose work cannot be told under its reason (a handful of literals: a linear search beats a map).
void countSkipped(std::vector<NotAssessedOperators>& skipped, std::string_view reason, TimeNs deviceNs)
{
    auto it = std::find_if(skipped.begin(), skipped.end(),
                           [&](const NotAssessedOperators& n) { return n.reason == reason; });
    if (it == skipped.end())
        it = skipped.insert(it, {std::string(reason), 0, 0});
    it->calls += 1;
    it->deviceNs += deviceNs;
}

/// One call with its work, before aggregation.
struct Call
{
    const WorkEstimate* estimate = nullptr; // into the EstimateStore of the computeEfficiency run
    std::string_view name;                  // into the trace's string pool
    TimeNs ts = 0;
    TimeNs deviceNs = 0;
    std::optional<double> measured; // RKNN MacUsage, as a share of the chip
    std::vector<SliceRef> work;     // the device slices it ran, when they are kept
};

/// The data type whose peak judges this work: matrix work at its own type's tensor/cube rate, the rest at FP32's
/// (vector units). An FP32 matrix operator that ran faster than the FP32 peak can only have run on TF32 units
/// (PyTorch's allow_tf32, cuDNN's default): it is judged at the TF32 rate, and says so, rather than clamped.
DataType peakType(const std::optional<DevicePeaks>& d, WorkClass c, DataType t, double achievedFlopsPerS)
{
    if (!isMatrixClass(c))
        return DataType::Fp32;
    if (d && t == DataType::Fp32 && d->fp32MatrixAs && !d->peakFlops(DataType::Fp32))
        return *d->fp32MatrixAs; // Ascend's cube: no FP32 figure of its own, judged at FP16 like operator_mfu
    if (d && t == DataType::Fp32 && d->tf32) {
        const auto fp32 = d->peakFlops(DataType::Fp32);
        if (!fp32 || achievedFlopsPerS > *fp32)
            return DataType::Tf32;
    }
    return t;
}

const char* const kRooflineWhy = "achieved more than the chip's peak allows: the recorded shapes, the data type "
                                 "or the peak table is wrong";
// A memory-bound operator can beat the device-memory roofline when its operands were still in the on-chip cache
// (a gradient accumulated right after it was computed): real, but not what the HBM roofline describes.
const char* const kCacheWhy = "moved its bytes faster than device memory allows: the operands were served from the "
                              "on-chip cache (L2), or the recorded shapes overstate the traffic";

/// An Ascend AI-core task's cube MAC share as its PMU counted it: aic_mac_ratio (the cube's multiply-add cycles over
/// the AI-core cycles of the cores the task ran on), or the FP16 and INT8 shares of older ArithmeticUtilization
/// tables added up. Nothing for a task off the AI cores (aicore_time 0: a vector task, whose aic_* read 0) or
/// without the counters.
std::optional<double> ascendMacRatio(const Trace& t, model::ArgSetId set, const Keys& k)
{
    const auto time = numberArg(t, set, k.aicoreTime);
    if (!time || *time <= 0.0)
        return std::nullopt;
    if (const auto mac = numberArg(t, set, k.aicMacRatio))
        return mac;
    const auto fp16 = numberArg(t, set, k.aicMacFp16Ratio);
    const auto int8 = numberArg(t, set, k.aicMacInt8Ratio);
    if (!fp16 && !int8)
        return std::nullopt;
    return fp16.value_or(0.0) + int8.value_or(0.0);
}

/// "0.77/0.77/0.77" (the whole NPU, repeated per core) or "17.90/0.00/0.00" (per core): the share of the chip's
/// MACs, 0–1. Equal values are one figure for the chip; different ones are per core and averaged over the cores.
std::optional<double> parseMacUsage(std::string_view text)
{
    std::vector<double> values;
    std::size_t i = 0;
    while (i < text.size()) {
        double v = 0.0;
        const auto [ptr, ec] = std::from_chars(text.data() + i, text.data() + text.size(), v);
        if (ec != std::errc())
            return std::nullopt;
        values.push_back(v);
        i = static_cast<std::size_t>(ptr - text.data());
        while (i < text.size() && (text[i] == '/' || text[i] == '%' || text[i] == ' '))
            ++i;
    }
    if (values.empty())
        return std::nullopt;
    const bool same = std::all_of(values.begin(), values.end(), [&](double v) { return v == values.front(); });
    double sum = 0.0;
    for (double v : values)
        sum += v;
    return (same ? values.front() : sum / static_cast<double>(values.size())) / 100.0;
}

/// "(1,16,960,544),(32,16,3,3),(32)" → three tensors.
std::optional<std::vector<Dims>> parseRknnShapes(std::string_view text)
{
    std::string ascend;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '(' || c == ' ')
            continue;
        if (c == ')') {
            if (i + 1 < text.size() && text[i + 1] == ',') {
                ascend += ';';
                ++i;
            }
            continue;
        }
        ascend += c;
    }
    return parseAscendShapes(ascend);
}

/// An RKNN layer: its memory traffic is measured (RW(KB)); a convolution's MACs follow from its input, weight and
/// output shapes (2 · prod(output) · prod(weight[1:])).
WorkEstimate rknnWork(std::string_view opType, std::string_view inShape, std::string_view outShape,
                      std::string_view dataType, std::optional<double> rwKb)
{
    if (!rwKb)
        return WorkEstimate {std::nullopt, "layer without RW(KB)"};
    OperatorWork w;
    w.bytes = *rwKb * 1024.0;
    w.dtype = parseDataType(dataType);
    if (w.dtype == DataType::Unknown && (dataType == "UINT8" || dataType == "uint8"))
        w.dtype = DataType::Int8;
    const auto in = parseRknnShapes(inShape);
    const auto out = parseRknnShapes(outShape);
    w.workClass = WorkClass::Elementwise;
    if (opType.substr(0, 4) == "Conv" && in && out && in->size() >= 2 && !out->empty() && (*in)[1].size() == 4
        && (*out)[0].size() == 4) {
        w.workClass = WorkClass::Conv;
        const Dims& wt = (*in)[1];
        w.flops = 2.0 * static_cast<double>(elementCount((*out)[0]))
            * static_cast<double>(elementCount(Dims(wt.begin() + 1, wt.end())));
    }
    if (in)
        w.shapes = describeShapes(*in);
    return WorkEstimate {std::move(w), {}};
}

/// Every call's work, kept once for the run: calls point into it. Kineto calls with the same operator and the same
/// interned shape args share one (a training loop repeats a few hundred shapes millions of times); device-side calls
/// have one each.
struct EstimateStore
{
    struct Key
    {
        std::uint64_t opAndDims, typesAndConcrete;
        bool operator==(const Key&) const = default;
    };
    struct KeyHash
    {
        std::size_t operator()(const Key& k) const
        {
            return std::hash<std::uint64_t> {}((k.opAndDims * 0x9e3779b97f4a7c15ULL) ^ k.typesAndConcrete);
        }
    };
    std::unordered_map<Key, WorkEstimate, KeyHash> kineto; // nodes do not move: pointers stay valid
    std::deque<WorkEstimate> deviceSide;
};

/// Kineto: every launch flow from the host into device work is charged to the innermost operator of the work model
/// that encloses the launching call (aten::mm under aten::linear, not linear).
std::vector<Call> kinetoCalls(const Trace& trace, const Keys& keys, const CancelToken* cancel,
                              std::vector<NotAssessedOperators>& skipped, bool keepWork, EstimateStore& store)
{
    // Operator of each name, looked up once per name (kUnseen until then).
    constexpr auto kUnseen = static_cast<std::uint8_t>(0xff);
    std::vector<std::uint8_t> opByName(trace.strings().size() + 1, kUnseen);
    const auto opOf = [&](StringId name) {
        if (name.value >= opByName.size())
            return torchOpOf(trace.str(name));
        std::uint8_t& cached = opByName[name.value];
        if (cached == kUnseen)
            cached = static_cast<std::uint8_t>(torchOpOf(trace.str(name)));
        return static_cast<TorchOp>(cached);
    };
    // The call of each operator slice, per host track (allocated for the tracks that launch): the launches under
    // one operator are mostly consecutive flows (flows are sorted by source), so the last call is tried first.
    constexpr std::uint32_t kNoCall = UINT32_MAX;
    std::vector<std::vector<std::uint32_t>> callOf(trace.tracks().size());
    SliceRef lastOp;
    std::uint32_t lastCall = kNoCall;
    std::vector<std::pair<SliceRef, TorchOp>> slices;
    std::vector<TimeNs> deviceNs;
    std::vector<std::pair<std::uint32_t, SliceRef>> launched; // (call, device slice), when kept
    std::size_t n = 0;
    for (const model::Flow& f : trace.flows()) {
        if ((++n & 0xfffff) == 0 && cancel && cancel->cancelled())
            return {};
        if (f.kind != model::FlowKind::Launch || !f.isLinked())
            continue;
        const model::Track& to = trace.track(f.to.track);
        const model::Track& from = trace.track(f.from.track);
        if (!model::isDeviceTrack(to) || model::isDeviceTrack(from))
            continue;
        const model::SliceCategory cat = to.category(f.to.index.value);
        if (cat != model::SliceCategory::Kernel && cat != model::SliceCategory::Memset)
            continue;
        model::SliceIndex i = f.from.index;
        while (i.isValid()) {
            const TorchOp op = opOf(from.sliceName(i.value));
            if (op != TorchOp::Unknown) {
                const SliceRef ref {f.from.track, i};
                if (ref != lastOp) {
                    std::vector<std::uint32_t>& calls = callOf[f.from.track.value];
                    if (calls.empty())
                        calls.assign(from.size(), kNoCall);
                    if (calls[i.value] == kNoCall) {
                        calls[i.value] = static_cast<std::uint32_t>(slices.size());
                        slices.emplace_back(ref, op);
                        deviceNs.push_back(0);
                    }
                    lastOp = ref;
                    lastCall = calls[i.value];
                }
                deviceNs[lastCall] += to.dur(f.to.index.value);
                if (keepWork)
                    launched.emplace_back(lastCall, f.to);
                break;
            }
            i = from.parent(i.value);
        }
    }
    std::stable_sort(launched.begin(), launched.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    auto nextLaunched = launched.begin();
    std::vector<Call> calls;
    calls.reserve(slices.size()); // a Call is large: growing the vector would move millions of them
    for (std::size_t k = 0; k < slices.size(); ++k) {
        const auto launchedEnd = std::find_if(nextLaunched, launched.end(),
                                              [&](const auto& l) { return l.first != static_cast<std::uint32_t>(k); });
        const auto launchedBegin = nextLaunched;
        nextLaunched = launchedEnd;
        const auto& [ref, op] = slices[k];
        const model::Track& t = trace.track(ref.track);
        const model::ArgSetId set = t.args(ref.index.value);
        // The shapes are interned strings: calls with the same operator and the same three args have the same work,
        // worked out once (a training loop repeats a few hundred shapes millions of times).
        const StringId dimsId = stringArgId(trace, set, keys.inputDims);
        const StringId typesId = stringArgId(trace, set, keys.inputType);
        const StringId concreteId = stringArgId(trace, set, keys.concrete);
        const auto [memoIt, fresh] = store.kineto.try_emplace(EstimateStore::Key {
            (std::uint64_t(op) << 32) | dimsId.value, (std::uint64_t(typesId.value) << 32) | concreteId.value});
        if (fresh) {
            const auto dims = parseKinetoDims(trace.str(dimsId));
            if (!dims || dimsId.isEmpty()) {
                memoIt->second.notAssessed = "recorded without record_shapes=True (no Input Dims)";
            } else {
                const auto types = parseKinetoStrings(trace.str(typesId));
                const auto concrete = parseKinetoStrings(trace.str(concreteId));
                memoIt->second = torchWork(op, *dims, types.value_or(std::vector<std::string> {}),
                                           concrete.value_or(std::vector<std::string> {}));
            }
        }
        const WorkEstimate& e = memoIt->second;
        // Calls without work are only counted: a trace recorded without shapes has millions of them.
        if (!e.work) {
            countSkipped(skipped, e.notAssessed, deviceNs[k]);
            continue;
        }
        Call c;
        c.name = trace.str(t.sliceName(ref.index.value));
        c.ts = t.ts(ref.index.value);
        c.deviceNs = deviceNs[k];
        c.estimate = &e;
        for (auto l = launchedBegin; l != launchedEnd; ++l)
            c.work.push_back(l->second);
        calls.push_back(std::move(c));
    }
    return calls;
}

/// Ascend and RKNN: the device slices carry their own shapes (kernel_details / the layer table).
std::vector<Call> deviceSideCalls(const Trace& trace, const Keys& keys, bool rknn, const CancelToken* cancel,
                                  bool keepWork, EstimateStore& store)
{
    std::vector<Call> calls;
    if ((rknn ? keys.rknnOpType : keys.opType).isEmpty())
        return calls; // no slice can carry a key the trace never interned
    for (const model::Track& t : trace.tracks()) {
        if (!model::isDeviceTrack(t))
            continue;
        if (cancel && cancel->cancelled())
            return {};
        for (std::uint32_t i = 0; i < t.size(); ++i) {
            if (t.category(i) != model::SliceCategory::Kernel)
                continue;
            const model::ArgSetId set = t.args(i);
            Call c;
            c.ts = t.ts(i);
            c.deviceNs = t.dur(i);
            if (rknn) {
                const std::string_view op = stringArg(trace, set, keys.rknnOpType);
                if (op.empty())
                    continue;
                c.name = op;
                c.estimate = &store.deviceSide.emplace_back(rknnWork(
                    op, stringArg(trace, set, keys.rknnInputShape), stringArg(trace, set, keys.rknnOutputShape),
                    stringArg(trace, set, keys.rknnDataType), numberArg(trace, set, keys.rknnRwKb)));
                c.measured = parseMacUsage(stringArg(trace, set, keys.rknnMacUsage));
            } else {
                const std::string_view op = stringArg(trace, set, keys.opType);
                if (op.empty())
                    continue;
                c.name = op;
                WorkEstimate e
                    = ascendWork(op, stringArg(trace, set, keys.inputShapes),
                                 stringArg(trace, set, keys.inputDataTypes), stringArg(trace, set, keys.outputShapes));
                if (!e.work && e.notAssessed == "operator type not in the work model")
                    continue; // TransData, MemSet, …: no arithmetic to judge
                c.estimate = &store.deviceSide.emplace_back(std::move(e));
                c.measured = ascendMacRatio(trace, set, keys);
            }
            if (keepWork)
                c.work.push_back(SliceRef {t.id, model::SliceIndex(i)});
            calls.push_back(std::move(c));
        }
    }
    return calls;
}

/// The trace's device name and its peaks, or why there are none. An Ascend chip's peaks follow from its AI-core
/// count and clock where the trace gives both (ascendchip.h), else from a table row its name selects (910B2 …);
/// a generic name ("Ascend910B", "Ascend NPU") without both facts says which are missing. Any other chip by its
/// name and the SM/CU count and memory the trace states (resolveDevice: "AMD Radeon Graphics" with 104 CUs and
/// 64 GB is one GCD of an MI250).
void resolvePeaks(const Trace& trace, const PeakTable& table, EfficiencyReport& r)
{
    const model::Device* device = nullptr;
    for (const model::Device& d : trace.metadata().devices) {
        if (d.kind == model::DeviceKind::Cpu || d.name.empty())
            continue;
        device = &d;
        break;
    }
    if (!device) {
        r.deviceNotResolved = "the trace names no device";
        return;
    }
    r.deviceName = device->name;
    r.deviceComputeUnits = device->computeUnits;
    if (isAscendDevice(trace, *device)) {
        const DevicePeaks* row = resolveDevice(table, r.deviceName);
        const AscendChipFacts facts = ascendChipFacts(trace, *device);
        if (facts.complete()) {
            r.device = ascendDevicePeaks(r.deviceName, facts, row);
            r.deviceResolvedBy = "AI cores and clock";
            return;
        }
        if (row && (row->fp16 || row->bf16 || row->int8)) {
            r.device = *row;
            r.device->fp32MatrixAs = DataType::Fp16;
            r.deviceResolvedBy = "name";
            return;
        }
        r.deviceNotResolved = ascendNotResolved(r.deviceName, facts, row);
        return;
    }
    DeviceResolution resolved
        = resolveDevice(table, DeviceFacts {r.deviceName, device->computeUnits, device->memoryBytes});
    if (resolved.row) {
        r.device = *resolved.row;
        r.deviceResolvedBy = std::move(resolved.resolvedBy);
        r.deviceResolutionNote = std::move(resolved.note);
        return;
    }
    r.deviceNotResolved = std::move(resolved.notResolved);
}

TimeNs deviceWorkNs(const Trace& trace)
{
    TimeNs total = 0;
    for (const model::Track& t : trace.tracks()) {
        if (!model::isDeviceTrack(t))
            continue;
        for (std::uint32_t i = 0; i < t.size(); ++i) {
            const model::SliceCategory c = t.category(i);
            if (c == model::SliceCategory::Kernel || c == model::SliceCategory::Memset)
                total += t.dur(i);
        }
    }
    return total;
}

/// Achieved rates, the roofline (t_c = FLOPs / peak, t_m = bytes / bandwidth) and which bound is nearer.
void fillRoofline(OperatorEfficiency& o, const std::optional<DevicePeaks>& device)
{
    const double seconds = static_cast<double>(o.deviceNs) / kNsPerSecond;
    if (seconds <= 0)
        return;
    o.tflopsPerS = o.flops / seconds / 1e12;
    o.tbPerS = o.bytes / seconds / 1e12;
    o.intensity = o.bytes > 0 ? o.flops / o.bytes : 0.0;
    if (!device)
        return;
    o.peakType = peakType(device, o.workClass, o.dtype, o.flops / seconds);
    const std::optional<double> peak = device->peakFlops(o.peakType);
    const std::optional<double> bw = device->bandwidth();
    const double c = peak && o.flops > 0 ? o.flops / *peak : 0.0;
    const double m = bw && o.bytes > 0 ? o.bytes / *bw : 0.0;
    if (c <= 0 && m <= 0)
        return;
    o.bound = c >= m ? "compute" : "memory";
    o.rooflineFraction = boundFraction(std::max(c, m) / seconds, c >= m ? kRooflineWhy : kCacheWhy);
}

/// Calls → operators (name, shapes, data type) and the not-assessed counts; returns each call's operator index
/// (SIZE_MAX for a call without work).
std::vector<std::size_t> groupOperators(const std::vector<Call>& calls, EfficiencyReport& r,
                                        std::vector<double>& measuredWeighted, std::vector<TimeNs>& measuredNs)
{
    // Keys view the calls' own strings (`calls` outlives the map); hashed, since every call looks its operator up.
    struct KeyHash
    {
        std::size_t operator()(const std::tuple<std::string_view, std::string_view, DataType>& k) const
        {
            const std::hash<std::string_view> h;
            return h(std::get<0>(k)) * 31 ^ h(std::get<1>(k)) ^ (std::size_t(std::get<2>(k)) << 7);
        }
    };
    std::unordered_map<std::tuple<std::string_view, std::string_view, DataType>, std::size_t, KeyHash> byKey;
    std::vector<std::size_t> opOfCall(calls.size(), SIZE_MAX);
    for (std::size_t ci = 0; ci < calls.size(); ++ci) {
        const Call& c = calls[ci];
        if (!c.estimate->work) {
            countSkipped(r.notAssessedOperators, c.estimate->notAssessed, c.deviceNs);
            continue;
        }
        const OperatorWork& w = *c.estimate->work;
        r.modelledDeviceNs += c.deviceNs;
        auto [it, fresh]
            = byKey.emplace(std::make_tuple(c.name, std::string_view(w.shapes), w.dtype), r.operators.size());
        if (fresh) {
            OperatorEfficiency o;
            o.name = std::string(c.name);
            o.shapes = w.shapes;
            o.dtype = w.dtype;
            o.workClass = w.workClass;
            r.operators.push_back(std::move(o));
            measuredWeighted.push_back(0.0);
            measuredNs.push_back(0);
        }
        opOfCall[ci] = it->second;
        OperatorEfficiency& o = r.operators[it->second];
        o.calls += 1;
        o.flops += w.flops;
        o.bytes += w.bytes;
        o.deviceNs += c.deviceNs;
        o.deviceWork.insert(o.deviceWork.end(), c.work.begin(), c.work.end());
        if (c.measured) {
            measuredWeighted[it->second] += *c.measured * static_cast<double>(c.deviceNs);
            measuredNs[it->second] += c.deviceNs;
        }
    }
    return opOfCall;
}

/// Per step (Σ FLOPs / peak over the step's calls, by the start of each call) and per class, with each call judged
/// at its operator's peak type.
void sumStepsAndClasses(const Trace& trace, const std::vector<Call>& calls, const std::vector<std::size_t>& opOfCall,
                        EfficiencyReport& r)
{
    const auto steps = trace.steps();
    r.steps.resize(steps.size());
    std::vector<double> stepPeakSeconds(steps.size(), 0.0);
    std::vector<bool> stepHasPeak(steps.size(), false);
    std::array<ClassEfficiency, kWorkClassCount> classes {};
    std::array<double, kWorkClassCount> classPeakSeconds {};
    std::array<TimeNs, kWorkClassCount> classPeakNs {};
    for (std::size_t ci = 0; ci < calls.size(); ++ci) {
        if (opOfCall[ci] == SIZE_MAX)
            continue;
        const Call& c = calls[ci];
        const OperatorWork& w = *c.estimate->work;
        const OperatorEfficiency& o = r.operators[opOfCall[ci]];
        const std::size_t k = static_cast<std::size_t>(w.workClass);
        classes[k].calls += 1;
        classes[k].flops += w.flops;
        classes[k].bytes += w.bytes;
        classes[k].deviceNs += c.deviceNs;
        const std::optional<double> peak = r.device ? r.device->peakFlops(o.peakType) : std::nullopt;
        const bool judged = peak && w.flops > 0;
        if (judged) {
            classPeakSeconds[k] += w.flops / *peak;
            classPeakNs[k] += c.deviceNs;
        }
        // The step whose window holds the call's start (steps are ordered and do not overlap).
        const auto s = std::upper_bound(steps.begin(), steps.end(), c.ts,
                                        [](TimeNs ts, const model::Step& st) { return ts < st.start; });
        if (s != steps.begin() && c.ts < std::prev(s)->end) {
            const auto si = static_cast<std::size_t>(std::distance(steps.begin(), s) - 1);
            r.steps[si].flops += w.flops;
            if (judged) {
                stepPeakSeconds[si] += w.flops / *peak;
                stepHasPeak[si] = true;
            }
        }
    }
    for (std::size_t i = 0; i < steps.size(); ++i) {
        r.steps[i].number = steps[i].number;
        r.steps[i].durationNs = steps[i].duration();
        if (stepHasPeak[i] && steps[i].duration() > 0)
            r.steps[i].mfu
                = boundFraction(stepPeakSeconds[i] / (static_cast<double>(steps[i].duration()) / kNsPerSecond),
                                "the step's model FLOPs exceed what the chip can do in the step: the shapes "
                                "or the peak table are wrong");
    }
    for (std::size_t k = 0; k < kWorkClassCount; ++k) {
        ClassEfficiency c = classes[k];
        if (c.calls == 0)
            continue;
        c.workClass = static_cast<WorkClass>(k);
        if (c.deviceNs > 0)
            c.tflopsPerS = c.flops / (static_cast<double>(c.deviceNs) / kNsPerSecond) / 1e12;
        if (classPeakNs[k] > 0)
            c.fractionOfPeak = boundFraction(classPeakSeconds[k] / (static_cast<double>(classPeakNs[k]) / kNsPerSecond),
                                             kRooflineWhy);
        r.classes.push_back(c);
    }
}

/// Calls → operators with their roofline, steps and classes.
void aggregate(const Trace& trace, const std::vector<Call>& calls, EfficiencyReport& r)
{
    std::vector<double> measuredWeighted;
    std::vector<TimeNs> measuredNs;
    const std::vector<std::size_t> opOfCall = groupOperators(calls, r, measuredWeighted, measuredNs);
    for (std::size_t i = 0; i < r.operators.size(); ++i) {
        fillRoofline(r.operators[i], r.device);
        if (measuredNs[i] > 0)
            r.operators[i].measured = boundFraction(measuredWeighted[i] / static_cast<double>(measuredNs[i]),
                                                    "the profiler's own counter reads above 100 %");
    }
    sumStepsAndClasses(trace, calls, opOfCall, r);
    std::sort(r.operators.begin(), r.operators.end(), [](const OperatorEfficiency& a, const OperatorEfficiency& b) {
        if (a.deviceNs != b.deviceNs)
            return a.deviceNs > b.deviceNs;
        return std::tie(a.name, a.shapes) < std::tie(b.name, b.shapes);
    });
}

} // namespace

BoundedFraction boundFraction(double raw, std::string_view why)
{
    BoundedFraction b;
    if (!std::isfinite(raw) || raw < 0.0) {
        b.value = 0.0;
        return b;
    }
    if (raw > 1.0) {
        b.value = 1.0;
        b.clamped = true;
        b.reason = std::string(why);
        return b;
    }
    b.value = raw;
    return b;
}

std::string formatFraction(const BoundedFraction& f)
{
    return formatPercent(f.value) + (f.clamped ? " (clamped)" : "");
}

EfficiencyReport computeEfficiency(const Trace& trace, const PeakTable& table, const CancelToken* cancel,
                                   bool keepDeviceWork)
{
    EfficiencyReport r;
    const Keys keys(trace);
    resolvePeaks(trace, table, r);
    r.deviceNs = deviceWorkNs(trace);
    if (r.deviceNs <= 0) {
        r.notAssessed = "no device work in the trace";
        return r;
    }
    // The device-side tables first (RKNN layers, Ascend kernels carry their own shapes), else Kineto's host
    // operators. Decided by what the slices carry, never by which keys the string pool happens to hold, so that a
    // trace exported and read back gives the same report.
    EstimateStore store;
    std::vector<Call> calls = deviceSideCalls(trace, keys, true, cancel, keepDeviceWork, store);
    r.source = "rknn layer table";
    if (calls.empty()) {
        calls = deviceSideCalls(trace, keys, false, cancel, keepDeviceWork, store);
        r.source = "ascend kernel table";
    }
    if (calls.empty()) {
        calls = kinetoCalls(trace, keys, cancel, r.notAssessedOperators, keepDeviceWork, store);
        r.source = "kineto record_shapes";
    }
    if (calls.empty() && r.notAssessedOperators.empty())
        r.source = "none";
    if (cancel && cancel->cancelled())
        return r;
    aggregate(trace, calls, r);
    if (std::any_of(r.operators.begin(), r.operators.end(), [](const OperatorEfficiency& o) { return o.measured; }))
        r.measuredSource = r.source == "rknn layer table"
            ? "MacUsage: the layer's share of the NPU's MACs (RKNN perf table)"
            : "aic_mac_ratio: the share of the AI-core cycles, on the cores the task ran on, that the cube spent "
              "multiplying (Ascend PMU, time-weighted over the calls)";
    if (r.notAssessed.empty() && r.operators.empty()) {
        // The reason that covers the most device time speaks for the trace.
        const auto most = std::max_element(
            r.notAssessedOperators.begin(), r.notAssessedOperators.end(),
            [](const NotAssessedOperators& a, const NotAssessedOperators& b) { return a.deviceNs < b.deviceNs; });
        r.notAssessed = most != r.notAssessedOperators.end() ? most->reason
                                                             : "no operator of the work model launched device work";
    }
    return r;
}

} // namespace timesink::analysis::efficiency
