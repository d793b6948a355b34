// SPDX-License-Identifier: MIT
#include "analysis/efficiency/efficiency.h"

#include "analysis/core/textformat.h"
#include "analysis/efficiency/ascendchip.h"
#include "model/argnames.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <deque>
#include <span>
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

void fillRoofline(OperatorEfficiency& o, const std::optional<DevicePeaks>& device);

/// Calls folded into their operators as they are met, never kept one by one (a training trace has millions of them):
/// an operator's sums, the not-assessed counts, and per step the FLOPs of each operator (judged at the operator's
/// peak once all its calls are in).
class OperatorSums
{
public:
    OperatorSums(const Trace& trace, EfficiencyReport& r, bool keepWork)
        : m_trace(trace)
        , m_r(r)
        , m_steps(trace.steps())
        , m_keepWork(keepWork)
    {
    }

    /// A call of the operator named `name` (an interned string) doing the work `e` (which outlives this), starting
    /// at `ts`: counted, and the slot its device work goes to returned. Calls with the same name and estimate share
    /// a slot, so a repeated shape costs one hash lookup.
    std::uint32_t open(StringId name, const WorkEstimate& e, TimeNs ts)
    {
        ++m_opened;
        const auto [memo, fresh] = m_slotOf.try_emplace(SlotKey {name.value, &e}, std::uint32_t(m_slots.size()));
        if (fresh)
            m_slots.push_back(newSlot(name, e));
        const Slot& slot = m_slots[memo->second];
        if (slot.op == kNone) {
            m_r.notAssessedOperators[slot.skipped].calls += 1;
            return memo->second;
        }
        const OperatorWork& w = *e.work;
        OperatorEfficiency& o = m_r.operators[slot.op];
        o.calls += 1;
        o.flops += w.flops;
        o.bytes += w.bytes;
        if (w.flops > 0) {
            // The step whose window holds the call's start (steps are ordered and do not overlap).
            const auto s = std::upper_bound(m_steps.begin(), m_steps.end(), ts,
                                            [](TimeNs t, const model::Step& st) { return t < st.start; });
            if (s != m_steps.begin() && ts < std::prev(s)->end) {
                const auto si = static_cast<std::uint64_t>(std::distance(m_steps.begin(), s) - 1);
                m_stepFlops[(si << 32) | slot.op] += w.flops;
            }
        }
        return memo->second;
    }

    /// Device work of the call last opened in `slot`.
    void addDevice(std::uint32_t slotIndex, TimeNs ns, SliceRef work)
    {
        const Slot& slot = m_slots[slotIndex];
        if (slot.op == kNone) {
            m_r.notAssessedOperators[slot.skipped].deviceNs += ns;
            return;
        }
        OperatorEfficiency& o = m_r.operators[slot.op];
        o.deviceNs += ns;
        m_r.modelledDeviceNs += ns;
        if (slot.hasFlops)
            m_ops[slot.op].flopsNs += ns;
        if (m_keepWork)
            o.deviceWork.push_back(work);
    }

    /// What the chip counted for that work (RKNN MacUsage, Ascend aic_mac_ratio), weighted by its time.
    void addMeasured(std::uint32_t slotIndex, double measured, TimeNs ns)
    {
        const Slot& slot = m_slots[slotIndex];
        if (slot.op == kNone)
            return;
        m_ops[slot.op].measuredWeighted += measured * static_cast<double>(ns);
        m_ops[slot.op].measuredNs += ns;
    }

    bool anyCall() const { return m_opened > 0; }

    /// The roofline of every operator, the steps' MFU and the classes; operators by device time, longest first.
    void finish()
    {
        for (std::size_t i = 0; i < m_r.operators.size(); ++i) {
            fillRoofline(m_r.operators[i], m_r.device);
            if (m_ops[i].measuredNs > 0)
                m_r.operators[i].measured
                    = boundFraction(m_ops[i].measuredWeighted / static_cast<double>(m_ops[i].measuredNs),
                                    "the profiler's own counter reads above 100 %");
        }
        sumSteps();
        sumClasses();
        std::sort(m_r.operators.begin(), m_r.operators.end(),
                  [](const OperatorEfficiency& a, const OperatorEfficiency& b) {
                      if (a.deviceNs != b.deviceNs)
                          return a.deviceNs > b.deviceNs;
                      return std::tie(a.name, a.shapes) < std::tie(b.name, b.shapes);
                  });
    }

private:
    static constexpr std::uint32_t kNone = UINT32_MAX;
    struct Slot
    {
        std::uint32_t op = kNone;      // into m_r.operators; kNone for work that cannot be told
        std::uint32_t skipped = kNone; // into m_r.notAssessedOperators when op is kNone
        bool hasFlops = false;
    };
    struct SlotKey
    {
        std::uint32_t name;
        const WorkEstimate* estimate;
        bool operator==(const SlotKey&) const = default;
    };
    struct SlotKeyHash
    {
        std::size_t operator()(const SlotKey& k) const
        {
            return std::hash<const void*> {}(k.estimate) ^ (std::size_t(k.name) * 0x9e3779b97f4a7c15ULL);
        }
    };
    /// Sums of an operator that only the aggregation needs.
    struct OpExtra
    {
        TimeNs flopsNs = 0; // device time of its calls with FLOPs (those judged against a peak)
        double measuredWeighted = 0.0;
        TimeNs measuredNs = 0;
    };
    using OpKey = std::tuple<std::string_view, std::string_view, DataType>;
    struct OpKeyHash
    {
        std::size_t operator()(const OpKey& k) const
        {
            const std::hash<std::string_view> h;
            return h(std::get<0>(k)) * 31 ^ h(std::get<1>(k)) ^ (std::size_t(std::get<2>(k)) << 7);
        }
    };

    /// The operator (name, shapes, data type) a new slot adds to, or the not-assessed reason it counts under.
    Slot newSlot(StringId name, const WorkEstimate& e)
    {
        Slot slot;
        if (!e.work) {
            auto it = std::find_if(m_r.notAssessedOperators.begin(), m_r.notAssessedOperators.end(),
                                   [&](const NotAssessedOperators& n) { return n.reason == e.notAssessed; });
            if (it == m_r.notAssessedOperators.end())
                it = m_r.notAssessedOperators.insert(it, {std::string(e.notAssessed), 0, 0});
            slot.skipped = static_cast<std::uint32_t>(std::distance(m_r.notAssessedOperators.begin(), it));
            return slot;
        }
        const OperatorWork& w = *e.work;
        // Keys view the trace's strings and the estimates' shapes, both of which outlive the map.
        const auto [it, fresh] = m_opOf.try_emplace(OpKey {m_trace.str(name), std::string_view(w.shapes), w.dtype},
                                                    std::uint32_t(m_r.operators.size()));
        if (fresh) {
            OperatorEfficiency o;
            o.name = std::string(m_trace.str(name));
            o.shapes = w.shapes;
            o.dtype = w.dtype;
            o.workClass = w.workClass;
            m_r.operators.push_back(std::move(o));
            m_ops.emplace_back();
        }
        slot.op = it->second;
        slot.hasFlops = w.flops > 0;
        return slot;
    }

    /// Per step: Σ FLOPs / peak over the step's calls (by the start of each call), each at its operator's peak type.
    void sumSteps()
    {
        m_r.steps.resize(m_steps.size());
        std::vector<double> peakSeconds(m_steps.size(), 0.0);
        std::vector<bool> hasPeak(m_steps.size(), false);
        // In (step, operator) order, so that the sums do not depend on the hash map's layout.
        std::vector<std::pair<std::uint64_t, double>> byStep(m_stepFlops.begin(), m_stepFlops.end());
        std::sort(byStep.begin(), byStep.end());
        for (const auto& [key, flops] : byStep) {
            const auto si = static_cast<std::size_t>(key >> 32);
            const OperatorEfficiency& o = m_r.operators[key & 0xffffffffU];
            m_r.steps[si].flops += flops;
            if (const auto peak = m_r.device ? m_r.device->peakFlops(o.peakType) : std::nullopt) {
                peakSeconds[si] += flops / *peak;
                hasPeak[si] = true;
            }
        }
        for (std::size_t i = 0; i < m_steps.size(); ++i) {
            m_r.steps[i].number = m_steps[i].number;
            m_r.steps[i].durationNs = m_steps[i].duration();
            if (hasPeak[i] && m_steps[i].duration() > 0)
                m_r.steps[i].mfu
                    = boundFraction(peakSeconds[i] / (static_cast<double>(m_steps[i].duration()) / kNsPerSecond),
                                    "the step's model FLOPs exceed what the chip can do in the step: the shapes "
                                    "or the peak table are wrong");
        }
    }

    /// Per class: its operators' sums, and their FLOPs at each one's peak over the time of the calls judged.
    void sumClasses()
    {
        std::array<ClassEfficiency, kWorkClassCount> classes {};
        std::array<double, kWorkClassCount> peakSeconds {};
        std::array<TimeNs, kWorkClassCount> peakNs {};
        for (std::size_t i = 0; i < m_r.operators.size(); ++i) {
            const OperatorEfficiency& o = m_r.operators[i];
            const auto k = static_cast<std::size_t>(o.workClass);
            classes[k].calls += o.calls;
            classes[k].flops += o.flops;
            classes[k].bytes += o.bytes;
            classes[k].deviceNs += o.deviceNs;
            const std::optional<double> peak = m_r.device ? m_r.device->peakFlops(o.peakType) : std::nullopt;
            if (peak && o.flops > 0) {
                peakSeconds[k] += o.flops / *peak;
                peakNs[k] += m_ops[i].flopsNs;
            }
        }
        for (std::size_t k = 0; k < kWorkClassCount; ++k) {
            ClassEfficiency c = classes[k];
            if (c.calls == 0)
                continue;
            c.workClass = static_cast<WorkClass>(k);
            if (c.deviceNs > 0)
                c.tflopsPerS = c.flops / (static_cast<double>(c.deviceNs) / kNsPerSecond) / 1e12;
            if (peakNs[k] > 0)
                c.fractionOfPeak
                    = boundFraction(peakSeconds[k] / (static_cast<double>(peakNs[k]) / kNsPerSecond), kRooflineWhy);
            m_r.classes.push_back(c);
        }
    }

    const Trace& m_trace;
    EfficiencyReport& m_r;
    std::span<const model::Step> m_steps;
    bool m_keepWork;
    std::uint64_t m_opened = 0;
    std::vector<Slot> m_slots;
    std::unordered_map<SlotKey, std::uint32_t, SlotKeyHash> m_slotOf;
    std::unordered_map<OpKey, std::uint32_t, OpKeyHash> m_opOf;
    std::vector<OpExtra> m_ops;                            // parallel to m_r.operators until finish() sorts them
    std::unordered_map<std::uint64_t, double> m_stepFlops; // (step << 32 | operator) → FLOPs
};

/// Kineto: every launch flow from the host into device work is charged to the innermost operator of the work model
/// that encloses the launching call (aten::mm under aten::linear, not linear).
void kinetoCalls(const Trace& trace, const Keys& keys, const CancelToken* cancel, EstimateStore& store,
                 OperatorSums& sums)
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
    // The work of an operator slice. The shapes are interned strings: calls with the same operator and the same
    // three args have the same work, worked out once (a training loop repeats a few hundred shapes millions of times).
    const auto estimateOf = [&](const model::Track& t, std::uint32_t index, TorchOp op) -> const WorkEstimate& {
        const model::ArgSetId set = t.args(index);
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
        return memoIt->second;
    };
    // The slot of each operator slice's call, per host track (allocated for the tracks that launch): the launches
    // under one operator are mostly consecutive flows (flows are sorted by source), so the last call is tried first.
    constexpr std::uint32_t kNoCall = UINT32_MAX;
    std::vector<std::vector<std::uint32_t>> slotOf(trace.tracks().size());
    SliceRef lastOp;
    std::uint32_t lastSlot = kNoCall;
    std::size_t n = 0;
    for (const model::Flow& f : trace.flows()) {
        if ((++n & 0xfffff) == 0 && cancel && cancel->cancelled())
            return;
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
            const StringId name = from.sliceName(i.value);
            const TorchOp op = opOf(name);
            if (op != TorchOp::Unknown) {
                const SliceRef ref {f.from.track, i};
                if (ref != lastOp) {
                    std::vector<std::uint32_t>& slots = slotOf[f.from.track.value];
                    if (slots.empty())
                        slots.assign(from.size(), kNoCall);
                    if (slots[i.value] == kNoCall)
                        slots[i.value] = sums.open(name, estimateOf(from, i.value, op), from.ts(i.value));
                    lastOp = ref;
                    lastSlot = slots[i.value];
                }
                sums.addDevice(lastSlot, to.dur(f.to.index.value), f.to);
                break;
            }
            i = from.parent(i.value);
        }
    }
}

/// Ascend and RKNN: the device slices carry their own shapes (kernel_details / the layer table).
void deviceSideCalls(const Trace& trace, const Keys& keys, bool rknn, const CancelToken* cancel, EstimateStore& store,
                     OperatorSums& sums)
{
    if ((rknn ? keys.rknnOpType : keys.opType).isEmpty())
        return; // no slice can carry a key the trace never interned
    for (const model::Track& t : trace.tracks()) {
        if (!model::isDeviceTrack(t))
            continue;
        if (cancel && cancel->cancelled())
            return;
        for (std::uint32_t i = 0; i < t.size(); ++i) {
            if (t.category(i) != model::SliceCategory::Kernel)
                continue;
            const model::ArgSetId set = t.args(i);
            const StringId name = stringArgId(trace, set, rknn ? keys.rknnOpType : keys.opType);
            if (name.isEmpty() || trace.str(name).empty())
                continue;
            const std::string_view op = trace.str(name);
            const WorkEstimate* e = nullptr;
            std::optional<double> measured;
            if (rknn) {
                e = &store.deviceSide.emplace_back(rknnWork(
                    op, stringArg(trace, set, keys.rknnInputShape), stringArg(trace, set, keys.rknnOutputShape),
                    stringArg(trace, set, keys.rknnDataType), numberArg(trace, set, keys.rknnRwKb)));
                measured = parseMacUsage(stringArg(trace, set, keys.rknnMacUsage));
            } else {
                WorkEstimate w
                    = ascendWork(op, stringArg(trace, set, keys.inputShapes),
                                 stringArg(trace, set, keys.inputDataTypes), stringArg(trace, set, keys.outputShapes));
                if (!w.work && w.notAssessed == "operator type not in the work model")
                    continue; // TransData, MemSet, …: no arithmetic to judge
                e = &store.deviceSide.emplace_back(std::move(w));
                measured = ascendMacRatio(trace, set, keys);
            }
            const std::uint32_t slot = sums.open(name, *e, t.ts(i));
            sums.addDevice(slot, t.dur(i), SliceRef {t.id, model::SliceIndex(i)});
            if (measured)
                sums.addMeasured(slot, *measured, t.dur(i));
        }
    }
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

namespace {

/// computeEfficiency without its clock.
EfficiencyReport efficiencyOf(const Trace& trace, const PeakTable& table, const CancelToken* cancel,
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
    OperatorSums sums(trace, r, keepDeviceWork);
    deviceSideCalls(trace, keys, true, cancel, store, sums);
    r.source = "rknn layer table";
    if (!sums.anyCall()) {
        deviceSideCalls(trace, keys, false, cancel, store, sums);
        r.source = "ascend kernel table";
    }
    if (!sums.anyCall()) {
        kinetoCalls(trace, keys, cancel, store, sums);
        r.source = "kineto record_shapes";
    }
    if (!sums.anyCall())
        r.source = "none";
    if (cancel && cancel->cancelled())
        return r;
    sums.finish();
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

} // namespace

EfficiencyReport computeEfficiency(const Trace& trace, const PeakTable& table, const CancelToken* cancel,
                                   bool keepDeviceWork)
{
    const auto started = std::chrono::steady_clock::now();
    EfficiencyReport r = efficiencyOf(trace, table, cancel, keepDeviceWork);
    r.computeWall = std::chrono::steady_clock::now() - started;
    return r;
}

} // namespace timesink::analysis::efficiency
