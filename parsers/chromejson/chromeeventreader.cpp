// SPDX-License-Identifier: MIT
// The Chrome reader's driver: opens the input, runs the pipeline (chromebatchpipeline.h) on threads or inline,
// hands the batches to the sink in file order, and turns what the scanner and the stream found into errors and
// warnings. Decoding is chromebatchdecode.cpp's.
#define TIMESINK_CHROME_EVENT_READER // this file owns chromebatchpipeline.h (see its guard)
#include "parsers/chromejson/chromeeventreader.h"

#include "model/workers.h"
#include "parsers/chromejson/chromebatch.h"
#include "parsers/chromejson/chromebatchpipeline.h"
#include "parsers/chromejson/chromejsonscanner.h"
#include "parsers/common/decimaltime.h"
#include "parsers/common/inputstream.h"

#include <algorithm>
#include <memory>
#include <string>

namespace timesink::parsers::chromejson {

using detail::Batch;
using detail::nsSince;
using detail::PhaseClock;
using detail::Pipeline;

std::optional<model::TimeNs> microsTextToNs(std::string_view text)
{
    // One exact decimal parser serves every importer (JSON numbers and strings, CSV cells, SQLite text).
    return parseMicrosToNs(text);
}

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
        result.status = model::Status(model::StatusKind::CannotRead, openError);
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
            result.status
                = model::Status(model::StatusKind::CannotRead,
                                file + ": cannot start a thread to decode events (the process is at its thread limit)");
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
        result.status = model::Status(model::StatusKind::Cancelled, file + ": loading was cancelled");
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
        result.status = model::Status(model::StatusKind::NotRecognised,
                                      file + ": not a trace: " + outcome.fatalMessage + "; " + expected);
        return result;
    }
    if (outcome.empty) {
        if (!outcome.streamError.empty()) {
            result.status
                = model::Status(model::StatusKind::CannotRead, file + ": cannot read: " + outcome.streamError);
        } else if (outcome.streamTruncated) {
            result.status
                = model::Status(model::StatusKind::CannotRead,
                                file + ": cannot read: the compressed stream ends before any data; " + expected);
        } else {
            result.status = model::Status(model::StatusKind::NotRecognised, file + ": the file is empty; " + expected);
        }
        return result;
    }
    if (outcome.wrapper && !outcome.sawTraceEvents) {
        result.status = model::Status(model::StatusKind::NotRecognised,
                                      file + ": the JSON object has no \"traceEvents\" array; " + expected);
        return result;
    }
    if (outcome.events == 0 && outcome.nonObjects > 0) {
        result.status = model::Status(model::StatusKind::NotRecognised,
                                      file + ": the JSON array holds no event objects; " + expected);
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
