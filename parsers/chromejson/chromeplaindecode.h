// SPDX-License-Identifier: MIT
// Internal to the Chrome reader: the plain event decoder, with its own string, escape and number handling.
#pragma once

#ifndef TIMESINK_CHROME_BATCH_DECODE
#error "internal to chromebatchdecode.cpp: its functions have internal linkage so that they inline there"
#endif

#include "parsers/chromejson/chromebatch.h"
#include "parsers/chromejson/chromefielddecode.h"

#include <cctype>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <simdjson.h>
#include <string>
#include <string_view>

namespace timesink::parsers::chromejson::detail {

namespace od = simdjson::ondemand;

// Internal linkage on purpose: this header is chromebatchdecode.cpp's alone (the guard above), and GCC inlines a
// function called once only when it is local to the TU. With external (inline) linkage, the walkers' loops stayed
// calls and the 1 GB Kineto import took 15 % more CPU.
namespace {

// ---------------------------------------------------------------------------------------------------------------
// The plain decoder: one pass over an event's text that accepts only strictly valid JSON without the cases it
// leaves to simdjson (a \u escape of a surrogate, a number std::from_chars cannot take, nesting
// past kPlainMaxDepth). It reports nothing itself: when it declines, the event is decoded by simdjson, which
// gives the verdict and the message, so both walkers read every event the same way (fuzz_chromejson checks it).
// The batch's UTF-8 is validated once beforehand, as simdjson's stage 1 does. The text is padded past its end
// (SIMDJSON_PADDING): the 16-byte loads may read past a string into what follows.

constexpr int kPlainMaxDepth = 64;
constexpr simdjson::error_code kDeclined = simdjson::TAPE_ERROR;

bool isJsonSpace(char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

// What a one-letter JSON escape stands for ('n' → newline), or '\0' for a letter that is not one.
char simpleEscape(char e)
{
    switch (e) {
    case '"':
    case '\\':
    case '/':
        return e;
    case 'b':
        return '\b';
    case 'f':
        return '\f';
    case 'n':
        return '\n';
    case 'r':
        return '\r';
    case 't':
        return '\t';
    default:
        return '\0';
    }
}

// Appends the UTF-8 of a \uXXXX escape's code point; false for a surrogate (left to simdjson) or bad hex.
bool appendUnicodeEscape(const char* hex, std::string& out)
{
    unsigned cp = 0;
    for (int i = 0; i < 4; ++i) {
        const char c = hex[i];
        unsigned v = 0;
        if (c >= '0' && c <= '9')
            v = static_cast<unsigned>(c - '0');
        else if (c >= 'a' && c <= 'f')
            v = static_cast<unsigned>(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v = static_cast<unsigned>(c - 'A' + 10);
        else
            return false;
        cp = cp * 16 + v;
    }
    if (cp >= 0xD800 && cp <= 0xDFFF)
        return false;
    if (cp < 0x80) {
        out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
        out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
        out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
    return true;
}

class PlainCursor
{
public:
    /// `unescaped` receives the text of strings with escapes; its capacity must hold every string of the text
    /// (an unescaped string is never longer than its JSON), since views into it must not move.
    PlainCursor(const char* begin, const char* end, std::string& unescaped)
        : m_p(begin)
        , m_end(end)
        , m_unescaped(unescaped)
    {
    }
    [[nodiscard]] bool atEnd() const { return m_p >= m_end; }
    [[nodiscard]] char peek() const { return m_p < m_end ? *m_p : '\0'; }
    [[nodiscard]] const char* position() const { return m_p; }
    // Set when a value's reader declined: the event goes to simdjson whatever decodeField() made of it.
    [[nodiscard]] bool declined() const { return m_declined; }
    simdjson::error_code decline()
    {
        m_declined = true;
        return kDeclined;
    }
    void skipSpace()
    {
        while (m_p < m_end && isJsonSpace(*m_p))
            ++m_p;
    }
    bool consume(char c)
    {
        if (m_p < m_end && *m_p == c) {
            ++m_p;
            return true;
        }
        return false;
    }
    // The string at the cursor (on its opening quote): its text where it lies, or unescaped (real torch_npu
    // traces write "\r\n" in every operator's shapes); a null view for an invalid string or a surrogate escape.
    std::string_view plainString()
    {
        if (peek() != '"')
            return {};
        const char* const begin = m_p + 1;
        const std::size_t n = stringStop(begin);
        const char* const close = begin + n;
        if (close >= m_end)
            return {};
        if (*close == '"') {
            m_p = close + 1;
            return {begin, n}; // non-null data() when empty, as simdjson gives
        }
        if (*close != '\\')
            return {}; // a control character
        return unescapedString(begin, close);
    }
    // Any valid string at the cursor, escapes included (for text kept raw or skipped).
    bool skipString()
    {
        if (!consume('"'))
            return false;
        for (;;) {
            const char* const stop = m_p + stringStop(m_p);
            if (stop >= m_end)
                return false;
            m_p = stop + 1;
            if (*stop == '"')
                return true;
            if (*stop != '\\' || m_p >= m_end)
                return false; // a control character
            const char e = *m_p++;
            if (e == 'u') {
                for (int i = 0; i < 4; ++i) {
                    if (m_p >= m_end || !std::isxdigit(static_cast<unsigned char>(*m_p)))
                        return false;
                    ++m_p;
                }
            } else if (simpleEscape(e) == '\0') {
                return false;
            }
        }
    }
    // A number by JSON's grammar: its token, or a null view. `integer` receives its value when the token is an
    // integer of up to 18 digits (the pids, tids, ids and counts of real traces; read as the digits go by, not
    // in a second pass over the token), otherwise `isInteger` is false and parseInt() decides.
    std::string_view number(std::int64_t& integer, bool& isInteger)
    {
        const char* const begin = m_p;
        const char* p = m_p;
        const bool negative = p < m_end && *p == '-';
        if (negative)
            ++p;
        std::uint64_t v = 0;
        const char* const firstDigit = p;
        if (p < m_end && *p == '0') {
            ++p;
        } else if (p < m_end && *p >= '1' && *p <= '9') {
            while (p < m_end && isDigit(*p))
                v = v * 10 + static_cast<unsigned>(*p++ - '0'); // wraps past 19 digits: then unused
        } else {
            return {};
        }
        isInteger = p - firstDigit <= 18 && (p >= m_end || (*p != '.' && *p != 'e' && *p != 'E'));
        integer = static_cast<std::int64_t>(negative ? std::uint64_t {0} - v : v); // modulo 2^64: no overflow
        if (p < m_end && *p == '.') {
            ++p;
            if (p >= m_end || !isDigit(*p))
                return {};
            while (p < m_end && isDigit(*p))
                ++p;
        }
        if (p < m_end && (*p == 'e' || *p == 'E')) {
            ++p;
            if (p < m_end && (*p == '+' || *p == '-'))
                ++p;
            if (p >= m_end || !isDigit(*p))
                return {};
            while (p < m_end && isDigit(*p))
                ++p;
        }
        m_p = p;
        return {begin, static_cast<std::size_t>(p - begin)};
    }
    bool literal(std::string_view word)
    {
        if (static_cast<std::size_t>(m_end - m_p) < word.size() || std::memcmp(m_p, word.data(), word.size()) != 0)
            return false;
        m_p += word.size();
        return true;
    }
    // Any valid value at the cursor.
    bool skipValue(int depth)
    {
        switch (peek()) {
        case '"':
            return skipString();
        case '{':
        case '[': {
            if (depth >= kPlainMaxDepth)
                return false;
            const bool object = *m_p++ == '{';
            const char close = object ? '}' : ']';
            skipSpace();
            if (consume(close))
                return true;
            for (;;) {
                if (object) {
                    if (!skipString())
                        return false;
                    skipSpace();
                    if (!consume(':'))
                        return false;
                    skipSpace();
                }
                if (!skipValue(depth + 1))
                    return false;
                skipSpace();
                if (consume(close))
                    return true;
                if (!consume(','))
                    return false;
                skipSpace();
            }
        }
        case 't':
            return literal("true");
        case 'f':
            return literal("false");
        case 'n':
            return literal("null");
        default: {
            std::int64_t integer = 0;
            bool isInteger = false;
            return number(integer, isInteger).data() != nullptr;
        }
        }
    }

private:
    // The rest of a string from its first backslash, unescaped into m_unescaped.
    std::string_view unescapedString(const char* begin, const char* backslash)
    {
        const std::size_t start = m_unescaped.size();
        // The unescaped text is no longer than what is left of the event: with room for that, nothing moves.
        if (start + static_cast<std::size_t>(m_end - begin) > m_unescaped.capacity())
            return {};
        m_unescaped.append(begin, backslash);
        const char* p = backslash;
        for (;;) {
            // p is on a backslash.
            if (p + 1 >= m_end)
                return {};
            const char e = p[1];
            p += 2;
            if (e == 'u') {
                if (m_end - p < 4 || !appendUnicodeEscape(p, m_unescaped))
                    return {};
                p += 4;
            } else if (const char c = simpleEscape(e)) {
                m_unescaped.push_back(c);
            } else {
                return {};
            }
            const std::size_t n = stringStop(p);
            const char* const stop = p + n;
            if (stop >= m_end)
                return {};
            m_unescaped.append(p, stop);
            p = stop;
            if (*p == '"')
                break;
            if (*p != '\\')
                return {}; // a control character
        }
        m_p = p + 1;
        return {m_unescaped.data() + start, m_unescaped.size() - start};
    }

    const char* m_p;
    const char* m_end;
    std::string& m_unescaped;
    bool m_declined = false;
};

// The plain decoder's handle on a value: decodeField()'s calls read it at the cursor and move past it; a value
// they did not read is skipped (and validated) by the walk.
class PlainValue
{
public:
    PlainValue(PlainCursor& cursor, int depth)
        : m_cursor(cursor)
        , m_start(cursor.position())
        , m_depth(depth)
    {
    }
    [[nodiscard]] bool consumed() const { return m_cursor.position() != m_start; }
    simdjson::error_code type(od::json_type& t)
    {
        switch (m_cursor.peek()) {
        case '"':
            t = od::json_type::string;
            return simdjson::SUCCESS;
        case '{':
            t = od::json_type::object;
            return simdjson::SUCCESS;
        case '[':
            t = od::json_type::array;
            return simdjson::SUCCESS;
        case 't':
        case 'f':
            t = od::json_type::boolean;
            return simdjson::SUCCESS;
        case 'n':
            t = od::json_type::null;
            return simdjson::SUCCESS;
        default:
            if (m_cursor.peek() == '-' || isDigit(m_cursor.peek())) {
                t = od::json_type::number;
                return simdjson::SUCCESS;
            }
            return m_cursor.decline();
        }
    }
    simdjson::error_code string(std::string_view& s)
    {
        s = m_cursor.plainString();
        return s.data() != nullptr ? simdjson::SUCCESS : m_cursor.decline();
    }
    simdjson::error_code numberToken(std::string_view& t)
    {
        t = m_cursor.number(m_integer, m_isInteger);
        m_number = t;
        return t.data() != nullptr ? simdjson::SUCCESS : m_cursor.decline();
    }
    // Whether the number numberToken() read is an integer that fits in 64 bits, and its value.
    bool integer(std::int64_t& v) const
    {
        if (!m_isInteger)
            return parseInt(m_number, v);
        v = m_integer;
        return true;
    }
    simdjson::error_code boolean(bool& v)
    {
        if (m_cursor.literal("true"))
            v = true;
        else if (m_cursor.literal("false"))
            v = false;
        else
            return m_cursor.decline();
        return simdjson::SUCCESS;
    }
    // The value of the number numberToken() read, correctly rounded as simdjson rounds it; out of range declines.
    simdjson::error_code toDouble(double& d)
    {
        const char* const end = m_number.data() + m_number.size();
        const auto [p, ec] = std::from_chars(m_number.data(), end, d);
        return ec == std::errc() && p == end ? simdjson::SUCCESS : m_cursor.decline();
    }
    simdjson::error_code rawJson(std::string_view& t)
    {
        const char* const begin = m_cursor.position();
        if (!m_cursor.skipValue(m_depth))
            return m_cursor.decline();
        m_cursor.skipSpace(); // simdjson's raw_json() runs to the next token, whitespace included
        t = std::string_view(begin, static_cast<std::size_t>(m_cursor.position() - begin));
        return simdjson::SUCCESS;
    }
    // An object's fields: f(key, PlainValue&) for each, the values it leaves skipped.
    template <typename F> simdjson::error_code forEachField(F&& f)
    {
        if (m_depth >= kPlainMaxDepth || !m_cursor.consume('{'))
            return kDeclined;
        m_cursor.skipSpace();
        if (m_cursor.consume('}'))
            return simdjson::SUCCESS;
        for (;;) {
            const std::string_view key = m_cursor.plainString();
            if (key.data() == nullptr)
                return kDeclined;
            m_cursor.skipSpace();
            if (!m_cursor.consume(':'))
                return kDeclined;
            m_cursor.skipSpace();
            PlainValue value(m_cursor, m_depth + 1);
            if (auto err = f(key, value))
                return err;
            if (m_cursor.declined())
                return kDeclined; // e.g. a string with an escape, which decodeField() took for a bad field
            if (!value.consumed() && !m_cursor.skipValue(m_depth + 1))
                return kDeclined;
            m_cursor.skipSpace();
            if (m_cursor.consume('}'))
                return simdjson::SUCCESS;
            if (!m_cursor.consume(','))
                return kDeclined;
            m_cursor.skipSpace();
        }
    }

private:
    PlainCursor& m_cursor;
    const char* m_start;
    int m_depth;
    std::string_view m_number;
    std::int64_t m_integer = 0;
    bool m_isInteger = false;
};

// Decodes the event object text [begin, end) with the plain decoder; false when it declines (the event's args it
// added are left for the caller to drop).
bool decodeEventPlain(const char* begin, const char* end, ChromeEvent& ev, Batch& b, bool flowNames)
{
    const auto argBegin = static_cast<std::uint32_t>(b.args.size());
    auto same = [](std::string_view s) { return s; }; // every view is into the batch: its text or its unescaped
    PlainCursor cursor(begin, end, b.unescaped);
    cursor.skipSpace();
    PlainValue event(cursor, 0);
    const simdjson::error_code err = event.forEachField([&](std::string_view key, PlainValue& val) {
        if (skipsField(ev, key, flowNames))
            return simdjson::SUCCESS; // skipped by the walk
        return decodeField(key, val, ev, b, same);
    });
    if (err)
        return false;
    cursor.skipSpace();
    if (!cursor.atEnd())
        return false;
    b.argRanges.emplace_back(argBegin, static_cast<std::uint32_t>(b.args.size()) - argBegin);
    return true;
}

} // namespace

} // namespace timesink::parsers::chromejson::detail
