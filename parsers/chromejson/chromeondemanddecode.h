// SPDX-License-Identifier: MIT
// Internal to the Chrome reader: decoding an event with simdjson On-Demand — any valid JSON, and the reference the
// plain decoder (chromeplaindecode.h) is checked against. The fields' meaning is chromefielddecode.h's.
#pragma once

#ifndef TIMESINK_CHROME_BATCH_DECODE
#error "internal to chromebatchdecode.cpp: its functions have internal linkage so that they inline there"
#endif

#include "parsers/chromejson/chromebatch.h"
#include "parsers/chromejson/chromefielddecode.h"

#include <cstdint>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <simdjson.h>
#include <string_view>

namespace timesink::parsers::chromejson::detail {

namespace od = simdjson::ondemand;

// Internal linkage on purpose: this header is chromebatchdecode.cpp's alone (the guard above), and GCC inlines a
// function called once only when it is local to the TU. With external (inline) linkage, the walkers' loops stayed
// calls and the 1 GB Kineto import took 15 % more CPU.
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

} // namespace

} // namespace timesink::parsers::chromejson::detail
