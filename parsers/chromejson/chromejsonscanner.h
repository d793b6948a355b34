// SPDX-License-Identifier: MIT
#pragma once

#include "model/importwarning.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace timesink::parsers::chromejson {

/// Cuts a Chrome-trace JSON text, fed in arbitrary pieces, into the raw text of its events and of its other
/// top-level values, without parsing them. It tracks strings, escapes and nesting depth (iteratively, so
/// depth is unbounded), which is all it needs to find where each element of the event array ends.
///
/// Accepted shapes: `{"k": v, "traceEvents": [ {...}, ... ], ...}` and `[ {...}, ... ]`.
///
///   ChromeJsonScanner s(handler, 1 << 20);
///   s.feed(R"({"a": [1, "]"], "traceEvents": [{"n": "x}"}, {"n)", 17);   // split anywhere
///   s.feed(R"(": 2}]})", 8);
///   // handler saw: onTopLevel("a", "[1, \"]\"]"), onEvent("{\"n\": \"x}\"}"), onEvent("{\"n\": 2}")
///
/// Elements larger than `maxElementBytes` are not buffered; they are reported with onIssue("event_too_large")
/// once their end is found. Elements of the event array that are not objects give onIssue("not_an_object").
class ChromeJsonScanner
{
public:
    class Handler
    {
    public:
        virtual ~Handler() = default;
        virtual void onContainer(bool wrapperObject) { (void)wrapperObject; }
        /// A top-level key other than `traceEvents` with the raw text of its value. `key` is the raw
        /// (still escaped) key text.
        virtual void onTopLevel(std::string_view key, std::string_view rawValue) = 0;
        /// The raw text of one element of the event array that is an object. Valid during the call only.
        virtual void onEvent(std::string_view text) = 0;
        virtual void onIssue(model::ImportWarningKind kind, std::string_view message) = 0;
    };

    ChromeJsonScanner(Handler& handler, std::uint64_t maxElementBytes);

    /// Scans the next piece of the text. Returns false once the text turned out not to be a Chrome
    /// trace at all (see fatalError()); later calls do nothing.
    bool feed(const char* p, std::size_t n);
    [[nodiscard]] bool failed() const { return m_mode == Mode::Fatal; }
    /// Why the text is not a Chrome trace, e.g. "expected '{' or '[' at the start, found 'h'".
    [[nodiscard]] const std::string& fatalError() const { return m_fatal; }
    /// The top-level value was closed (when the input has ended, false means it was cut short).
    [[nodiscard]] bool complete() const { return m_mode == Mode::Done || m_mode == Mode::Trailing; }
    /// No byte other than whitespace was seen.
    [[nodiscard]] bool sawNothing() const { return m_mode == Mode::Start; }
    [[nodiscard]] bool wrapperObject() const { return m_wrapper; }
    [[nodiscard]] bool sawTraceEvents() const { return m_sawTraceEvents; }
    [[nodiscard]] std::uint64_t eventCount() const { return m_events; }
    [[nodiscard]] std::uint64_t nonObjectCount() const { return m_nonObjects; }
    [[nodiscard]] std::uint64_t bytesScanned() const { return m_bytes; }
    /// The text seen so far of the element (event or top-level value) whose end has not been fed yet; empty
    /// when there is none or it is too large to be kept.
    [[nodiscard]] std::string_view pendingElement() const
    {
        return m_mode == Mode::Element && !m_overflow ? std::string_view(m_element) : std::string_view();
    }
    /// Where the input stopped, for truncation messages ("inside the traceEvents array").
    [[nodiscard]] std::string_view positionDescription() const;

private:
    enum class Mode : std::uint8_t {
        Start,
        ObjKey,
        ObjKeyString,
        ObjColon,
        ObjValue,
        Array,
        Element,
        Done,
        Trailing,
        Fatal
    };
    enum class ElementKind : std::uint8_t { Event, TopLevel, NonObject };
    enum class Shape : std::uint8_t { Container, String, Scalar };

    void fail(std::string message);
    void beginElement(char first, ElementKind kind);
    std::size_t scanElement(const char* p, std::size_t i, std::size_t n);
    std::size_t scanContainerBytes(const char* p, std::size_t j, std::size_t limit, bool& done);
    void endElement(std::string_view text);
    static std::string describe(char c);

    Handler& m_handler;
    std::uint64_t m_maxElementBytes;
    Mode m_mode = Mode::Start;
    bool m_wrapper = false;
    bool m_inEvents = false;
    bool m_sawTraceEvents = false;
    bool m_keyEscape = false;
    std::string m_key;
    std::string m_fatal;
    std::uint64_t m_events = 0;
    std::uint64_t m_nonObjects = 0;
    std::uint64_t m_bytes = 0;
    std::uint32_t m_bomSeen = 0;

    // The element being cut out.
    ElementKind m_kind = ElementKind::Event;
    Shape m_shape = Shape::Container;
    std::uint64_t m_depth = 0;
    bool m_inString = false;
    bool m_escape = false;
    bool m_overflow = false;
    std::uint64_t m_elementBytes = 0;
    std::string m_element; // the part of the element seen in earlier pieces
    // The 64-byte block of the piece being fed that the last element ended in, and its masks (quotes,
    // backslashes, opening and closing brackets): the next element starts a few bytes on, in the same block.
    // Set by scanElement(), forgotten by each feed().
    const char* m_blockBase = nullptr;
    std::uint64_t m_blockMasks[4] = {};
};

} // namespace timesink::parsers::chromejson
