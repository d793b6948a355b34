// SPDX-License-Identifier: MIT
#include "model/argstore.h"

#include <algorithm>

namespace timesink::model {

namespace {
std::uint64_t hashArgs(std::span<const Arg> args)
{
    std::uint64_t h = 1469598103934665603ULL;
    auto mix = [&h](std::uint64_t v) {
        h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    };
    for (const Arg& a : args) {
        mix(a.key.value);
        mix(static_cast<std::uint64_t>(a.value.type));
        mix(static_cast<std::uint64_t>(a.value.rawBits()));
    }
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
    const std::uint64_t h = hashArgs(args);
    auto [lo, hi] = m_dedupe.equal_range(h);
    for (auto it = lo; it != hi; ++it) {
        if (sameArgs(get(ArgSetId(it->second)), args))
            return ArgSetId(it->second);
    }
    const auto id = static_cast<std::uint32_t>(m_offsets.size() - 1);
    m_args.insert(m_args.end(), args.begin(), args.end());
    m_offsets.push_back(static_cast<std::uint32_t>(m_args.size()));
    m_dedupe.emplace(h, id);
    return ArgSetId(id);
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
        + m_dedupe.size() * (sizeof(std::uint64_t) + sizeof(std::uint32_t) + 2 * sizeof(void*));
}

void ArgStore::shrinkToFit()
{
    // A frozen trace never adds sets again; the dedupe index is only needed while building.
    m_dedupe = {};
    m_args.shrink_to_fit();
    m_offsets.shrink_to_fit();
}

} // namespace timesink::model
