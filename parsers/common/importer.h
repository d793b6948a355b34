// SPDX-License-Identifier: MIT
#pragma once

#include "model/expected.h"
#include "model/trace.h"

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace timesink::parsers {

/// Progress and cancellation, implemented by the caller (the CLI prints, the GUI forwards to a progress bar).
/// Importers call report() every few MB and poll cancelled(); both must be cheap and thread-safe.
class ProgressSink
{
public:
    virtual ~ProgressSink() = default;
    virtual void report(std::uint64_t bytesDone, std::uint64_t bytesTotal, std::string_view phase)
    {
        (void)bytesDone;
        (void)bytesTotal;
        (void)phase;
    }
    [[nodiscard]] virtual bool cancelled() const { return false; }
};

/// Busy time of each import phase in nanoseconds, summed over the threads that ran it. Filled when
/// ImportOptions::phases points at one (`timesink-cli --phases`, for scripts/bench). The reader thread, the
/// decoding workers and the sink run at the same time, so the phases overlap; their sum exceeds the wall time.
struct PhaseTimes
{
    std::atomic<std::uint64_t> readNs {0};        // reading and decompressing the input (reader thread)
    std::atomic<std::uint64_t> scanNs {0};        // cutting the text into events (reader thread)
    std::atomic<std::uint64_t> decodeNs {0};      // decoding events (worker threads, summed)
    std::atomic<std::uint64_t> sinkNs {0};        // the importer turning events into tracks, slices and flows
    std::atomic<std::uint64_t> finalizeNs {0};    // TraceBuilder::finalize() but for flow binding
    std::atomic<std::uint64_t> flowBindingNs {0}; // binding time-addressed flows to slices (inside finalize)
    std::atomic<unsigned> decodeThreads {0};
    std::atomic<std::uint64_t> events {0}; // events decoded (JSON importers)
    std::atomic<std::uint64_t> simdjsonEvents {
        0}; // of them, decoded by simdjson On-Demand (the plain decoder declined)
};

/// Plain options; no settings singletons.
struct ImportOptions
{
    /// Upper bound on the decompressed bytes of one compressed file (a decompression bomb stops here with the
    /// warning "decompressed_limit"; `--max-decompressed` in the CLI). Plain files are bounded by their size.
    std::uint64_t maxDecompressedBytes = 32ULL << 30;
    /// Upper bound on decompressed / compressed size of one file, once past 256 MiB of output. Real traces
    /// compress 8–25× with gzip and somewhat more with zstd -19; 200× leaves room for both.
    std::uint64_t maxDecompressedRatio = 200;
    /// Upper bound on a single JSON event object; larger ones are skipped with a warning.
    std::uint64_t maxEventBytes = 64ULL << 20;
    /// Worker threads used for parsing (0 = pick from the hardware).
    unsigned threads = 0;
    /// Where to add the time of each phase; nullptr (the default) measures nothing.
    PhaseTimes* phases = nullptr;
};

/// The outcome of an import: a frozen trace, or a Status whose message names the file and what was expected. The
/// kinds callers tell apart: CannotRead (missing, unreadable, a directory where a file was needed …), NotRecognised
/// (readable, but not a trace we know), Malformed (recognised, but nothing usable could be read) and Cancelled.
using ImportResult = model::Expected<model::TracePtr>;

/// "; skipped: 28 × bad_ts (…); 3 × time_out_of_range (…)" — for an error saying that nothing usable was read, so
/// that it names what made the records unusable instead of calling the input empty. Empty without warnings.
inline std::string describeSkipped(std::span<const model::ImportWarning> warnings, std::size_t max = 4)
{
    std::string out;
    for (const model::ImportWarning& w : warnings) {
        if (max-- == 0)
            break;
        out += (out.empty() ? "; skipped: " : "; ") + std::to_string(w.count) + " × " + w.kind + " (" + w.message + ")";
    }
    return out;
}

/// What detection sees of a path: the path itself, whether it is a directory (and its entries, recursively
/// to a small depth), and for files the first bytes after gzip/zstd has been unwrapped.
struct SourceProbe
{
    std::filesystem::path path;
    bool isDirectory = false;
    std::vector<std::filesystem::path> entries; // relative to path, for directories
    std::string head;                           // first bytes of the (decompressed) file content
    std::string compression;                    // "", "gzip" or "zstd"
    /// The compressed stream ended before its end marker while the head was read (a cut .gz/.zst).
    bool truncated = false;
    /// Folders: entries that could not be listed (permission denied) or that are not regular files (FIFOs,
    /// devices, sockets, symlinks to them), each as "PATH: reason" — said in errors instead of silently skipped.
    std::vector<std::string> problems;
};

/// What an importer reads, said once, by the importer: the registry's list of them (parsers::supportedFormats())
/// is the only list of formats — the CLI's usage, the GUI's open dialogs and help, and the "not a trace" error are
/// built from it.
struct FormatDescription
{
    /// For people, as a sentence part: "torch.profiler / Kineto Chrome-trace JSON".
    std::string name;
    /// File-name patterns for open dialogs: {"*.json", "*.json.gz", …}; empty when the format is folders only.
    std::vector<std::string> filePatterns;
    /// Folder-name patterns of profiler bundles: {"*_ascend_pt", "PROF_*"}.
    std::vector<std::string> folderPatterns;
    /// The `format` ids its traces report (TraceMetadata::format, `info`): {"kineto", "kineto-legacy"}.
    std::vector<std::string> formatIds;
};

/// One importer per format family.
class Importer
{
public:
    virtual ~Importer() = default;
    /// Short stable id of the family, e.g. "chromejson", "rknn", "ascend".
    [[nodiscard]] virtual std::string_view id() const = 0;
    /// What the family reads (see FormatDescription).
    [[nodiscard]] virtual FormatDescription describe() const = 0;
    /// 0 when the source is not ours; otherwise a confidence (higher wins; 100 = certain).
    [[nodiscard]] virtual int probe(const SourceProbe& source) const = 0;
    virtual ImportResult import(const SourceProbe& source, const ImportOptions& options, ProgressSink& progress) = 0;
};

} // namespace timesink::parsers
