// SPDX-License-Identifier: MIT
#include "parsers/snapshot/snapshotcolumns.h"

#include "model/podbuffer.h"
#include "model/snapshotaccess.h"

#include <algorithm>
#include <limits>
#include <string_view>

namespace timesink::parsers::snapshot {

namespace {

using model::SnapshotAccess;

/// Lists each column as the target of the next bytes of its stream.
class Placer
{
public:
    explicit Placer(ColumnPlan& plan)
        : m_plan(plan)
    {
    }
    void operator()(Kind kind, void* data, std::size_t bytes)
    {
        const auto k = static_cast<std::size_t>(kind);
        if (bytes > 0)
            m_plan.targets[k].push_back(Target {m_expected[k], static_cast<char*>(data), bytes});
        m_expected[k] += bytes;
    }
    // Every target is allocated at its final size and written whole by the decoders.
    template <typename T> void operator()(Kind kind, model::PodBuffer<T>& b)
    {
        (*this)(kind, b.data(), b.size() * sizeof(T));
    }
    template <typename Vector> void operator()(Kind kind, Vector& v)
    {
        const std::size_t bytes = v.size() * sizeof(*v.data());
        (*this)(kind, v.data(), bytes);
    }

private:
    ColumnPlan& m_plan;
    std::array<std::uint64_t, kKindCount> m_expected {};
};

} // namespace

std::string corruptSnapshot(const std::string& what)
{
    return "the snapshot is corrupt (" + what + ")";
}

std::string planColumns(const pb::Header& h, std::uint64_t sectionsEnd, std::uint64_t maxBytes, model::Trace& trace,
                        ColumnPlan& plan)
{
    // Expected stream sizes first, allocating nothing, so that a lying header costs no memory.
    std::array<std::uint64_t, kKindCount> need {};
    auto add = [&](Kind k, std::uint64_t count, std::uint64_t size) {
        if (count > (std::uint64_t(1) << 40))
            return false;
        need[static_cast<std::size_t>(k)] += count * size;
        return true;
    };
    if (h.string_count() == 0 || h.string_count() > std::numeric_limits<std::uint32_t>::max())
        return corruptSnapshot("string count");
    const std::uint64_t argSets = h.arg_offset_count() == 0 ? 0 : h.arg_offset_count() - 1;
    bool sane = add(Kind::StringLengths, h.string_count(), 4) && add(Kind::ArgValues, h.arg_value_bytes(), 1)
        && add(Kind::ArgOffsets, h.arg_offset_count(), 4) && add(Kind::ArgSetSchemas, argSets, 4)
        && add(Kind::ArgSchemaKeys, h.arg_schema_key_count(), sizeof(model::ArgKey))
        && add(Kind::ArgSchemaOffsets, h.arg_schema_offset_count(), 4)
        && add(Kind::Flows, h.flow_count(), sizeof(model::Flow)) && add(Kind::FlowsByTarget, h.flow_count(), 4);
    std::uint64_t slices = 0;
    for (const pb::Track& t : h.tracks()) {
        const std::uint64_t n = t.slices();
        sane = sane && add(Kind::Ts, n, 8) && add(Kind::Dur, n, 8) && add(Kind::Name, n, 4)
            && add(Kind::RawCategory, n, 4) && add(Kind::Parent, n, 4) && add(Kind::SliceArgs, n, 4)
            && add(Kind::Depth, n, 2) && add(Kind::Category, n, 1) && add(Kind::Flags, n, 1) && add(Kind::ByDepth, n, 4)
            && add(Kind::CounterTs, t.counter_samples(), 8) && add(Kind::CounterValues, t.counter_samples(), 8);
        if (!sane || n > std::numeric_limits<std::uint32_t>::max() - 1)
            return corruptSnapshot("track sizes");
        slices += n;
        std::uint64_t inDepths = 0;
        for (const std::uint64_t d : t.depth_sizes()) {
            if (d == 0 || d > n)
                return corruptSnapshot("depth index sizes");
            inDepths += d;
        }
        if (inDepths != n || t.summary_levels_size() != t.depth_sizes_size())
            return corruptSnapshot("depth index sizes");
        std::uint64_t levels = 0;
        for (const std::uint32_t l : t.summary_levels())
            levels += l;
        if (levels != static_cast<std::uint64_t>(t.summary_sizes_size()))
            return corruptSnapshot("summary sizes");
        for (const std::uint64_t s : t.summary_sizes())
            sane = sane && add(Kind::Summaries, s, sizeof(model::SummaryBucket));
    }
    if (!sane || slices != h.slice_count() || h.category_counts_size() != model::kSliceCategoryCount)
        return corruptSnapshot("counts");

    // Sections: inside the file, and together covering each stream exactly once.
    std::vector<const pb::Section*> sections;
    for (const pb::Section& s : h.sections()) {
        if (s.kind() == 0 || s.kind() >= kKindCount || s.offset() < kPreambleBytes || s.compressed_size() > sectionsEnd
            || s.offset() > sectionsEnd - s.compressed_size() || s.raw_size() == 0 || s.raw_size() > kSectionRawBytes)
            return corruptSnapshot("section table");
        sections.push_back(&s);
    }
    std::sort(sections.begin(), sections.end(), [](const pb::Section* a, const pb::Section* b) {
        return a->kind() != b->kind() ? a->kind() < b->kind() : a->raw_offset() < b->raw_offset();
    });
    std::array<std::uint64_t, kKindCount> covered {};
    for (const pb::Section* s : sections) {
        if (s->raw_offset() != covered[s->kind()])
            return corruptSnapshot("section table");
        covered[s->kind()] += s->raw_size();
    }
    // What the header alone makes us allocate counts too: an empty track or step is two bytes of protobuf.
    std::uint64_t total = static_cast<std::uint64_t>(h.tracks_size()) * sizeof(model::Track)
        + static_cast<std::uint64_t>(h.steps_size()) * sizeof(model::Step);
    for (std::size_t k = 1; k < kKindCount; ++k) {
        if (k == static_cast<std::size_t>(Kind::StringBytes))
            need[k] = covered[k]; // the lengths say how many; checked once they are read
        if (covered[k] != need[k])
            return corruptSnapshot("section sizes do not match the header");
        total += need[k];
    }
    if (total > maxBytes) {
        return "the snapshot holds " + std::to_string(total) + " bytes of columns, more than the limit of "
            + std::to_string(maxBytes);
    }
    plan.totalRaw = total;

    // Allocate, in stream order.
    Placer place(plan);
    auto& tracks = SnapshotAccess::tracks(trace);
    tracks.resize(static_cast<std::size_t>(h.tracks_size()));
    plan.strings.lengths.resize(h.string_count());
    place(Kind::StringLengths, plan.strings.lengths);
    plan.strings.bytes.reset(new char[std::max<std::uint64_t>(need[1], 1)]);
    plan.strings.size = need[1];
    place(Kind::StringBytes, plan.strings.bytes.get(), plan.strings.size);
    for (std::size_t i = 0; i < tracks.size(); ++i) {
        const pb::Track& p = h.tracks(static_cast<int>(i));
        model::Track& t = tracks[i];
        const std::size_t n = p.slices();
        SnapshotAccess::ts(t).resizeForOverwrite(n);
        SnapshotAccess::dur(t).resizeForOverwrite(n);
        SnapshotAccess::name(t).resizeForOverwrite(n);
        SnapshotAccess::rawCategory(t).resizeForOverwrite(n);
        SnapshotAccess::parent(t).resize(n);
        SnapshotAccess::sliceArgs(t).resizeForOverwrite(n);
        SnapshotAccess::depth(t).resize(n);
        SnapshotAccess::category(t).resizeForOverwrite(n);
        SnapshotAccess::flags(t).resizeForOverwrite(n);
        place(Kind::Ts, SnapshotAccess::ts(t));
        place(Kind::Dur, SnapshotAccess::dur(t));
        place(Kind::Name, SnapshotAccess::name(t));
        place(Kind::RawCategory, SnapshotAccess::rawCategory(t));
        place(Kind::Parent, SnapshotAccess::parent(t));
        place(Kind::SliceArgs, SnapshotAccess::sliceArgs(t));
        place(Kind::Depth, SnapshotAccess::depth(t));
        place(Kind::Category, SnapshotAccess::category(t));
        place(Kind::Flags, SnapshotAccess::flags(t));
        auto& byDepth = SnapshotAccess::byDepth(t);
        byDepth.resize(static_cast<std::size_t>(p.depth_sizes_size()));
        for (std::size_t d = 0; d < byDepth.size(); ++d) {
            byDepth[d].resize(p.depth_sizes(static_cast<int>(d)));
            place(Kind::ByDepth, byDepth[d]);
        }
        auto& summaries = SnapshotAccess::summaries(t);
        summaries.resize(byDepth.size());
        int level = 0;
        for (std::size_t d = 0; d < summaries.size(); ++d) {
            summaries[d].resize(p.summary_levels(static_cast<int>(d)));
            for (auto& buckets : summaries[d]) {
                buckets.resize(p.summary_sizes(level++));
                place(Kind::Summaries, buckets);
            }
        }
        SnapshotAccess::counterTs(t).resize(p.counter_samples());
        SnapshotAccess::counterValues(t).resize(p.counter_samples());
        place(Kind::CounterTs, SnapshotAccess::counterTs(t));
        place(Kind::CounterValues, SnapshotAccess::counterValues(t));
    }
    model::ArgStore& args = SnapshotAccess::args(trace);
    SnapshotAccess::argValueBytes(args).resizeForOverwrite(h.arg_value_bytes());
    SnapshotAccess::argOffsets(args).resizeForOverwrite(h.arg_offset_count());
    SnapshotAccess::argSetSchemas(args).resizeForOverwrite(argSets);
    SnapshotAccess::argSchemaKeys(args).resize(h.arg_schema_key_count());
    SnapshotAccess::argSchemaOffsets(args).resize(h.arg_schema_offset_count());
    place(Kind::ArgValues, SnapshotAccess::argValueBytes(args));
    place(Kind::ArgOffsets, SnapshotAccess::argOffsets(args));
    place(Kind::ArgSetSchemas, SnapshotAccess::argSetSchemas(args));
    place(Kind::ArgSchemaKeys, SnapshotAccess::argSchemaKeys(args));
    place(Kind::ArgSchemaOffsets, SnapshotAccess::argSchemaOffsets(args));
    SnapshotAccess::flows(trace).resize(h.flow_count());
    SnapshotAccess::flowsByTarget(trace).resize(h.flow_count());
    place(Kind::Flows, SnapshotAccess::flows(trace));
    place(Kind::FlowsByTarget, SnapshotAccess::flowsByTarget(trace));
    plan.sections = std::move(sections);
    return {};
}

std::string restoreStrings(StagedStrings& strings, model::Trace& trace)
{
    model::StringPool& pool = SnapshotAccess::strings(trace);
    SnapshotAccess::reserveStrings(pool, strings.lengths.size());
    if (strings.lengths[0] != 0)
        return corruptSnapshot("string pool");
    std::uint64_t at = 0;
    for (std::size_t i = 1; i < strings.lengths.size(); ++i) {
        const std::uint32_t len = strings.lengths[i];
        if (len == 0 || len > strings.size - at)
            return corruptSnapshot("string pool");
        const model::StringId id = pool.intern(std::string_view(strings.bytes.get() + at, len));
        if (id.value != i)
            return corruptSnapshot("string pool holds a string twice");
        at += len;
    }
    if (at != strings.size)
        return corruptSnapshot("string pool");
    strings = {};
    return {};
}

} // namespace timesink::parsers::snapshot
