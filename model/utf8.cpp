// SPDX-License-Identifier: MIT
#include "model/utf8.h"

#include <cstdint>

namespace timesink::model {

namespace {

// Length of the well-formed sequence starting at text[i], or 0 when the bytes there are ill-formed. `bad` is then
// the length of the maximal ill-formed subpart (at least 1), which becomes one U+FFFD.
std::size_t sequenceLength(std::string_view text, std::size_t i, std::size_t& bad)
{
    const auto b = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
    const unsigned char c = b(i);
    bad = 1;
    if (c < 0x80)
        return 1;
    std::size_t need = 0;
    unsigned char lo = 0x80;
    unsigned char hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) {
        need = 1;
    } else if (c >= 0xe0 && c <= 0xef) {
        need = 2;
        if (c == 0xe0)
            lo = 0xa0; // overlong
        else if (c == 0xed)
            hi = 0x9f; // surrogates
    } else if (c >= 0xf0 && c <= 0xf4) {
        need = 3;
        if (c == 0xf0)
            lo = 0x90; // overlong
        else if (c == 0xf4)
            hi = 0x8f; // above U+10FFFF
    } else {
        return 0;
    }
    for (std::size_t k = 1; k <= need; ++k) {
        if (i + k >= text.size())
            return 0;
        const unsigned char x = b(i + k);
        const unsigned char l = k == 1 ? lo : 0x80;
        const unsigned char h = k == 1 ? hi : 0xbf;
        if (x < l || x > h)
            return 0;
        bad = k + 1;
    }
    return need + 1;
}

} // namespace

bool isValidUtf8(std::string_view text)
{
    std::size_t i = 0;
    std::size_t bad = 0;
    while (i < text.size()) {
        // ASCII runs dominate trace names: skip them eight bytes at a time.
        while (i + 8 <= text.size()) {
            std::uint64_t word = 0;
            for (std::size_t k = 0; k < 8; ++k)
                word |= std::uint64_t(static_cast<unsigned char>(text[i + k])) << (8 * k);
            if (word & 0x8080808080808080ULL)
                break;
            i += 8;
        }
        if (i >= text.size())
            break;
        const std::size_t n = sequenceLength(text, i, bad);
        if (n == 0)
            return false;
        i += n;
    }
    return true;
}

std::string toValidUtf8(std::string_view text, std::size_t* replaced)
{
    std::string out;
    out.reserve(text.size() + 8);
    std::size_t i = 0;
    std::size_t bad = 0;
    while (i < text.size()) {
        const std::size_t n = sequenceLength(text, i, bad);
        if (n == 0) {
            // The maximal subpart ends before the byte that broke it; that byte starts the next attempt.
            out += "\xEF\xBF\xBD";
            if (replaced)
                ++*replaced;
            i += bad;
            continue;
        }
        out.append(text.substr(i, n));
        i += n;
    }
    return out;
}

bool makeValidUtf8(std::string& text)
{
    if (isValidUtf8(text))
        return false;
    text = toValidUtf8(text);
    return true;
}

} // namespace timesink::model
