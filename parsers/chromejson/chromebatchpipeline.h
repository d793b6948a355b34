// SPDX-License-Identifier: MIT
// Internal to the Chrome reader: the batched parallel pipeline — a reader thread scans the input into batches of
// event texts, decoder threads decode them (parseBatch), and the calling thread takes them back in file order.
#pragma once

#ifndef TIMESINK_CHROME_EVENT_READER
#error "internal to chromeeventreader.cpp: its class has internal linkage so that its members inline there"
#endif

#include "parsers/chromejson/chromebatch.h"
#include "parsers/chromejson/chromejsonscanner.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <simdjson.h>
#include <string>
#include <vector>

namespace timesink::parsers::chromejson::detail {

namespace od = simdjson::ondemand;

// Internal linkage, as the class was when it lived in chromeeventreader.cpp: this header is that file's alone (the
// guard above), and GCC inlines a member called once only when it is local to the TU.
namespace {

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

} // namespace timesink::parsers::chromejson::detail
