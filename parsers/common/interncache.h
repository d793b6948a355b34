// SPDX-License-Identifier: MIT
#pragma once

#include "model/tracebuilder.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string_view>

namespace timesink::parsers {

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
    /// The first and last eight bytes (of a shorter text, fixed loads that cover it): with the length they are the
    /// whole text up to 16 bytes.
    struct Ends
    {
        std::uint64_t head = 0;
        std::uint64_t tail = 0;
    };
    /// Texts under eight bytes are read in fixed-size loads (two overlapping 4-byte ones, or three single bytes
    /// under four), which with the length still determine the text: a `memcpy` of a variable length was a call,
    /// and its byte stores could not be forwarded to the 8-byte load after it (a fifth of the cache's time, for
    /// the many short names, keys and values: "cpu_op", "Mode", "acl").
    static Ends endsOf(std::string_view s)
    {
        Ends e;
        const char* const p = s.data();
        const std::size_t n = s.size();
        if (n >= 8) {
            std::memcpy(&e.head, p, 8);
            if (n > 8)
                std::memcpy(&e.tail, p + n - 8, 8);
        } else if (n >= 4) {
            std::uint32_t first = 0;
            std::uint32_t last = 0;
            std::memcpy(&first, p, 4);
            std::memcpy(&last, p + n - 4, 4);
            e.head = first | (std::uint64_t {last} << 32);
        } else if (n > 0) {
            e.head = static_cast<unsigned char>(p[0]) | (std::uint64_t {static_cast<unsigned char>(p[n / 2])} << 8)
                | (std::uint64_t {static_cast<unsigned char>(p[n - 1])} << 16);
        }
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

} // namespace timesink::parsers
