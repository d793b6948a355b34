// SPDX-License-Identifier: MIT
#include "model/stringpool.h"

#include "model/utf8.h"

#include <cstring>
#include <memory>

namespace timesink::model {

namespace {
constexpr std::size_t kBlockSize = 1 << 20;
}

StringPool::StringPool()
{
    m_views.emplace_back();
    m_index.emplace(std::string_view(), 0);
}

StringPool::StringPool(StringPool&&) noexcept = default;
StringPool& StringPool::operator=(StringPool&&) noexcept = default;
StringPool::~StringPool() = default;

StringId StringPool::intern(std::string_view text)
{
    if (text.empty())
        return StringId();
    if (auto it = m_index.find(text); it != m_index.end())
        return StringId(it->second);

    const std::string_view stored = store(text);
    const auto id = static_cast<std::uint32_t>(m_views.size());
    m_views.push_back(stored);
    m_index.emplace(stored, id);
    return StringId(id);
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
        const std::string text = toValidUtf8(m_views[id]);
        if (auto it = m_index.find(m_views[id]); it != m_index.end() && it->second == id)
            m_index.erase(it);
        m_views[id] = store(text);
        m_index.emplace(m_views[id], static_cast<std::uint32_t>(id));
        ++changed;
    }
    return changed;
}

StringId StringPool::find(std::string_view text) const
{
    if (auto it = m_index.find(text); it != m_index.end())
        return StringId(it->second);
    return StringId();
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
        + m_index.size() * (sizeof(std::string_view) + sizeof(std::uint32_t) + 2 * sizeof(void*));
}

} // namespace timesink::model
