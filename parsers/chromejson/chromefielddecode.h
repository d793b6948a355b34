// SPDX-License-Identifier: MIT
// Internal to the Chrome reader: what an event's fields mean in the Chrome Trace Event Format (ph, name, cat, pid,
// tid, ts, dur, id, bp, s, args), written once for the two ways of walking its JSON — simdjson On-Demand
// (chromeondemanddecode.h) and the plain decoder (chromeplaindecode.h). No dialect knowledge: keys a dialect adds
// (Kineto's `correlation`, torch_npu's string ids) are plain args or plain values here.
#pragma once

#ifndef TIMESINK_CHROME_BATCH_DECODE
#error "internal to chromebatchdecode.cpp: its functions have internal linkage so that they inline there"
#endif

#include "parsers/chromejson/chromebatch.h"
#include "parsers/chromejson/chromeeventreader.h"
#include "parsers/common/decimaltime.h"

#include <charconv>
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
                if (auto v = parseMicrosToNs(t)) {
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
            if (auto v = parseMicrosToNs(t)) {
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

} // namespace

} // namespace timesink::parsers::chromejson::detail
