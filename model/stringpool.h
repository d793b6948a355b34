// SPDX-License-Identifier: MIT
#pragma once

#include "model/types.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace timesink::model {

class SnapshotAccess;

/// Interns strings once. Ids are dense; id 0 is the empty string. Equality is by contents
/// (hash collisions are resolved by comparing the text, never by trusting the hash).
/// Not thread-safe for interning; a frozen pool is safe to read from many threads.
class StringPool
{
public:
    StringPool();
    StringPool(const StringPool&) = delete;
    StringPool& operator=(const StringPool&) = delete;
    StringPool(StringPool&&) noexcept;
    StringPool& operator=(StringPool&&) noexcept;
    ~StringPool();

    StringId intern(std::string_view text);
    /// The id of `text` if already interned, else an empty id.
    [[nodiscard]] StringId find(std::string_view text) const;
    [[nodiscard]] std::string_view view(StringId id) const;
    [[nodiscard]] std::size_t size() const { return m_views.size(); }
    [[nodiscard]] std::size_t bytesUsed() const;
    /// Replaces ill-formed UTF-8 in every string by U+FFFD (ids stay the same); returns how many strings
    /// changed. Writers may then trust the pool's text. A sanitised string that equals an existing one keeps its
    /// own id.
    std::size_t makeValidUtf8();

private:
    friend class SnapshotAccess;
    std::string_view store(std::string_view text);
    // Text lives in large blocks so views stay valid while the pool grows.
    std::vector<std::unique_ptr<char[]>> m_blocks;
    std::size_t m_blockUsed = 0;
    std::size_t m_blockSize = 0;
    std::vector<std::string_view> m_views;
    // The index from text to id: open addressing with linear probing. A slot holds the id in its low 32 bits and
    // 32 bits of the text's hash above them (0 = empty; id 0, the empty string, is never in it), so a probe
    // compares text only when the hash bits match, growing never rehashes text, and a pool of millions of
    // strings costs one allocation instead of one node each (std::unordered_map made a trace with a million
    // threads spend a third of its import in node allocation and teardown).
    std::vector<std::uint64_t> m_slots;
    std::size_t m_indexed = 0;
    static std::uint32_t hashOf(std::string_view text);
    [[nodiscard]] std::uint32_t lookup(std::string_view text, std::uint32_t hash) const; // 0 when absent
    void insertIndex(std::uint32_t id, std::uint32_t hash);
    void reserveIndex(std::size_t count);
    void rebuildIndex();
};

} // namespace timesink::model
