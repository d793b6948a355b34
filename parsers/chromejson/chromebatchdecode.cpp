// SPDX-License-Identifier: MIT
// Decoding a batch of Chrome trace events: the plain decoder where it can, simdjson On-Demand for the rest, and
// event by event when a batch holds a malformed event. The walkers are header-only so that they inline here.
#define TIMESINK_CHROME_BATCH_DECODE // this file owns the walkers' headers (see their guard)
#include "parsers/chromejson/chromebatch.h"
#include "parsers/chromejson/chromefielddecode.h"
#include "parsers/chromejson/chromeondemanddecode.h"
#include "parsers/chromejson/chromeplaindecode.h"

#include <simdjson.h>
#include <string>
#include <string_view>

namespace timesink::parsers::chromejson::detail {

namespace {

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

} // namespace

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

} // namespace timesink::parsers::chromejson::detail
