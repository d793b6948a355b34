// SPDX-License-Identifier: MIT
// Comparisons of real profiler output (tests/data) through the registered importers.
// Expected operator times were worked out independently with Python over the fixture files; each
// test quotes its script.
#include "analysis/compare/compare.h"
#include "analysis/core/pass.h"
#include "parsers/rknn/rknnimporter.h"
#include "report/reportoutput.h"
#include "report/writers/json/jsonwriter.h"
#include "tests/common/fixtures.h"

#include <QTest>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>

using namespace timesink;
using model::TimeNs;

namespace {

const char* kKineto = "torch/hta_a100_trace_diff_control.json.gz";
const char* kKinetoV100 = "torch/hta_v100_ns_resolution_rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz";
const char* kAscendL1 = "torch_npu/msinsight_text_level1_rank0_ascend_pt";
const char* kAscendL0 = "torch_npu/msinsight_text_level0_rank0_ascend_pt";
const char* kRknn16 = "rknn/rknpu2_1.6.0_rk3588_perf_detail_yolov8n_1920_singlecore.txt";
const char* kRknn232 = "rknn/toolkit2_2.3.2_rk3588_eval_perf_layers_yolov8n_640.txt";
const char* kRknnMulti = "rknn/rknpu2_2.0.0b0_rk3588_perf_detail_yolov8n_1920x1088_multicore.txt";

/// The layer rows a Python script over both raw tables reads the same way (tests/compare: edgeRuns* below):
///   def rows(p):
///       out = []
///       for line in open(p):
///           f = line.split()
///           if len(f) >= 11 and f[0].isdigit() and f[3] in ('NPU', 'CPU'):
///               wl = [float(x.rstrip('%')) for x in next(c for c in f if '%/' in c).split('/')]
///               cores = [i for i, w in enumerate(wl) if w > 0] if f[3] == 'NPU' else []
///               out.append(dict(id=int(f[0]), op=f[1], target=f[3], inp=f[4], t=int(f[7]), cores=cores, name=f[-1]))
///       return out
/// then pairs by FullName; the leftovers by node path (the part after ':', split on '/'), the shorter path (two
/// components at least) the tail of the longer one and the only such pair of either layer; the leftovers of one op
/// type in ID order when both sides have as many; placement changed = other target, or other non-empty core lists.
const analysis::CompareLayer& layerWithCandidateId(const analysis::CompareLayers& l, std::int64_t id)
{
    auto it = std::find_if(l.layers.begin(), l.layers.end(),
                           [&](const analysis::CompareLayer& x) { return x.candidateId == id; });
    if (it == l.layers.end())
        qFatal("no layer with candidate ID %lld", static_cast<long long>(id));
    return *it;
}

const analysis::CompareLayerOpType& opType(const analysis::CompareLayers& l, std::string_view name)
{
    auto it = std::find_if(l.opTypes.begin(), l.opTypes.end(),
                           [&](const analysis::CompareLayerOpType& t) { return t.opType == name; });
    if (it == l.opTypes.end())
        qFatal("no op type %.*s", static_cast<int>(name.size()), name.data());
    return *it;
}

parsers::RknnLayer plantedLayer(std::int64_t id, std::string op, std::string name, std::string target, TimeNs us,
                                std::string workload)
{
    parsers::RknnLayer l;
    l.id = id;
    l.opType = std::move(op);
    l.fullName = std::move(name);
    l.target = std::move(target);
    l.timeNs = us * 1000;
    l.workload = std::move(workload);
    l.inputShape = "(1,8,8,8)";
    return l;
}

model::TracePtr plantedRknn(std::vector<parsers::RknnLayer> layers)
{
    parsers::RknnPerfReport report;
    report.deviceName = "RK3588";
    parsers::RknnFrame frame;
    frame.formatVersion = "rknpu2-runtime";
    frame.hasLayerTable = true;
    frame.layers = std::move(layers);
    report.frames.push_back(std::move(frame));
    return parsers::RknnImporter::buildTrace(std::move(report), "planted.txt");
}

struct Compared
{
    analysis::AnalysisResult baseline;
    analysis::AnalysisResult candidate;
    analysis::CompareResult result;
};

Compared compareWithFindings(const model::Trace& b, const model::Trace& c, const analysis::CompareOptions& options = {})
{
    Compared out;
    const analysis::CancelToken cancel;
    out.baseline = analysis::analyze(b, analysis::AnalysisOptions {}, cancel);
    out.candidate = analysis::analyze(c, analysis::AnalysisOptions {}, cancel);
    std::string error;
    if (!analysis::compareRuns(b, out.baseline.findings, c, out.candidate.findings, options, out.result, error))
        qFatal("compareRuns failed: %s", error.c_str());
    return out;
}

const analysis::CompareOperator& op(const analysis::CompareResult& r, std::string_view name)
{
    auto it = std::find_if(r.operators.begin(), r.operators.end(),
                           [&](const analysis::CompareOperator& o) { return o.name == name; });
    if (it == r.operators.end())
        qFatal("operator %.*s not in the comparison", static_cast<int>(name.size()), name.data());
    return *it;
}

std::vector<std::string> sharedOperators(const analysis::CompareResult& r)
{
    std::vector<std::string> out;
    for (const auto& o : r.operators) {
        if (o.baselineNs > 0 && o.candidateNs > 0)
            out.push_back(o.name);
    }
    std::sort(out.begin(), out.end());
    return out;
}

bool contains(const std::vector<std::string>& list, std::string_view name)
{
    return std::find(list.begin(), list.end(), name) != list.end();
}

} // namespace

class TestCompareFixtures : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void gpuVersusNpu()
    {
        LOAD_FIXTURE(gpu, kKineto);
        LOAD_FIXTURE(npu, kAscendL1);
        const Compared c = compareWithFindings(*gpu, *npu);
        const analysis::CompareResult& r = c.result;
        // 6 ProfilerSteps (#1009-#1014) against one (#50): the first of each is compared.
        QCOMPARE(r.steps.size(), std::size_t(1));
        QCOMPARE(r.steps[0].baselineNumber, std::int64_t(1009));
        QCOMPARE(r.steps[0].candidateNumber, std::int64_t(50));
        QVERIFY(r.baseline.deviceTimed);
        QVERIFY(r.candidate.deviceTimed);

        // Baseline (Kineto, legacy async_gpu flows): kernel/memcpy/memset time by the outermost dispatcher
        // cpu_op around the runtime call with the same correlation, ops starting inside ProfilerStep#1009:
        //   X=[e for e in events if e['ph']=='X']; t = ts*1000; e = t + dur*1000
        //   rt = {e['args']['correlation']: e for e in X if e['cat']=='cuda_runtime'}
        //   ops around r on r's thread: sorted by (t, -e); the first whose name matches ^\w+::[\w.]+$
        //   for kernels/gpu_memcpy/gpu_memset: tot[outer(rt[corr])['name']] += dur, when step0.t <= op.t < step0.e
        //   → aten::mm 6946000, aten::linear 3824000, aten::to 6519000, aten::sum 1721000
        QCOMPARE(op(r, "aten::mm").baselineNs, TimeNs(6'946'000));
        QCOMPARE(op(r, "aten::linear").baselineNs, TimeNs(3'824'000));
        QCOMPARE(op(r, "aten::to").baselineNs, TimeNs(6'519'000));
        QCOMPARE(op(r, "aten::sum").baselineNs, TimeNs(1'721'000));

        // Candidate (torch_npu Level1 trace_view.json, times rounded half-up to ns): device task durations by the
        // outermost dispatcher cpu_op around the async_npu flow source; tasks reached only by HostToDevice go
        // CANN call → Dequeue on the same tid of the Python process → async_task_queue flow → Enqueue → op:
        //   async_npu:   tot[outer(s.pid, s.tid, s.ts)] += task.dur for each (s, f) flow pair
        //   HostToDevice: the one MEMCPY_ASYNC (PCIE_DMA_SQE, 13720 ns) not reached above → aten::convolution_backward
        //   → aten::conv2d 1116441, aten::mm 547411, aten::linear 518730, aten::convolution_backward 2031294,
        //     aten::to 844977, c10d::allreduce_ 105991878 (the four hcom_allReduce ops on the HCCL group lane;
        //     their Plane sub-tasks and SDMA copies are inside them and not counted again)
        QCOMPARE(op(r, "aten::conv2d").candidateNs, TimeNs(1'116'441));
        QCOMPARE(op(r, "aten::conv2d").candidateCalls, std::uint64_t(5));
        QCOMPARE(op(r, "aten::mm").candidateNs, TimeNs(547'411));
        QCOMPARE(op(r, "aten::linear").candidateNs, TimeNs(518'730));
        QCOMPARE(op(r, "aten::convolution_backward").candidateNs, TimeNs(2'031'294));
        QCOMPARE(op(r, "aten::to").candidateNs, TimeNs(844'977));
        QCOMPARE(op(r, "c10d::allreduce_").candidateNs, TimeNs(105'991'878));
        QCOMPARE(r.candidate.attributedSlices, r.candidate.workSlices);

        // The same framework operators are matched across vendors.
        const auto shared = sharedOperators(r);
        for (const char* name : {"aten::mm", "aten::linear", "aten::to", "aten::sum", "aten::mul", "aten::add"})
            QVERIFY2(contains(shared, name), name);

        // The JSON of a real pair serialises (cleaned strings) and carries the schema.
        const auto j = report::compareJson(report::CompareRun {*gpu, c.baseline.findings},
                                           report::CompareRun {*npu, c.candidate.findings}, r);
        QCOMPARE(j.at("schema").get<std::string>(), std::string("timesink.compare/1"));
        QCOMPARE(j.at("operators").size(), r.operators.size());
        QVERIFY(!j.dump().empty());
    }

    void npuVersusNpu()
    {
        LOAD_FIXTURE(level0, kAscendL0);
        LOAD_FIXTURE(level1, kAscendL1);
        const analysis::CompareResult r = compareWithFindings(*level0, *level1).result;
        QCOMPARE(r.steps.size(), std::size_t(1));
        QCOMPARE(r.steps[0].baselineNumber, std::int64_t(50));
        QCOMPARE(r.steps[0].candidateNumber, std::int64_t(50));
        const auto shared = sharedOperators(r);
        for (const char* name : {"aten::conv2d", "aten::convolution_backward", "aten::linear", "aten::max_pool2d"})
            QVERIFY2(contains(shared, name), name);
    }

    // One definition of a step's time (issue #46's accounting item): each side's step_ns in the JSON are the paired
    // steps' analysis windows, the figures steps[] and totals use, not the host ProfilerStep spans. The H100 Qwen
    // trace's step 6 is 47.15 ms on the host and 35.18 ms in its window.
    void stepTimesAreTheWindows()
    {
        LOAD_FIXTURE(h100, std::string("torch/tracelens_h100_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"));
        LOAD_FIXTURE(mi300, std::string("torch/tracelens_mi300_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"));
        analysis::CompareResult r;
        std::string error;
        QVERIFY2(analysis::compareRuns(*h100, {}, *mi300, {}, {}, r, error), error.c_str());
        const auto j = report::compareJson(report::CompareRun {*h100, {}}, report::CompareRun {*mi300, {}}, r);
        const auto& steps = j.at("steps");
        QVERIFY(!steps.empty());
        bool differsFromHost = false;
        for (const char* side : {"baseline", "candidate"}) {
            const auto& stepNs = j.at(side).at("step_ns");
            QCOMPARE(stepNs.size(), steps.size());
            TimeNs sum = 0;
            for (std::size_t i = 0; i < steps.size(); ++i) {
                const TimeNs ns = stepNs[i].get<TimeNs>();
                QCOMPARE(ns, steps[i].at(std::string(side) + "_ns").get<TimeNs>());
                sum += ns;
                const model::Trace& t = std::string_view(side) == "baseline" ? *h100 : *mi300;
                const std::size_t index
                    = std::string_view(side) == "baseline" ? r.steps[i].baselineIndex : r.steps[i].candidateIndex;
                differsFromHost = differsFromHost || ns != t.steps()[index].duration();
            }
            QCOMPARE(sum, j.at("totals").at(std::string(side) + "_ns").get<TimeNs>());
        }
        QVERIFY(differsFromHost);
        const auto& h100Steps = j.at("baseline").at("step_numbers");
        for (std::size_t i = 0; i < h100Steps.size(); ++i) {
            if (h100Steps[i].get<std::int64_t>() == 6)
                QCOMPARE(j.at("baseline").at("step_ns")[i].get<TimeNs>() / 10'000, TimeNs(3'518)); // 35.18 ms
        }
    }

    void gpuVersusGpu()
    {
        LOAD_FIXTURE(a100, kKineto);
        LOAD_FIXTURE(v100, kKinetoV100);
        analysis::CompareOptions options;
        std::string error;
        // ProfilerStep#1010-#1012 of the A100 run against the V100 run's #103-#105.
        QVERIFY(analysis::CompareStepSelection::parsePair("#1010-#1012:#103-#105", options.baselineSteps,
                                                          options.candidateSteps, error));
        const analysis::CompareResult r = compareWithFindings(*a100, *v100, options).result;
        QCOMPARE(r.steps.size(), std::size_t(3));
        QCOMPARE(r.steps[0].baselineIndex, std::size_t(1));
        QCOMPARE(r.steps[2].candidateNumber, std::int64_t(105));
        QVERIFY(r.notes.empty());
        const auto shared = sharedOperators(r);
        for (const char* name : {"aten::mm", "aten::add", "aten::relu"})
            QVERIFY2(contains(shared, name), name);
    }

    void rknnVersusRknn()
    {
        LOAD_FIXTURE(big, kRknn16);
        LOAD_FIXTURE(small, kRknn232);
        const analysis::CompareResult r = compareWithFindings(*big, *small).result;
        QCOMPARE(r.steps.size(), std::size_t(1));
        QVERIFY(r.baseline.deviceTimed);
        // Layer rows parsed with Python (the µs value after the a/b/c cycles token), layer types mapped through
        // resources/opmap/default.tsv:
        //   for each row: tot[map.get(OpType, OpType)] += time_us * 1000
        //   1920 (rknpu2 1.6.0): aten::conv2d 105166000 ns in 66 layers, aten::cat 11349000, all 128441000
        //   640 (toolkit2 2.3.2): aten::conv2d 13223000 ns in 64 layers, aten::cat 2034000, all 20663000
        QCOMPARE(op(r, "aten::conv2d").baselineNs, TimeNs(105'166'000));
        QCOMPARE(op(r, "aten::conv2d").baselineCalls, std::uint64_t(66));
        QCOMPARE(op(r, "aten::conv2d").candidateNs, TimeNs(13'223'000));
        QCOMPARE(op(r, "aten::conv2d").candidateCalls, std::uint64_t(64));
        QCOMPARE(op(r, "aten::cat").baselineNs, TimeNs(11'349'000));
        QCOMPARE(op(r, "aten::cat").candidateNs, TimeNs(2'034'000));
        QCOMPARE(r.operators.front().name, std::string("aten::conv2d")); // the largest delta
    }

    // The edge pair: the same YOLOv8n on an RK3588, one NPU core (1920x1920 input, rknpu2 1.6.0) against
    // RKNN_NPU_CORE_0_1_2 (1920x1088 input), both tables from the same blog. Python over the raw tables (rows() and
    // the pairing above):
    //   108 pairs, all by FullName; placement changed 25 (every one core [0] -> cores [0, 1, 2]; 73 stay [0] -> [0]);
    //   slower 14, faster 94; input shapes differ in 107; candidate NPU layers 98, 73 of them on one core;
    //   by delta: #4 ConvExSwish 4204 -> 12009 us, then #43 MaxPool 336 -> 5125 us;
    //   per op type: MaxPool 1013 -> 5627 us (5.55x), ConvExSwish 100965 -> 69273 us with 0 -> 0 split layers,
    //   Concat 11349 -> 8512 us with 0 -> 13 split layers; totals 128441 -> 96186 us (0.75x).
    void edgeRunsSingleVersusMultiCore()
    {
        LOAD_FIXTURE(single, kRknn16);
        LOAD_FIXTURE(multi, kRknnMulti);
        const Compared c = compareWithFindings(*single, *multi);
        const analysis::CompareResult& r = c.result;
        QCOMPARE(r.baselineStepsNs(), TimeNs(128'441'000));
        QCOMPARE(r.candidateStepsNs(), TimeNs(96'186'000));
        const analysis::CompareLayers& l = r.layers;
        QVERIFY(l.present);
        QCOMPARE(l.layers.size(), std::size_t(108));
        QCOMPARE(l.byName, std::uint64_t(108));
        QCOMPARE(l.byPath + l.byOpOrder + l.baselineOnly + l.candidateOnly, std::uint64_t(0));
        QCOMPARE(l.placementChanged, std::uint64_t(25));
        QCOMPARE(l.slower, std::uint64_t(14));
        QCOMPARE(l.faster, std::uint64_t(94));
        QCOMPARE(l.shapeChanged, std::uint64_t(107));
        QCOMPARE(l.baselineCoresUsed, 1);
        QCOMPARE(l.candidateCoresUsed, 3);
        std::uint64_t npu = 0;
        std::uint64_t oneCore = 0;
        for (const analysis::CompareLayer& x : l.layers) {
            if (x.placementChanged()) {
                QCOMPARE(x.baselineCores, std::vector<int>({0}));
                QCOMPARE(x.candidateCores, std::vector<int>({0, 1, 2}));
            }
            npu += x.candidateCores.empty() ? 0 : 1;
            oneCore += x.candidateCores.size() == 1 ? 1 : 0;
        }
        QCOMPARE(npu, std::uint64_t(98));
        QCOMPARE(oneCore, std::uint64_t(73));
        // The layers that got slower come first.
        QCOMPARE(l.layers[0].candidateId, std::optional<std::int64_t>(4));
        QCOMPARE(l.layers[0].opType, std::string("ConvExSwish"));
        QCOMPARE(l.layers[0].baselineNs, TimeNs(4'204'000));
        QCOMPARE(l.layers[0].candidateNs, TimeNs(12'009'000));
        QCOMPARE(l.layers[1].candidateId, std::optional<std::int64_t>(43));
        QCOMPARE(l.layers[1].deltaNs(), TimeNs(5'125'000 - 336'000));
        const analysis::CompareLayerOpType& pool = opType(l, "MaxPool");
        QCOMPARE(l.opTypes.front().opType, std::string("MaxPool"));
        QCOMPARE(pool.baselineNs, TimeNs(1'013'000));
        QCOMPARE(pool.candidateNs, TimeNs(5'627'000));
        QVERIFY(std::abs(*pool.ratio() - 5627.0 / 1013.0) < 1e-12);
        const analysis::CompareLayerOpType& conv = opType(l, "ConvExSwish");
        QCOMPARE(conv.baselineNs, TimeNs(100'965'000));
        QCOMPARE(conv.candidateNs, TimeNs(69'273'000));
        QCOMPARE(conv.candidateLayers, std::uint64_t(57));
        QCOMPARE(conv.candidateSplitLayers, std::uint64_t(0));
        QCOMPARE(opType(l, "Concat").candidateSplitLayers, std::uint64_t(13));
        QCOMPARE(opType(l, "Concat").placementChanged, std::uint64_t(13));
        QVERIFY(std::any_of(r.notes.begin(), r.notes.end(), [](const std::string& n) {
            return n.rfind("107 of 108 matched layers have other input shapes", 0) == 0;
        }));

        // Every format says it: the JSON, Markdown and HTML writers.
        const report::CompareRun base {*single, c.baseline.findings};
        const report::CompareRun cand {*multi, c.candidate.findings};
        const auto j = report::compareJson(base, cand, r);
        QCOMPARE(j.at("layers").at("matched").at("name").get<int>(), 108);
        QCOMPARE(j.at("layers").at("placement_changed").get<int>(), 25);
        QCOMPARE(j.at("layers").at("layers")[0].at("candidate_id").get<int>(), 4);
        QCOMPARE(j.at("layers").at("layers")[0].at("delta_ns").get<std::int64_t>(), std::int64_t(7'805'000));
        QCOMPARE(j.at("layers").at("op_types")[0].at("op_type").get<std::string>(), std::string("MaxPool"));
        std::ostringstream md;
        report::writeCompareReport(base, cand, r, report::ReportFormat::Markdown, md);
        QVERIFY2(md.str().find("## Layers (edge runs)") != std::string::npos, md.str().c_str());
        QVERIFY(md.str().find("| MaxPool | 3 → 3 | 1.01 ms | 5.63 ms | +4.61 ms | 5.55× | 0 → 0 | 0 |")
                != std::string::npos);
        QVERIFY(md.str().find("| 43 | 43 | MaxPool | MaxPool:/model.9/m\\_1/MaxPool | core 0 |") != std::string::npos);
        QVERIFY(md.str().find("core 0 → cores 0+1+2") != std::string::npos);
        QVERIFY(md.str().find("73 of the candidate's 98 NPU layers still ran on one core") != std::string::npos);
        std::ostringstream html;
        report::writeCompareReport(base, cand, r, report::ReportFormat::Html, html);
        QVERIFY(html.str().find("<section id=\"layers\">") != std::string::npos);
        QVERIFY(html.str().find("Layers whose placement changed") != std::string::npos);
        QVERIFY(html.str().find("5.55×") != std::string::npos);
    }

    // Two toolkit generations name the same graph differently: rknpu2 1.6.0 prints "Conv:/model.0/conv/Conv" where
    // toolkit2 2.3.2 prints "Conv:/model/model.0/conv/Conv" (and its export of the 640 model has another head).
    // Python over the raw tables (rows() and the pairing above): 1 pair by name (InputOperator:images), 95 by node
    // path, 0 by op order; 12 only in the 1920 table, 23 only in the 640 one; the largest delta is the 640's
    // exSoftmax13 (2093 us, no counterpart); the path pair #2 ConvExSwish 16130 -> 1861 us.
    void edgeRunsRenamedToolkit()
    {
        LOAD_FIXTURE(old, kRknn16);
        LOAD_FIXTURE(cur, kRknn232);
        const analysis::CompareLayers& l = compareWithFindings(*old, *cur).result.layers;
        QVERIFY(l.present);
        QCOMPARE(l.byName, std::uint64_t(1));
        QCOMPARE(l.byPath, std::uint64_t(95));
        QCOMPARE(l.byOpOrder, std::uint64_t(0));
        QCOMPARE(l.baselineOnly, std::uint64_t(12));
        QCOMPARE(l.candidateOnly, std::uint64_t(23));
        QCOMPARE(l.placementChanged, std::uint64_t(0));
        QCOMPARE(l.layers.front().match, analysis::CompareLayer::Match::CandidateOnly);
        QCOMPARE(l.layers.front().opType, std::string("exSoftmax13"));
        QCOMPARE(l.layers.front().candidateNs, TimeNs(2'093'000)); // the printed time, not the slice's
        const analysis::CompareLayer& first = layerWithCandidateId(l, 2);
        QCOMPARE(first.match, analysis::CompareLayer::Match::Path);
        QCOMPARE(first.baselineName, std::string("Conv:/model.0/conv/Conv"));
        QCOMPARE(first.name, std::string("Conv:/model/model.0/conv/Conv"));
        QCOMPARE(first.baselineNs, TimeNs(16'130'000));
        QCOMPARE(first.candidateNs, TimeNs(1'861'000));
    }

    // Planted tables exercise each rule: a renamed path, a renamed node matched by op type and order, an
    // ambiguous path left unmatched, another core, another target.
    void edgeRunsPlanted()
    {
        using parsers::RknnLayer;
        const std::string one = "100.0%/0.0%/0.0%";
        const model::TracePtr b = plantedRknn({
            plantedLayer(1, "Conv", "Conv:/a/conv", "NPU", 100, one),
            plantedLayer(2, "Conv", "Conv:/b/conv", "NPU", 200, one),
            plantedLayer(3, "Relu", "Relu:/x/relu1", "NPU", 50, one),
            plantedLayer(4, "Sigmoid", "Sigmoid:/s", "NPU", 30, one),
            plantedLayer(5, "Add", "Add:/c/add", "NPU", 40, one),
            plantedLayer(7, "Mul", "Mul:/p/q/mul", "NPU", 60, one),
        });
        const model::TracePtr c = plantedRknn({
            plantedLayer(1, "Conv", "Conv:/net/a/conv", "NPU", 150, "0.0%/100.0%/0.0%"),
            plantedLayer(2, "Conv", "Conv:/b/conv", "NPU", 80, "33.3%/33.3%/33.3%"),
            plantedLayer(3, "Relu", "Relu:/y/relu_renamed", "NPU", 70, one),
            plantedLayer(4, "Sigmoid", "Sigmoid:/s1", "NPU", 10, one),
            plantedLayer(5, "Sigmoid", "Sigmoid:/s2", "NPU", 10, one),
            plantedLayer(6, "Add", "Add:/c/add", "CPU", 90, "0.0%/0.0%/0.0%"),
            plantedLayer(8, "Mul", "Mul:/m1/p/q/mul", "NPU", 5, one),
            plantedLayer(9, "Mul", "Mul:/m2/p/q/mul", "NPU", 5, one),
        });
        const analysis::CompareLayers& l = compareWithFindings(*b, *c).result.layers;
        QVERIFY(l.present);
        QCOMPARE(l.byName, std::uint64_t(2));        // Conv:/b/conv, Add:/c/add
        QCOMPARE(l.byPath, std::uint64_t(1));        // /a/conv is the tail of /net/a/conv
        QCOMPARE(l.byOpOrder, std::uint64_t(1));     // the one Relu left on each side
        QCOMPARE(l.baselineOnly, std::uint64_t(2));  // Sigmoid (1 against 2), Mul (its path ends two layers)
        QCOMPARE(l.candidateOnly, std::uint64_t(4)); // two Sigmoids, two Muls
        QCOMPARE(l.placementChanged, std::uint64_t(3));
        QCOMPARE(layerWithCandidateId(l, 1).baselineId, std::optional<std::int64_t>(1));
        QCOMPARE(analysis::layerPlacementChange(layerWithCandidateId(l, 1)), std::string("core 0 → core 1"));
        QCOMPARE(analysis::layerPlacementChange(layerWithCandidateId(l, 2)), std::string("core 0 → cores 0+1+2"));
        QCOMPARE(analysis::layerPlacementChange(layerWithCandidateId(l, 6)), std::string("core 0 → CPU"));
        QCOMPARE(layerWithCandidateId(l, 3).match, analysis::CompareLayer::Match::OpOrder);
        QCOMPARE(layerWithCandidateId(l, 3).baselineId, std::optional<std::int64_t>(3));
        QCOMPARE(l.slower, std::uint64_t(3));
        QCOMPARE(l.faster, std::uint64_t(1));
        // Slower first: +50 (#1, then #6 by ID), +20, +10, +10, +5, +5, then the faster ones down to -120.
        std::vector<TimeNs> deltas;
        for (const analysis::CompareLayer& x : l.layers)
            deltas.push_back(x.deltaNs() / 1000);
        QCOMPARE(deltas, std::vector<TimeNs>({50, 50, 20, 10, 10, 5, 5, -30, -60, -120}));
        QCOMPARE(l.layers[0].candidateId, std::optional<std::int64_t>(1));
        QCOMPARE(l.layers[1].candidateId, std::optional<std::int64_t>(6));
    }

    void hostOnlyAgainstGpu()
    {
        LOAD_FIXTURE(cpu, "torch/hta_cpu_only_rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz");
        LOAD_FIXTURE(gpu, kKineto);
        const analysis::CompareResult r = compareWithFindings(*cpu, *gpu).result;
        QVERIFY(!r.baseline.deviceTimed);
        QVERIFY(r.candidate.deviceTimed);
        QVERIFY(!r.layers.present); // layer tables are compared for two RKNN runs only
        QVERIFY(std::find(r.notes.begin(), r.notes.end(),
                          "the baseline has no device work: its operator times are host time")
                != r.notes.end());
        QVERIFY(!r.operators.empty());
    }

    // compare times a step as analyze does (its analysis window), and device work queued before the first step is
    // no step's operator time. On TraceLens' H100 Qwen1.5 trace compare said 47.15 ms for step #6 (the host step)
    // where analyze said 49.38 ms, and counted 13.44 ms of 501 kernels launched before the trace began as #6's
    // operators (6 of the top 8 deltas against another run). python3 (as in tst_breakdown's
    // firstStepLeavesQueuedWorkOut, same variables):
    //   own = dev whose call starts in [hs, he): 1198 operations, sum(dur) 31905473
    //   left = dev whose correlation names no call: 501 start inside the host step, sum(dur) 13441318
    // analyze's window for #6: 35183363 ns.
    void stepsAndOperatorsUseTheAnalysisWindow()
    {
        LOAD_FIXTURE(qwen, std::string("torch/tracelens_h100_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"));
        const Compared c = compareWithFindings(*qwen, *qwen);
        QCOMPARE(c.result.steps.size(), std::size_t(1));
        QCOMPARE(c.result.steps[0].baselineNs, TimeNs(35'183'363));
        QCOMPARE(c.result.steps[0].baselineNs, c.baseline.analysedNs);
        QCOMPARE(c.result.baseline.operatorNs, TimeNs(31'905'473));
        QCOMPARE(c.result.baseline.attributedSlices, std::uint64_t(1198));
    }
};

QTEST_GUILESS_MAIN(TestCompareFixtures)
#include "tst_comparefixtures.moc"
