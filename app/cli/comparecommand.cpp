// SPDX-License-Identifier: MIT
#include "comparecommand.h"

#include "analysis/compare/compare.h"
#include "analysis/core/pass.h"
#include "analysis/job/jobcompare.h"
#include "app/job/jobrunner.h"
#include "clicommon.h"
#include "parsers/common/regularfile.h"
#include "report/comparejson.h"
#include "report/comparereport.h"
#include "report/jobcomparereport.h"
#include "report/textformat.h"
#include "reportdestination.h"

#include <charconv>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <utility>
#include <vector>

namespace timesink::cli {

namespace {

/// Operator maps are hand-written tables of a few KB; anything beyond this is the wrong file.
constexpr std::uint64_t kMaxOpMapBytes = 16ULL << 20;

constexpr const char* kCompareUsage
    = "usage: timesink-cli compare BASELINE CANDIDATE [--format text|json|md|html|csv] [-o FILE] [--steps B:C]\n"
      "                             [--op-map FILE] [--top N]\n"
      "       timesink-cli compare JOB_A JOB_B [--format text|json|md|html|csv] [-o FILE]\n";

constexpr const char* kCompareHelp = R"(
Compares two runs (typically a GPU run and an NPU run of the same model): per-step time side by side,
device time per framework operator (host time for a run without device work), and the findings that
exist on one side only or grew. Two RKNN perf tables (edge runs: single-core vs multi-core, two toolkit
versions) are also compared layer by layer: layers matched by FullName, node path, then op type and order;
the layers whose NPU core split or target changed; the layers that got slower first.

  --format text|json|md|html|csv
                       text for people (default), the timesink.compare/1 JSON document, a Markdown or
                       self-contained HTML report, or the operator table as CSV (docs/report-schema.md)
  -o FILE              write to FILE (format from its extension unless --format says); written
                       atomically, never over an input
  --steps B:C          steps to pair: B for the baseline, C for the candidate, each a comma list of
                       indices (0, 1-3) or step numbers (#1010, #1010-#1012); empty or 'all' = every
                       step; 'B' alone applies to both. Default: all steps, paired first with first.
  --op-map FILE        extra operator-name map (TSV: canonical<TAB>other-name...), wins over the
                       built-in table (resources/opmap/default.tsv)
  --top N              operators and layers shown in text output (default 20; JSON lists all)

Job vs job: when BASELINE and CANDIDATE are both folders of ranks (what `timesink-cli job` accepts: rank
traces, *_ascend_pt/ or PROF_* runs, or the timesink.report/1 files of each rank), each is analysed as a
job and the two are compared rank by rank (mean step time, communication wait, the waiting each rank
caused) and by the job's step time, spread, straggler and communication figures (timesink.jobcompare/1
for JSON; CSV is the rank table). --steps, --op-map and --top do not apply.
)";

std::string signedDuration(model::TimeNs ns)
{
    return (ns > 0 ? "+" : "") + report::formatDuration(ns);
}

/// "a, b" (at most three names, then "+N more"); "—" for none.
std::string namesOf(const std::vector<std::string>& names)
{
    if (names.empty())
        return "—";
    std::string text;
    for (std::size_t i = 0; i < names.size() && i < 3; ++i)
        text += (i ? ", " : "") + names[i];
    if (names.size() > 3)
        text += " +" + std::to_string(names.size() - 3) + " more";
    return text;
}

std::string stepLabel(const model::Trace& trace, std::size_t index)
{
    const model::Step& s = trace.steps()[index];
    return s.synthetic ? std::string("(whole trace)") : "#" + std::to_string(s.number);
}

std::string column(std::string_view text, std::size_t width)
{
    std::string out = report::truncateText(terminalText(text), width);
    // Pad by code points so "µs" lines up.
    std::size_t points = 0;
    for (unsigned char c : out)
        points += (c & 0xC0) != 0x80;
    if (points < width)
        out.append(width - points, ' ');
    return out;
}

std::string rightColumn(std::string_view text, std::size_t width)
{
    std::size_t points = 0;
    for (unsigned char c : text)
        points += (c & 0xC0) != 0x80;
    return points < width ? std::string(width - points, ' ') + std::string(text) : std::string(text);
}

std::string ratioColumn(std::optional<double> ratio)
{
    char text[32] = "–";
    if (ratio)
        std::snprintf(text, sizeof text, "%.2f×", *ratio);
    return text;
}

std::string idColumn(const std::optional<std::int64_t>& id)
{
    return id ? std::to_string(*id) : std::string("–");
}

/// The layer comparison of two edge runs: op types, the layers whose placement changed, the layers by delta.
void printLayers(const analysis::CompareLayers& l, std::size_t top, std::ostringstream& out)
{
    out << "\nLayers (edge runs)\n  " << terminalText(analysis::layerSummaryText(l)) << "\n\n  "
        << column("op type", 18) << rightColumn("layers", 10) << rightColumn("baseline", 11)
        << rightColumn("candidate", 11) << rightColumn("delta", 11) << rightColumn("ratio", 8)
        << rightColumn("split", 9) << rightColumn("moved", 7) << '\n';
    for (const analysis::CompareLayerOpType& t : l.opTypes) {
        out << "  " << column(t.opType, 18)
            << rightColumn(std::to_string(t.baselineLayers) + " → " + std::to_string(t.candidateLayers), 10)
            << rightColumn(report::formatDuration(t.baselineNs), 11)
            << rightColumn(report::formatDuration(t.candidateNs), 11) << rightColumn(signedDuration(t.deltaNs()), 11)
            << rightColumn(ratioColumn(t.ratio()), 8)
            << rightColumn(std::to_string(t.baselineSplitLayers) + " → " + std::to_string(t.candidateSplitLayers), 9)
            << rightColumn(std::to_string(t.placementChanged), 7) << '\n';
    }
    auto row = [&](const analysis::CompareLayer& x) {
        out << "  " << rightColumn(idColumn(x.baselineId), 4) << rightColumn(idColumn(x.candidateId), 5) << "  "
            << column(x.opType, 16) << column(analysis::layerPlacementChange(x), 24)
            << rightColumn(report::formatDuration(x.baselineNs), 11)
            << rightColumn(report::formatDuration(x.candidateNs), 11) << rightColumn(signedDuration(x.deltaNs()), 11)
            << rightColumn(ratioColumn(x.ratio()), 8) << "  " << analysis::layerMatchKey(x.match) << '\n'
            << "             " << report::truncateText(terminalText(x.name), 90) << '\n';
    };
    auto header = [&](const char* title) {
        out << '\n'
            << title << "\n  " << rightColumn("base", 4) << rightColumn("cand", 5) << "  " << column("op type", 16)
            << column("placement", 24) << rightColumn("baseline", 11) << rightColumn("candidate", 11)
            << rightColumn("delta", 11) << rightColumn("ratio", 8) << "  matched by\n";
    };
    if (l.placementChanged > 0) {
        header("  Layers whose placement changed");
        std::size_t shown = 0;
        for (const analysis::CompareLayer& x : l.layers) {
            if (x.placementChanged() && shown++ < top)
                row(x);
        }
        if (shown > top)
            out << "  … " << (shown - top) << " more (--top N, or --format json for all)\n";
    }
    header("  Layers by delta (slower first)");
    const std::size_t shown = std::min(top, l.layers.size());
    for (std::size_t i = 0; i < shown; ++i)
        row(l.layers[i]);
    if (shown < l.layers.size())
        out << "  … " << (l.layers.size() - shown) << " more (--top N, or --format json for all)\n";
}

void printText(const model::Trace& base, std::span<const analysis::Finding> baseFindings, const model::Trace& cand,
               std::span<const analysis::Finding> candFindings, const analysis::CompareResult& r, std::size_t top)
{
    std::ostringstream out;
    auto runLine = [&](const char* label, const model::Trace& t, const analysis::CompareSide& side) {
        out << label << terminalText(t.metadata().sourcePath) << "\n           " << terminalText(t.metadata().format)
            << ", " << terminalText(report::deviceDescription(t)) << ", operator time on the "
            << (side.deviceTimed ? "device" : "host");
        if (side.deviceTimed) {
            out << " (" << side.attributedSlices << " of " << side.workSlices
                << " device slices linked to framework operators)";
        }
        out << '\n';
    };
    runLine("baseline   ", base, r.baseline);
    runLine("candidate  ", cand, r.candidate);

    out << "\nSteps\n  " << column("baseline ↔ candidate", 30) << rightColumn("baseline", 12)
        << rightColumn("candidate", 12) << rightColumn("delta", 12) << '\n';
    for (const analysis::CompareStepPair& p : r.steps) {
        out << "  " << column(stepLabel(base, p.baselineIndex) + " ↔ " + stepLabel(cand, p.candidateIndex), 30)
            << rightColumn(report::formatDuration(p.baselineNs), 12)
            << rightColumn(report::formatDuration(p.candidateNs), 12) << rightColumn(signedDuration(p.deltaNs()), 12)
            << '\n';
    }
    const model::TimeNs baseTotal = r.baselineStepsNs();
    const model::TimeNs candTotal = r.candidateStepsNs();
    out << "  " << column("total", 30) << rightColumn(report::formatDuration(baseTotal), 12)
        << rightColumn(report::formatDuration(candTotal), 12) << rightColumn(signedDuration(candTotal - baseTotal), 12);
    if (baseTotal > 0) {
        char ratio[48];
        std::snprintf(ratio, sizeof ratio, "  (%.2f× the baseline)",
                      static_cast<double>(candTotal) / static_cast<double>(baseTotal));
        out << ratio;
    }
    out << '\n';

    auto deviceRow = [&](std::string_view label, model::TimeNs b, model::TimeNs c) {
        out << "  " << column(label, 30) << rightColumn(report::formatDuration(b), 12)
            << rightColumn(report::formatDuration(c), 12) << rightColumn(signedDuration(c - b), 12) << '\n';
    };
    if (r.baseline.device.hasDeviceWork || r.candidate.device.hasDeviceWork) {
        const analysis::DeviceBreakdown& bd = r.baseline.device;
        const analysis::DeviceBreakdown& cd = r.candidate.device;
        out << "\nDevice breakdown (over the compared steps' device windows)\n  " << column("", 30)
            << rightColumn("baseline", 12) << rightColumn("candidate", 12) << rightColumn("delta", 12) << '\n';
        deviceRow("compute", bd.computeNs, cd.computeNs);
        deviceRow("exposed communication", bd.exposedCommunicationNs, cd.exposedCommunicationNs);
        deviceRow("exposed copies", bd.exposedCopyNs, cd.exposedCopyNs);
        deviceRow("idle", bd.idleNs, cd.idleNs);
        deviceRow("device window", bd.windowNs, cd.windowNs);
    }
    if (!r.waterfall.empty()) {
        out << "\nWaterfall: from the baseline's step time to the candidate's\n  " << column("", 30)
            << rightColumn("baseline", 12) << rightColumn("candidate", 12) << rightColumn("delta", 12) << '\n';
        out << "  " << column("baseline step time", 30) << rightColumn(report::formatDuration(baseTotal), 12) << '\n';
        for (const analysis::WaterfallPart& p : r.waterfall)
            deviceRow(p.label, p.baselineNs, p.candidateNs);
        out << "  " << column("candidate step time", 30) << rightColumn("", 12)
            << rightColumn(report::formatDuration(candTotal), 12)
            << rightColumn(signedDuration(candTotal - baseTotal), 12) << '\n';
    }
    if (!r.classes.empty()) {
        out << "\nKernel classes (device work over the compared steps)\n  " << column("class", 30)
            << rightColumn("baseline", 12) << rightColumn("calls", 7) << rightColumn("candidate", 12)
            << rightColumn("calls", 7) << rightColumn("delta", 12) << '\n';
        for (const analysis::CompareClass& c : r.classes) {
            out << "  " << column(analysis::kernelClassLabel(c.cls), 30)
                << rightColumn(report::formatDuration(c.baselineNs), 12)
                << rightColumn(std::to_string(c.baselineCalls), 7)
                << rightColumn(report::formatDuration(c.candidateNs), 12)
                << rightColumn(std::to_string(c.candidateCalls), 7) << rightColumn(signedDuration(c.deltaNs()), 12)
                << '\n';
        }
    }

    out << "\nOperators with the largest deltas (over the compared steps)\n  " << column("operator", 44)
        << rightColumn("baseline", 11) << rightColumn("calls", 7) << rightColumn("candidate", 11)
        << rightColumn("calls", 7) << rightColumn("delta", 12) << rightColumn("ratio", 8) << '\n';
    const std::size_t shown = std::min(top, r.operators.size());
    for (std::size_t i = 0; i < shown; ++i) {
        const analysis::CompareOperator& op = r.operators[i];
        char ratio[32] = "new";
        if (op.candidateNs == 0 && op.baselineNs != 0)
            std::snprintf(ratio, sizeof ratio, "gone");
        else if (const auto q = op.ratio())
            std::snprintf(ratio, sizeof ratio, "%.2f×", *q);
        out << "  " << column(op.name, 44) << rightColumn(report::formatDuration(op.baselineNs), 11)
            << rightColumn(std::to_string(op.baselineCalls), 7)
            << rightColumn(report::formatDuration(op.candidateNs), 11)
            << rightColumn(std::to_string(op.candidateCalls), 7) << rightColumn(signedDuration(op.deltaNs()), 12)
            << rightColumn(ratio, 8) << '\n';
        // Say which names were merged, so a mapped vendor name (Conv2D1, ConvExSwish) is not a surprise.
        auto renamed = [&](const std::vector<std::string>& names) {
            return !names.empty() && names != std::vector<std::string> {op.name};
        };
        if (renamed(op.baselineNames) || renamed(op.candidateNames))
            out << "    "
                << report::truncateText(terminalText(namesOf(op.baselineNames) + " ↔ " + namesOf(op.candidateNames)),
                                        100)
                << '\n';
    }
    if (shown < r.operators.size())
        out << "  … " << (r.operators.size() - shown) << " more (--top N, or --format json for all)\n";
    if (r.operators.empty())
        out << "  (no operators in the compared steps)\n";

    if (r.layers.present)
        printLayers(r.layers, top, out);

    out << "\nFindings that differ (lost time over the compared steps)\n";
    if (r.explanations.empty())
        out << "  none: both runs have the same findings with the same lost time\n";
    for (const analysis::CompareExplanation& e : r.explanations) {
        const char* status = "";
        switch (e.status) {
        case analysis::CompareExplanation::Status::CandidateOnly:
            status = "candidate only";
            break;
        case analysis::CompareExplanation::Status::BaselineOnly:
            status = "baseline only";
            break;
        case analysis::CompareExplanation::Status::Grew:
            status = "grew";
            break;
        case analysis::CompareExplanation::Status::Shrank:
            status = "shrank";
            break;
        }
        out << "  " << column(status, 16) << terminalText(e.title) << '\n'
            << "  " << std::string(16, ' ') << report::kindLabel(e.kind) << ": "
            << report::formatDuration(e.baselineLostNs) << " → " << report::formatDuration(e.candidateLostNs) << " ("
            << signedDuration(e.deltaNs());
        if (e.shareOfStepDelta > 0)
            out << ", " << report::formatPercent(e.shareOfStepDelta) << " of the step-time difference";
        out << ")\n";
    }
    if (const std::string note = report::explanationSharesNote(r); !note.empty())
        out << "  " << note << '\n';
    out << "\nFindings: " << baseFindings.size() << " in the baseline, " << candFindings.size()
        << " in the candidate (timesink-cli analyze PATH for details)\n";
    if (!r.notes.empty()) {
        out << "\nNotes\n";
        for (const std::string& n : r.notes)
            out << "  - " << terminalText(n) << '\n';
    }
    std::cout << out.str();
}

/// Job vs job: both sides are folders of ranks. Each is analysed as `timesink-cli job` would (app::runJob).
int runJobCompare(const Arguments& args, const ReportDestination& destination)
{
    if (args.has("--steps") || args.has("--op-map")) {
        std::cerr << "timesink-cli compare: --steps and --op-map do not apply to two jobs\n" << kCompareUsage;
        return kExitUsage;
    }
    app::JobRunOptions options;
    options.generator = "timesink-cli " TIMESINK_VERSION;
    options.import = importOptions();
    options.snapshotCache = activeSnapshotCacheDirectory();
    options.storeSnapshots = cacheMode() == CacheMode::Write;
    std::vector<std::filesystem::path> inputPaths = {args.positional[0], args.positional[1]};
    std::vector<std::vector<app::JobInput>> sides(2);
    for (std::size_t i = 0; i < 2; ++i) {
        std::string error;
        std::vector<std::string> skipped;
        if (!app::collectJobInputs({args.positional[i]}, sides[i], error, &skipped)) {
            std::cerr << "timesink-cli compare: " << terminalText(error) << '\n';
            return kExitInput;
        }
        for (const std::string& w : skipped)
            std::cerr << "timesink-cli compare: " << terminalText(w) << '\n';
        for (const app::JobInput& in : sides[i])
            inputPaths.push_back(in.path);
    }
    std::string error;
    if (!checkReportDestination(destination, inputPaths, error)) {
        std::cerr << "timesink-cli compare: " << terminalText(error) << '\n';
        return kExitUsage;
    }
    app::tuneAllocatorForJobs();
    std::vector<app::JobRun> runs;
    for (const auto& inputs : sides) {
        runs.push_back(app::runJob(inputs, options));
        if (!runs.back().errors.empty()) {
            for (const std::string& e : runs.back().errors)
                std::cerr << "timesink-cli compare: " << terminalText(e) << '\n';
            return kExitInput;
        }
    }
    const analysis::JobCompareResult result = analysis::compareJobs(runs[0].result, runs[1].result);
    const report::JobCompareInput in {args.positional[0], args.positional[1], result, options.generator};
    if (destination.text) {
        report::writeJobCompareReport(in, report::JobFormat::Text, std::cout);
        return kExitOk;
    }
    const report::JobFormat format = report::jobCompareFormat(destination.format);
    // The CSV is the rank table alone: the jobs' warnings, which every other format shows, go to stderr.
    if (format == report::JobFormat::Csv) {
        for (const auto& [side, warnings] :
             {std::pair {"baseline", &result.baselineWarnings}, std::pair {"candidate", &result.candidateWarnings}}) {
            for (const std::string& w : *warnings)
                std::cerr << "timesink-cli compare: warning (" << side << "): " << terminalText(w) << '\n';
        }
        if (!result.baselineUsable() || !result.candidateUsable())
            std::cerr << "timesink-cli compare: " << terminalText(result.notes.front()) << '\n';
    }
    return emitTo(destination, inputPaths, "compare",
                  [&](std::ostream& out) { report::writeJobCompareReport(in, format, out); });
}

bool loadOpMap(const std::string& path, analysis::CompareOpMap& map, std::string& error)
{
    // Only a regular file, and at most kMaxOpMapBytes: `--op-map /dev/zero` must not read forever.
    std::string text;
    if (!parsers::readSmallRegularFile(path, kMaxOpMapBytes, "operator map", text, error))
        return false;
    return map.addTsv(text, path, error);
}

} // namespace

int runCompare(int argc, char** argv)
{
    Arguments args;
    std::string error;
    if (!parseArguments(argc, argv, 2, {"--format", "-o", "--steps", "--op-map", "--top"}, {"--help", "-h"}, args,
                        error)) {
        std::cerr << "timesink-cli compare: " << terminalText(error) << '\n' << kCompareUsage;
        return kExitUsage;
    }
    if (args.has("--help") || args.has("-h")) {
        std::cout << kCompareUsage << kCompareHelp;
        return kExitOk;
    }
    ReportDestination destination;
    if (!resolveReportDestination(args, destination, error)) {
        std::cerr << "timesink-cli compare: " << terminalText(error) << '\n' << kCompareUsage;
        return kExitUsage;
    }
    if (args.positional.size() != 2) {
        std::cerr << kCompareUsage;
        return kExitUsage;
    }
    // Two folders of ranks: job vs job.
    const bool baseJob = app::isJobFolder(args.positional[0]);
    const bool candJob = app::isJobFolder(args.positional[1]);
    if (baseJob != candJob) {
        std::cerr << "timesink-cli compare: " << terminalText(args.positional[baseJob ? 0 : 1])
                  << " holds several ranks (a job) and the other side is one run; compare two jobs or two runs\n";
        return kExitUsage;
    }
    if (baseJob)
        return runJobCompare(args, destination);
    // Every file the command reads is an input that -o must not overwrite: the operator map too.
    std::vector<std::filesystem::path> inputs = {args.positional[0], args.positional[1]};
    if (args.has("--op-map"))
        inputs.emplace_back(args.value("--op-map"));
    if (!checkReportDestination(destination, inputs, error)) { // before the loads, so a typo costs nothing
        std::cerr << "timesink-cli compare: " << terminalText(error) << '\n';
        return kExitUsage;
    }
    std::size_t top = 20;
    if (args.has("--top")) {
        const std::string text = args.value("--top");
        const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), top);
        if (ec != std::errc() || ptr != text.data() + text.size()) {
            std::cerr << "timesink-cli compare: --top needs a number, not '" << text << "'\n" << kCompareUsage;
            return kExitUsage;
        }
    }
    analysis::CompareOptions options;
    if (!analysis::CompareStepSelection::parsePair(args.value("--steps"), options.baselineSteps, options.candidateSteps,
                                                   error)) {
        std::cerr << "timesink-cli compare: " << terminalText(error) << '\n' << kCompareUsage;
        return kExitUsage;
    }
    analysis::CompareOpMap opMap = analysis::CompareOpMap::builtIn();
    if (args.has("--op-map")) {
        if (!loadOpMap(args.value("--op-map"), opMap, error)) {
            std::cerr << "timesink-cli compare: " << terminalText(error) << '\n';
            return kExitInput;
        }
    }
    options.opMap = &opMap;

    int exitCode = kExitOk;
    const model::TracePtr baseline = loadForCommand(args.positional[0], exitCode);
    if (!baseline)
        return exitCode;
    const model::TracePtr candidate = loadForCommand(args.positional[1], exitCode);
    if (!candidate)
        return exitCode;

    const analysis::CancelToken cancel;
    const analysis::AnalysisResult baseAnalysis = analysis::analyze(*baseline, analysis::AnalysisOptions {}, cancel);
    const analysis::AnalysisResult candAnalysis = analysis::analyze(*candidate, analysis::AnalysisOptions {}, cancel);

    analysis::CompareResult result;
    if (!analysis::compareRuns(*baseline, baseAnalysis.findings, *candidate, candAnalysis.findings, options, result,
                               error)) {
        // The traces loaded; what failed is the step selection the user asked for.
        std::cerr << "timesink-cli compare: " << terminalText(error) << '\n';
        return kExitUsage;
    }
    if (destination.text) {
        printText(*baseline, baseAnalysis.findings, *candidate, candAnalysis.findings, result, top);
        return kExitOk;
    }
    report::CompareReportOptions reportOptions;
    reportOptions.generator = "timesink-cli " TIMESINK_VERSION;
    return emitTo(destination, inputs, "compare", [&](std::ostream& out) {
        report::writeCompareReport({*baseline, baseAnalysis.findings}, {*candidate, candAnalysis.findings}, result,
                                   destination.format, out, reportOptions);
    });
}

} // namespace timesink::cli
