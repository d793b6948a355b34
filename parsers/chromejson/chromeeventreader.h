// SPDX-License-Identifier: MIT
#pragma once

#include "model/importwarning.h"
#include "model/types.h"
#include "parsers/common/importer.h"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace timesink::parsers::chromejson {

/// One `args` entry of an event, decoded on a worker thread. Views stay valid for the duration of the
/// ChromeEventSink::onEvent() call that received them only.
struct ChromeArg
{
    enum class Kind : std::uint8_t { Int, Double, Bool, String, Json, Null };
    ChromeArg() = default;
    /// Field by field, for emplace_back: the decoder's copies of a whole arg compiled to `rep movs`.
    ChromeArg(std::string_view key_, Kind kind_, std::int64_t i_, double d_, std::string_view text_)
        : key(key_)
        , kind(kind_)
        , i(i_)
        , d(d_)
        , text(text_)
    {
    }
    std::string_view key; // unescaped
    Kind kind = Kind::Null;
    std::int64_t i = 0; // Int, Bool (0/1)
    double d = 0.0;     // Double
    /// String: the unescaped text. Json: the raw JSON text of an array/object value ("[[1, 2], [3]]").
    /// Int/Double: the number exactly as written ("1736408883700059.821").
    std::string_view text;
};

/// One Chrome-trace event (an element of `traceEvents` or of a bare array), decoded on a worker thread.
///
/// Times are exact integer nanoseconds converted from the decimal text of the µs value, never via double:
///   "ts": 1736408883700059.821    → ts = 1736408883700059821
///   "ts": "1736408883700059.821"  → ts = 1736408883700059821 (string ts, torch_npu/msprof)
///   "dur": 4                      → dur = 4000
/// No time base is applied (Kineto's `baseTimeNanoseconds` is a top-level key; the dialect adds it).
///
/// pid/tid are kept as text because they are ints in Kineto but strings elsewhere ("Spans",
/// "CPU functions", ""); `pidIsNumber` tells which, `pidNumber` holds the value when it is an integer.
struct ChromeEvent
{
    // The views and numbers first, the flags after them: 176 bytes instead of 208 with a pad after each flag
    // (millions of events a second are written by the decoding threads and read back by the sink).
    std::string_view name;
    std::string_view cat;
    std::string_view pid;
    std::string_view tid;
    std::string_view id;    // number as written, string unescaped, or raw JSON of an `id2` object
    std::string_view bp;    // flow binding point ("e" = enclosing slice)
    std::string_view scope; // "s" of instant events ("g", "p", "t")
    std::span<const ChromeArg> args;
    std::int64_t pidNumber = 0;
    std::int64_t tidNumber = 0;
    model::TimeNs ts = 0;
    model::TimeNs dur = 0;
    /// Fields present with a type that makes no sense (e.g. "ts": {}); they are reported as missing.
    std::uint32_t badFields = 0;
    char ph = 0; // first character of "ph"; 0 when missing
    bool hasPid = false;
    bool hasTid = false;
    bool pidIsNumber = false;
    bool tidIsNumber = false;
    bool hasTs = false;
    bool hasDur = false;
    bool hasId = false;
    bool hasArgs = false;

    /// The first arg called `key`, or nullptr.
    [[nodiscard]] const ChromeArg* arg(std::string_view key) const
    {
        for (const ChromeArg& a : args) {
            if (a.key == key)
                return &a;
        }
        return nullptr;
    }
};

/// Receives what the reader finds, on the thread that called ChromeEventReader::read(), in file order.
class ChromeEventSink
{
public:
    virtual ~ChromeEventSink() = default;
    /// The document is a wrapper object (`{"traceEvents": [...]}`) rather than a bare array.
    virtual void onContainer(bool wrapperObject) { (void)wrapperObject; }
    /// A top-level key of the wrapper object other than `traceEvents`, with the raw JSON text of its value
    /// (`"schemaVersion"`, `"1"`; `"deviceProperties"`, `"[{...}]"`). Called in file order relative to events,
    /// so a key written after `traceEvents` (Kineto's `baseTimeNanoseconds`) arrives after every event.
    virtual void onTopLevel(std::string_view key, std::string_view rawJson)
    {
        (void)key;
        (void)rawJson;
    }
    virtual void onEvent(const ChromeEvent& event) = 0;
    /// A counted problem (kind is a stable key: "truncated", "malformed_event", "event_too_large",
    /// "not_an_object", "bad_field", "decompressed_limit", "corrupt_stream", "trailing_data").
    virtual void onWarning(model::ImportWarningKind kind, std::string_view message, std::uint64_t count) = 0;
    /// Polled between batches; true stops the read with StatusKind::Cancelled.
    [[nodiscard]] virtual bool cancelled() const { return false; }
    /// False when the sink never reads the `name` of flow events (`ph` s/f/t): the decoder then skips them when
    /// `ph` comes first, as every writer puts it. A dialect's choice (torch_npu names each of its millions of flows
    /// uniquely, and its sink pairs flows by id alone); the reader only honours it.
    [[nodiscard]] virtual bool needsFlowNames() const { return true; }
};

/// Outcome of a read. Fatal errors (cannot open, not JSON, not a Chrome trace) set `status`, its message with the
/// file name and what was expected; truncation and bad events are warnings, not errors.
struct ChromeReadResult
{
    model::Status status;
    std::uint64_t events = 0; // events handed to onEvent()
    std::uint64_t decompressedBytes = 0;
    bool wrapperObject = false;
    bool sawTraceEvents = false; // wrapper object with a `traceEvents` array
    bool truncated = false;
    [[nodiscard]] bool ok() const { return status.ok(); }
};

/// The format-neutral Chrome Trace Event Format reader: it knows the envelope (`traceEvents` in a wrapper object or
/// a bare array, other top-level keys handed over raw) and the event fields (ph, name, cat, pid, tid, ts, dur, id,
/// bp, s, args), and nothing of any writer's dialect: the Kineto sink (kinetosink.h) and the torch_npu/msprof
/// sink (parsers/ascend/ascendtimeline.cpp) own what their writers' keys, args and flows mean. Its parts, one job each:
/// chromejsonscanner (event boundaries), chromebatchpipeline.h (threads and batches), chromebatchdecode.cpp with
/// chromefielddecode.h / chromeondemanddecode.h / chromeplaindecode.h (decoding), chromeeventreader.cpp (driver).
///
/// Streams a Chrome-trace JSON file (plain, .gz or .zst, detected by magic bytes) without building a DOM:
/// a reader thread decompresses and cuts `traceEvents` (or a bare top-level array) into event objects with a
/// boundary scanner, worker threads decode batches of events (a plain one-pass decoder for the common case,
/// simdjson On-Demand for the rest and as the reference), and the calling thread
/// receives them in file order. Memory is bounded by a few batches (a few MB each), independent of file size.
///
/// Usage (a dialect importer):
///
///   class MySink : public chromejson::ChromeEventSink {
///       void onTopLevel(std::string_view key, std::string_view json) override { ... }
///       void onEvent(const chromejson::ChromeEvent& e) override {
///           if (e.ph == 'X' && e.hasTs) builder.addSlice(trackFor(e.pid, e.tid), {e.ts, e.dur, ...});
///           if (const auto* a = e.arg("myKey"); a && a->kind == ChromeArg::Kind::Int) ...; // a dialect's arg
///       }
///       void onWarning(model::ImportWarningKind kind, std::string_view msg, std::uint64_t n) override {
///           builder.warn(kind, msg, n);
///       }
///   };
///   MySink sink;
///   chromejson::ChromeEventReader reader(path, options, progress);
///   chromejson::ChromeReadResult r = reader.read(sink);
///   if (!r.ok()) return r.status;
///
/// Strings and args in a ChromeEvent are views that die when onEvent() returns: intern or copy them.
class ChromeEventReader
{
public:
    ChromeEventReader(std::filesystem::path path, const ImportOptions& options, ProgressSink& progress);
    ~ChromeEventReader();
    ChromeEventReader(const ChromeEventReader&) = delete;
    ChromeEventReader& operator=(const ChromeEventReader&) = delete;

    /// Reads the whole file, calling `sink` on this thread. Not reentrant; call once.
    ChromeReadResult read(ChromeEventSink& sink);

    /// Batch size in bytes of the events that are copied out of their read buffer (tests use tiny batches to
    /// exercise the pipeline). Events parsed where they were read make one batch per read.
    void setBatchBytes(std::size_t bytes) { m_batchBytes = bytes; }
    /// Bytes requested from the input stream per read, and so the size of an in-place batch (tests use 1..n to
    /// exercise every split point).
    void setReadChunkBytes(std::size_t bytes) { m_readChunkBytes = bytes; }

    /// Whether events are decoded by the plain decoder where it can (the default), or all by simdjson On-Demand
    /// (the reference: tests and fuzz_chromejson check that both hand over the same events and warnings).
    void setPlainDecoding(bool on) { m_plainDecoding = on; }

private:
    std::filesystem::path m_path;
    ImportOptions m_options;
    ProgressSink& m_progress;
    std::size_t m_batchBytes = 1U << 20;
    std::size_t m_readChunkBytes = 1U << 20;
    bool m_plainDecoding = true;
};

/// Converts the decimal text of a microsecond value (a JSON number token or the contents of a JSON string)
/// to exact integer nanoseconds. Digits below 1 ns are rounded half away from zero; an exponent is allowed.
///   "1736408883700059.821" → 1736408883700059821
///   "4"                    → 4000
///   "1.5e3"                → 1500000
///   "-0.0005"              → -1 (rounded away from zero)
///   "abc", "", "1e400"     → nullopt
std::optional<model::TimeNs> microsTextToNs(std::string_view text);

} // namespace timesink::parsers::chromejson
