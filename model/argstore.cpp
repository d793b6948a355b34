// SPDX-License-Identifier: MIT
#include "model/argstore.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace timesink::model {

namespace {
void mix(std::uint64_t& h, std::uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
}

// Final avalanche (MurmurHash3's fmix64): sets that differ only in a counter arg (correlation ids) would otherwise
// land in neighbouring slots and turn linear probing quadratic.
std::uint32_t avalanche(std::uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return static_cast<std::uint32_t>(h);
}

std::uint32_t hashArgs(std::span<const Arg> args)
{
    std::uint64_t h = 1469598103934665603ULL;
    for (const Arg& a : args) {
        mix(h, a.key.value);
        mix(h, static_cast<std::uint64_t>(a.value.type));
        mix(h, static_cast<std::uint64_t>(a.value.rawBits()));
    }
    return avalanche(h);
}

std::uint32_t hashSchema(std::span<const Arg> args)
{
    std::uint64_t h = 0x243f6a8885a308d3ULL;
    for (const Arg& a : args) {
        mix(h, a.key.value);
        mix(h, static_cast<std::uint64_t>(a.value.type));
    }
    return avalanche(h);
}

/// Doubles `slots` (hash in the high half of each entry) when one more entry would pass half full.
void growIfNeeded(std::vector<std::uint64_t>& slots, std::size_t entries)
{
    if ((entries + 1) * 2 <= slots.size())
        return;
    std::vector<std::uint64_t> grown(std::max<std::size_t>(64, slots.size() * 2), 0);
    const std::size_t mask = grown.size() - 1;
    for (const std::uint64_t entry : slots) {
        if (entry == 0)
            continue;
        std::size_t slot = (entry >> 32) & mask;
        while (grown[slot] != 0)
            slot = (slot + 1) & mask;
        grown[slot] = entry;
    }
    slots = std::move(grown);
}
} // namespace

bool ArgSet::equals(std::span<const Arg> args) const
{
    if (args.size() != m_size)
        return false;
    const std::uint8_t* p = m_values;
    for (std::size_t i = 0; i < m_size; ++i) {
        if (m_keys[i].key != args[i].key || m_keys[i].type != args[i].value.type
            || argcoding::get(p, m_keys[i].type) != args[i].value.rawBits())
            return false;
    }
    return true;
}

std::uint32_t ArgStore::schemaOf(std::span<const Arg> args)
{
    auto matches = [&](std::uint32_t s) {
        const std::uint32_t first = m_schemaOffsets[s];
        if (m_schemaOffsets[s + 1] - first != args.size())
            return false;
        for (std::size_t i = 0; i < args.size(); ++i) {
            const ArgKey& k = m_schemaKeys[first + i];
            if (k.key != args[i].key || k.type != args[i].value.type)
                return false;
        }
        return true;
    };
    if (m_schemaOffsets.empty())
        m_schemaOffsets.push_back(0);
    growIfNeeded(m_schemaSlots, schemaCount());
    const std::uint32_t h = hashSchema(args);
    const std::size_t mask = m_schemaSlots.size() - 1;
    std::size_t slot = h & mask;
    for (; m_schemaSlots[slot] != 0; slot = (slot + 1) & mask) {
        const auto candidate = static_cast<std::uint32_t>(m_schemaSlots[slot]) - 1;
        if (static_cast<std::uint32_t>(m_schemaSlots[slot] >> 32) == h && matches(candidate))
            return candidate;
    }
    const auto id = static_cast<std::uint32_t>(schemaCount());
    for (const Arg& a : args)
        m_schemaKeys.push_back(ArgKey {a.key, a.value.type});
    m_schemaOffsets.push_back(static_cast<std::uint32_t>(m_schemaKeys.size()));
    m_schemaSlots[slot] = (std::uint64_t(h) << 32) | (id + 1);
    return id;
}

ArgSetId ArgStore::add(std::span<const Arg> args)
{
    if (args.empty())
        return ArgSetId();
    // Load factor of the sets in the index only: sets added through addUnique() never occupy a slot.
    growIfNeeded(m_slots, m_indexed);
    const std::uint32_t h = hashArgs(args);
    const std::size_t mask = m_slots.size() - 1;
    std::size_t slot = h & mask;
    for (; m_slots[slot] != 0; slot = (slot + 1) & mask) {
        if (static_cast<std::uint32_t>(m_slots[slot] >> 32) != h)
            continue;
        const auto candidate = static_cast<std::uint32_t>(m_slots[slot]) - 1;
        if (get(ArgSetId(candidate)).equals(args))
            return ArgSetId(candidate);
    }
    const ArgSetId id = addUnique(args);
    m_slots[slot] = (std::uint64_t(h) << 32) | (id.value + 1);
    ++m_indexed;
    return id;
}

ArgSetId ArgStore::addUnique(std::span<const Arg> args)
{
    if (args.empty())
        return ArgSetId();
    if (m_offsets.empty())
        m_offsets.push_back(0);
    const auto id = static_cast<std::uint32_t>(setCount());
    const std::size_t first = m_values.size();
    std::uint8_t* const begin = m_values.extend(args.size() * argcoding::kMaxBytes);
    std::uint8_t* end = begin;
    for (const Arg& a : args)
        end = argcoding::put(end, a.value.type, a.value.rawBits());
    m_values.truncate(first + static_cast<std::size_t>(end - begin));
    if (m_values.size() > std::numeric_limits<std::uint32_t>::max()) {
        m_values.truncate(first);
        throw std::length_error("the trace's event args take more than 4 GiB, more than Timesink can hold");
    }
    m_schemas.push_back(schemaOf(args));
    m_offsets.push_back(static_cast<std::uint32_t>(m_values.size()));
    return ArgSetId(id);
}

ArgSet ArgStore::get(ArgSetId id) const
{
    if (!id.isValid() || id.value + 1 >= m_offsets.size())
        return {};
    const std::uint32_t schema = m_schemas[id.value];
    return ArgSet(m_schemaKeys.data() + m_schemaOffsets[schema], m_values.data() + m_offsets[id.value],
                  m_schemaOffsets[schema + 1] - m_schemaOffsets[schema]);
}

std::size_t ArgStore::bytesUsed() const
{
    return m_values.capacity() + m_offsets.capacity() * sizeof(std::uint32_t)
        + m_schemas.capacity() * sizeof(std::uint32_t) + m_schemaKeys.capacity() * sizeof(ArgKey)
        + m_schemaOffsets.capacity() * sizeof(std::uint32_t)
        + (m_slots.capacity() + m_schemaSlots.capacity()) * sizeof(std::uint64_t);
}

void ArgStore::shrinkToFit()
{
    // A frozen trace never adds sets again; the dedupe indexes are only needed while building.
    m_slots = {};
    m_indexed = 0;
    m_schemaSlots = {};
    m_values.shrinkToFit();
    m_offsets.shrinkToFit();
    m_schemas.shrinkToFit();
    m_schemaKeys.shrink_to_fit();
    m_schemaOffsets.shrink_to_fit();
}

std::optional<std::string> ArgStore::inconsistency(std::uint64_t stringCount) const
{
    if (auto issue = layoutInconsistency(stringCount))
        return issue;
    return setsInconsistency(stringCount, 0, setCount());
}

std::optional<std::string> ArgStore::layoutInconsistency(std::uint64_t stringCount) const
{
    // Offsets start at 0, never decrease and end at the column's size (or are absent with an empty column).
    auto monotonic = [](const auto& o, std::size_t total) {
        if (o.empty())
            return total == 0;
        if (o[0] != 0 || o[o.size() - 1] != total)
            return false;
        for (std::size_t i = 1; i < o.size(); ++i) {
            if (o[i] < o[i - 1])
                return false;
        }
        return true;
    };
    if (!monotonic(m_offsets, m_values.size()) || !monotonic(m_schemaOffsets, m_schemaKeys.size())
        || m_schemas.size() != setCount())
        return "arg offsets";
    for (const ArgKey& k : m_schemaKeys) {
        if (k.key.value >= stringCount || static_cast<std::uint8_t>(k.type) > 3)
            return "arg schemas";
    }
    return std::nullopt;
}

std::optional<std::string> ArgStore::setsInconsistency(std::uint64_t stringCount, std::size_t first,
                                                       std::size_t last) const
{
    for (std::size_t i = first; i < std::min(last, setCount()); ++i) {
        const std::uint32_t s = m_schemas[i];
        if (s >= schemaCount() || m_schemaOffsets[s + 1] == m_schemaOffsets[s])
            return "arg schemas";
        const std::uint8_t* p = m_values.data() + m_offsets[i];
        const std::uint8_t* const end = m_values.data() + m_offsets[i + 1];
        for (std::uint32_t k = m_schemaOffsets[s]; k < m_schemaOffsets[s + 1]; ++k) {
            std::int64_t bits = 0;
            const ArgValue::Type type = m_schemaKeys[k].type;
            if (!argcoding::getChecked(p, end, type, bits)
                || (type == ArgValue::Type::String && static_cast<std::uint64_t>(bits) >= stringCount))
                return "args";
        }
        if (p != end)
            return "args";
    }
    return std::nullopt;
}

} // namespace timesink::model
