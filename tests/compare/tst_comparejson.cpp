// SPDX-License-Identifier: MIT
#include "analysis/compare/compare.h"
#include "model/tracebuilder.h"
#include "report/reportoutput.h"
#include "report/writers/json/jsonwriter.h"

#include <QTest>

using namespace timesink;
using model::SliceCategory;
using model::TimeNs;
using model::TraceBuilder;

namespace {

/// One step #N of `stepNs`; aten::conv2d launches a kernel of `convNs` (flow); a second kernel named
/// `extraKernel` (its own operator) of 5 ns.
model::TracePtr run(std::int64_t stepNumber, TimeNs stepNs, TimeNs convNs, std::string_view extraKernel,
                    std::string_view deviceName)
{
    TraceBuilder b;
    b.metadata().format = "kineto";
    b.metadata().sourcePath = "/runs/" + std::to_string(stepNumber) + ".json";
    b.metadata().devices.push_back(model::Device {model::DeviceKind::Gpu, 0, std::string(deviceName)});
    const auto host = b.hostThread();
    const auto gpu = b.deviceStream(0, 7);
    b.step(host, stepNumber, 0, stepNs);
    b.slice(host, SliceCategory::HostOp, "aten::conv2d", 10, 50);
    const auto launch = b.slice(host, SliceCategory::RuntimeApi, "cudaLaunchKernel", 20, 5);
    b.addFlow(launch, b.slice(gpu, SliceCategory::Kernel, "conv", 30, convNs));
    b.slice(gpu, SliceCategory::Kernel, extraKernel, 30 + convNs, 5);
    return b.finalize();
}

} // namespace

class TestCompareJson : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void documentFields()
    {
        const model::TracePtr base = run(7, 1000, 100, "Relu", "A100");
        // Invalid UTF-8 in a kernel name must not break serialisation.
        const model::TracePtr cand = run(50, 1500, 160, "bad\xff name", "Ascend910B");
        analysis::Finding f;
        f.kind = "cpu_fallback";
        f.title = "AI_CPU fallback of Cast: 40 ns";
        f.lostNs = 40;
        f.perStep.push_back(analysis::StepLoss {0, 50, 40, 1500});
        const std::vector<analysis::Finding> candFindings = {f};
        analysis::CompareResult r;
        std::string error;
        QVERIFY(analysis::compareRuns(*base, {}, *cand, candFindings, {}, r, error));
        const auto j = report::compareJson(report::CompareRun {*base, {}}, report::CompareRun {*cand, candFindings}, r);

        QCOMPARE(j.at("schema").get<std::string>(), std::string("timesink.compare/1"));
        QCOMPARE(j.at("baseline").at("path").get<std::string>(), std::string("/runs/7.json"));
        QCOMPARE(j.at("baseline").at("format").get<std::string>(), std::string("kineto"));
        QCOMPARE(j.at("baseline").at("device").get<std::string>(), std::string("gpu A100"));
        QCOMPARE(j.at("candidate").at("device").get<std::string>(), std::string("gpu Ascend910B"));
        QCOMPARE(j.at("baseline").at("operator_time").get<std::string>(), std::string("device"));
        QVERIFY(j.at("baseline").at("step_ns") == nlohmann::ordered_json::parse("[1000]"));
        QVERIFY(j.at("candidate").at("step_numbers") == nlohmann::ordered_json::parse("[50]"));
        QCOMPARE(j.at("candidate").at("findings").size(), std::size_t(1));
        QCOMPARE(j.at("candidate").at("findings")[0].at("compared_lost_ns").get<TimeNs>(), TimeNs(40));
        QCOMPARE(j.at("candidate").at("findings")[0].at("rank").get<int>(), 1);

        const auto& step = j.at("steps")[0];
        QCOMPARE(step.at("baseline_step").get<int>(), 7);
        QCOMPARE(step.at("candidate_step").get<int>(), 50);
        QCOMPARE(step.at("baseline_ns").get<TimeNs>(), TimeNs(1000));
        QCOMPARE(step.at("candidate_ns").get<TimeNs>(), TimeNs(1500));
        QCOMPARE(step.at("delta_ns").get<TimeNs>(), TimeNs(500));
        QCOMPARE(j.at("totals").at("delta_ns").get<TimeNs>(), TimeNs(500));

        // conv +60, then the two own-name kernels (±5, by name): "Relu" maps to aten::relu.
        const auto& ops = j.at("operators");
        QCOMPARE(ops.size(), std::size_t(3));
        QCOMPARE(ops[0].at("name").get<std::string>(), std::string("aten::conv2d"));
        QCOMPARE(ops[0].at("baseline_ns").get<TimeNs>(), TimeNs(100));
        QCOMPARE(ops[0].at("candidate_ns").get<TimeNs>(), TimeNs(160));
        QCOMPARE(ops[0].at("delta_ns").get<TimeNs>(), TimeNs(60));
        QCOMPARE(ops[0].at("ratio").get<double>(), 1.6);
        QCOMPARE(ops[0].at("baseline_calls").get<int>(), 1);
        QCOMPARE(ops[1].at("name").get<std::string>(), std::string("aten::relu"));
        QVERIFY(ops[1].at("baseline_names") == nlohmann::ordered_json::parse(R"(["Relu"])"));
        QCOMPARE(ops[1].at("ratio").get<double>(), 0.0);
        // An unlinked kernel with only its raw name (no operator type, unknown to the op map) is grouped by class;
        // its name is kept in the names list.
        QCOMPARE(ops[2].at("name").get<std::string>(), std::string("unlinked other kernels"));
        QCOMPARE(ops[2].at("candidate_names")[0].get<std::string>(), std::string("bad\xEF\xBF\xBD name"));
        QVERIFY(ops[2].at("ratio").is_null());

        // The parts of the waterfall add up to the step-time delta; every side has its device breakdown.
        TimeNs waterfall = 0;
        for (const auto& part : j.at("waterfall"))
            waterfall += part.at("delta_ns").get<TimeNs>();
        QCOMPARE(waterfall, TimeNs(500));
        for (const char* side : {"baseline", "candidate"}) {
            const auto& d = j.at(side).at("device_breakdown");
            QCOMPARE(d.at("compute_ns").get<TimeNs>() + d.at("exposed_communication_ns").get<TimeNs>()
                         + d.at("exposed_copy_ns").get<TimeNs>() + d.at("idle_ns").get<TimeNs>(),
                     d.at("window_ns").get<TimeNs>());
        }
        QVERIFY(j.at("classes").is_array() && !j.at("classes").empty());
        QVERIFY(j.at("classes")[0].contains("class") && j.at("classes")[0].contains("baseline_calls"));

        QCOMPARE(j.at("explanations").size(), std::size_t(1));
        const auto& e = j.at("explanations")[0];
        QCOMPARE(e.at("status").get<std::string>(), std::string("candidate_only"));
        QCOMPARE(e.at("delta_ns").get<TimeNs>(), TimeNs(40));
        QCOMPARE(e.at("share_of_step_delta").get<double>(), 0.08);
        QVERIFY(e.at("baseline_rank").is_null());
        QCOMPARE(e.at("candidate_rank").get<int>(), 1);
        QVERIFY(!j.dump().empty());
    }

    void deviceDescriptions()
    {
        TraceBuilder b;
        b.hostThread();
        QCOMPARE(report::deviceDescription(*b.finalize()), std::string("cpu"));
        TraceBuilder g;
        g.hostThread();
        for (int i = 0; i < 2; ++i)
            g.metadata().devices.push_back(model::Device {model::DeviceKind::Gpu, i, "V100"});
        g.metadata().devices.push_back(model::Device {model::DeviceKind::Npu, 0, ""});
        QCOMPARE(report::deviceDescription(*g.finalize()), std::string("2\xC3\x97 gpu V100, npu"));
    }

    // Shares of the step-time difference over 100 % (kinds overlap) get a note pointing to the waterfall; shares
    // that fit get none.
    void sharesNoteOnlyWhenTheyOverlap()
    {
        analysis::CompareResult r;
        analysis::CompareExplanation a;
        a.shareOfStepDelta = 0.7;
        analysis::CompareExplanation b;
        b.shareOfStepDelta = 0.52;
        r.explanations = {a, b};
        const std::string note = report::explanationSharesNote(r);
        QVERIFY2(note.find("122.0%") != std::string::npos, note.c_str());
        QVERIFY(note.find("waterfall") != std::string::npos);
        r.explanations[1].shareOfStepDelta = 0.3; // 100 % exactly: they may be parts
        QVERIFY(report::explanationSharesNote(r).empty());
        r.explanations.clear();
        QVERIFY(report::explanationSharesNote(r).empty());
    }
};

QTEST_APPLESS_MAIN(TestCompareJson)
#include "tst_comparejson.moc"
