// SPDX-License-Identifier: MIT
#include "parsers/snapshot/sectiondecoder.h"

#include "model/columnvector.h"
#include "model/memoryhint.h"
#include "model/workers.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <zstd.h>
#include <zstd_errors.h>

namespace timesink::parsers::snapshot {

namespace {

/// Decompresses one section into its targets. Returns an error, empty when the section decoded to exactly its
/// raw size (zstd verifies the frame's checksum). Runs on several threads: touches only `input`, `scratch`,
/// `dctx` and the section's targets.
///
/// A section is one zstd frame of at most kSectionRawBytes, decoded in one call: straight into its column when
/// it lies in one (most of a big trace's do), else into `scratch` and copied out piece by piece. (Streaming
/// decompression into the pieces decodes into zstd's window and copies from there, at a few times the cost.)
std::string decompress(const ByteSource& source, const ColumnPlan& plan, const pb::Section& s, ZSTD_DCtx* dctx,
                       model::ColumnVector<char>& input, model::ColumnVector<char>& scratch)
{
    input.resize(s.compressed_size());
    if (!source.readAt(s.offset(), input.data(), input.size()))
        return "the snapshot is truncated (a column section lies past the end of the file)";
    const auto& targets = plan.targets[s.kind()];
    auto it = std::upper_bound(targets.begin(), targets.end(), s.raw_offset(),
                               [](std::uint64_t off, const Target& t) { return off < t.streamOffset; });
    if (it == targets.begin())
        return corruptSnapshot("section table");
    --it;
    std::uint64_t at = s.raw_offset();
    const std::uint64_t end = s.raw_offset() + s.raw_size();
    const auto raw = static_cast<std::size_t>(s.raw_size());
    const bool inOne = end - it->streamOffset <= it->bytes;
    char* dst = nullptr;
    if (inOne) {
        dst = it->data + (at - it->streamOffset);
        model::prefaultForWrite(dst, raw);
    } else {
        scratch.resize(raw);
        dst = scratch.data();
    }
    const std::size_t n = ZSTD_decompressDCtx(dctx, dst, raw, input.data(), input.size());
    if (ZSTD_isError(n)) {
        if (ZSTD_getErrorCode(n) == ZSTD_error_dstSize_tooSmall)
            return corruptSnapshot("a column section is longer than its header says");
        return corruptSnapshot(std::string("column data: ") + ZSTD_getErrorName(n));
    }
    if (n != raw)
        return corruptSnapshot("a column section ends early");
    if (inOne)
        return {};
    const char* from = scratch.data();
    while (at < end) {
        if (it == targets.end())
            return corruptSnapshot("section table");
        const std::uint64_t inTarget = at - it->streamOffset;
        const auto piece = static_cast<std::size_t>(std::min<std::uint64_t>(it->bytes - inTarget, end - at));
        model::prefaultForWrite(it->data + inTarget, piece);
        std::memcpy(it->data + inTarget, from, piece);
        from += piece;
        at += piece;
        ++it;
    }
    return {};
}

} // namespace

model::Status decodeSections(const ByteSource& source, const ColumnPlan& plan, const ImportOptions& options,
                             ProgressSink* progress)
{
    // Largest first, over a few threads: sections are independent and their targets disjoint.
    std::vector<const pb::Section*> order = plan.sections;
    std::stable_sort(order.begin(), order.end(), [](const pb::Section* a, const pb::Section* b) {
        return a->compressed_size() > b->compressed_size();
    });
    const unsigned wanted = options.threads > 0 ? options.threads : std::min(model::hardwareThreads(), 4U);
    const auto workers = static_cast<unsigned>(std::min<std::size_t>(wanted, order.size()));
    std::atomic<std::size_t> next {0};
    std::atomic<std::uint64_t> done {0};
    std::atomic<bool> stop {false};
    std::mutex errorMutex;
    model::Status failure; // the first thread's to fail
    auto work = [&](bool reports) {
        const std::unique_ptr<ZSTD_DCtx, decltype(&ZSTD_freeDCtx)> dctx(ZSTD_createDCtx(), &ZSTD_freeDCtx);
        if (!dctx)
            throw std::bad_alloc();
        // Sections never exceed kSectionRawBytes, so a frame asking for a larger window is not ours.
        ZSTD_DCtx_setParameter(dctx.get(), ZSTD_d_windowLogMax, 22);
        // Buffers that resize() leaves as they are (std::vector zeroed every byte it grew by, then overwrote it).
        model::ColumnVector<char> input;
        model::ColumnVector<char> scratch;
        for (std::size_t i = next++; !stop && i < order.size(); i = next++) {
            model::Status status;
            if (std::string e = decompress(source, plan, *order[i], dctx.get(), input, scratch); !e.empty())
                status = model::Status(model::StatusKind::Malformed, std::move(e));
            else if (progress && progress->cancelled())
                status = model::Status(model::StatusKind::Cancelled, "cancelled");
            if (!status.ok()) {
                const std::lock_guard lock(errorMutex);
                if (failure.ok())
                    failure = std::move(status);
                stop = true;
                break;
            }
            done += order[i]->raw_size();
            if (reports && progress)
                progress->report(done, plan.totalRaw, "snapshot");
        }
    };
    // An allocation failing on any thread stops the others and reaches the caller here, after every join.
    model::WorkerGroup group([&stop] { stop = true; });
    for (unsigned w = 1; w < workers; ++w) {
        if (!group.tryStart([&work] { work(false); }))
            break; // no more threads to be had: fewer do the work, as validateTrace() and finalize do
    }
    group.runHere([&work] { work(true); }); // the calling thread works too, and reports progress
    group.join();
    return failure;
}

} // namespace timesink::parsers::snapshot
