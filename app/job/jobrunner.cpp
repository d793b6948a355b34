// SPDX-License-Identifier: MIT
#include "app/job/jobrunner.h"

#include "model/memoryhint.h"
#include "model/workers.h"
#include "parsers/common/regularfile.h"
#include "parsers/registry/cachedload.h"
#include "parsers/registry/traceloader.h"
#include "report/analysis/reportmodel.h"
#include "report/core/schemas.h"
#include "report/job/rankreportreader.h"
#include "report/job/ranksummary.h"

#include <algorithm>
#include <cctype>
#include <fnmatch.h>
#include <mutex>
#include <optional>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace timesink::app {

namespace fs = std::filesystem;

namespace {

// A profiler's output folder by name: one of the importers' folder patterns (the registry's list).
bool isRunFolderName(const std::string& name)
{
    for (const std::string& pattern : parsers::supportedFolderPatterns()) {
        if (::fnmatch(pattern.c_str(), name.c_str(), 0) == 0)
            return true;
    }
    return false;
}

// The folder patterns as a sentence part for messages, each with its slash.
std::string runFolderPatterns()
{
    std::string out;
    const std::vector<std::string> patterns = parsers::supportedFolderPatterns();
    for (std::size_t i = 0; i < patterns.size(); ++i)
        out += (i == 0 ? "" : i + 1 == patterns.size() ? " or " : ", ") + patterns[i] + "/";
    return out;
}

// A job report written next to its ranks: its top-level "schema" says so (a rank's trace that mentions the tag in an
// event is still a rank).
bool isJobReport(const fs::path& path)
{
    return path.extension() == ".json" && report::jsonSchemaTag(path) == report::kJobSchema;
}

// "rank-2" < "rank-10": runs of digits compare as numbers.
bool naturalLess(const std::string& a, const std::string& b)
{
    std::size_t i = 0;
    std::size_t j = 0;
    while (i < a.size() && j < b.size()) {
        if (std::isdigit(static_cast<unsigned char>(a[i])) && std::isdigit(static_cast<unsigned char>(b[j]))) {
            std::size_t ie = i;
            std::size_t je = j;
            while (ie < a.size() && std::isdigit(static_cast<unsigned char>(a[ie])))
                ++ie;
            while (je < b.size() && std::isdigit(static_cast<unsigned char>(b[je])))
                ++je;
            const std::string_view da = std::string_view(a).substr(i, ie - i);
            const std::string_view db = std::string_view(b).substr(j, je - j);
            const std::size_t za = std::min(da.find_first_not_of('0'), da.size());
            const std::size_t zb = std::min(db.find_first_not_of('0'), db.size());
            const std::string_view na = da.substr(za);
            const std::string_view nb = db.substr(zb);
            if (na.size() != nb.size())
                return na.size() < nb.size();
            if (na != nb)
                return na < nb;
            i = ie;
            j = je;
            continue;
        }
        if (a[i] != b[j])
            return a[i] < b[j];
        ++i;
        ++j;
    }
    return a.size() - i < b.size() - j;
}

/// The ranks in `dir`: run folders, rank reports and files a trace importer recognises, in natural name order.
/// What is left out is named in `skipped` (when given) with the reason: other folders, a job report, and files
/// that are no trace (notes, READMEs, scripts). Hidden entries are left out silently.
std::vector<fs::path> rankEntries(const fs::path& dir, std::vector<std::string>* skipped = nullptr)
{
    std::vector<fs::path> out;
    std::vector<fs::path> left;
    std::vector<std::string> why;
    std::error_code ec;
    for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
        const std::string name = e.path().filename().string();
        if (name.empty() || name.front() == '.')
            continue;
        std::error_code sec;
        std::string reason;
        if (e.is_directory(sec)) {
            if (isRunFolderName(name))
                out.push_back(e.path());
            else
                reason = "a folder that is no profiler output (" + runFolderPatterns() + ")";
        } else if (!e.is_regular_file(sec)) {
            reason = "not a regular file";
        } else if (isJobReport(e.path())) {
            reason = "a job report"; // written next to its ranks, it is not a rank
        } else if (report::looksLikeReportJson(e.path()) || !parsers::recogniseSource(e.path()).empty()) {
            out.push_back(e.path());
        } else {
            reason = "not a trace Timesink knows";
        }
        if (!reason.empty()) {
            left.push_back(e.path());
            why.push_back(std::move(reason));
        }
    }
    std::sort(out.begin(), out.end(), [](const fs::path& a, const fs::path& b) {
        return naturalLess(a.filename().string(), b.filename().string());
    });
    if (skipped && !out.empty()) {
        std::vector<std::size_t> order(left.size());
        for (std::size_t i = 0; i < order.size(); ++i)
            order[i] = i;
        std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
            return naturalLess(left[a].filename().string(), left[b].filename().string());
        });
        for (const std::size_t i : order)
            skipped->push_back("skipped " + left[i].string() + ": " + why[i]);
    }
    return out;
}

} // namespace

bool isJobFolder(const fs::path& path)
{
    std::error_code ec;
    if (!fs::is_directory(path, ec) || isRunFolderName(path.filename().string()))
        return false;
    // Stricter than `job` itself: a folder of one run's several JSON files (msprof timeline/) must still open as
    // that run. Ranks show as run folders, files named after their rank, or per-rank reports.
    std::size_t ranks = 0;
    for (const fs::path& e : rankEntries(path)) {
        std::string name = e.filename().string();
        std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return char(std::tolower(c)); });
        if (fs::is_directory(e, ec) || name.find("rank") != std::string::npos || report::looksLikeReportJson(e))
            ++ranks;
    }
    return ranks >= 2;
}

bool collectJobInputs(const std::vector<fs::path>& paths, std::vector<JobInput>& out, std::string& error,
                      std::vector<std::string>* skipped)
{
    out.clear();
    for (const fs::path& p : paths) {
        std::error_code ec;
        if (!fs::exists(p, ec)) {
            error = p.string() + ": no such file or folder";
            return false;
        }
        // A FIFO or device named as a rank is refused before anything opens it (opening a FIFO blocks).
        if (std::string why = parsers::notRegularFileReason(p, true); !why.empty()) {
            error = std::move(why);
            return false;
        }
        if (!fs::is_directory(p, ec) || isRunFolderName(p.filename().string())) {
            out.push_back({p, !fs::is_directory(p, ec) && report::looksLikeReportJson(p)});
            continue;
        }
        const std::vector<fs::path> entries = rankEntries(p, skipped);
        if (entries.empty()) {
            error = p.string() + ": no ranks in this folder (expected " + runFolderPatterns()
                + " folders, or trace / report files that Timesink recognises)";
            return false;
        }
        for (const fs::path& e : entries)
            out.push_back({e, !fs::is_directory(e, ec) && report::looksLikeReportJson(e)});
    }
    if (out.empty()) {
        error = "no ranks given";
        return false;
    }
    return true;
}

model::Expected<analysis::RankSummary> summarizeRank(const JobInput& input, const JobRunOptions& options)
{
    if (input.report)
        return report::readRankReport(input.path);
    parsers::ProgressSink quiet;
    std::optional<parsers::snapshot::SnapshotCache> cache;
    if (!options.snapshotCache.empty())
        cache.emplace(options.snapshotCache);
    parsers::CachedLoad load
        = parsers::loadThroughSnapshotCache(input.path, options.import, quiet, cache ? &*cache : nullptr);
    parsers::ImportResult& loaded = load.result;
    if (!loaded.ok())
        return loaded.status();
    model::TracePtr& trace = loaded.value();
    if (load.store && options.storeSnapshots) {
        // A rank that cannot be cached is still analysed; the next run imports it again.
        (void)cache->store(*trace, *load.store);
    }
    analysis::CancelToken cancel;
    const analysis::AnalysisResult result = analysis::analyze(*trace, options.analysis, cancel);
    report::ReportOptions reportOptions;
    reportOptions.generator = options.generator;
    reportOptions.analysisOptions = options.analysis;
    const report::ReportModel model = report::buildReportModel(*trace, result, reportOptions);
    trace.reset(); // only the summary outlives this call
    model::Expected<analysis::RankSummary> summary = report::rankSummaryFromModel(model);
    if (summary) {
        summary.value().source = input.path.string();
        summary.value().tracePath = summary.value().source; // what the viewer opens (a profiler folder, not a file)
    }
    return summary;
}

void tuneAllocatorForJobs()
{
#if defined(__GLIBC__) && !defined(TIMESINK_ADDRESS_SANITIZER)
    // (Not under AddressSanitizer: its allocator replaces glibc's, whose arenas are then never set up, and two
    // ranks' first malloc_trim calls raced to set them up and crashed on a null bin.)
    // Each rank allocates and frees a whole model. With glibc's default top pad (128 KiB) every heap extension of
    // the next rank is a fresh system call and fresh page faults; growing by 64 MiB at a time halves the job's
    // system time and cuts its wall time by 25-45 % (16 ranks of 60 MB: -j 2 3.5 → 2.1-2.7 s, peak RSS 68 → 92 MB;
    // -j 1 10.7 → 5.6 s, 72 → 169 MB: each arena keeps up to the pad of freed memory for the next allocation).
    // Blocks of 1 MiB or more (batch texts, simdjson parsers, growing columns) get their own mappings: glibc would
    // raise its mmap threshold after the first such free and keep them in the threads' heaps. With the pad in
    // place this no longer changes -j 2 (1.9-2.2 s, 93 MB either way) but keeps -j 1 at 4.0-5.4 s (5.6-7.0 s
    // without). Process-wide settings: the programs call this (the CLI's `job`, the GUI's job window), never the
    // library.
    static std::once_flag allocatorOnce;
    std::call_once(allocatorOnce, [] {
        mallopt(M_TOP_PAD, 64 << 20);
        mallopt(M_MMAP_THRESHOLD, 1 << 20);
    });
#endif
}

JobRun runJob(const std::vector<JobInput>& inputs, const JobRunOptions& options, const std::atomic<bool>* cancel,
              const std::function<void(std::size_t, std::size_t)>& progress)
{
    JobRun run;
    std::vector<model::Expected<analysis::RankSummary>> summaries(inputs.size());
    std::atomic<std::size_t> done {0};
    const unsigned cores = model::hardwareThreads();
    const unsigned threads
        = static_cast<unsigned>(std::min<std::size_t>(options.threads > 0 ? options.threads : cores, inputs.size()));
    JobRunOptions rankOptions = options;
    if (rankOptions.import.threads == 0)
        rankOptions.import.threads = std::max(1u, cores / std::max(1u, threads));
    // A rank whose analysis runs out of memory stops the job: the others are joined and std::bad_alloc reaches the
    // caller (the CLI's "out of memory", exit 2; the job window's error), never an abort on a worker thread.
    model::parallelFor(inputs.size(), threads, [&](std::size_t i) {
        if (cancel && cancel->load())
            return;
        summaries[i] = summarizeRank(inputs[i], rankOptions);
#if defined(__GLIBC__) && !defined(TIMESINK_ADDRESS_SANITIZER)
        // The rank's trace is gone, but glibc keeps its freed pages in this thread's arena (and the import
        // threads' arenas) for reuse; give them back so the next rank starts from the summaries alone.
        malloc_trim(0);
#endif
        const std::size_t n = done.fetch_add(1) + 1;
        if (progress)
            progress(n, inputs.size());
    });
    if (cancel && cancel->load()) {
        run.cancelled = true;
        return run;
    }
    std::vector<analysis::RankSummary> good;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        if (summaries[i])
            good.push_back(std::move(summaries[i]).value());
        else if (const std::string& why = summaries[i].status().message(); !why.empty())
            run.errors.push_back(why);
        else
            run.errors.push_back(inputs[i].path.string() + ": could not be read");
    }
    run.result = analysis::analyzeJob(std::move(good), options.job);
    run.result.warnings.insert(run.result.warnings.begin(), options.inputWarnings.begin(), options.inputWarnings.end());
    return run;
}

} // namespace timesink::app
