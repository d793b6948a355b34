// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/pass.h"
#include "analysis/job/job.h"
#include "model/expected.h"
#include "parsers/common/importer.h"

#include <atomic>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace timesink::app {

/// One rank of a job: a trace (file or profiler folder) to analyse, or a timesink.report/1 file to read.
struct JobInput
{
    std::filesystem::path path;
    bool report = false;
};

/// Expands the paths given to `job` into rank inputs, in a stable order:
/// * a `timesink.report/1` JSON file → a report input; any other file → a trace;
/// * a `*_ascend_pt` or `PROF_*` folder → one trace (one rank);
/// * any other folder → its `*_ascend_pt`/`PROF_*` subfolders, its rank reports and the files that an importer
///   recognises as a trace (by content, as when opening one), one rank each, sorted by name
///   with numbers compared as numbers (rank-2 before rank-10). Everything else in the folder (notes.json, a
///   README, a job report, other folders) is left out, and named with the reason in `skipped` when given
///   ("skipped runs/notes.json: not a trace Timesink knows"), like HTA and msprof-analyze pick the traces out.
/// A file named explicitly is always a rank: if it is no trace, reading it fails and names it.
/// False with `error` naming the path when a path does not exist or a folder holds no rank.
bool collectJobInputs(const std::vector<std::filesystem::path>& paths, std::vector<JobInput>& out, std::string& error,
                      std::vector<std::string>* skipped = nullptr);

/// True when `path` is a folder that holds several ranks: two or more `*_ascend_pt`/`PROF_*` folders, trace files
/// whose name says "rank", or rank reports (opening such a folder in the viewer shows the job overview).
bool isJobFolder(const std::filesystem::path& path);

struct JobRunOptions
{
    unsigned threads = 0; // 0: the number of cores
    /// How each rank's trace is read: decompression limits (`--max-decompressed`), and the importer's decode
    /// threads — left at 0, runJob() gives each rank the cores divided by the ranks analysed at once, so
    /// `-j 2` on 2 cores reads each rank with one decoder instead of oversubscribing the cores (and holding
    /// twice the import buffers per rank).
    parsers::ImportOptions import;
    analysis::AnalysisOptions analysis;
    analysis::JobOptions job;
    std::string generator = "timesink";
    /// Warnings about the inputs (collectJobInputs' `skipped`): runJob() puts them first in the job's warnings.
    std::vector<std::string> inputWarnings;
    /// The snapshot cache the ranks' traces are opened through (parsers::loadThroughSnapshotCache, the same policy
    /// as every other open); empty: none. `storeSnapshots` also writes an entry for each rank imported (`--cache`).
    std::filesystem::path snapshotCache;
    bool storeSnapshots = false;
};

struct JobRun
{
    analysis::JobResult result;
    std::vector<std::string> errors; // one per input that could not be read, naming it
    bool cancelled = false;
};

/// Analyses the ranks on up to `threads` threads, each loading one rank at a time, keeping only its summary
/// (the trace is dropped, and the heap's free pages given back to the system, before the thread takes the next
/// rank), then aligns the ranks (analysis::analyzeJob).
/// `progress(done, total)` is called from worker threads after each rank.
/// glibc's allocator set for a job's many whole-model allocations and frees (a 64 MiB top pad, own mappings from
/// 1 MiB; measured in jobrunner.cpp). Process-wide, so a program calls it once before its first job; a no-op
/// without glibc and under AddressSanitizer.
void tuneAllocatorForJobs();

JobRun runJob(const std::vector<JobInput>& inputs, const JobRunOptions& options,
              const std::atomic<bool>* cancel = nullptr,
              const std::function<void(std::size_t, std::size_t)>& progress = {});

/// The summary of one rank (a worker's task; exposed for tests and the GUI).
/// A failure's message names the input.
model::Expected<analysis::RankSummary> summarizeRank(const JobInput& input, const JobRunOptions& options);

} // namespace timesink::app
