// SPDX-License-Identifier: MIT
// The edge NPU advisor (issue 34): NPU core utilisation in the device summary and the core_imbalance, memory_bound,
// low_mac_usage and data_movement kinds, on RKNN tables written for these tests (tests/analysis/rknn/: a multi-core
// rknpu2 run with WorkLoad split over three cores, the same run on one core, a toolkit v1 run and a table of
// implausible cells) and on the real single-core fixture. Every pinned figure comes from
//   python3 tests/analysis/rknn_advisor_figures.py TABLE [CORES]
// which parses the table itself and applies the formulas of docs/analysis.md "RKNN" (output quoted per test).
#include "analysis/core/breakdown.h"
#include "analysis/core/pass.h"
#include "analysis/core/rknnfixall.h"
#include "analysis/core/rknnlayers.h"
#include "analysis/core/textformat.h"
#include "report/writers/json/jsonwriter.h"
#include "tests/analysis/findinglookup.h"
#include "tests/common/fixtures.h"

#include <QTest>

#include <algorithm>
#include <filesystem>

using namespace timesink;
using namespace timesink::analysis;
using model::TimeNs;
using testing::ofKind;

namespace {

const std::filesystem::path kTables = TIMESINK_RKNN_TABLES;

model::TracePtr loadTable(const std::string& name)
{
    parsers::ProgressSink progress;
    parsers::ImportResult result = parsers::loadTrace(kTables / name, parsers::ImportOptions {}, progress);
    if (!result.ok())
        qWarning("%s", result.status().message().c_str());
    return result.ok() ? result.value() : nullptr;
}

AnalysisResult run(const model::Trace& t)
{
    CancelToken cancel;
    return analyze(t, AnalysisOptions {}, cancel);
}

std::string detailOf(const Finding& f, std::string_view key)
{
    for (const Detail& d : f.details) {
        if (d.key == key)
            return detailText(d);
    }
    return "<missing>";
}

std::string notAssessedReason(const AnalysisResult& r, std::string_view kind)
{
    for (const NotAssessed& n : r.notAssessed) {
        if (n.kind == kind)
            return n.reason;
    }
    return {};
}

std::uint64_t warningCount(const model::Trace& t, std::string_view key)
{
    std::uint64_t n = 0;
    for (const model::ImportWarning& w : t.warnings()) {
        if (w.kind == key)
            n += w.count;
    }
    return n;
}

// The time of the layers a finding touches (its events: one slice per layer).
TimeNs touchedNs(const model::Trace& t, const Finding& f)
{
    TimeNs ns = 0;
    for (const model::SliceRef& ref : f.events)
        ns += t.track(ref.track).dur(ref.index.value);
    return ns;
}

} // namespace

class TestRknnAdvisor : public QObject
{
    Q_OBJECT

private slots:
    // rknn_advisor_figures.py rknn/rknpu2_rk3588_multicore.txt:
    //   frame_ns 7700000 cores 3 core_busy_ns [7600000, 1400000, 900000] npu_core_busy_fraction 0.42857142857142855
    //   core_imbalance lost 4300001 layers 7
    //   memory_bound lost 1000000 layers 2 worst 4
    //   median_mac 22.5 low_mac_usage lost 1614400 layers [2]
    //   data_movement lost 1300000 layers 3 share 0.16883116883116883
    void multiCoreRun()
    {
        const model::TracePtr trace = loadTable("rknpu2_rk3588_multicore.txt");
        QVERIFY(trace);
        QCOMPARE(warningCount(*trace, "bad_field"), std::uint64_t {0});
        const StepClock clock(*trace);
        const std::optional<NpuCoreUse> use = npuCoreUse(*trace, readRknnLayers(*trace), clock);
        QVERIFY(use.has_value());
        QCOMPARE(use->cores, 3);
        QCOMPARE(use->coresSource, std::string("workload"));
        QCOMPARE(use->coresOnChip, 3);
        QCOMPARE(use->frameNs, TimeNs {7'700'000});
        QCOMPARE(use->busyNs, (std::vector<TimeNs> {7'600'000, 1'400'000, 900'000}));
        QVERIFY(use->busyFraction.has_value());
        QCOMPARE(*use->busyFraction, 9'900'000.0 / (3 * 7'700'000.0));
        QCOMPARE(use->splitLayers, std::uint64_t {4}); // Split, Add, Concat on three cores, one conv on two
        QCOMPARE(use->singleLayers, std::uint64_t {6});

        const AnalysisResult r = run(*trace);
        const auto imbalance = ofKind(r, "core_imbalance");
        QCOMPARE(imbalance.size(), std::size_t {1});
        QCOMPARE(imbalance[0]->lostNs, TimeNs {4'300'001});
        QCOMPARE(imbalance[0]->occurrences, std::uint64_t {7});
        QCOMPARE(imbalance[0]->evidence.size(), std::size_t {7});
        QCOMPARE(imbalance[0]->events.size(), std::size_t {7});
        QCOMPARE(detailOf(*imbalance[0], "cores"), std::string("3"));
        QCOMPARE(detailOf(*imbalance[0], "split_op_types"), std::string("Add, Concat, ConvExSwish, Split"));
        QVERIFY(imbalance[0]->recommendation.find("rknn_dup_context") != std::string::npos);
        QVERIFY(imbalance[0]->recommendation.find("NPU_CORE_0_1_2") != std::string::npos);
        QVERIFY(imbalance[0]->recommendation.find("librknnrt 1.6.0") != std::string::npos);

        const auto memory = ofKind(r, "memory_bound");
        QCOMPARE(memory.size(), std::size_t {1});
        QCOMPARE(memory[0]->lostNs, TimeNs {1'000'000});
        QCOMPARE(memory[0]->occurrences, std::uint64_t {2});
        QVERIFY(detailOf(*memory[0], "worst_layers")
                    .starts_with("#4 ConvExSwish (1,32,160,160),(32,32,1,1),(32) → (1,32,160,160)"));

        const auto mac = ofKind(r, "low_mac_usage");
        QCOMPARE(mac.size(), std::size_t {1});
        QCOMPARE(mac[0]->lostNs, TimeNs {1'614'400});
        QCOMPARE(mac[0]->occurrences, std::uint64_t {1});
        QCOMPARE(detailOf(*mac[0], "median_mac_usage"), std::string("22.5"));
        QVERIFY(detailOf(*mac[0], "input_layer").starts_with("#2 ConvExSwish (1,3,640,640)"));
        QVERIFY(mac[0]->recommendation.find("mean_values") != std::string::npos);
        QVERIFY(mac[0]->recommendation.find("pass_through") != std::string::npos);

        const auto movement = ofKind(r, "data_movement");
        QCOMPARE(movement.size(), std::size_t {1});
        QCOMPARE(movement[0]->lostNs, TimeNs {1'300'000});
        QCOMPARE(movement[0]->occurrences, std::uint64_t {3});
        QCOMPARE(detailOf(*movement[0], "frame_share"), std::string("0.168831"));

        const Breakdown b = computeBreakdown(*trace, r.findings, r.analysedNs, 15);
        QVERIFY(b.device.npuCores.has_value());
        QCOMPARE(busyHeadline(b.device), std::string("NPU busy 99 % of the step, NPU cores busy 43 % (3 cores)"));
        const auto json = report::deviceSummaryJson(b.device);
        QCOMPARE(json.at("npu_cores").get<int>(), 3);
        QCOMPARE(json.at("npu_core_busy_fraction").get<double>(), 9'900'000.0 / (3 * 7'700'000.0));
    }

    // rknn_advisor_figures.py rknn/rknpu2_rk3588_singlecore.txt (every NPU layer 100.0%/0.0%/0.0%):
    //   frame_ns 7700000 cores 1 core_busy_ns [7600000, 0, 0] npu_core_busy_fraction 0.987012987012987
    //   memory_bound lost 1000000 layers 2; low_mac_usage lost 1614400; data_movement lost 1300000
    void singleCoreRun()
    {
        const model::TracePtr trace = loadTable("rknpu2_rk3588_singlecore.txt");
        QVERIFY(trace);
        const AnalysisResult r = run(*trace);
        QVERIFY(ofKind(r, "core_imbalance").empty());
        QVERIFY(notAssessedReason(r, "core_imbalance").find("single-core run on a chip with 3 NPU cores")
                != std::string::npos);
        QCOMPARE(ofKind(r, "memory_bound").at(0)->lostNs, TimeNs {1'000'000});
        QCOMPARE(ofKind(r, "low_mac_usage").at(0)->lostNs, TimeNs {1'614'400});
        QCOMPARE(ofKind(r, "data_movement").at(0)->lostNs, TimeNs {1'300'000});
        const Breakdown b = computeBreakdown(*trace, r.findings, r.analysedNs, 15);
        QVERIFY(b.device.npuCores.has_value());
        QCOMPARE(b.device.npuCores->cores, 1);
        QCOMPARE(b.device.npuCores->busyNs, (std::vector<TimeNs> {7'600'000, 0, 0}));
        QCOMPARE(*b.device.npuCores->busyFraction, 7'600'000.0 / 7'700'000.0);
        QCOMPARE(busyHeadline(b.device), std::string("NPU busy 99 % of the step, NPU cores busy 99 % (1 core of 3)"));
    }

    // rknn_advisor_figures.py rknn/toolkit1_rv1126.txt 1 (no Target, WorkLoad, cycles or MacUsage columns):
    //   frame_ns 3633000 cores 1 core_busy_ns [3633000] npu_core_busy_fraction 1.0
    //   data_movement lost 711000 layers 3 share 0.19570602807597026
    void toolkit1Run()
    {
        const model::TracePtr trace = loadTable("toolkit1_rv1126.txt");
        QVERIFY(trace);
        QCOMPARE(trace->metadata().formatVersion, std::string("toolkit1"));
        const AnalysisResult r = run(*trace);
        QVERIFY(notAssessedReason(r, "core_imbalance").find("no WorkLoad column") != std::string::npos);
        QVERIFY(notAssessedReason(r, "memory_bound").find("no DDR/NPU cycles column") != std::string::npos);
        QVERIFY(notAssessedReason(r, "low_mac_usage").find("no MacUsage column") != std::string::npos);
        const auto movement = ofKind(r, "data_movement");
        QCOMPARE(movement.size(), std::size_t {1});
        QCOMPARE(movement[0]->lostNs, TimeNs {711'000});
        QVERIFY(detailOf(*movement[0], "by_op_type").starts_with("TENSOR_TRANS ×1 361 µs"));
        const Breakdown b = computeBreakdown(*trace, r.findings, r.analysedNs, 15);
        QVERIFY(b.device.npuCores.has_value());
        QCOMPARE(b.device.npuCores->cores, 1);
        QCOMPARE(b.device.npuCores->coresSource, std::string("platform"));
        QCOMPARE(*b.device.npuCores->busyFraction, 1.0);
    }

    // Implausible cells (WorkLoad 50 %, 200 %, 180 %, 30 % in total; cycles −5, a Total that is not max(DDR, NPU),
    // cycles of 2^63−1; MacUsage 250 %; RW −3 and 1e300 KB) on the four NPU layers: one bad_field warning counting
    // them, no finding drawn from those cells, no crash. The Concat's time is sound: data_movement still counts it.
    void implausibleCells()
    {
        const model::TracePtr trace = loadTable("rknpu2_rk3588_bad_values.txt");
        QVERIFY(trace);
        QCOMPARE(trace->sliceCount(), std::size_t {6});
        QCOMPARE(warningCount(*trace, "bad_field"), std::uint64_t {4});
        const RknnLayerTable table = readRknnLayers(*trace);
        QCOMPARE(table.badLayers, std::uint64_t {4});
        QVERIFY(table.problems.at(0).find("adds up to 50.0 %, not 100 %") != std::string::npos);
        const AnalysisResult r = run(*trace);
        QVERIFY(ofKind(r, "core_imbalance").empty());
        QVERIFY(notAssessedReason(r, "core_imbalance").find("no NPU layer prints a usable WorkLoad share")
                != std::string::npos);
        QVERIFY(ofKind(r, "memory_bound").empty());
        QVERIFY(notAssessedReason(r, "memory_bound").find("every NPU layer prints 0 cycles") != std::string::npos);
        QVERIFY(ofKind(r, "low_mac_usage").empty());
        QCOMPARE(ofKind(r, "data_movement").at(0)->lostNs, TimeNs {400'000});
        const Breakdown b = computeBreakdown(*trace, r.findings, r.analysedNs, 15);
        QVERIFY(b.device.npuCores.has_value());
        // No usable shares on an RK3588: which cores ran the layers is unknown, so no busy fraction.
        QCOMPARE(b.device.npuCores->cores, 3);
        QVERIFY(!b.device.npuCores->busyFraction.has_value());
        QCOMPARE(busyHeadline(b.device).find("cores busy"), std::string::npos);
    }

    // The real single-core fixture (every layer 100.0%/0.0%/0.0%) fires no core_imbalance.
    // rknn_advisor_figures.py tests/data/rknn/rknpu2_1.6.0_rk3588_perf_detail_yolov8n_1920_singlecore.txt:
    //   frame_ns 128441000 cores 1 core_busy_ns [127303000, 0, 0] npu_core_busy_fraction 0.9911399008104889
    //   memory_bound lost 4238121 layers 13 worst 8
    //   median_mac 43.75 low_mac_usage lost 25351475 layers [2, 4, 10, 12, 78, 96, 107]
    //   data_movement lost 17968000 layers 23 share 0.13989302481294913
    void singleCoreFixture()
    {
        LOAD_FIXTURE(trace, std::string("rknn/rknpu2_1.6.0_rk3588_perf_detail_yolov8n_1920_singlecore.txt"));
        const AnalysisResult r = run(*trace);
        QVERIFY(ofKind(r, "core_imbalance").empty());
        QVERIFY(!notAssessedReason(r, "core_imbalance").empty());
        QCOMPARE(ofKind(r, "memory_bound").at(0)->lostNs, TimeNs {4'238'121});
        QCOMPARE(ofKind(r, "memory_bound").at(0)->occurrences, std::uint64_t {13});
        QCOMPARE(ofKind(r, "low_mac_usage").at(0)->lostNs, TimeNs {25'351'475});
        QCOMPARE(ofKind(r, "low_mac_usage").at(0)->occurrences, std::uint64_t {7});
        QCOMPARE(ofKind(r, "data_movement").at(0)->lostNs, TimeNs {17'968'000});
        QCOMPARE(ofKind(r, "data_movement").at(0)->occurrences, std::uint64_t {23});
        const Breakdown b = computeBreakdown(*trace, r.findings, r.analysedNs, 15);
        QVERIFY(b.device.npuCores.has_value());
        QCOMPARE(b.device.npuCores->cores, 1);
        QCOMPARE(b.device.npuCores->coreTimeNs, TimeNs {127'303'000});
        QCOMPARE(busyHeadline(b.device), std::string("NPU busy 99 % of the step, NPU cores busy 99 % (1 core of 3)"));
    }

    // Issue 46 item 5: the real multi-core fixture. Its layer findings overlap (a single-core DDR-stalled layer is in
    // core_imbalance and memory_bound; a single-core Split in core_imbalance and data_movement): their lost times add
    // up to 91.9 ms of a 96.2 ms frame, so "fix all" said 96.2 ms (100 %). Composed per layer it is 75.1 ms. And the
    // MaxPool #43 (5.1 ms, NPU cycles 0) is an outlier, not the worst DDR stall: its twins #42 and #44 (the same
    // 43,659 DDR cycles) take 0.27 and 0.24 ms, so its cycles explain 251 µs.
    // rknn_advisor_figures.py tests/data/rknn/rknpu2_2.0.0b0_rk3588_perf_detail_yolov8n_1920x1088_multicore.txt
    // (ctest rknn_advisor_figures_multicore holds the script to rknn_advisor_figures_multicore.expected):
    //   core_imbalance lost 55845335 layers 73
    //   memory_bound lost 10962910 layers 30 worst 4 worst_lost 3032146 outlier_ns 4874000
    //   median_mac 14.0 low_mac_usage lost 9000180 layers [2]
    //   data_movement lost 16068000 layers 23 share 0.16705133803256192
    //   fix_all 75119685 of frame 96186000 layers 98 sum_of_kinds 91876425
    void multiCoreFixture()
    {
        LOAD_FIXTURE(trace, std::string("rknn/rknpu2_2.0.0b0_rk3588_perf_detail_yolov8n_1920x1088_multicore.txt"));
        const AnalysisResult r = run(*trace);
        QCOMPARE(r.analysedNs, TimeNs {96'186'000});
        QCOMPARE(ofKind(r, "core_imbalance").at(0)->lostNs, TimeNs {55'845'335});
        QCOMPARE(ofKind(r, "core_imbalance").at(0)->occurrences, std::uint64_t {73});
        QCOMPARE(ofKind(r, "low_mac_usage").at(0)->lostNs, TimeNs {9'000'180});
        QCOMPARE(ofKind(r, "data_movement").at(0)->lostNs, TimeNs {16'068'000});

        const auto memory = ofKind(r, "memory_bound");
        QCOMPARE(memory.size(), std::size_t {1});
        QCOMPARE(memory[0]->lostNs, TimeNs {10'962'910});
        QCOMPARE(memory[0]->occurrences, std::uint64_t {30});
        // The worst DDR stall is the 1×1 convolution of model.2 (12.0 ms, 698,639 DDR vs 522,240 NPU cycles).
        QVERIFY(detailOf(*memory[0], "worst_layers")
                    .starts_with("#4 ConvExSwish (1,32,480,272),(32,32,1,1),(32) → (1,32,480,272): 12.0 ms"));
        QVERIFY(memory[0]->title.ends_with("worst ConvExSwish #4"));
        QVERIFY(
            detailOf(*memory[0], "outlier_layers").starts_with("#43 MaxPool (1,128,60,34) → (1,128,60,34): 5.12 ms"));
        QVERIFY(detailOf(*memory[0], "outlier_layers").find("(#42, #44) take 251 µs") != std::string::npos);
        QCOMPARE(detailOf(*memory[0], "outlier_ns"), std::string("4874000"));

        // Fix all: the layers at their best case, summed; no other finding adds lost time on this table.
        TimeNs kinds = 0;
        for (const Finding& f : r.findings) {
            QVERIFY2(f.savingNs <= touchedNs(*trace, f), f.kind.c_str());
            kinds += f.lostNs;
        }
        QCOMPARE(kinds, TimeNs {91'876'425});
        QCOMPARE(r.savingNs, TimeNs {75'119'685});
        QVERIFY(r.savingNs < r.analysedNs);
        QCOMPARE(r.inconsistentSteps, std::size_t {0});
    }

    // The composition itself (rknnfixall.h), on the written multi-core table: two findings on one layer of time t
    // saving t/2 and t/4 give back t − t · ½ · ¾ = 5t/8, never the sum; a third saving all of it gives back t, once;
    // a saving above the layer's time breaks a bound: the frame is not reported.
    void layerSavingsCompose()
    {
        const model::TracePtr trace = loadTable("rknpu2_rk3588_multicore.txt");
        QVERIFY(trace);
        const StepClock clock(*trace);
        QCOMPARE(clock.size(), std::size_t {1});
        const RknnLayerTable table = readRknnLayers(*trace);
        const RknnLayerRow& l = table.layers.at(1);
        const TimeNs t = l.dur;
        QVERIFY(t > 0 && t % 8 == 0);
        const auto finding = [&](const char* kind, std::vector<std::pair<const RknnLayerRow*, TimeNs>> saved) {
            Finding f;
            f.kind = kind;
            StepLoss ps;
            ps.stepIndex = 0;
            for (const auto& [layer, ns] : saved) {
                f.whatIf.layerSavings.push_back({layer->ref, layer->ts, layer->dur, ns});
                ps.lostNs += ns;
            }
            f.perStep.push_back(ps);
            return f;
        };
        std::vector<Finding> findings {finding("a", {{&l, t / 2}}), finding("b", {{&l, t / 4}})};
        LayerFixAll all = composeLayerSavings(findings, clock);
        QVERIFY(all.any);
        QCOMPARE(all.lostNs.at(0), t / 2 + t / 4);
        QCOMPARE(all.savingNs.at(0), 5 * t / 8);
        QCOMPARE(all.inconsistentSteps, std::size_t {0});

        findings.push_back(finding("c", {{&l, t}, {&table.layers.at(2), 0}}));
        all = composeLayerSavings(findings, clock);
        QCOMPARE(all.savingNs.at(0), t);

        findings.push_back(finding("d", {{&l, t + 1}}));
        all = composeLayerSavings(findings, clock);
        QCOMPARE(all.inconsistentSteps, std::size_t {1});
        QCOMPARE(all.savingNs.at(0), TimeNs {-1});
        QVERIFY(all.firstViolation.find("d saves") != std::string::npos);

        // No layer findings (another platform's): nothing composed.
        QVERIFY(!composeLayerSavings(std::vector<Finding>(1), clock).any);
    }

    // Every RKNN fixture: fix all ≤ the frame, below the sum of the kinds where they overlap, no finding saving more
    // than the layers it touches, no bound broken.
    void everyRknnFixtureWithinFrame()
    {
        int tables = 0;
        for (const auto& entry : std::filesystem::directory_iterator(testing::kFixturesDir / "rknn")) {
            if (entry.path().extension() != ".txt")
                continue;
            const std::string name = entry.path().filename().string();
            LOAD_FIXTURE(trace, "rknn/" + name);
            const AnalysisResult r = run(*trace);
            QCOMPARE(r.inconsistentSteps, std::size_t {0});
            QVERIFY2(r.savingNs >= 0 && r.savingNs <= r.analysedNs, name.c_str());
            TimeNs kinds = 0;
            for (const Finding& f : r.findings) {
                kinds += f.lostNs;
                if (!f.events.empty())
                    QVERIFY2(f.savingNs <= touchedNs(*trace, f), (name + ": " + f.kind).c_str());
            }
            QVERIFY2(r.savingNs <= kinds, name.c_str());
            ++tables;
        }
        QVERIFY(tables >= 6);
    }

    // Other platforms: the RKNN kinds neither fire nor add a not-assessed line.
    void otherPlatformsSkip()
    {
        LOAD_FIXTURE(trace, std::string("torch/torch_cpu_legacy_resnet18_train_2steps.json"));
        const AnalysisResult r = run(*trace);
        for (std::string_view kind : {"core_imbalance", "memory_bound", "low_mac_usage", "data_movement"}) {
            QVERIFY(ofKind(r, kind).empty());
            QVERIFY(notAssessedReason(r, kind).empty());
        }
    }

    void kindLabels()
    {
        QCOMPARE(kindLabel("low_mac_usage"), std::string("Low MAC usage"));
        QCOMPARE(kindLabel("core_imbalance"), std::string("NPU core imbalance"));
        QCOMPARE(kindLabel("memory_bound"), std::string("Memory-bound layers"));
        QCOMPARE(kindLabel("data_movement"), std::string("Data movement"));
    }

    // An RKNN layer's cells as Details shows them (issue #47 item 2): per-core percentages, grouped cycles, KB with
    // their binary size, printed µs as a duration, "\\" shapes as none; other keys and unparsable cells stay raw.
    void cellText()
    {
        QCOMPARE(rknnArgText("mac_usage", "0.77/0.77/0.77", std::nullopt),
                 std::string("core 0: 0.77%, core 1: 0.77%, core 2: 0.77%"));
        QCOMPARE(rknnArgText("workload", "33.3%/33.3%/33.3%", std::nullopt), std::string("cores 0, 1, 2: 33.3% each"));
        QCOMPARE(rknnArgText("workload", "100.0%/0.0%/0.0%", std::nullopt), std::string("core 0 only"));
        QCOMPARE(rknnArgText("workload", "60.0%/40.0%/0.0%", std::nullopt), std::string("cores 0 60.0%, 1 40.0%"));
        QCOMPARE(rknnArgText("workload", "0.0%/0.0%/0.0%", std::nullopt), std::string("no core share printed"));
        QCOMPARE(rknnArgText("ddr_cycles", {}, 1222645.0), std::string("1,222,645"));
        QCOMPARE(rknnArgText("total_cycles", {}, 0.0), std::string("0"));
        QCOMPARE(rknnArgText("rw_kb", {}, 6122.0), std::string("6,122 KB (5.98 MiB)")); // 6122 / 1024 = 5.979
        QCOMPARE(rknnArgText("rw_kb", {}, 543.75), std::string("543.75 KB (544 KiB)"));
        QCOMPARE(rknnArgText("time_us", {}, 9524.0), std::string("9.52 ms"));
        QCOMPARE(rknnArgText("input_shape", "\\", std::nullopt), std::string("none"));
        QCOMPARE(rknnArgText("input_shape", "(1,3,640,640)", std::nullopt), std::string());
        QCOMPARE(rknnArgText("mac_usage", "n/a", std::nullopt), std::string());
        QCOMPARE(rknnArgText("layer_id", {}, 4.0), std::string());
        QCOMPARE(formatGrouped(0), std::string("0"));
        QCOMPARE(formatGrouped(999), std::string("999"));
        QCOMPARE(formatGrouped(1000), std::string("1,000"));
        QCOMPARE(formatGrouped(-1234567), std::string("-1,234,567"));
    }

    // The core mask a log prints: a core list, or nothing for AUTO and bit masks.
    void coreMaskProperty()
    {
        const model::TracePtr trace = loadTable("rknpu2_rk3588_multicore.txt");
        QVERIFY(trace);
        std::string mask;
        for (const auto& [key, value] : trace->metadata().properties) {
            if (key == "core_mask")
                mask = value;
        }
        QCOMPARE(mask, std::string("0_1_2"));
    }
};

QTEST_GUILESS_MAIN(TestRknnAdvisor)
#include "tst_rknnadvisor.moc"
