// SPDX-License-Identifier: MIT
#include "model/stringpool.h"

#include "model/utf8.h"

#include <bit>
#include <cstring>
#include <functional>
#include <memory>

namespace timesink::model {

namespace {
constexpr std::size_t kBlockSize = 1 << 20;
constexpr std::size_t kMinSlots = 64;
constexpr std::uint64_t kIdMask = 0xffffffffULL;

/// Puts `slot` at the first free place from its hash bits (the table has a free slot: see reserveIndex()).
void placeSlot(std::vector<std::uint64_t>& slots, std::uint64_t slot)
{
    const std::size_t mask = slots.size() - 1;
    std::size_t i = static_cast<std::uint32_t>(slot >> 32) & mask;
    while (slots[i] != 0)
        i = (i + 1) & mask;
    slots[i] = slot;
}
} // namespace

StringPool::StringPool()
{
    m_views.emplace_back();
    m_slots.assign(kMinSlots, 0);
}

StringPool::StringPool(StringPool&&) noexcept = default;
StringPool& StringPool::operator=(StringPool&&) noexcept = default;
StringPool::~StringPool() = default;

StringId StringPool::intern(std::string_view text)
{
    if (text.empty())
        return StringId();
    const std::uint32_t hash = hashOf(text);
    if (const std::uint32_t id = lookup(text, hash))
        return StringId(id);

    const std::string_view stored = store(text);
    const auto id = static_cast<std::uint32_t>(m_views.size());
    m_views.push_back(stored);
    insertIndex(id, hash);
    return StringId(id);
}

std::uint32_t StringPool::hashOf(std::string_view text)
{
    const std::size_t h = std::hash<std::string_view>()(text);
    return static_cast<std::uint32_t>(h ^ (h >> 32));
}

std::uint32_t StringPool::lookup(std::string_view text, std::uint32_t hash) const
{
    if (m_slots.empty()) // a moved-from pool
        return 0;
    const std::size_t mask = m_slots.size() - 1;
    for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
        const std::uint64_t slot = m_slots[i];
        if (slot == 0)
            return 0;
        const auto id = static_cast<std::uint32_t>(slot & kIdMask);
        if (static_cast<std::uint32_t>(slot >> 32) == hash && m_views[id] == text)
            return id;
    }
}

void StringPool::insertIndex(std::uint32_t id, std::uint32_t hash)
{
    reserveIndex(m_indexed + 1);
    placeSlot(m_slots, (std::uint64_t(hash) << 32) | id);
    ++m_indexed;
}

void StringPool::reserveIndex(std::size_t count)
{
    // At most 3/4 full, so probes stay short and always end at an empty slot.
    const std::size_t wanted = std::bit_ceil(std::max(kMinSlots, count + count / 3 + 1));
    if (wanted <= m_slots.size())
        return;
    std::vector<std::uint64_t> old = std::move(m_slots);
    m_slots.assign(wanted, 0);
    for (const std::uint64_t slot : old) {
        if (slot != 0)
            placeSlot(m_slots, slot);
    }
}

void StringPool::rebuildIndex()
{
    std::fill(m_slots.begin(), m_slots.end(), 0);
    m_indexed = 0;
    for (std::size_t id = 1; id < m_views.size(); ++id) {
        const std::uint32_t hash = hashOf(m_views[id]);
        if (lookup(m_views[id], hash) == 0) // a text held twice is found under its first id
            insertIndex(static_cast<std::uint32_t>(id), hash);
    }
}

std::string_view StringPool::store(std::string_view text)
{
    std::string_view stored;
    if (text.size() > kBlockSize / 4) {
        // Huge strings get a heap block of their own; the current small block stays last.
        auto block = std::make_unique<char[]>(text.size());
        std::memcpy(block.get(), text.data(), text.size());
        stored = std::string_view(block.get(), text.size());
        m_blocks.insert(m_blocks.begin(), std::move(block));
    } else {
        if (m_blocks.empty() || m_blockUsed + text.size() > m_blockSize) {
            m_blocks.push_back(std::make_unique<char[]>(kBlockSize));
            m_blockSize = kBlockSize;
            m_blockUsed = 0;
        }
        char* dst = m_blocks.back().get() + m_blockUsed;
        std::memcpy(dst, text.data(), text.size());
        m_blockUsed += text.size();
        stored = std::string_view(dst, text.size());
    }
    return stored;
}

std::size_t StringPool::makeValidUtf8()
{
    std::size_t changed = 0;
    for (std::size_t id = 1; id < m_views.size(); ++id) {
        if (isValidUtf8(m_views[id]))
            continue;
        m_views[id] = store(toValidUtf8(m_views[id]));
        ++changed;
    }
    if (changed > 0)
        rebuildIndex();
    return changed;
}

StringId StringPool::find(std::string_view text) const
{
    if (text.empty())
        return StringId();
    return StringId(lookup(text, hashOf(text)));
}

std::string_view StringPool::view(StringId id) const
{
    if (id.value >= m_views.size())
        return {};
    return m_views[id.value];
}

std::size_t StringPool::bytesUsed() const
{
    return m_blocks.size() * kBlockSize + m_views.capacity() * sizeof(std::string_view)
        + m_slots.capacity() * sizeof(std::uint64_t);
}

} // namespace timesink::model
