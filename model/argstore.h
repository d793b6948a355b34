// SPDX-License-Identifier: MIT
#pragma once

#include "model/podbuffer.h"
#include "model/types.h"
#include "model/varint.h"

#include <bit>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace timesink::model {

class SnapshotAccess;

// Arg and ArgValue are what importers build and readers get back; the store keeps neither as such (ArgStore keeps
// schemas and 8-byte values), so they are laid out naturally: a value read from the store can be bound to a
// reference like any other (a packed one could not: its 8-byte payload sat at a 4-byte boundary).
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
    /// The value as the 64 bits the store keeps (ArgStore): the integer, the double's bits, the string id.
    [[nodiscard]] std::int64_t rawBits() const
    {
        switch (type) {
        case Type::Double:
            return std::bit_cast<std::int64_t>(d);
        case Type::String:
            return s;
        case Type::Int:
        case Type::Bool:
            break;
        }
        return i;
    }
    /// The inverse of rawBits().
    static ArgValue fromRaw(Type type, std::int64_t bits)
    {
        switch (type) {
        case Type::Double:
            return fromDouble(std::bit_cast<double>(bits));
        case Type::String:
            return fromString(StringId(static_cast<std::uint32_t>(bits)));
        case Type::Bool:
            return fromBool(bits != 0);
        case Type::Int:
            break;
        }
        return fromInt(bits);
    }
};

struct Arg
{
    StringId key;
    ArgValue value;
};

/// One entry of an arg schema: a key and the type of its value (the padding is zero, for byte-exact snapshots).
struct ArgKey
{
    StringId key;
    ArgValue::Type type = ArgValue::Type::Int;
    std::uint8_t padding[3] = {};
};
static_assert(sizeof(ArgKey) == 8, "schema entries are stored as they are laid out (snapshots)");

/// How ArgStore keeps one value (the type comes from the set's schema): an integer or a bool as a zigzag varint
/// (1-10 bytes: counters, ids and flags mostly take 1-5), a string id as a varint (1-5), a double as its 8 bytes.
namespace argcoding {
/// The most bytes one value takes.
inline constexpr std::size_t kMaxBytes = varint::kMaxBytes;

/// Writes `bits` (ArgValue::rawBits()) of a value of `type` at `out` and returns the end.
inline std::uint8_t* put(std::uint8_t* out, ArgValue::Type type, std::int64_t bits)
{
    switch (type) {
    case ArgValue::Type::Double:
        std::memcpy(out, &bits, sizeof bits);
        return out + sizeof bits;
    case ArgValue::Type::String:
        return varint::put(out, static_cast<std::uint64_t>(bits));
    case ArgValue::Type::Int:
    case ArgValue::Type::Bool:
        break;
    }
    return varint::put(out, varint::zigzag(bits, 0));
}

/// Reads a value written by put() and moves `p` past it.
inline std::int64_t get(const std::uint8_t*& p, ArgValue::Type type)
{
    switch (type) {
    case ArgValue::Type::Double: {
        std::int64_t bits = 0;
        std::memcpy(&bits, p, sizeof bits);
        p += sizeof bits;
        return bits;
    }
    case ArgValue::Type::String:
        return static_cast<std::int64_t>(varint::get(p));
    case ArgValue::Type::Int:
    case ArgValue::Type::Bool:
        break;
    }
    return varint::unzigzag(0, varint::get(p));
}

/// get() for bytes nobody vouches for (a snapshot): false when the value runs past `end`, a varint is longer than
/// 64 bits allow or a string id is not 32 bits.
inline bool getChecked(const std::uint8_t*& p, const std::uint8_t* end, ArgValue::Type type, std::int64_t& bits)
{
    if (type == ArgValue::Type::Double) {
        if (end - p < static_cast<std::ptrdiff_t>(sizeof bits))
            return false;
        std::memcpy(&bits, p, sizeof bits);
        p += sizeof bits;
        return true;
    }
    std::uint64_t v = 0;
    if (!varint::getChecked(p, end, v))
        return false;
    if (type == ArgValue::Type::String) {
        if (v > 0xffffffffU)
            return false;
        bits = static_cast<std::int64_t>(v);
    } else {
        bits = varint::unzigzag(0, v);
    }
    return true;
}
} // namespace argcoding

/// The args of one set as the store keeps them: keys and types from the set's schema, values decoded from the
/// store's bytes (argcoding) as they are read. Iterating yields model::Arg by value; operator[] walks from the
/// first value (sets are short).
class ArgSet
{
public:
    class Iterator
    {
    public:
        using iterator_category = std::forward_iterator_tag;
        using value_type = Arg;
        using difference_type = std::ptrdiff_t;
        using pointer = void;
        using reference = Arg;
        Iterator() = default;
        Iterator(const ArgKey* key, const std::uint8_t* value)
            : m_key(key)
            , m_value(value)
        {
        }
        Arg operator*() const
        {
            const std::uint8_t* p = m_value;
            return Arg {m_key->key, ArgValue::fromRaw(m_key->type, argcoding::get(p, m_key->type))};
        }
        Iterator& operator++()
        {
            (void)argcoding::get(m_value, m_key->type);
            ++m_key;
            return *this;
        }
        Iterator operator++(int)
        {
            Iterator before = *this;
            ++*this;
            return before;
        }
        bool operator==(const Iterator& o) const { return m_key == o.m_key; }

    private:
        const ArgKey* m_key = nullptr;
        const std::uint8_t* m_value = nullptr;
    };

    ArgSet() = default;
    ArgSet(const ArgKey* keys, const std::uint8_t* values, std::size_t size)
        : m_keys(keys)
        , m_values(values)
        , m_size(size)
    {
    }
    [[nodiscard]] std::size_t size() const { return m_size; }
    [[nodiscard]] bool empty() const { return m_size == 0; }
    [[nodiscard]] Arg operator[](std::size_t i) const
    {
        Iterator it = begin();
        for (; i > 0; --i)
            ++it;
        return *it;
    }
    [[nodiscard]] Iterator begin() const { return {m_keys, m_values}; }
    [[nodiscard]] Iterator end() const { return {m_keys + m_size, nullptr}; }
    /// First value for `key` in the set.
    [[nodiscard]] std::optional<ArgValue> find(StringId key) const
    {
        const std::uint8_t* p = m_values;
        for (std::size_t i = 0; i < m_size; ++i) {
            const std::int64_t bits = argcoding::get(p, m_keys[i].type);
            if (m_keys[i].key == key)
                return ArgValue::fromRaw(m_keys[i].type, bits);
        }
        return std::nullopt;
    }
    /// Same keys, types and values, in the same order.
    [[nodiscard]] bool equals(std::span<const Arg> args) const;

private:
    const ArgKey* m_keys = nullptr;
    const std::uint8_t* m_values = nullptr; // argcoding bytes
    std::size_t m_size = 0;
};

/// Deduplicated argument sets, stored apart from the hot slice columns.
/// Keys are kept in insertion order (the order of the source) so dumps are faithful.
///
/// Sets are stored by schema: the sequence of (key, type) a set has is kept once (events of one kind carry the same
/// keys, event after event), and per set only its schema number, where its values start and the values, packed
/// (argcoding). A torch_npu kernel's seven args cost ~27 bytes with their offset and schema: 116 with a key and
/// type in every arg, 64 with 8 bytes a value.
class ArgStore
{
public:
    /// Adds `args` (or finds an identical set) and returns its id. An empty span gives an invalid id.
    ArgSetId add(std::span<const Arg> args);
    /// Adds `args` without looking for (or indexing for) an identical set: for sets that carry a per-event id
    /// (a correlation id) and so can never repeat. Probing a table of millions of such sets is a cache miss
    /// per event for nothing.
    ArgSetId addUnique(std::span<const Arg> args);
    [[nodiscard]] ArgSet get(ArgSetId id) const;
    /// First value for `key` in the set.
    [[nodiscard]] std::optional<ArgValue> find(ArgSetId id, StringId key) const { return get(id).find(key); }
    [[nodiscard]] std::size_t setCount() const { return m_offsets.empty() ? 0 : m_offsets.size() - 1; }
    [[nodiscard]] std::size_t schemaCount() const { return m_schemaOffsets.empty() ? 0 : m_schemaOffsets.size() - 1; }
    [[nodiscard]] std::size_t bytesUsed() const;
    void shrinkToFit();
    /// What is inconsistent in a store nobody vouches for (a snapshot's columns), or nothing: offsets that do not
    /// run from 0 to the end of the values in order, a set whose schema does not exist or whose values are not
    /// exactly its schema's, a schema key or string value that is not one of the `stringCount` strings.
    [[nodiscard]] std::optional<std::string> inconsistency(std::uint64_t stringCount) const;
    /// inconsistency() in two steps, so that the values can be checked on several threads: the offsets and
    /// schemas first, then (only when they are sound) the sets [first, last), in any order and pieces.
    [[nodiscard]] std::optional<std::string> layoutInconsistency(std::uint64_t stringCount) const;
    [[nodiscard]] std::optional<std::string> setsInconsistency(std::uint64_t stringCount, std::size_t first,
                                                               std::size_t last) const;

private:
    friend class SnapshotAccess;
    std::uint32_t schemaOf(std::span<const Arg> args);
    // The per-set and per-value columns grow with the trace: on realloc, so growing and shrinking never copy them
    // (podbuffer.h).
    PodBuffer<std::uint8_t> m_values;   // every arg's value (argcoding), set after set
    PodBuffer<std::uint32_t> m_offsets; // set i = the bytes [m_offsets[i], m_offsets[i+1]) of m_values
    PodBuffer<std::uint32_t> m_schemas; // set i's schema
    std::vector<ArgKey> m_schemaKeys;   // schema s = [m_schemaOffsets[s], m_schemaOffsets[s+1])
    std::vector<std::uint32_t> m_schemaOffsets;
    // Dedupe indexes while building, open addressing: a slot holds a 32-bit hash (high half) and an id + 1 (low
    // half; 0 = empty), so a probe touches one cache line and growth never rehashes contents. Sets in m_slots,
    // schemas in m_schemaSlots.
    std::vector<std::uint64_t> m_slots;
    std::size_t m_indexed = 0; // sets in m_slots
    std::vector<std::uint64_t> m_schemaSlots;
};

} // namespace timesink::model
