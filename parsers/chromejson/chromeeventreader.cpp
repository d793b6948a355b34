// SPDX-License-Identifier: MIT
#include "parsers/chromejson/chromeeventreader.h"

#include "model/workers.h"
#include "parsers/chromejson/chromejsonscanner.h"
#include "parsers/common/decimaltime.h"
#include "parsers/common/inputstream.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <functional>
#include <limits>
#include <mutex>
#include <new>
#include <simdjson.h>
#include <vector>

namespace timesink::parsers::chromejson {

namespace od = simdjson::ondemand;

// ---------------------------------------------------------------------------------------------------------------
// Exact decimal µs → ns.

std::optional<model::TimeNs> microsTextToNs(std::string_view text)
{
    // One exact decimal parser serves every importer (JSON numbers and strings, CSV cells, SQLite text).
    return parseMicrosToNs(text);
}

namespace {

std::string_view trimToken(std::string_view t)
{
    while (!t.empty() && (t.back() == ' ' || t.back() == '\n' || t.back() == '\r' || t.back() == '\t'))
        t.remove_suffix(1);
    return t;
}

// The two scans below read simdjson's input, padded past its end (SIMDJSON_PADDING), 16 bytes at a time: their
// loads may read past the string into the text after it or the padding. A byte loop took half of the string
// helpers' time on kernel names and shapes.

// Whether [p, p + n) holds a backslash.
bool hasBackslash(const char* p, std::size_t n)
{
#if defined(__SSE2__)
    const __m128i backslash = _mm_set1_epi8('\\');
    for (std::size_t i = 0; i < n; i += 16) {
        const __m128i block = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
        auto mask = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(block, backslash)));
        if (n - i < 16)
            mask &= (1U << (n - i)) - 1U;
        if (mask != 0)
            return true;
    }
    return false;
#else
    return std::memchr(p, '\\', n) != nullptr;
#endif
}

// The offset from p of the first quote, backslash or control character (< 0x20) at or after p: where a JSON
// string ends or needs more than a copy. Both walkers use it.
std::size_t stringStop(const char* p)
{
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i backslash = _mm_set1_epi8('\\');
    const __m128i control = _mm_set1_epi8(0x1F);
    for (std::size_t i = 0;; i += 16) {
        const __m128i block = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
        // Unsigned block <= 0x1F exactly where max(block, 0x1F) == 0x1F.
        const __m128i low = _mm_cmpeq_epi8(_mm_max_epu8(block, control), control);
        const auto mask = static_cast<unsigned>(_mm_movemask_epi8(
            _mm_or_si128(low, _mm_or_si128(_mm_cmpeq_epi8(block, quote), _mm_cmpeq_epi8(block, backslash)))));
        if (mask != 0)
            return i + static_cast<std::size_t>(__builtin_ctz(mask));
    }
#else
    std::size_t i = 0;
    while (p[i] != '"' && p[i] != '\\' && static_cast<unsigned char>(p[i]) >= 0x20)
        ++i;
    return i;
#endif
}

// The text of a string value straight from the input when it holds no escape, without simdjson's unescaping copy:
// torch_npu and msprof write every "ts" and many "id"s as strings ("1736408883700059.821"). The view points into
// the batch text, which outlives the event's delivery.
bool plainStringToken(od::value& val, std::string_view& out)
{
    const std::string_view raw = trimToken(val.raw_json_token());
    if (raw.size() < 2 || raw.front() != '"' || raw.back() != '"')
        return false;
    const std::string_view inner = raw.substr(1, raw.size() - 2);
    if (hasBackslash(inner.data(), inner.size()))
        return false;
    out = inner;
    return true;
}

// The two functions below return the text by value, in registers, with a null data() for an error. Through an
// out-parameter, a call wrote the view in two 8-byte halves that the caller read back as one 16-byte value: a
// store-forwarding stall on every field.

constexpr std::string_view kEmptyText {""}; // empty, with a non-null data()

// A string value: straight from the input when it holds no escape, else unescaped by simdjson.
std::string_view stringValue(od::value& val)
{
    std::string_view out;
    if (plainStringToken(val, out))
        return out;
    if (val.get_string().get(out))
        return {};
    return out.data() != nullptr ? out : kEmptyText;
}

// A field's key as written when it holds no escape (every key these writers emit), without the unescaping copy.
// raw() points just after the opening quote; stage 1 has matched every quote, so the closing one exists.
std::string_view keyText(od::field& field)
{
    const char* const begin = field.key().raw();
    const std::size_t end = stringStop(begin); // no control character: stage 1 refuses them in strings
    if (begin[end] == '"')
        return {begin, end};
    std::string_view out;
    if (field.unescaped_key().get(out))
        return {};
    return out.data() != nullptr ? out : kEmptyText;
}

// 0 = success, as simdjson's get() does.
inline simdjson::error_code getString(od::value& val, std::string_view& out)
{
    out = stringValue(val);
    return out.data() != nullptr ? simdjson::SUCCESS : simdjson::STRING_ERROR;
}

inline simdjson::error_code fieldKey(od::field& field, std::string_view& out)
{
    out = keyText(field);
    return out.data() != nullptr ? simdjson::SUCCESS : simdjson::STRING_ERROR;
}

// key == literal with the length known at compile time, so the compare is a few integer loads, not a call.
template <std::size_t N> bool is(std::string_view key, const char (&literal)[N])
{
    return key.size() == N - 1 && std::memcmp(key.data(), literal, N - 1) == 0;
}

bool parseInt(std::string_view t, std::int64_t& out)
{
    // Up to 18 plain digits cannot overflow: the pids, tids, ids and counts of real traces, without a call.
    if (!t.empty() && t.size() <= 18) {
        const bool negative = t.front() == '-';
        std::size_t i = negative ? 1 : 0;
        std::int64_t v = 0;
        for (; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i)
            v = v * 10 + (t[i] - '0');
        if (i == t.size() && i > (negative ? 1U : 0U)) {
            out = negative ? -v : v;
            return true;
        }
        if (i < t.size() && (t[i] == '.' || t[i] == 'e' || t[i] == 'E'))
            return false; // a float
    }
    const auto* end = t.data() + t.size();
    auto [p, ec] = std::from_chars(t.data(), end, out);
    return ec == std::errc() && p == end;
}

enum BadField : std::uint32_t {
    kBadPh = 1U << 0,
    kBadName = 1U << 1,
    kBadCat = 1U << 2,
    kBadPid = 1U << 3,
    kBadTid = 1U << 4,
    kBadTs = 1U << 5,
    kBadDur = 1U << 6,
    kBadId = 1U << 7,
    kBadArgs = 1U << 8,
    kBadOther = 1U << 9,
};

using PhaseClock = std::chrono::steady_clock;
std::uint64_t nsSince(PhaseClock::time_point t)
{
    return static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(PhaseClock::now() - t).count());
}

// A batch of event texts travelling through the pipeline, and what the workers decoded from it.
struct Batch
{
    enum class Kind : std::uint8_t { Events, TopLevel, End };
    Kind kind = Kind::Events;
    std::string text; // a copied batch's "[e1,e2,...]" and simdjson padding; a TopLevel batch's raw value
    // An in-place batch's read buffer: the text of the previous read's unfinished element at [1, 1 + carry), then
    // the bytes of one read, and room for ']' and simdjson's padding. Kept when the batch is recycled.
    std::unique_ptr<char[]> buffer;
    std::size_t bufferCapacity = 0;
    std::size_t carry = 0;
    // What parseBatch() parses: "[e1,e2,...]" with readable padding, in `text` or in `buffer`.
    const char* arrayData = nullptr;
    std::size_t arraySize = 0;
    std::size_t arrayCapacity = 0;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> spans; // (offset, length) of each event from arrayData
    std::string key;                                            // TopLevel
    std::vector<std::pair<model::ImportWarningKind, std::string>> issues; // scanner issues while this batch was filled
    std::uint64_t fileBytes = 0;                                          // file position when the batch was closed
    bool parsed = false;

    // Decoded.
    std::vector<ChromeEvent> events;
    std::vector<ChromeArg> args;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> argRanges;
    std::deque<std::string> arena; // owned copies: unescaped strings, and every string in the slow path
    std::string unescaped;         // the plain decoder's unescaped strings (reserved as large as the text)
    std::uint64_t malformed = 0;
    std::uint64_t declined = 0; // events the plain decoder left to simdjson
    std::string firstMalformed;
    std::uint64_t badFieldEvents = 0;
    std::string firstBadField;

    void reset(Kind k)
    {
        kind = k;
        text.clear();
        carry = 0;
        arrayData = nullptr;
        arraySize = 0;
        arrayCapacity = 0;
        spans.clear();
        key.clear();
        issues.clear();
        fileBytes = 0;
        parsed = false;
        events.clear();
        args.clear();
        argRanges.clear();
        arena.clear();
        unescaped.clear();
        malformed = 0;
        declined = 0;
        firstMalformed.clear();
        badFieldEvents = 0;
        firstBadField.clear();
    }
};

// ---------------------------------------------------------------------------------------------------------------
// What an event's fields mean, written once for the two ways of walking its JSON: simdjson On-Demand (any valid
// JSON, and the reference) and the plain decoder below (the common case, without simdjson's stage 1 and walk).
// `Value` is either walker's handle on one value; its calls return simdjson's error codes, 0 for success.

// Whether the decoder skips a top-level field without looking at its value.
bool skipsField(const ChromeEvent& ev, std::string_view key, bool flowNames)
{
    if (key.size() > 4)
        return true; // unknown keys (tts, tdur, bind_id, …) are skipped by the walker
    // The sink does not read flow names (torch_npu names each of its millions of flows uniquely).
    return !flowNames && (ev.ph == 's' || ev.ph == 'f' || ev.ph == 't') && is(key, "name");
}

// One `args` entry, appended to the batch's args when it decodes (a failed event's other args are dropped by the
// caller).
template <typename Value, typename Keep>
simdjson::error_code decodeArg(std::string_view key, Value& av, Batch& b, Keep& keep)
{
    // Filled on the stack and appended whole (a few vector stores): value-initialising one in the vector was a
    // `rep stos` of its 56 bytes for every arg of every event, and copying a blank one there a `rep movs`.
    ChromeArg a;
    a.key = keep(key);
    od::json_type at;
    if (auto err = av.type(at))
        return err;
    switch (at) {
    case od::json_type::number: {
        if (auto err = av.numberToken(a.text))
            return err;
        a.text = keep(a.text);
        if (av.integer(a.i)) {
            a.kind = ChromeArg::Kind::Int;
        } else {
            if (auto err = av.toDouble(a.d))
                return err;
            a.kind = ChromeArg::Kind::Double;
        }
        break;
    }
    case od::json_type::string: {
        std::string_view s;
        if (auto err = av.string(s))
            return err;
        a.text = keep(s);
        a.kind = ChromeArg::Kind::String;
        break;
    }
    case od::json_type::boolean: {
        bool v = false;
        if (auto err = av.boolean(v))
            return err;
        a.i = v ? 1 : 0;
        a.kind = ChromeArg::Kind::Bool;
        break;
    }
    case od::json_type::array:
    case od::json_type::object: {
        if (auto err = av.rawJson(a.text))
            return err;
        a.text = keep(a.text);
        a.kind = ChromeArg::Kind::Json;
        break;
    }
    case od::json_type::null:
        a.kind = ChromeArg::Kind::Null;
        break;
    }
    b.args.emplace_back(a.key, a.kind, a.i, a.d, a.text); // constructed in place, field by field
    return simdjson::SUCCESS;
}

// One top-level field of an event that skipsField() keeps.
template <typename Value, typename Keep>
simdjson::error_code decodeField(std::string_view key, Value& val, ChromeEvent& ev, Batch& b, Keep& keep)
{
    od::json_type type;
    if (auto err = val.type(type))
        return err;
    // A string value's text; false for any other type, or a string the walker cannot read.
    auto stringInto = [type, &val](std::string_view& out) { return type == od::json_type::string && !val.string(out); };
    switch (key.size()) {
    case 2:
        if (is(key, "ph")) {
            std::string_view s;
            if (stringInto(s))
                ev.ph = s.empty() ? '\0' : s.front();
            else
                ev.badFields |= kBadPh;
            return simdjson::SUCCESS;
        }
        if (is(key, "ts") || is(key, "id")) {
            const bool isTs = is(key, "ts");
            std::string_view t;
            if (type == od::json_type::number) {
                if (auto err = val.numberToken(t))
                    return err;
            } else if (type == od::json_type::string) {
                if (val.string(t)) {
                    ev.badFields |= isTs ? kBadTs : kBadId;
                    return simdjson::SUCCESS;
                }
                t = keep(t);
            } else if (!isTs && type == od::json_type::object) {
                if (val.rawJson(t))
                    return simdjson::TAPE_ERROR;
                t = keep(t);
            } else {
                ev.badFields |= isTs ? kBadTs : kBadId;
                return simdjson::SUCCESS;
            }
            if (isTs) {
                if (auto v = microsTextToNs(t)) {
                    ev.ts = *v;
                    ev.hasTs = true;
                } else {
                    ev.badFields |= kBadTs;
                }
            } else {
                ev.id = keep(t);
                ev.hasId = true;
            }
            return simdjson::SUCCESS;
        }
        if (is(key, "bp")) {
            std::string_view s;
            if (stringInto(s))
                ev.bp = keep(s);
        }
        return simdjson::SUCCESS;
    case 3:
        if (is(key, "pid") || is(key, "tid")) {
            const bool isPid = is(key, "pid");
            std::string_view t;
            bool isNumber = false;
            std::int64_t number = 0;
            if (type == od::json_type::number) {
                if (auto err = val.numberToken(t))
                    return err;
                t = keep(t);
                isNumber = val.integer(number);
            } else if (stringInto(t)) {
                t = keep(t);
            } else {
                ev.badFields |= isPid ? kBadPid : kBadTid;
                return simdjson::SUCCESS;
            }
            if (isPid) {
                ev.pid = t;
                ev.hasPid = true;
                ev.pidIsNumber = isNumber;
                ev.pidNumber = number;
            } else {
                ev.tid = t;
                ev.hasTid = true;
                ev.tidIsNumber = isNumber;
                ev.tidNumber = number;
            }
            return simdjson::SUCCESS;
        }
        if (is(key, "cat")) {
            std::string_view s;
            if (stringInto(s))
                ev.cat = keep(s);
            else
                ev.badFields |= kBadCat;
            return simdjson::SUCCESS;
        }
        if (is(key, "dur")) {
            std::string_view t;
            if (type == od::json_type::number) {
                if (auto err = val.numberToken(t))
                    return err;
            } else if (type != od::json_type::string || val.string(t)) {
                ev.badFields |= kBadDur;
                return simdjson::SUCCESS;
            }
            if (auto v = microsTextToNs(t)) {
                ev.dur = *v;
                ev.hasDur = true;
            } else {
                ev.badFields |= kBadDur;
            }
        }
        return simdjson::SUCCESS;
    case 4:
        if (is(key, "name")) {
            std::string_view s;
            if (stringInto(s)) {
                ev.name = keep(s);
            } else if (type == od::json_type::number) {
                if (auto err = val.numberToken(s))
                    return err;
                ev.name = keep(s);
            } else {
                ev.badFields |= kBadName;
            }
            return simdjson::SUCCESS;
        }
        if (is(key, "args")) {
            if (type != od::json_type::object) {
                ev.badFields |= kBadArgs;
                return simdjson::SUCCESS;
            }
            ev.hasArgs = true;
            return val.forEachField([&b, &keep](std::string_view k, auto& av) { return decodeArg(k, av, b, keep); });
        }
        return simdjson::SUCCESS;
    case 1:
        if (is(key, "s")) {
            std::string_view s;
            if (stringInto(s))
                ev.scope = keep(s);
        }
        return simdjson::SUCCESS;
    default:
        return simdjson::SUCCESS;
    }
}

// simdjson On-Demand's handle on a value, as decodeField() uses it.
class OdValue
{
public:
    explicit OdValue(od::value& v)
        : m_v(v)
    {
    }
    simdjson::error_code type(od::json_type& t) { return m_v.type().get(t); }
    simdjson::error_code string(std::string_view& s) { return getString(m_v, s); }
    simdjson::error_code numberToken(std::string_view& t)
    {
        t = trimToken(m_v.raw_json_token());
        m_number = t;
        return simdjson::SUCCESS;
    }
    // Whether the number numberToken() read is an integer that fits in 64 bits, and its value.
    bool integer(std::int64_t& v) const { return parseInt(m_number, v); }
    simdjson::error_code boolean(bool& v) { return m_v.get_bool().get(v); }
    simdjson::error_code toDouble(double& d) { return m_v.get_double().get(d); }
    simdjson::error_code rawJson(std::string_view& t)
    {
        od::json_type type;
        if (auto err = m_v.type().get(type))
            return err;
        if (type == od::json_type::array) {
            od::array arr;
            if (auto err = m_v.get_array().get(arr))
                return err;
            return arr.raw_json().get(t);
        }
        od::object obj;
        if (auto err = m_v.get_object().get(obj))
            return err;
        return obj.raw_json().get(t);
    }
    template <typename F> simdjson::error_code forEachField(F&& f)
    {
        od::object obj;
        if (auto err = m_v.get_object().get(obj))
            return err;
        for (auto fieldResult : obj) {
            if (auto err = fieldResult.error())
                return err;
            od::field& field = fieldResult.value_unsafe();
            std::string_view key;
            if (auto err = fieldKey(field, key))
                return err;
            OdValue value(field.value());
            if (auto err = f(key, value))
                return err;
        }
        return simdjson::SUCCESS;
    }

private:
    od::value& m_v;
    std::string_view m_number;
};

// Decodes one event object with simdjson. `keep` makes a string outlive the parser's buffer when needed.
template <typename Keep>
simdjson::error_code decodeEvent(od::object obj, ChromeEvent& ev, Batch& b, Keep&& keep, bool flowNames)
{
    const auto argBegin = static_cast<std::uint32_t>(b.args.size());
    for (auto fieldResult : obj) {
        // The field and its value are used where the iteration result holds them: copying them out (get(field),
        // `od::value val = field.value()`) wrote them in pieces and read them back whole, a store-forwarding
        // stall on every field, the largest single cost of the decoding threads (with the returns by value of
        // stringValue and keyText: the 1 GB torch_npu import's user time 3.2-3.3 → 2.5-2.6 s).
        if (auto err = fieldResult.error())
            return err;
        od::field& field = fieldResult.value_unsafe();
        std::string_view key;
        if (auto err = fieldKey(field, key))
            return err;
        if (skipsField(ev, key, flowNames))
            continue;
        OdValue val(field.value());
        if (auto err = decodeField(key, val, ev, b, keep))
            return err;
    }
    b.argRanges.emplace_back(argBegin, static_cast<std::uint32_t>(b.args.size()) - argBegin);
    return simdjson::SUCCESS;
}

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

std::string describeBadFields(std::uint32_t mask)
{
    static constexpr std::pair<std::uint32_t, const char*> kNames[]
        = {{kBadPh, "ph"}, {kBadName, "name"}, {kBadCat, "cat"}, {kBadPid, "pid"},  {kBadTid, "tid"},
           {kBadTs, "ts"}, {kBadDur, "dur"},   {kBadId, "id"},   {kBadArgs, "args"}};
    std::string out;
    for (const auto& [bit, name] : kNames) {
        if (mask & bit) {
            if (!out.empty())
                out += ", ";
            out += name;
        }
    }
    return out;
}

constexpr ChromeEvent kBlankEvent {};
static_assert(sizeof(void*) != 8 || sizeof(ChromeEvent) <= 176, "ChromeEvent's flags belong after its views");

// Counts an event simdjson refused, keeping what was wrong with the first.
void noteMalformed(Batch& b, simdjson::error_code err, std::string_view text)
{
    if (b.malformed++ == 0) {
        b.firstMalformed = std::string("an event is not valid JSON (") + simdjson::error_message(err)
            + "): " + std::string(text.substr(0, 120)) + (text.size() > 120 ? "…" : "");
    }
}

// Decodes each event of a batch with the plain decoder, and with simdjson, on that event alone, where the plain
// decoder declines. False, having decoded nothing, when the batch is not valid UTF-8.
bool parseBatchPlain(Batch& b, od::parser& parser, bool flowNames)
{
    if (!simdjson::validate_utf8(b.arrayData, b.arraySize))
        return false;
    b.unescaped.clear();
    if (b.unescaped.capacity() < b.arraySize)
        b.unescaped.reserve(b.arraySize); // views into it must not move; pages are touched only where written
    const char* const textBegin = b.arrayData;
    const char* const textEnd = textBegin + b.arraySize;
    auto noCopy = [&b, textBegin, textEnd](std::string_view s) -> std::string_view {
        if (s.empty() || (s.data() >= textBegin && s.data() + s.size() <= textEnd))
            return s;
        b.arena.emplace_back(s);
        return b.arena.back();
    };
    for (const auto& [offset, length] : b.spans) {
        const char* const text = b.arrayData + offset;
        const std::size_t argsBefore = b.args.size();
        ChromeEvent& ev = b.events.emplace_back(kBlankEvent);
        if (decodeEventPlain(text, text + length, ev, b, flowNames))
            continue;
        b.args.resize(argsBefore);
        ev = kBlankEvent;
        ++b.declined;
        // The event alone, where it lies: the batch's padding is past its end.
        simdjson::padded_string_view view(text, length, b.arrayCapacity - offset);
        od::document doc;
        od::object obj;
        simdjson::error_code err = parser.iterate(view).get(doc);
        if (!err)
            err = doc.get_object().get(obj);
        if (!err)
            err = decodeEvent(obj, ev, b, noCopy, flowNames);
        if (err) {
            b.args.resize(argsBefore);
            b.events.pop_back();
            noteMalformed(b, err, std::string_view(text, length));
        }
    }
    return true;
}

// Decodes a batch: with the plain decoder (above) when `plain`, else as one JSON array in one simdjson pass,
// falling back to event-by-event parsing when the batch holds a malformed event, so one bad event costs only
// itself. `parser` belongs to the decoding thread, not to the batch: its buffers (as large as the batch again)
// are then allocated and first touched once per thread rather than once per batch the pipeline holds.
void parseBatch(Batch& b, od::parser& parser, bool flowNames, bool plain)
{
    b.events.clear();
    b.args.clear();
    b.argRanges.clear();
    // With headroom: a recycled batch's vector grown to exactly each larger batch was a fresh block (its pages
    // faulted in anew) every few batches.
    if (b.events.capacity() < b.spans.size())
        b.events.reserve(b.spans.size() + b.spans.size() / 4);
    bool fast = true;
    if (plain && parseBatchPlain(b, parser, flowNames)) {
        // decoded
    } else {
        if (plain)
            b.declined = b.spans.size(); // not valid UTF-8: simdjson reads the batch (and finds the culprit)
        // Views into the batch text stay as they are; a string simdjson unescaped into the parser's buffer (which
        // the thread's next batch overwrites) is copied into the batch.
        const char* const textBegin = b.arrayData;
        const char* const textEnd = textBegin + b.arraySize;
        auto noCopy = [&b, textBegin, textEnd](std::string_view s) -> std::string_view {
            if (s.empty() || (s.data() >= textBegin && s.data() + s.size() <= textEnd))
                return s;
            b.arena.emplace_back(s);
            return b.arena.back();
        };
        od::document doc;
        simdjson::padded_string_view view(b.arrayData, b.arraySize, b.arrayCapacity);
        if (parser.iterate(view).get(doc)) {
            fast = false;
        } else {
            od::array arr;
            if (doc.get_array().get(arr)) {
                fast = false;
            } else {
                for (auto elemResult : arr) {
                    od::object obj;
                    // NOLINTNEXTLINE(performance-move-const-arg): selects simdjson_result's rvalue get_object()
                    if (std::move(elemResult).get_object().get(obj)) {
                        fast = false;
                        break;
                    }
                    // Decoded in place: an event is ~200 bytes, and batches hold tens of thousands. A copy of a
                    // blank event compiles to a few vector stores of zero; value-initialising one in place was a
                    // `rep stos`, whose start-up cost made it 70 % of this loop's own time.
                    b.events.push_back(kBlankEvent);
                    if (decodeEvent(obj, b.events.back(), b, noCopy, flowNames)) {
                        fast = false;
                        break;
                    }
                }
                if (fast && b.events.size() != b.spans.size())
                    fast = false;
            }
        }
    }
    if (!fast) {
        b.events.clear();
        b.args.clear();
        b.argRanges.clear();
        b.arena.clear();
        std::string scratch;
        auto copy = [&b](std::string_view s) -> std::string_view {
            if (s.empty())
                return s;
            b.arena.emplace_back(s);
            return b.arena.back();
        };
        for (const auto& [offset, length] : b.spans) {
            scratch.assign(b.arrayData + offset, length);
            scratch.reserve(length + simdjson::SIMDJSON_PADDING);
            simdjson::padded_string_view view(scratch.data(), scratch.size(), scratch.capacity());
            od::document doc;
            od::object obj;
            ChromeEvent ev;
            const auto argsBefore = b.args.size();
            simdjson::error_code err = parser.iterate(view).get(doc);
            if (!err)
                err = doc.get_object().get(obj);
            if (!err)
                err = decodeEvent(obj, ev, b, copy, flowNames);
            if (err) {
                b.args.resize(argsBefore);
                if (b.argRanges.size() > b.events.size())
                    b.argRanges.resize(b.events.size());
                noteMalformed(b, err, scratch);
                continue;
            }
            b.events.push_back(ev);
        }
    }
    for (std::size_t i = 0; i < b.events.size(); ++i) {
        const auto [first, count] = b.argRanges[i];
        b.events[i].args = std::span<const ChromeArg>(b.args.data() + first, count);
        if (b.events[i].badFields != 0 && b.badFieldEvents++ == 0)
            b.firstBadField = "an event has fields of an unexpected type (" + describeBadFields(b.events[i].badFields)
                + "); they were ignored";
    }
}

// The pipeline: reader thread → workers → the calling thread, in order. With an inline consumer (an import given one
// thread, as each rank of a `job` is) there are no other threads: each batch is decoded and consumed on the reading
// thread as soon as it is closed, without queues, hand-offs or a second cache to warm.
class Pipeline final : public ChromeJsonScanner::Handler
{
public:
    using Consumer = std::function<void(std::unique_ptr<Batch>)>;

    /// `readBytes`: the reads' size, which with a carried element is an in-place batch's.
    Pipeline(std::size_t batchBytes, std::size_t readBytes, unsigned workers, bool flowNames, bool plain)
        : m_batchBytes(batchBytes)
        , m_parserBytes(std::max(batchBytes, readBytes) + kParserHeadroomBytes)
        , m_flowNames(flowNames)
        , m_plain(plain)
        , m_maxInFlight(workers * 4 + 4)
    {
        // simdjson picks its implementation on a process's first parser, allocating inside a noexcept function:
        // done here, on the caller's thread, so that a decoder thread's first parser cannot meet an allocation
        // failure there (std::terminate) instead of in code whose failure reaches the caller.
        od::parser first;
        [[maybe_unused]] const simdjson::error_code err = first.allocate(64);
    }

    /// Batches go to `consumer` on the publishing thread, decoded there; workerLoop() and next() are not used.
    void setInlineConsumer(Consumer consumer) { m_inline = std::move(consumer); }

    // ---- reader side ----
    //
    // Events are parsed where they were read: each read goes into the buffer of an in-place batch, and the batch
    // is that read's events, with the byte before the first turned into '[' and the one after the last into ']'
    // (the separators between them are the array's commas). Copying every event into a batch of its own took a
    // tenth of the 1 GB torch_npu import's CPU. An element still unfinished at the end of a read (in the
    // scanner's buffer) is copied to the start of the next batch's buffer, where the rest of it is read, so it
    // too is in place when it ends. Events that cannot be in place (an unfinished element too large to carry,
    // the events before a top-level value that follows them in one read) are copied into batches as before.

    /// An unfinished element up to this size, or up to a read's, is carried. A larger one is copied when it ends:
    /// carried, it would be copied again after every read it spans (quadratic in its size over small reads).
    static constexpr std::size_t kMinCarryBytes = 4096;

    /// Where the next read of up to `want` bytes goes.
    char* readTarget(std::size_t want)
    {
        if (!m_inPlace) {
            m_inPlace = takeFree(Batch::Kind::Events);
            m_used = 1;
        }
        reserveBuffer(*m_inPlace, m_used + want + 1 + simdjson::SIMDJSON_PADDING, m_used);
        return m_inPlace->buffer.get() + m_used;
    }
    /// `n` bytes were read to readTarget().
    void chunkRead(std::size_t n) { m_used += n; }
    /// The scanner has seen the whole read; `pending` is the element it has not seen the end of.
    void chunkScanned(std::string_view pending, std::size_t nextRead)
    {
        std::unique_ptr<Batch> next;
        std::size_t nextUsed = 1;
        if (!pending.empty() && pending.size() <= std::max(nextRead, kMinCarryBytes)) {
            next = takeFree(Batch::Kind::Events);
            reserveBuffer(*next, 1 + pending.size() + nextRead + 1 + simdjson::SIMDJSON_PADDING, 0);
            std::memcpy(next->buffer.get() + 1, pending.data(), pending.size());
            next->carry = pending.size();
            nextUsed += pending.size();
        }
        closeInPlace();
        m_inPlace = std::move(next);
        m_used = nextUsed;
    }

    // ---- reader side (scanner callbacks) ----
    void onContainer(bool) override { }
    void onTopLevel(std::string_view key, std::string_view raw) override
    {
        // The events before it go first, copied: the rest of the read buffer is still being scanned.
        demoteInPlace();
        flushCopied();
        auto b = takeFree(Batch::Kind::TopLevel);
        b->key.assign(key);
        b->text.assign(raw);
        b->fileBytes = m_fileBytes;
        b->parsed = true;
        publish(std::move(b));
    }
    void onEvent(std::string_view text) override
    {
        Batch* const cur = m_inPlace.get();
        if (cur) {
            const char* const buffer = cur->buffer.get();
            std::size_t offset = 0;
            const std::less_equal<const char*> notAfter;
            if (notAfter(buffer + 1, text.data()) && notAfter(text.data() + text.size(), buffer + m_used)) {
                offset = static_cast<std::size_t>(text.data() - buffer);
            } else if (cur->carry > 0 && text.size() >= cur->carry && 1 + text.size() <= m_used
                       && std::memcmp(buffer + 1, text.data(), text.size()) == 0) {
                offset = 1; // the carried element, completed by this read
            }
            cur->carry = 0; // only the read's first element can be the carried one
            if (offset > 0) {
                flushCopied();
                cur->spans.emplace_back(static_cast<std::uint32_t>(offset), static_cast<std::uint32_t>(text.size()));
                return;
            }
            demoteInPlace();
        }
        appendCopied(text);
    }
    void onIssue(model::ImportWarningKind kind, std::string_view message) override
    {
        Batch* target = m_copied ? m_copied.get() : m_inPlace.get();
        if (!target) {
            m_copied = takeFree(Batch::Kind::Events);
            target = m_copied.get();
        }
        target->issues.emplace_back(kind, std::string(message));
    }
    void setFileBytes(std::uint64_t bytes) { m_fileBytes = bytes; }

    void finishReading(std::unique_ptr<Batch> end)
    {
        flushCopied();
        closeInPlace();
        end->parsed = true;
        publish(std::move(end));
    }
    std::unique_ptr<Batch> takeFree(Batch::Kind kind)
    {
        std::unique_ptr<Batch> b;
        {
            std::lock_guard lock(m_mutex);
            if (!m_free.empty()) {
                b = std::move(m_free.back());
                m_free.pop_back();
            }
        }
        if (!b)
            b = std::make_unique<Batch>();
        b->reset(kind);
        return b;
    }

    // ---- worker side ----
    void workerLoop()
    {
        od::parser parser;
        reserveParser(parser);
        for (;;) {
            Batch* b = nullptr;
            {
                std::unique_lock lock(m_mutex);
                m_workCv.wait(lock, [&] { return m_stop || !m_toParse.empty(); });
                if (m_toParse.empty())
                    return;
                b = m_toParse.front();
                m_toParse.pop_front();
            }
            const PhaseClock::time_point started = PhaseClock::now();
            parseBatch(*b, parser, m_flowNames, m_plain);
            m_decodeNs += nsSince(started);
            {
                std::lock_guard lock(m_mutex);
                b->parsed = true;
            }
            m_readyCv.notify_all();
        }
    }

    // ---- consumer side ----
    /// Next batch in order, or nullptr when stopped.
    std::unique_ptr<Batch> next()
    {
        std::unique_lock lock(m_mutex);
        m_readyCv.wait(lock, [&] { return m_stop || (!m_inOrder.empty() && m_inOrder.front()->parsed); });
        if (m_inOrder.empty() || !m_inOrder.front()->parsed)
            return nullptr;
        auto b = std::move(m_inOrder.front());
        m_inOrder.pop_front();
        m_spaceCv.notify_all();
        return b;
    }
    void recycle(std::unique_ptr<Batch> b)
    {
        // Every batch the pipeline can hold at once is kept for reuse (the in-flight ones, the one being filled
        // and the one being consumed): a freed batch's megabytes would be mapped and faulted in again for the
        // next one, and page faults cost more than the decoding on some machines.
        std::lock_guard lock(m_mutex);
        if (m_free.size() < m_maxInFlight + 2)
            m_free.push_back(std::move(b));
    }
    void stop()
    {
        {
            std::lock_guard lock(m_mutex);
            m_stop = true;
        }
        m_workCv.notify_all();
        m_readyCv.notify_all();
        m_spaceCv.notify_all();
    }
    /// Time the workers spent decoding, and the reader thread spent waiting for room in the pipeline.
    [[nodiscard]] std::uint64_t decodeNs() const { return m_decodeNs; }
    [[nodiscard]] std::uint64_t publishWaitNs() const { return m_publishWaitNs; }
    [[nodiscard]] bool stopped()
    {
        std::lock_guard lock(m_mutex);
        return m_stop;
    }

private:
    /// Makes room for `bytes` in b's buffer, keeping its first `keep` bytes.
    /// A batch holds a read and the element carried into it, a little more than a read. simdjson's parser grows
    /// to each batch larger than any before: its buffers (four bytes of structural index per byte of JSON) were
    /// allocated again, and their pages faulted in again, every time a carry made a batch a few bytes larger.
    static constexpr std::size_t kParserHeadroomBytes = std::size_t(64) << 10;
    void reserveParser(od::parser& parser) const
    {
        // Best effort: without it the parser allocates on its first batch, as simdjson does by default.
        [[maybe_unused]] const simdjson::error_code err = parser.allocate(m_parserBytes);
    }
    static void reserveBuffer(Batch& b, std::size_t bytes, std::size_t keep)
    {
        if (b.bufferCapacity >= bytes)
            return;
        // Rounded up, so a read plus the usual carry fits every recycled buffer without growing it by half.
        constexpr std::size_t kGranule = std::size_t(64) << 10;
        const std::size_t capacity = (bytes + kGranule - 1) / kGranule * kGranule;
        std::unique_ptr<char[]> bigger(new char[capacity]); // NOLINT(modernize-avoid-c-arrays): left uninitialised
        if (keep > 0 && b.buffer)
            std::memcpy(bigger.get(), b.buffer.get(), keep);
        b.buffer = std::move(bigger);
        b.bufferCapacity = capacity;
    }
    /// Publishes the in-place batch: its events' text becomes one array where it lies.
    void closeInPlace()
    {
        flushCopied(); // holds events only while m_inPlace holds none
        if (!m_inPlace)
            return;
        Batch& b = *m_inPlace;
        if (b.spans.empty() && b.issues.empty()) {
            recycle(std::move(m_inPlace));
            return;
        }
        if (!b.spans.empty()) {
            char* const buffer = b.buffer.get();
            const std::size_t first = b.spans.front().first - 1;
            const std::size_t end = b.spans.back().first + b.spans.back().second;
            buffer[first] = '[';
            buffer[end] = ']';
            b.arrayData = buffer + first;
            b.arraySize = end + 1 - first;
            b.arrayCapacity = b.bufferCapacity - first;
            for (auto& span : b.spans)
                span.first -= static_cast<std::uint32_t>(first);
        }
        publishEvents(std::move(m_inPlace));
    }
    /// Moves the in-place batch's events (copied) to the copied batch, to keep file order when an event or a
    /// top-level value that cannot be in place follows them.
    void demoteInPlace()
    {
        if (!m_inPlace)
            return;
        for (const auto& [offset, length] : m_inPlace->spans)
            appendCopied(std::string_view(m_inPlace->buffer.get() + offset, length));
        m_inPlace->spans.clear();
    }
    void appendCopied(std::string_view text)
    {
        if (!m_copied)
            m_copied = takeFree(Batch::Kind::Events);
        std::string& t = m_copied->text;
        t.push_back(t.empty() ? '[' : ',');
        m_copied->spans.emplace_back(static_cast<std::uint32_t>(t.size()), static_cast<std::uint32_t>(text.size()));
        t.append(text);
        if (t.size() >= m_batchBytes)
            flushCopied();
    }
    void flushCopied()
    {
        if (!m_copied)
            return;
        Batch& b = *m_copied;
        if (!b.spans.empty()) {
            b.text.push_back(']');
            b.text.reserve(b.text.size() + simdjson::SIMDJSON_PADDING);
            b.arrayData = b.text.data();
            b.arraySize = b.text.size();
            b.arrayCapacity = b.text.capacity();
        }
        publishEvents(std::move(m_copied));
    }
    /// Publishes an events batch whose array, if it has events, is set; one without events carries only issues.
    void publishEvents(std::unique_ptr<Batch> b)
    {
        b->fileBytes = m_fileBytes;
        b->parsed = b->spans.empty();
        publish(std::move(b));
    }

    void publish(std::unique_ptr<Batch> b)
    {
        const PhaseClock::time_point waitStarted = PhaseClock::now();
        if (m_inline) {
            if (m_stop)
                return; // consumed up to the End batch or cancelled: the rest of the piece is not decoded
            // Decoding and consuming are not scanning: their time goes where the waits of the threaded pipeline go.
            if (!b->parsed) {
                if (!std::exchange(m_inlineParserReserved, true))
                    reserveParser(m_inlineParser);
                parseBatch(*b, m_inlineParser, m_flowNames, m_plain);
                b->parsed = true;
                m_decodeNs += nsSince(waitStarted);
            }
            m_inline(std::move(b));
            m_publishWaitNs += nsSince(waitStarted);
            return;
        }
        std::unique_lock lock(m_mutex);
        m_spaceCv.wait(lock, [&] { return m_stop || m_inOrder.size() < m_maxInFlight; });
        m_publishWaitNs += nsSince(waitStarted);
        if (m_stop)
            return;
        Batch* raw = b.get();
        const bool needsParse = !raw->parsed;
        m_inOrder.push_back(std::move(b));
        if (needsParse)
            m_toParse.push_back(raw);
        lock.unlock();
        if (needsParse)
            m_workCv.notify_one();
        else
            m_readyCv.notify_all();
    }

    std::size_t m_batchBytes;
    std::size_t m_parserBytes;
    bool m_flowNames;
    bool m_plain;
    // Batches published and not yet consumed. Reader, decoders and sink share the cores, and whichever is
    // preempted stalls the others once the pipeline is full or empty: with two a worker (plus two), a scheduler
    // trace of the 1 GB torch_npu import on two cores found them idle 16-20 % of the time, with four a worker
    // 9-12 %, for 8 MB more peak RSS.
    std::size_t m_maxInFlight;
    std::uint64_t m_fileBytes = 0;
    std::unique_ptr<Batch> m_inPlace; // the batch whose buffer the current read went to
    std::size_t m_used = 0;           // bytes of m_inPlace's buffer in use (carry and reads)
    std::unique_ptr<Batch> m_copied;  // events copied out of their read buffers, in order before m_inPlace's
    Consumer m_inline;
    od::parser m_inlineParser; // the inline consumer's decoding (workerLoop has its own)
    bool m_inlineParserReserved = false;

    std::mutex m_mutex;
    std::condition_variable m_workCv;
    std::condition_variable m_readyCv;
    std::condition_variable m_spaceCv;
    std::deque<std::unique_ptr<Batch>> m_inOrder;
    std::deque<Batch*> m_toParse;
    std::vector<std::unique_ptr<Batch>> m_free;
    bool m_stop = false;
    std::atomic<std::uint64_t> m_decodeNs {0};
    std::uint64_t m_publishWaitNs = 0; // reader thread only
};

} // namespace

ChromeEventReader::ChromeEventReader(std::filesystem::path path, const ImportOptions& options, ProgressSink& progress)
    : m_path(std::move(path))
    , m_options(options)
    , m_progress(progress)
{
}

ChromeEventReader::~ChromeEventReader() = default;

ChromeReadResult ChromeEventReader::read(ChromeEventSink& sink)
{
    ChromeReadResult result;
    const std::string file = m_path.string();
    std::string openError;
    auto stream = InputStream::open(m_path, openError, DecompressionLimits::from(m_options));
    if (!stream) {
        result.errorKind = ImportErrorKind::CannotRead;
        result.error = openError;
        return result;
    }
    const std::uint64_t fileSize = stream->fileSize();

    unsigned workers = m_options.threads;
    if (workers == 0) {
        workers = std::clamp(model::hardwareThreads(), 1U, 8U);
    }
    Pipeline pipe(std::max<std::size_t>(1, m_batchBytes), m_readChunkBytes, workers, sink.needsFlowNames(),
                  m_plainDecoding);
    ChromeJsonScanner scanner(pipe, m_options.maxEventBytes);

    // The reader thread's findings, published with the End batch.
    struct ReaderOutcome
    {
        bool fatal = false;
        std::string fatalMessage;
        bool empty = false;
        bool complete = false;
        bool streamTruncated = false;
        bool limitHit = false;
        std::string limitMessage;
        std::string streamError;
        std::string position;
        bool wrapper = false;
        bool sawTraceEvents = false;
        std::uint64_t events = 0;
        std::uint64_t nonObjects = 0;
        std::uint64_t produced = 0;
        std::uint64_t readNs = 0;
        std::uint64_t scanNs = 0; // including waits for room in the pipeline (subtracted at the end)
    } outcome;

    const std::size_t chunkBytes = std::max<std::size_t>(1, m_readChunkBytes);
    auto readInput = [&] {
        const std::uint64_t limit = m_options.maxDecompressedBytes;
        std::uint64_t produced = 0;
        while (!pipe.stopped()) {
            std::size_t want = chunkBytes;
            if (produced + want > limit) {
                want = static_cast<std::size_t>(limit - produced);
                if (want == 0) {
                    // Probe one byte more: hitting the limit exactly at the end of the data is not a bomb.
                    char probe = 0;
                    if (stream->read(&probe, 1) == 1)
                        outcome.limitHit = true;
                    break;
                }
            }
            const PhaseClock::time_point readStarted = PhaseClock::now();
            char* const target = pipe.readTarget(want);
            const std::size_t n = stream->read(target, want);
            outcome.readNs += nsSince(readStarted);
            if (n == 0)
                break;
            produced += n;
            pipe.chunkRead(n);
            pipe.setFileBytes(stream->fileBytesRead());
            const PhaseClock::time_point scanStarted = PhaseClock::now();
            const bool more = scanner.feed(target, n);
            pipe.chunkScanned(scanner.pendingElement(), chunkBytes);
            outcome.scanNs += nsSince(scanStarted);
            if (!more)
                break;
        }
        outcome.fatal = scanner.failed();
        outcome.fatalMessage = scanner.fatalError();
        outcome.empty = scanner.sawNothing();
        outcome.complete = scanner.complete();
        outcome.limitHit = outcome.limitHit || stream->limitHit();
        outcome.limitMessage = stream->limitMessage();
        outcome.streamTruncated = stream->truncated();
        outcome.streamError = stream->error();
        outcome.position = std::string(scanner.positionDescription());
        outcome.wrapper = scanner.wrapperObject();
        outcome.sawTraceEvents = scanner.sawTraceEvents();
        outcome.events = scanner.eventCount();
        outcome.nonObjects = scanner.nonObjectCount();
        outcome.produced = produced;
        pipe.setFileBytes(stream->fileBytesRead());
        pipe.finishReading(pipe.takeFree(Batch::Kind::End));
    };

    bool cancelled = false;
    std::uint64_t sinkNs = 0;
    bool containerReported = false;
    std::uint64_t lastReport = 0;
    std::uint64_t malformed = 0;
    std::uint64_t declined = 0; // events the plain decoder left to simdjson
    std::string firstMalformed;
    std::uint64_t badFields = 0;
    std::string firstBadField;
    // One batch, in file order; false once the End batch came (or the read was cancelled before this batch).
    auto consume = [&](std::unique_ptr<Batch> b) -> bool {
        if (m_progress.cancelled() || sink.cancelled()) {
            cancelled = true;
            return false;
        }
        if (!containerReported && (b->kind != Batch::Kind::End || !outcome.fatal)) {
            // The first batch exists only once the scanner has seen the opening bracket.
            containerReported = true;
            result.wrapperObject = scanner.wrapperObject();
            sink.onContainer(result.wrapperObject);
        }
        if (b->kind == Batch::Kind::End) {
            pipe.recycle(std::move(b));
            return false;
        }
        if (b->kind == Batch::Kind::TopLevel) {
            sink.onTopLevel(b->key, b->text);
        } else {
            const PhaseClock::time_point sinkStarted = PhaseClock::now();
            for (const ChromeEvent& ev : b->events)
                sink.onEvent(ev);
            sinkNs += nsSince(sinkStarted);
            result.events += b->events.size();
            declined += b->declined;
            if (b->malformed > 0) {
                if (malformed == 0)
                    firstMalformed = b->firstMalformed;
                malformed += b->malformed;
            }
            if (b->badFieldEvents > 0) {
                if (badFields == 0)
                    firstBadField = b->firstBadField;
                badFields += b->badFieldEvents;
            }
            for (const auto& [kind, message] : b->issues)
                sink.onWarning(kind, message, 1);
        }
        if (b->fileBytes >= lastReport + (4U << 20)) {
            lastReport = b->fileBytes;
            m_progress.report(b->fileBytes, fileSize, "reading events");
        }
        pipe.recycle(std::move(b));
        return true;
    };

    // Whatever any thread throws (std::bad_alloc, ArgStore's std::length_error while the sink grows the model)
    // stops the pipeline, and reaches loadTrace() from join() once the reader and the workers are joined.
    model::WorkerGroup group([&pipe] { pipe.stop(); });
    bool threaded = false;
    if (workers > 1 && group.tryStart(readInput)) {
        threaded = true;
        unsigned started = 0;
        for (unsigned w = 0; w < workers; ++w) {
            if (!group.tryStart([&pipe] { pipe.workerLoop(); }))
                break;
            ++started;
        }
        if (started == 0) {
            // The reader runs, but nothing would decode what it scans: no threads are to be had at all.
            pipe.stop();
            group.join();
            result.errorKind = ImportErrorKind::CannotRead;
            result.error = file + ": cannot start a thread to decode events (the process is at its thread limit)";
            return result;
        }
        group.runHere([&] {
            for (;;) {
                if (m_progress.cancelled() || sink.cancelled()) {
                    cancelled = true;
                    break;
                }
                auto b = pipe.next();
                if (!b || !consume(std::move(b)))
                    break;
            }
        });
        pipe.stop();
    }
    if (!threaded) {
        // One thread in all: read, scan, decode and consume here. After the End batch or a cancel nothing more is
        // consumed, and the reading loop sees the pipeline stopped.
        bool consuming = true;
        pipe.setInlineConsumer([&](std::unique_ptr<Batch> b) {
            if (consuming && !consume(std::move(b))) {
                consuming = false;
                pipe.stop();
            }
        });
        group.runHere(readInput);
    }
    group.join(); // rethrows the first failure of any thread, after all of them are done
    if (m_options.phases) {
        m_options.phases->readNs += outcome.readNs;
        m_options.phases->scanNs += outcome.scanNs - std::min(outcome.scanNs, pipe.publishWaitNs());
        m_options.phases->decodeNs += pipe.decodeNs();
        m_options.phases->events += result.events;
        m_options.phases->simdjsonEvents += m_plainDecoding ? declined : result.events;
        m_options.phases->sinkNs += sinkNs;
        m_options.phases->decodeThreads = std::max(m_options.phases->decodeThreads.load(), workers);
    }
    if (cancelled) {
        result.errorKind = ImportErrorKind::Cancelled;
        result.error = file + ": loading was cancelled";
        return result;
    }
    result.decompressedBytes = outcome.produced;
    result.wrapperObject = outcome.wrapper;
    result.sawTraceEvents = outcome.sawTraceEvents;

    if (malformed > 0)
        sink.onWarning(model::ImportWarningKind::MalformedEvent, firstMalformed, malformed);
    if (badFields > 0)
        sink.onWarning(model::ImportWarningKind::BadField, firstBadField, badFields);

    const std::string expected = "expected a Chrome trace (a JSON object with a \"traceEvents\" array, or a JSON "
                                 "array of event objects)";
    if (outcome.fatal) {
        result.errorKind = ImportErrorKind::NotRecognised;
        result.error = file + ": not a trace: " + outcome.fatalMessage + "; " + expected;
        return result;
    }
    if (outcome.empty) {
        if (!outcome.streamError.empty()) {
            result.errorKind = ImportErrorKind::CannotRead;
            result.error = file + ": cannot read: " + outcome.streamError;
        } else if (outcome.streamTruncated) {
            result.errorKind = ImportErrorKind::CannotRead;
            result.error = file + ": cannot read: the compressed stream ends before any data; " + expected;
        } else {
            result.errorKind = ImportErrorKind::NotRecognised;
            result.error = file + ": the file is empty; " + expected;
        }
        return result;
    }
    if (outcome.wrapper && !outcome.sawTraceEvents) {
        result.errorKind = ImportErrorKind::NotRecognised;
        result.error = file + ": the JSON object has no \"traceEvents\" array; " + expected;
        return result;
    }
    if (outcome.events == 0 && outcome.nonObjects > 0) {
        result.errorKind = ImportErrorKind::NotRecognised;
        result.error = file + ": the JSON array holds no event objects; " + expected;
        return result;
    }

    if (!outcome.streamError.empty()) {
        sink.onWarning(model::ImportWarningKind::CorruptStream,
                       file + ": " + outcome.streamError + "; events before the damaged part were kept", 1);
    }
    if (outcome.limitHit) {
        sink.onWarning(model::ImportWarningKind::DecompressedLimit,
                       (outcome.limitMessage.empty() ? file + ": stopped after " + std::to_string(outcome.produced)
                                + " decompressed bytes (the limit for one file)"
                                                     : outcome.limitMessage)
                           + "; events before that point were kept",
                       1);
    }
    if (!outcome.complete) {
        result.truncated = true;
        std::string why = outcome.streamTruncated ? "the compressed stream ends early" : "the JSON ends early";
        sink.onWarning(model::ImportWarningKind::Truncated,
                       file + ": the trace is truncated (" + why + ", " + outcome.position + ") after "
                           + std::to_string(result.events) + " events; every event before the cut was kept",
                       1);
    } else if (outcome.streamTruncated) {
        result.truncated = true;
        sink.onWarning(model::ImportWarningKind::Truncated,
                       file + ": the compressed stream ends early; the JSON inside was complete", 1);
    }
    m_progress.report(fileSize, fileSize, "reading events");
    return result;
}

} // namespace timesink::parsers::chromejson
