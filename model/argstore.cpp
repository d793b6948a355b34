// SPDX-License-Identifier: MIT
#include "model/argstore.h"

#include <algorithm>

namespace timesink::model {

namespace {
std::uint64_t hashArgs(std::span<const Arg> args)
{
    std::uint64_t h = 1469598103934665603ULL;
    auto mix = [&h](std::uint64_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
    for (const Arg& a : args) {
        mix(a.key.value);
        mix(static_cast<std::uint64_t>(a.value.type));
        mix(static_cast<std::uint64_t>(a.value.rawBits()));
    }
    // Final avalanche (MurmurHash3's fmix64): sets that differ only in a counter arg (correlation ids) would
    // otherwise land in neighbouring slots and turn linear probing quadratic.
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
}

bool sameArgs(std::span<const Arg> a, std::span<const Arg> b)
{
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const Arg& x, const Arg& y) {
        return x.key == y.key && x.value.type == y.value.type && x.value.rawBits() == y.value.rawBits();
    });
}
} // namespace

ArgSetId ArgStore::add(std::span<const Arg> args)
{
    if (args.empty())
        return ArgSetId();
    if (m_offsets.empty())
        m_offsets.push_back(0);
    // Load factor of the sets in the index only: sets added through addUnique() never occupy a slot.
    if ((m_indexed + 1) * 2 > m_slots.size())
        grow();
    const auto h = static_cast<std::uint32_t>(hashArgs(args));
    const std::size_t mask = m_slots.size() - 1;
    std::size_t slot = h & mask;
    for (; m_slots[slot] != 0; slot = (slot + 1) & mask) {
        if (static_cast<std::uint32_t>(m_slots[slot] >> 32) != h)
            continue;
        const auto candidate = static_cast<std::uint32_t>(m_slots[slot]) - 1;
        if (sameArgs(get(ArgSetId(candidate)), args))
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
    m_args.append(args.data(), args.size());
    m_offsets.push_back(static_cast<std::uint32_t>(m_args.size()));
    return ArgSetId(id);
}

void ArgStore::grow()
{
    std::vector<std::uint64_t> slots(std::max<std::size_t>(64, m_slots.size() * 2), 0);
    const std::size_t mask = slots.size() - 1;
    for (const std::uint64_t entry : m_slots) {
        if (entry == 0)
            continue;
        std::size_t slot = (entry >> 32) & mask;
        while (slots[slot] != 0)
            slot = (slot + 1) & mask;
        slots[slot] = entry;
    }
    m_slots = std::move(slots);
}

std::span<const Arg> ArgStore::get(ArgSetId id) const
{
    if (!id.isValid() || id.value + 1 >= m_offsets.size())
        return {};
    return std::span<const Arg>(m_args.data() + m_offsets[id.value], m_offsets[id.value + 1] - m_offsets[id.value]);
}

const ArgValue* ArgStore::find(ArgSetId id, StringId key) const
{
    for (const Arg& a : get(id)) {
        if (a.key == key)
            return &a.value;
    }
    return nullptr;
}

std::size_t ArgStore::bytesUsed() const
{
    return m_args.capacity() * sizeof(Arg) + m_offsets.capacity() * sizeof(std::uint32_t)
        + m_slots.capacity() * sizeof(std::uint64_t);
}

void ArgStore::shrinkToFit()
{
    // A frozen trace never adds sets again; the dedupe index is only needed while building.
    m_slots = {};
    m_indexed = 0;
    m_args.shrinkToFit();
    m_offsets.shrinkToFit();
}

} // namespace timesink::model
