// SPDX-License-Identifier: MIT
// Past the readers, through the analyses, to every writer (issue 49: a snapshot whose slice was its own parent
// read fine and then hung `analyze --format json`). The input is a snapshot when it starts with the snapshot magic,
// else a per-rank report:
// - a snapshot is analysed, written as a bottleneck report in every format (text included), and compared with
//   itself in every compare format;
// - a rank report is merged as three ranks of a job, written in every job format, and the job is compared with
//   itself in every job-compare format.
// libFuzzer's -timeout (scripts/fuzz) and the replay's per-input alarm (replaymain.cpp) make a hang a finding. In
// fuzzing builds the snapshot reader skips its header hash and checksums, so mutations reach the analyses.
#include "analysis/compare/compare.h"
#include "analysis/core/pass.h"
#include "analysis/job/jobcompare.h"
#include "fuzz/jobinput.h"
#include "parsers/snapshot/snapshot.h"
#include "report/reportoutput.h"

#include <cstdint>
#include <sstream>
#include <string_view>

namespace {

using namespace timesink;
using fuzz::check;

using fuzz::kReportFormats;

void snapshotThroughEveryWriter(std::string_view bytes)
{
    parsers::ImportOptions options;
    options.threads = 1;
    options.maxDecompressedBytes = 64ULL << 20;
    const parsers::ImportResult r = parsers::snapshot::readSnapshotBuffer(bytes, options, "fuzz.tsnap");
    if (!r.ok()) {
        check(r.status().message().find("fuzz.tsnap") != std::string::npos); // a refusal names the file
        return;
    }
    const model::Trace& trace = *r.value();
    analysis::CancelToken cancel;
    const analysis::AnalysisResult result = analysis::analyze(trace, {}, cancel);
    // The physical bounds of docs/analysis.md: a saving is at most what was analysed, a loss is never negative.
    check(result.analysedNs >= 0 && result.savingNs >= 0 && result.savingNs <= result.analysedNs);
    for (const analysis::Finding& f : result.findings)
        check(f.lostNs >= 0);
    const report::ReportModel model = report::buildReportModel(trace, result);
    for (const report::ReportFormat format : kReportFormats) {
        std::ostringstream out;
        report::writeReport(model, format, out);
        check(!out.str().empty());
    }
    analysis::CompareResult compared;
    std::string error;
    if (!analysis::compareRuns(trace, result.findings, trace, result.findings, {}, compared, error))
        return;
    const report::CompareRun side {trace, result.findings};
    for (const report::ReportFormat format : kReportFormats) {
        std::ostringstream out;
        report::writeCompareReport(side, side, compared, format, out);
        check(!out.str().empty());
    }
}

void rankReportThroughEveryWriter(const std::uint8_t* data, std::size_t size)
{
    const std::optional<analysis::RankSummary> summary = fuzz::readRankReport(data, size);
    if (!summary)
        return;
    const analysis::JobResult job = fuzz::jobOfThree(*summary);
    fuzz::writeEveryJobFormat(job);
    const analysis::JobCompareResult compared = analysis::compareJobs(job, job);
    const report::JobCompareInput in {"fuzz-a", "fuzz-b", compared};
    for (const report::ReportFormat format : kReportFormats) {
        std::ostringstream out;
        report::writeJobCompareReport(in, format, out);
        check(!out.str().empty());
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    if (bytes.starts_with(parsers::snapshot::kMagic))
        snapshotThroughEveryWriter(bytes);
    else
        rankReportThroughEveryWriter(data, size);
    return 0;
}
