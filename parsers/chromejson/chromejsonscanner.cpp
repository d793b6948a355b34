// SPDX-License-Identifier: MIT
#include "parsers/chromejson/chromejsonscanner.h"

#include <cstdio>
#include <cstring>
#include <utility>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace timesink::parsers::chromejson {

namespace {
constexpr std::size_t kMaxKeyBytes = 4096;

bool isSpace(char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

// Index of the first '"' or '\\' in [j, n), or n: the end of a string body. Kernel names and arg values are long.
std::size_t skipStringBody(const char* p, std::size_t j, std::size_t n)
{
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i backslash = _mm_set1_epi8('\\');
    for (; j + 16 <= n; j += 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + j));
        const int mask = _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)));
        if (mask != 0)
            return j + static_cast<std::size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
    }
#else
    constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
    constexpr std::uint64_t kHigh = 0x8080808080808080ULL;
    constexpr std::uint64_t kQuote = kOnes * '"';
    constexpr std::uint64_t kBackslash = kOnes * '\\';
    while (j + 8 <= n) {
        std::uint64_t v;
        std::memcpy(&v, p + j, 8);
        const std::uint64_t q = v ^ kQuote;
        const std::uint64_t b = v ^ kBackslash;
        // A byte of q or b is zero exactly where v holds a quote or a backslash.
        if ((((q - kOnes) & ~q) | ((b - kOnes) & ~b)) & kHigh)
            break;
        j += 8;
    }
#endif
    while (j < n && p[j] != '"' && p[j] != '\\')
        ++j;
    return j;
}

bool isStructural(char c)
{
    return c == '"' || c == '{' || c == '}' || c == '[' || c == ']';
}

#if defined(__SSE2__)
// Bit k set where block[k] holds one of the four bytes: quotes, backslashes, '{' or '[', '}' or ']'.
struct BlockMasks
{
    std::uint64_t quote;
    std::uint64_t backslash;
    std::uint64_t open;
    std::uint64_t close;
};

// Four 16-byte parts: each part's four comparisons. Written out per part (a template over its index), so the
// shifts are constants and there is no loop: as a loop, GCC kept the counter and variable shifts, and the masks
// were three quarters of the boundary scan's samples.
template <int Part> void addPartMasks(const char* block, BlockMasks& m)
{
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(block + std::ptrdiff_t {16} * Part));
    // '[' and '{' (0x5b, 0x7b), ']' and '}' (0x5d, 0x7d) differ only in bit 0x20, and no other byte maps onto them.
    const __m128i folded = _mm_or_si128(v, _mm_set1_epi8(0x20));
    const auto bits = [](__m128i eq) {
        return static_cast<std::uint64_t>(static_cast<std::uint32_t>(_mm_movemask_epi8(eq))) << (16 * Part);
    };
    m.quote |= bits(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')));
    m.backslash |= bits(_mm_cmpeq_epi8(v, _mm_set1_epi8('\\')));
    m.open |= bits(_mm_cmpeq_epi8(folded, _mm_set1_epi8('{')));
    m.close |= bits(_mm_cmpeq_epi8(folded, _mm_set1_epi8('}')));
}

BlockMasks blockMasks(const char* block)
{
    BlockMasks m {0, 0, 0, 0};
    addPartMasks<0>(block, m);
    addPartMasks<1>(block, m);
    addPartMasks<2>(block, m);
    addPartMasks<3>(block, m);
    return m;
}

// Bit k of the result is the XOR of bits 0..k of x: with x the quotes of a block, the bytes inside strings
// (each opening quote included, each closing one not).
std::uint64_t prefixXor(std::uint64_t x)
{
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
}
#endif

// Index of the first '"', '{', '}', '[' or ']' in [j, n), or n: outside strings nothing else changes the scanner's
// state. The gaps between strings are a few bytes (`":"`, `","`, `:12.5,`), so a tight byte loop beats loading
// SIMD blocks (measured on Kineto and torch_npu traces).
std::size_t skipToStructural(const char* p, std::size_t j, std::size_t n)
{
    while (j < n && !isStructural(p[j]))
        ++j;
    return j;
}
} // namespace

ChromeJsonScanner::ChromeJsonScanner(Handler& handler, std::uint64_t maxElementBytes)
    : m_handler(handler)
    , m_maxElementBytes(maxElementBytes)
{
}

std::string ChromeJsonScanner::describe(char c)
{
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f)
        return std::string("'") + c + "'";
    char buf[16];
    std::snprintf(buf, sizeof buf, "byte 0x%02x", u);
    return buf;
}

void ChromeJsonScanner::fail(std::string message)
{
    m_mode = Mode::Fatal;
    m_fatal = std::move(message);
}

std::string_view ChromeJsonScanner::positionDescription() const
{
    switch (m_mode) {
    case Mode::Start:
        return "before any JSON";
    case Mode::Array:
    case Mode::Element:
        if (m_inEvents)
            return m_kind == ElementKind::Event && m_mode == Mode::Element ? "inside an event of the event array"
                                                                           : "inside the event array";
        return "inside a top-level value";
    case Mode::ObjKey:
    case Mode::ObjKeyString:
    case Mode::ObjColon:
    case Mode::ObjValue:
        return "inside the top-level object";
    case Mode::Done:
    case Mode::Trailing:
        return "after the end of the JSON";
    case Mode::Fatal:
        break;
    }
    return "at an invalid position";
}

void ChromeJsonScanner::beginElement(char first, ElementKind kind)
{
    m_kind = kind;
    m_shape = (first == '{' || first == '[') ? Shape::Container : first == '"' ? Shape::String : Shape::Scalar;
    m_depth = 0;
    m_inString = false;
    m_escape = false;
    m_overflow = false;
    m_elementBytes = 0;
    m_element.clear();
    m_mode = Mode::Element;
}

void ChromeJsonScanner::endElement(std::string_view text)
{
    switch (m_kind) {
    case ElementKind::Event:
        if (m_overflow) {
            m_handler.onIssue(model::ImportWarningKind::EventTooLarge,
                              "an event of " + std::to_string(m_elementBytes) + " bytes exceeds the limit of "
                                  + std::to_string(m_maxElementBytes) + " bytes per event and was skipped");
        } else {
            ++m_events;
            m_handler.onEvent(text);
        }
        m_mode = Mode::Array;
        break;
    case ElementKind::NonObject:
        ++m_nonObjects;
        m_handler.onIssue(model::ImportWarningKind::NotAnObject,
                          "an element of the event array is not a JSON object and was skipped");
        m_mode = Mode::Array;
        break;
    case ElementKind::TopLevel:
        if (m_overflow) {
            m_handler.onIssue(model::ImportWarningKind::ValueTooLarge,
                              "the top-level value \"" + m_key + "\" of " + std::to_string(m_elementBytes)
                                  + " bytes was skipped");
        } else {
            m_handler.onTopLevel(m_key, text);
        }
        m_mode = Mode::ObjKey;
        break;
    }
    m_element.clear();
}

// The byte loop over a container or string element from j up to `limit`: returns the index just past the element with
// `done` set when it ends before `limit`, else `limit`.
std::size_t ChromeJsonScanner::scanContainerBytes(const char* p, std::size_t j, std::size_t limit, bool& done)
{
    // Strings hold most of the bytes (kernel names, arg keys): skip them with a tight loop.
    while (j < limit) {
        if (m_inString) {
            if (m_escape) {
                m_escape = false;
                ++j;
                continue;
            }
            j = skipStringBody(p, j, limit);
            if (j == limit)
                break;
            if (p[j] == '\\') {
                m_escape = true;
                ++j;
                continue;
            }
            m_inString = false;
            ++j;
            if (m_shape == Shape::String) {
                done = true;
                return j;
            }
            continue;
        }
        j = skipToStructural(p, j, limit);
        if (j == limit)
            break;
        const char c = p[j++];
        if (c == '"') {
            m_inString = true;
        } else if (c == '{' || c == '[') {
            ++m_depth;
        } else if (c == '}' || c == ']') {
            if (--m_depth == 0) {
                done = true;
                return j;
            }
        }
    }
    return j;
}

// Returns the index just past the element when it ends inside [i, n), else n (the element continues).
std::size_t ChromeJsonScanner::scanElement(const char* p, std::size_t i, std::size_t n)
{
    const std::size_t start = i;
    std::size_t j = i;
    bool done = false;
    if (m_shape == Shape::Scalar) {
        while (j < n) {
            const char c = p[j];
            if (c == ',' || c == ']' || c == '}' || isSpace(c)) {
                done = true;
                break;
            }
            ++j;
        }
    } else {
#if defined(__SSE2__)
        // 64 bytes at a time: a block without backslashes needs no byte steps. Which bytes are inside strings
        // follows from the quotes alone (a prefix XOR), so only the brackets outside strings are visited, a few
        // per event. A block with a backslash (rare: escapes in names) or after one goes through the byte loop,
        // which is the reference for every corner of the grammar.
        while (!done && m_shape == Shape::Container && n - j >= 64) {
            if (m_escape) {
                j = scanContainerBytes(p, j, j + 64, done);
                continue;
            }
            // The block the previous element ended in, when this one starts inside it; else the 64 bytes from j.
            const char* base = p + j;
            BlockMasks m {};
            std::uint64_t from = ~std::uint64_t {0}; // the bits at and after j
            if (m_blockBase != nullptr && m_blockBase <= p + j && p + j < m_blockBase + 64) {
                base = m_blockBase;
                from <<= static_cast<unsigned>(p + j - base);
                m = BlockMasks {m_blockMasks[0] & from, m_blockMasks[1] & from, m_blockMasks[2] & from,
                                m_blockMasks[3] & from};
            } else {
                m = blockMasks(base);
            }
            const auto blockEnd = static_cast<std::size_t>(base + 64 - p);
            if (m.backslash != 0) {
                j = scanContainerBytes(p, j, blockEnd, done);
                continue;
            }
            const std::uint64_t inString = prefixXor(m.quote) ^ (m_inString ? from : 0);
            std::uint64_t brackets = (m.open | m.close) & ~inString;
            while (brackets != 0) {
                const int k = __builtin_ctzll(brackets);
                brackets &= brackets - 1;
                if ((m.open >> k) & 1U) {
                    ++m_depth;
                } else if (--m_depth == 0) {
                    j = static_cast<std::size_t>(base - p) + static_cast<std::size_t>(k) + 1;
                    m_inString = false;
                    done = true;
                    if (base != m_blockBase) {
                        m_blockBase = base;
                        m_blockMasks[0] = m.quote;
                        m_blockMasks[1] = m.backslash;
                        m_blockMasks[2] = m.open;
                        m_blockMasks[3] = m.close;
                    }
                    break;
                }
            }
            if (!done) {
                m_inString = (inString >> 63) != 0;
                j = blockEnd;
            }
        }
#endif
        if (!done)
            j = scanContainerBytes(p, j, n, done);
    }

    const std::size_t len = j - start;
    m_elementBytes += len;
    if (!m_overflow && m_elementBytes > m_maxElementBytes) {
        m_overflow = true;
        m_element.clear();
        m_element.shrink_to_fit();
    }
    if (done) {
        if (m_overflow) {
            endElement({});
        } else if (m_element.empty()) {
            endElement(std::string_view(p + start, len));
        } else {
            m_element.append(p + start, len);
            endElement(m_element);
        }
        return j;
    }
    if (!m_overflow)
        m_element.append(p + start, len);
    return n;
}

bool ChromeJsonScanner::feed(const char* p, std::size_t n)
{
    m_bytes += n;
    m_blockBase = nullptr; // another piece: its bytes may lie where the last one's did
    std::size_t i = 0;
    while (i < n) {
        switch (m_mode) {
        case Mode::Fatal:
            return false;
        case Mode::Start: {
            const auto c = static_cast<unsigned char>(p[i]);
            static constexpr unsigned char kBom[3] = {0xef, 0xbb, 0xbf};
            if (m_bomSeen < 3 && c == kBom[m_bomSeen]) {
                ++m_bomSeen;
                ++i;
            } else if (isSpace(p[i])) {
                ++i;
            } else if (c == '{') {
                m_wrapper = true;
                m_handler.onContainer(true);
                m_mode = Mode::ObjKey;
                ++i;
            } else if (c == '[') {
                m_handler.onContainer(false);
                m_inEvents = true;
                m_mode = Mode::Array;
                ++i;
            } else {
                fail("expected a JSON object with \"traceEvents\" or an array of events, found " + describe(p[i])
                     + " at the start");
            }
            break;
        }
        case Mode::ObjKey: {
            const char c = p[i];
            if (isSpace(c) || c == ',') {
                ++i;
            } else if (c == '}') {
                m_mode = Mode::Done;
                ++i;
            } else if (c == '"') {
                m_key.clear();
                m_keyEscape = false;
                m_mode = Mode::ObjKeyString;
                ++i;
            } else {
                fail("expected a key in the top-level object, found " + describe(c));
            }
            break;
        }
        case Mode::ObjKeyString: {
            const char c = p[i++];
            if (m_keyEscape) {
                m_keyEscape = false;
            } else if (c == '\\') {
                m_keyEscape = true;
            } else if (c == '"') {
                m_mode = Mode::ObjColon;
                break;
            }
            if (m_key.size() < kMaxKeyBytes)
                m_key.push_back(c);
            break;
        }
        case Mode::ObjColon: {
            const char c = p[i];
            if (isSpace(c)) {
                ++i;
            } else if (c == ':') {
                m_mode = Mode::ObjValue;
                ++i;
            } else {
                fail("expected ':' after the top-level key \"" + m_key + "\", found " + describe(c));
            }
            break;
        }
        case Mode::ObjValue: {
            const char c = p[i];
            if (isSpace(c)) {
                ++i;
            } else if (c == '}' || c == ',' || c == ']' || c == ':') {
                fail("expected a value for the top-level key \"" + m_key + "\", found " + describe(c));
            } else if (m_key == "traceEvents" && c == '[') {
                m_inEvents = true;
                m_sawTraceEvents = true;
                m_mode = Mode::Array;
                ++i;
            } else {
                beginElement(c, ElementKind::TopLevel);
            }
            break;
        }
        case Mode::Array: {
            const char c = p[i];
            if (isSpace(c) || c == ',') {
                ++i;
            } else if (c == ']') {
                ++i;
                m_inEvents = false;
                m_mode = m_wrapper ? Mode::ObjKey : Mode::Done;
            } else if (c == '}' || c == ':') {
                fail("expected an event object in the event array, found " + describe(c));
            } else {
                beginElement(c, c == '{' ? ElementKind::Event : ElementKind::NonObject);
            }
            break;
        }
        case Mode::Element:
            i = scanElement(p, i, n);
            break;
        case Mode::Done:
            if (isSpace(p[i]) || p[i] == '\0') {
                ++i;
            } else {
                m_handler.onIssue(model::ImportWarningKind::TrailingData,
                                  "bytes after the end of the JSON document were ignored");
                m_mode = Mode::Trailing;
            }
            break;
        case Mode::Trailing:
            return true;
        }
    }
    return m_mode != Mode::Fatal;
}

} // namespace timesink::parsers::chromejson
