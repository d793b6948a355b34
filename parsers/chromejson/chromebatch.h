// SPDX-License-Identifier: MIT
// Internal to the Chrome reader (parsers/chromejson/chromeeventreader.cpp and the files it is split into):
// a batch of event texts travelling through the pipeline, and the decoding of one batch.
#pragma once

#include "parsers/chromejson/chromeeventreader.h"

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <simdjson.h>
#include <string>
#include <utility>
#include <vector>

namespace timesink::parsers::chromejson::detail {

namespace od = simdjson::ondemand;

using PhaseClock = std::chrono::steady_clock;
inline std::uint64_t nsSince(PhaseClock::time_point t)
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

/// Decodes a batch: with the plain decoder (chromeplaindecode.h) when `plain`, else as one JSON array in one
/// simdjson On-Demand pass (chromeondemanddecode.h), falling back to event-by-event parsing when the batch holds a
/// malformed event, so one bad event costs only itself. `parser` belongs to the decoding thread, not to the batch:
/// its buffers (as large as the batch again) are then allocated and first touched once per thread rather than once
/// per batch the pipeline holds. Then the events' arg spans are set and bad fields counted.
void parseBatch(Batch& b, od::parser& parser, bool flowNames, bool plain);

} // namespace timesink::parsers::chromejson::detail
