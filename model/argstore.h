// SPDX-License-Identifier: MIT
#pragma once

#include "model/podbuffer.h"
#include "model/types.h"

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace timesink::model {

class SnapshotAccess;

// Args are the biggest part of a large trace's model (torch_npu device tasks carry seven each). Packing to 4-byte
// alignment makes an ArgValue 12 bytes and an Arg 16 instead of 24; x86-64 and AArch64 load the 8-byte payload
// at a 4-byte boundary at full speed. Never take the address of a payload member.
#pragma pack(push, 4)
/// One argument value: an integer, a float, a bool or an interned string.
struct ArgValue
{
    enum class Type : std::uint8_t { Int, Double, Bool, String };
    Type type = Type::Int;
    union {
        std::int64_t i;
        double d;
        std::uint32_t s;
    };

    ArgValue()
        : i(0)
    {
    }
    static ArgValue fromInt(std::int64_t v)
    {
        ArgValue a;
        a.type = Type::Int;
        a.i = v;
        return a;
    }
    static ArgValue fromDouble(double v)
    {
        ArgValue a;
        a.type = Type::Double;
        a.d = v;
        return a;
    }
    static ArgValue fromBool(bool v)
    {
        ArgValue a;
        a.type = Type::Bool;
        a.i = v ? 1 : 0;
        return a;
    }
    static ArgValue fromString(StringId v)
    {
        ArgValue a;
        a.type = Type::String;
        a.i = 0;
        a.s = v.value;
        return a;
    }
    [[nodiscard]] std::int64_t rawBits() const { return i; }
};

struct Arg
{
    StringId key;
    ArgValue value;
};
#pragma pack(pop)
static_assert(sizeof(ArgValue) == 12 && sizeof(Arg) == 16, "args are stored by the million: keep them packed");

/// Deduplicated argument sets, stored apart from the hot slice columns.
/// Keys are kept in insertion order (the order of the source) so dumps are faithful.
class ArgStore
{
public:
    /// Adds `args` (or finds an identical set) and returns its id. An empty span gives an invalid id.
    ArgSetId add(std::span<const Arg> args);
    /// Adds `args` without looking for (or indexing for) an identical set: for sets that carry a per-event id
    /// (a correlation id) and so can never repeat. Probing a table of millions of such sets is a cache miss
    /// per event for nothing.
    ArgSetId addUnique(std::span<const Arg> args);
    [[nodiscard]] std::span<const Arg> get(ArgSetId id) const;
    /// First value for `key` in the set, or nullptr.
    [[nodiscard]] const ArgValue* find(ArgSetId id, StringId key) const;
    [[nodiscard]] std::size_t setCount() const { return m_offsets.empty() ? 0 : m_offsets.size() - 1; }
    [[nodiscard]] std::size_t bytesUsed() const;
    void shrinkToFit();

private:
    friend class SnapshotAccess;
    // The two largest columns of a big trace: on realloc, so growing and shrinking never copy them (podbuffer.h).
    PodBuffer<Arg> m_args;
    PodBuffer<std::uint32_t> m_offsets; // set i = [m_offsets[i], m_offsets[i+1])
    // Dedupe index while building: open addressing; a slot holds a set's 32-bit hash (high half) and its
    // id + 1 (low half; 0 = empty), so a probe touches one cache line and growth never rehashes contents.
    std::vector<std::uint64_t> m_slots;
    std::size_t m_indexed = 0; // sets in m_slots
    void grow();
};

} // namespace timesink::model
