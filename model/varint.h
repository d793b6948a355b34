// SPDX-License-Identifier: MIT
#pragma once

#include "model/types.h"

#include <cstdint>

namespace timesink::model::varint {

/// LEB128 varints and zigzag time differences, for the lists the importers keep packed until finalize (flow events
/// until they are paired, time-addressed flows until they are bound): sorted times and ids differ by little, so
/// a 32-byte record packs into ~6-8 bytes, and a million of them cost that many fewer fresh pages.
///
///   std::uint8_t buf[kMaxBytes * 2];
///   std::uint8_t* end = put(put(buf, 300), zigzag(ts, previousTs)); // 2 bytes + a few
///   const std::uint8_t* p = buf;
///   get(p) == 300; unzigzag(previousTs, get(p)) == ts;

/// The most bytes one 64-bit value takes.
inline constexpr std::size_t kMaxBytes = 10;

/// Writes `v` at `out` (1-10 bytes) and returns the end.
inline std::uint8_t* put(std::uint8_t* out, std::uint64_t v)
{
    while (v >= 0x80) {
        *out++ = static_cast<std::uint8_t>(v | 0x80);
        v >>= 7;
    }
    *out++ = static_cast<std::uint8_t>(v);
    return out;
}

/// Reads a value written by put() and moves `p` past it. The caller knows one is there (lists it wrote).
inline std::uint64_t get(const std::uint8_t*& p)
{
    std::uint64_t v = 0;
    for (unsigned shift = 0;; shift += 7) {
        const std::uint8_t byte = *p++;
        v |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
        if ((byte & 0x80) == 0)
            return v;
    }
}

/// get() for bytes nobody vouches for (a snapshot): false when the value runs past `end` or is longer than 64 bits
/// allow, with `p` then somewhere inside it.
inline bool getChecked(const std::uint8_t*& p, const std::uint8_t* end, std::uint64_t& v)
{
    v = 0;
    for (unsigned shift = 0;; shift += 7) {
        if (p == end || shift > 63)
            return false;
        const std::uint8_t byte = *p++;
        if (shift == 63 && byte > 1)
            return false; // more than 64 bits
        v |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
        if ((byte & 0x80) == 0)
            return true;
    }
}

/// value - base as a small unsigned number for either sign. The difference wraps around in 64 bits, so any two
/// values give one that unzigzag() turns back exactly.
inline std::uint64_t zigzag(TimeNs value, TimeNs base)
{
    const std::uint64_t d = static_cast<std::uint64_t>(value) - static_cast<std::uint64_t>(base);
    return (d << 1) ^ (0 - (d >> 63));
}
/// The value whose zigzag() against `base` is `z`.
inline TimeNs unzigzag(TimeNs base, std::uint64_t z)
{
    return static_cast<TimeNs>(static_cast<std::uint64_t>(base) + ((z >> 1) ^ (0 - (z & 1))));
}

} // namespace timesink::model::varint
