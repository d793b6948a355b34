// SPDX-License-Identifier: MIT
#include "analysis/compare/compareattribution.h"

#include "analysis/core/stepclock.h"
#include "model/checkedmath.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <unordered_map>
#include <unordered_set>

namespace timesink::analysis {

namespace {

using model::SliceCategory;
using model::SliceRef;
using model::Track;
using model::TrackRole;

constexpr int kMaxHops = 4;

std::uint64_t keyOf(SliceRef r)
{
    return (std::uint64_t(r.track.value) << 32) | r.index.value;
}

bool isWorkCategory(SliceCategory c)
{
    return c == SliceCategory::Kernel || c == SliceCategory::Memcpy || c == SliceCategory::Memset
        || c == SliceCategory::Communication || c == SliceCategory::FallbackOp;
}

bool isWork(const Track& track, std::uint32_t i)
{
    const SliceCategory c = track.category(i);
    if (c == SliceCategory::FallbackOp)
        return true;
    return model::isDeviceTrack(track) && isWorkCategory(c);
}

bool isIdentChar(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
}

/// Integer value of an arg that importers may store as a number or as digits in a string.
std::optional<std::int64_t> intArg(const model::Trace& trace, model::ArgSetId set, model::StringId key)
{
    if (key.isEmpty() || !set.isValid())
        return std::nullopt;
    const std::optional<model::ArgValue> v = trace.argStore().find(set, key);
    if (!v)
        return std::nullopt;
    switch (v->type) {
    case model::ArgValue::Type::Int:
        return v->i;
    case model::ArgValue::Type::Double:
        return model::doubleToInt64(v->d); // 1e308 or NaN is no id
    case model::ArgValue::Type::String: {
        const std::string_view s = trace.str(model::StringId(v->s));
        std::int64_t out = 0;
        const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
        if (ec == std::errc() && ptr == s.data() + s.size())
            return out;
        return std::nullopt;
    }
    case model::ArgValue::Type::Bool:
        break;
    }
    return std::nullopt;
}

/// Walks from launching slices to the framework operator that caused them (see the header).
class Resolver
{
public:
    explicit Resolver(const model::Trace& trace)
        : m_trace(trace)
    {
        for (const Track& t : trace.tracks()) {
            if (t.role == TrackRole::HostThread && !t.threadKey.isEmpty())
                m_hostTracksByThread[t.threadKey.value].push_back(t.id);
        }
    }

    SliceRef resolve(SliceRef s, int hops)
    {
        if (hops > kMaxHops || !s.isValid())
            return {};
        // The common case (a launch inside its operator on the same thread) is cheaper to walk than to cache.
        const SliceRef around = operatorAround(s);
        if (around.isValid() && isDispatcher(around))
            return around;
        const std::uint64_t key = keyOf(s);
        if (auto it = m_cache.find(key); it != m_cache.end())
            return it->second;
        const SliceRef result = resolveUncached(s, around, hops);
        // Only successes are cached: a failure may just mean the hop budget ran out on this path.
        if (result.isValid())
            m_cache.emplace(key, result);
        return result;
    }

    /// The operator a host slice belongs to by containment alone, or invalid.
    SliceRef operatorAround(SliceRef s) const
    {
        const Track& track = m_trace.track(s.track);
        SliceRef innermost;
        SliceRef outermostDispatcher;
        for (model::SliceIndex i = s.index; i.isValid(); i = track.parent(i.value)) {
            if (track.category(i.value) != SliceCategory::HostOp)
                continue;
            if (!innermost.isValid())
                innermost = SliceRef {s.track, i};
            if (CompareAttribution::isDispatcherOpName(m_trace.str(track.sliceName(i.value))))
                outermostDispatcher = SliceRef {s.track, i};
        }
        return outermostDispatcher.isValid() ? outermostDispatcher : innermost;
    }

    /// Fallback when a work slice has no flow: its External id / correlation / connection_id args.
    SliceRef resolveByArgs(SliceRef work)
    {
        buildArgIndexes();
        const model::ArgSetId set = m_trace.track(work.track).args(work.index.value);
        for (const auto& [key, index] :
             {std::pair {m_externalIdKey, &m_byExternalId}, std::pair {m_correlationKey, &m_byCorrelation},
              std::pair {m_connectionKey, &m_byConnection}}) {
            const auto id = intArg(m_trace, set, key);
            if (!id)
                continue;
            if (auto it = index->find(*id); it != index->end()) {
                const SliceRef op = resolve(it->second, 1);
                if (op.isValid())
                    return op;
            }
        }
        return {};
    }

private:
    bool isDispatcher(SliceRef op) const
    {
        return CompareAttribution::isDispatcherOpName(m_trace.str(m_trace.track(op.track).sliceName(op.index.value)));
    }

    SliceRef resolveUncached(SliceRef s, SliceRef around, int hops)
    {
        // No dispatcher operator here (e.g. a torch_npu `Dequeue@Conv2D` slice, which is a host op of the
        // task-queue thread): the operator is on the other end of the queue, if we can get there.
        const SliceRef linked = followLinks(s, hops);
        if (linked.isValid() && (isDispatcher(linked) || !around.isValid()))
            return linked;
        return around;
    }

    SliceRef followLinks(SliceRef s, int hops)
    {
        const Track& track = m_trace.track(s.track);
        for (model::SliceIndex i = s.index; i.isValid(); i = track.parent(i.value)) {
            const SliceRef here {s.track, i};
            for (std::uint32_t fi : m_trace.flowsTo(here)) {
                const model::Flow& f = m_trace.flows()[fi];
                if (f.kind == model::FlowKind::ForwardBackward || f.from == here)
                    continue;
                if (const SliceRef op = resolve(f.from, hops + 1); op.isValid())
                    return op;
            }
        }
        // torch_npu launches through a task queue: the CANN lane of thread T and the Python task-queue
        // thread T are different processes in the trace but the same OS thread.
        if (auto it = m_hostTracksByThread.find(track.threadKey.value); it != m_hostTracksByThread.end()) {
            const model::TimeNs ts = track.ts(s.index.value);
            for (model::TrackId other : it->second) {
                const Track& o = m_trace.track(other);
                if (other == s.track || o.processKey == track.processKey)
                    continue;
                const model::SliceIndex at = o.sliceAt(ts);
                if (!at.isValid())
                    continue;
                if (const SliceRef op = resolve(SliceRef {other, at}, hops + 1); op.isValid())
                    return op;
            }
        }
        return {};
    }

    void buildArgIndexes()
    {
        if (m_argIndexesBuilt)
            return;
        m_argIndexesBuilt = true;
        const model::StringPool& pool = m_trace.strings();
        m_externalIdKey = pool.find("External id");
        m_correlationKey = pool.find("correlation");
        m_connectionKey = pool.find("connection_id");
        for (const Track& t : m_trace.tracks()) {
            if (t.role != TrackRole::HostThread)
                continue;
            for (std::uint32_t i = 0; i < t.size(); ++i) {
                const model::ArgSetId set = t.args(i);
                if (!set.isValid())
                    continue;
                const SliceRef ref {t.id, model::SliceIndex(i)};
                // Kineto: the innermost cpu_op carries the External id its runtime calls and kernels repeat.
                if (t.category(i) == SliceCategory::HostOp) {
                    if (auto id = intArg(m_trace, set, m_externalIdKey))
                        m_byExternalId.try_emplace(*id, ref);
                }
                if (t.category(i) == SliceCategory::RuntimeApi) {
                    if (auto id = intArg(m_trace, set, m_correlationKey))
                        m_byCorrelation.try_emplace(*id, ref);
                }
                if (auto id = intArg(m_trace, set, m_connectionKey))
                    m_byConnection.try_emplace(*id, ref);
            }
        }
    }

    const model::Trace& m_trace;
    std::unordered_map<std::uint64_t, SliceRef> m_cache;
    std::unordered_map<std::uint32_t, std::vector<model::TrackId>> m_hostTracksByThread;
    bool m_argIndexesBuilt = false;
    model::StringId m_externalIdKey;
    model::StringId m_correlationKey;
    model::StringId m_connectionKey;
    std::unordered_map<std::int64_t, SliceRef> m_byExternalId;
    std::unordered_map<std::int64_t, SliceRef> m_byCorrelation;
    std::unordered_map<std::int64_t, SliceRef> m_byConnection;
};

} // namespace

bool CompareAttribution::isDispatcherOpName(std::string_view name)
{
    const std::size_t sep = name.find("::");
    if (sep == 0 || sep == std::string_view::npos || sep + 2 >= name.size())
        return false;
    const std::string_view ns = name.substr(0, sep);
    const std::string_view op = name.substr(sep + 2);
    return std::all_of(ns.begin(), ns.end(), [](char c) { return isIdentChar(c) && c != '.'; })
        && std::all_of(op.begin(), op.end(), isIdentChar);
}

CompareAttribution::CompareAttribution(const model::Trace& trace)
    : m_trace(trace)
{
    std::unordered_map<std::string, std::uint32_t> nameIndex;
    auto nameId = [&](std::string_view name) {
        auto [it, inserted] = nameIndex.try_emplace(std::string(name), static_cast<std::uint32_t>(m_names.size()));
        if (inserted)
            m_names.emplace_back(name);
        return it->second;
    };

    // The layer type, when an importer keeps it apart from the layer's display name (RKNN, kernel tables).
    std::vector<model::StringId> typeKeys;
    for (std::string_view k : {"OpType", "op_type", "OP Type", "Op Type"}) {
        if (const model::StringId id = trace.strings().find(k); !id.isEmpty())
            typeKeys.push_back(id);
    }
    // The operator type when the importer kept one, else empty (the work goes by its raw slice name).
    auto ownType = [&](const Track& t, std::uint32_t i) -> std::string_view {
        for (model::StringId key : typeKeys) {
            const std::optional<model::ArgValue> v = trace.argStore().find(t.args(i), key);
            if (v && v->type == model::ArgValue::Type::String && !trace.str(model::StringId(v->s)).empty())
                return trace.str(model::StringId(v->s));
        }
        return {};
    };

    // Collectives are drawn twice by Ascend (the op on a "Group" lane, its sub-tasks on "Plane" lanes): a
    // communication slice inside a longer communication slice of another lane of the same process is part of it.
    std::map<model::StringId, std::vector<model::TrackId>> commLanes;
    for (const Track& t : trace.tracks()) {
        if (t.role == TrackRole::Communication)
            commLanes[t.processKey].push_back(t.id);
    }
    auto insideOtherLane = [&](const Track& t, std::uint32_t i) {
        if (t.role != TrackRole::Communication || t.category(i) != SliceCategory::Communication)
            return false;
        const model::TimeNs start = t.ts(i);
        const model::TimeNs end = t.end(i);
        for (model::TrackId other : commLanes[t.processKey]) {
            if (other == t.id)
                continue;
            const Track& o = trace.track(other);
            const model::SliceIndex at = o.sliceAt(start, 0);
            if (!at.isValid() || o.category(at.value) != SliceCategory::Communication || o.end(at.value) < end)
                continue;
            // Equal spans: the lane added first keeps it, so exactly one of the two counts.
            if (o.dur(at.value) > t.dur(i) || other < t.id)
                return true;
        }
        return false;
    };

    Resolver resolver(trace);
    KernelClassifier classifier(trace);
    for (const Track& t : trace.tracks()) {
        for (std::uint32_t i = 0; i < t.size(); ++i) {
            if (!isWork(t, i))
                continue;
            bool nested = false;
            for (model::SliceIndex p = t.parent(i); p.isValid() && !nested; p = t.parent(p.value))
                nested = isWork(t, p.value);
            if (nested || insideOtherLane(t, i))
                continue;
            const SliceRef work {t.id, model::SliceIndex(i)};
            SliceRef op;
            // A FallbackOp on a host thread is itself framework-side: its operator is what contains it.
            if (!model::isDeviceTrack(t))
                op = resolver.operatorAround(work);
            for (std::uint32_t fi : op.isValid() ? std::vector<std::uint32_t> {} : trace.flowsTo(work)) {
                const model::Flow& f = trace.flows()[fi];
                if (f.kind == model::FlowKind::ForwardBackward)
                    continue;
                op = resolver.resolve(f.from, 1);
                if (op.isValid())
                    break;
            }
            if (!op.isValid())
                op = resolver.resolveByArgs(work);
            Item item;
            item.slice = work;
            item.durNs = t.dur(i);
            item.cls = classifier.classOf(work);
            if (op.isValid()) {
                const Track& ot = trace.track(op.track);
                item.op = op;
                item.stepTimeNs = ot.ts(op.index.value);
                item.name = nameId(trace.str(ot.sliceName(op.index.value)));
                ++m_attributed;
            } else {
                item.stepTimeNs = t.ts(i);
                const std::string_view type = ownType(t, i);
                item.rawName = type.empty();
                item.name = nameId(type.empty() ? trace.str(t.sliceName(i)) : type);
            }
            m_items.push_back(item);
        }
    }
    dropCopiesInsideTheirCollective();
    m_deviceTimed = !m_items.empty();
    if (m_deviceTimed)
        return;

    // Host-timed: outermost dispatcher operators, or top-level host ops when the trace names none that way.
    for (bool dispatcherOnly : {true, false}) {
        for (const Track& t : trace.tracks()) {
            if (t.role != TrackRole::HostThread)
                continue;
            for (std::uint32_t i = 0; i < t.size(); ++i) {
                if (t.category(i) != SliceCategory::HostOp)
                    continue;
                const bool dispatcher = isDispatcherOpName(trace.str(t.sliceName(i)));
                if (dispatcherOnly && !dispatcher)
                    continue;
                bool covered = false;
                for (model::SliceIndex p = t.parent(i); p.isValid() && !covered; p = t.parent(p.value)) {
                    covered = t.category(p.value) == SliceCategory::HostOp
                        && (!dispatcherOnly || isDispatcherOpName(trace.str(t.sliceName(p.value))));
                }
                if (covered)
                    continue;
                const SliceRef ref {t.id, model::SliceIndex(i)};
                m_items.push_back(Item {ref, ref, t.ts(i), t.dur(i), nameId(trace.str(t.sliceName(i))),
                                        classifyKernelName(trace.str(t.sliceName(i))), false});
            }
        }
        if (!m_items.empty())
            break;
    }
}

void CompareAttribution::dropCopiesInsideTheirCollective()
{
    // Ascend draws a collective as one op on an HCCL lane and, again, as the SDMA copies it issues on a
    // hardware stream; both link to the same c10d op. Counting both would bill the collective twice.
    std::unordered_map<std::uint64_t, std::vector<std::pair<model::TimeNs, model::TimeNs>>> collectives;
    for (const Item& item : m_items) {
        const Track& t = m_trace.track(item.slice.track);
        if (item.op.isValid() && t.role == TrackRole::Communication
            && t.category(item.slice.index.value) == SliceCategory::Communication)
            collectives[keyOf(item.op)].emplace_back(t.ts(item.slice.index.value), t.end(item.slice.index.value));
    }
    if (collectives.empty())
        return;
    std::vector<Item> kept;
    kept.reserve(m_items.size());
    for (const Item& item : m_items) {
        const Track& t = m_trace.track(item.slice.track);
        const std::uint32_t i = item.slice.index.value;
        bool inside = false;
        if (item.op.isValid() && t.role != TrackRole::Communication
            && (t.category(i) == SliceCategory::Memcpy || t.category(i) == SliceCategory::Communication)) {
            if (auto it = collectives.find(keyOf(item.op)); it != collectives.end()) {
                inside = std::any_of(it->second.begin(), it->second.end(), [&](const auto& span) {
                    return span.first <= t.ts(i) && t.end(i) <= span.second;
                });
            }
        }
        if (inside)
            --m_attributed;
        else
            kept.push_back(item);
    }
    m_items = std::move(kept);
}

const std::vector<std::optional<std::size_t>>& CompareAttribution::itemSteps() const
{
    if (m_itemSteps)
        return *m_itemSteps;
    // The steps as `analyze` counts them (stepclock.h): work attributed to an operator belongs to the host step
    // that ran the operator, other work to the analysis window it starts in — so device work queued before the
    // first step, which no operator of the trace launched, is no step's.
    // A trace without markers is one synthetic step, compared whole (its start-up too).
    const auto steps = m_trace.steps();
    const StepClock clock(m_trace, true);
    auto stepOf = [&](const Item& item) -> std::optional<std::size_t> {
        if (steps.size() == 1 && steps.front().synthetic) {
            const model::Step& s = steps.front();
            return item.stepTimeNs >= s.start && item.stepTimeNs <= s.end ? std::optional<std::size_t>(0)
                                                                          : std::nullopt;
        }
        const std::size_t i = item.op.isValid() ? clock.hostStepAt(item.stepTimeNs) : clock.stepAt(item.stepTimeNs);
        if (i < clock.size())
            return i;
        return std::nullopt;
    };
    std::vector<std::optional<std::size_t>> out;
    out.reserve(m_items.size());
    for (const Item& item : m_items)
        out.push_back(stepOf(item));
    m_itemSteps = std::move(out);
    return *m_itemSteps;
}

std::vector<char> CompareAttribution::inSteps(std::span<const std::size_t> stepIndices) const
{
    const auto steps = m_trace.steps();
    std::vector<char> selected(steps.size(), 0);
    for (std::size_t i : stepIndices) {
        if (i < steps.size())
            selected[i] = 1;
    }
    const auto& itemStep = itemSteps();
    std::vector<char> out(m_items.size(), 0);
    for (std::size_t k = 0; k < m_items.size(); ++k)
        out[k] = itemStep[k] && selected[*itemStep[k]] ? 1 : 0;
    return out;
}

std::string CompareAttribution::unlinkedGroupName(KernelClass c)
{
    return "unlinked " + std::string(kernelClassLabel(c)) + " kernels";
}

std::array<CompareAttribution::ClassTotal, kKernelClassCount>
CompareAttribution::classTotals(std::span<const std::size_t> stepIndices) const
{
    std::array<ClassTotal, kKernelClassCount> out {};
    if (!m_deviceTimed)
        return out;
    const std::vector<char> in = inSteps(stepIndices);
    for (std::size_t k = 0; k < m_items.size(); ++k) {
        if (!in[k])
            continue;
        ClassTotal& t = out[static_cast<std::size_t>(m_items[k].cls)];
        t.ns = model::saturatingAdd(t.ns, m_items[k].durNs);
        ++t.slices;
    }
    return out;
}

std::map<std::string, CompareAttribution::Total, std::less<>>
CompareAttribution::totals(std::span<const std::size_t> stepIndices,
                           const std::function<bool(std::string_view)>& groupable) const
{
    const std::vector<char> in = inSteps(stepIndices);
    std::vector<std::int8_t> groupName(m_names.size(), -1); // per name: -1 not asked yet, 0 keep, 1 group
    std::map<std::string, Total, std::less<>> out;
    std::unordered_set<std::uint64_t> seenOps; // an operator instance has one name, so one set serves all names
    seenOps.reserve(m_items.size());
    for (std::size_t k = 0; k < m_items.size(); ++k) {
        if (!in[k])
            continue;
        const Item& item = m_items[k];
        bool grouped = false;
        if (groupable && item.rawName) {
            std::int8_t& g = groupName[item.name];
            if (g < 0)
                g = groupable(m_names[item.name]) ? 1 : 0;
            grouped = g == 1;
        }
        Total& total = out[grouped ? unlinkedGroupName(item.cls) : m_names[item.name]];
        if (grouped) {
            auto at = std::lower_bound(total.rawNames.begin(), total.rawNames.end(), m_names[item.name]);
            if (at == total.rawNames.end() || *at != m_names[item.name])
                total.rawNames.insert(at, m_names[item.name]);
        }
        total.ns = model::saturatingAdd(total.ns, item.durNs);
        ++total.slices;
        const SliceRef instance = item.op.isValid() ? item.op : item.slice;
        if (seenOps.insert(keyOf(instance)).second) {
            ++total.calls;
            total.occurrences.push_back(instance);
        }
        if (item.slice != instance)
            total.occurrences.push_back(item.slice);
    }
    return out;
}

} // namespace timesink::analysis
