// SPDX-License-Identifier: MIT
#pragma once

#include "model/tracebuilder.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string_view>

namespace timesink::parsers::chromejson {

/// Interns through a small direct-mapped cache in front of model::TraceBuilder's string pool, for the Chrome-trace
/// sinks (Kineto, Ascend timeline). Names, categories and arg values repeat from event to event ("aten::conv2d",
/// "cpu_op", "AI_CORE", the same long kernel name a million times), so most lookups cost a cheap hash of the
/// text's ends and one compare instead of hashing the whole text and probing the pool's table. Slots point at the
/// pool's own copies, which never move. The empty text is the null id, as the pool gives it.
class InternCache
{
public:
    explicit InternCache(model::TraceBuilder& b)
        : m_b(b)
    {
    }
    model::StringId operator()(std::string_view s)
    {
        if (s.empty())
            return {};
        if (s.size() > std::numeric_limits<std::uint32_t>::max())
            return m_b.intern(s); // beyond a slot's length field; never seen in a trace
        const Ends ends = endsOf(s);
        Slot& slot = m_slots[index(ends, s.size())];
        // The ends and the length decide texts of up to 16 bytes (most names, keys and values) without a call
        // to memcmp; a longer text compares only the bytes between its ends.
        if (slot.head == ends.head && slot.tail == ends.tail && slot.size == s.size()
            && (s.size() <= 16 || std::memcmp(slot.text + 8, s.data() + 8, s.size() - 16) == 0))
            return slot.id;
        slot.id = m_b.intern(s);
        slot.text = m_b.str(slot.id).data();
        slot.head = ends.head;
        slot.tail = ends.tail;
        slot.size = static_cast<std::uint32_t>(s.size());
        return slot.id;
    }

private:
    /// The first and last eight bytes (zero-filled past a shorter text): with the length they are the whole text
    /// up to 16 bytes.
    struct Ends
    {
        std::uint64_t head = 0;
        std::uint64_t tail = 0;
    };
    static Ends endsOf(std::string_view s)
    {
        Ends e;
        std::memcpy(&e.head, s.data(), std::min<std::size_t>(8, s.size()));
        if (s.size() > 8)
            std::memcpy(&e.tail, s.data() + s.size() - 8, 8);
        return e;
    }
    /// A hash of the ends and the length: texts that share a prefix (kernel templates, "aten::") still spread,
    /// and a long text costs no more to place than a short one.
    static std::size_t index(const Ends& e, std::size_t size)
    {
        std::uint64_t h = (e.head * 0x9E3779B97F4A7C15ULL) ^ (e.tail * 0xC2B2AE3D27D4EB4FULL) ^ size;
        h ^= h >> 29;
        return static_cast<std::size_t>(h * 0xBF58476D1CE4E5B9ULL >> (64 - kBits));
    }
    static constexpr unsigned kBits = 10;
    struct Slot
    {
        std::uint64_t head = 0;
        std::uint64_t tail = 0;
        const char* text = nullptr; // the pool's copy
        std::uint32_t size = 0;     // 0: an empty slot (the empty text never reaches one)
        model::StringId id;
    };
    model::TraceBuilder& m_b;
    std::array<Slot, std::size_t(1) << kBits> m_slots {};
};

/// The text interned last at one place (an arg key at one position, the category): texts that come in the same
/// order event after event cost one compare with the previous one, not even a hash.
class InternedLast
{
public:
    model::StringId operator()(model::TraceBuilder& b, std::string_view text)
    {
        if (m_text == text)
            return m_id; // the empty text too: the null id, as the pool gives it
        m_id = b.intern(text);
        m_text = b.str(m_id);
        return m_id;
    }

private:
    std::string_view m_text; // the pool's copy
    model::StringId m_id;
};

} // namespace timesink::parsers::chromejson
