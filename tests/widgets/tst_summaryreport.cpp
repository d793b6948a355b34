// SPDX-License-Identifier: MIT
// The GUI Summary tab and the report show the same breakdown: SummaryData is pinned to the JSON report of the
// same analysis, on real traces with memsets, copies, device collectives, host collectives and fallback tasks.
#include "analysis/core/pass.h"
#include "report/analysis/reportmodel.h"
#include "report/writers/json/jsonwriter.h"
#include "tests/common/fixtures.h"
#include "widgets/summarydata.h"

#include <QTest>

using namespace timesink;
using Activity = widgets::SummaryData::Activity;

class TestSummaryReport : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void guiSummaryEqualsReportJson_data()
    {
        QTest::addColumn<QString>("path");
        // memsets + DtoD copies + NCCL kernels + host record_param_comms / nccl:all_reduce
        QTest::newRow("nccl") << QStringLiteral("torch/hta_a100_nccl_data.json.gz");
        QTest::newRow("diff_control") << QStringLiteral("torch/hta_a100_trace_diff_control.json.gz");
        // HCCL plane, memcpy tasks, AI_CPU tasks
        QTest::newRow("ascend") << QStringLiteral("torch_npu/msinsight_text_level1_rank0_ascend_pt");
        QTest::newRow("ascend_ai_cpu") << QStringLiteral("torch_npu/mstt_advisor_ut_2023");
        // CPU fallback layer next to NPU layers
        QTest::newRow("rknn") << QStringLiteral("rknn/toolkit2_2.3.2_rk3588_eval_perf_layers_yolov8n_640.txt");
        QTest::newRow("cpu_only") << QStringLiteral("torch/hta_cpu_only_rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz");
    }
    void guiSummaryEqualsReportJson()
    {
        QFETCH(QString, path);
        LOAD_FIXTURE(trace, path.toStdString());
        analysis::CancelToken cancel;
        const analysis::AnalysisResult result = analysis::analyze(*trace, {}, cancel);
        report::ReportOptions options;
        options.topOperators = 10;
        const nlohmann::ordered_json json = report::reportJson(report::buildReportModel(*trace, result, options));
        const widgets::SummaryData gui = widgets::SummaryData::compute(*trace, result, 10);

        const auto& steps = json.at("steps");
        QCOMPARE(gui.steps.size(), steps.size());
        QVERIFY(!gui.steps.empty());
        for (std::size_t i = 0; i < gui.steps.size(); ++i) {
            const auto& s = gui.steps[i];
            QCOMPARE(s.number, steps[i].at("step").get<std::int64_t>());
            QCOMPARE(s.durationNs, steps[i].at("duration_ns").get<model::TimeNs>());
            QCOMPARE(s.ns[Activity::Compute], steps[i].at("compute_ns").get<model::TimeNs>());
            QCOMPARE(s.ns[Activity::Communication], steps[i].at("communication_ns").get<model::TimeNs>());
            QCOMPARE(s.ns[Activity::Copies], steps[i].at("copy_ns").get<model::TimeNs>());
            QCOMPARE(s.ns[Activity::Dataloader], steps[i].at("dataloader_ns").get<model::TimeNs>());
            QCOMPARE(s.ns[Activity::Idle], steps[i].at("idle_ns").get<model::TimeNs>());
        }
        const auto& kinds = json.at("lost_by_kind");
        QCOMPARE(gui.lostByKind.size(), kinds.size());
        for (std::size_t i = 0; i < kinds.size(); ++i) {
            QCOMPARE(gui.lostByKind[i].name, kinds[i].at("kind").get<std::string>());
            QCOMPARE(gui.lostByKind[i].ns, kinds[i].at("lost_ns").get<model::TimeNs>());
        }
        QCOMPARE(gui.operatorScope, json.at("operator_scope").get<std::string>());
        const auto& ops = json.at("top_operators");
        QCOMPARE(gui.topOperators.size(), ops.size());
        QVERIFY(!ops.empty());
        for (std::size_t i = 0; i < ops.size(); ++i) {
            QCOMPARE(gui.topOperators[i].name, ops[i].at("name").get<std::string>());
            QCOMPARE(gui.topOperators[i].ns, ops[i].at("total_ns").get<model::TimeNs>());
            QCOMPARE(gui.topOperators[i].count, ops[i].at("count").get<std::uint64_t>());
        }
    }
};

QTEST_GUILESS_MAIN(TestSummaryReport)
#include "tst_summaryreport.moc"
