// SPDX-License-Identifier: MIT
#include "report/analysis/reportmodel.h"
#include "reportfixture.h"

#include <QTest>

using namespace timesink;
using namespace timesink::model;
using report::ReportModel;
using report::StepBreakdown;

class TestReportModel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void stepBreakdownIsExclusiveAndComplete()
    {
        const auto a = testing::makeAnalysedTrace();
        const ReportModel m = report::buildReportModel(*a.trace, a.result);
        QCOMPARE(m.steps.size(), std::size_t(2));
        // Expected values worked out by hand in reportfixture.h.
        const StepBreakdown& s1 = m.steps[0];
        QCOMPARE(s1.number, std::int64_t(1));
        QCOMPARE(s1.durationNs, TimeNs(1000));
        QCOMPARE(s1.computeNs, TimeNs(250));
        QCOMPARE(s1.communicationNs, TimeNs(100));
        QCOMPARE(s1.copyNs, TimeNs(100));
        QCOMPARE(s1.dataloaderNs, TimeNs(200));
        QCOMPARE(s1.idleNs, TimeNs(350));
        const StepBreakdown& s2 = m.steps[1];
        QCOMPARE(s2.computeNs, TimeNs(300));
        QCOMPARE(s2.copyNs, TimeNs(50)); // 100 ns copy, 50 of them under the kernel
        QCOMPARE(s2.communicationNs, TimeNs(0));
        QCOMPARE(s2.dataloaderNs, TimeNs(0));
        QCOMPARE(s2.idleNs, TimeNs(650));
        for (const StepBreakdown& s : m.steps)
            QCOMPARE(s.computeNs + s.communicationNs + s.copyNs + s.dataloaderNs + s.idleNs, s.durationNs);
    }

    void summaryAndLostByKind()
    {
        const auto a = testing::makeAnalysedTrace();
        const ReportModel m = report::buildReportModel(*a.trace, a.result);
        QCOMPARE(m.trace.steps, std::size_t(2));
        QCOMPARE(m.summary.meanStepNs, TimeNs(1000));
        QCOMPARE(m.summary.analysedNs, TimeNs(2000));
        QCOMPARE(m.summary.lostNs, TimeNs(350));
        QCOMPARE(m.summary.lostFraction, 0.175);
        QCOMPARE(m.trace.metadata.format, std::string("kineto"));
        QCOMPARE(m.findings.size(), std::size_t(2));
        QCOMPARE(m.lostByKind.size(), std::size_t(2));
        QCOMPARE(m.lostByKind[0].kind, std::string("dataloader_starvation"));
        QCOMPARE(m.lostByKind[0].lostNs, TimeNs(200));
        QCOMPARE(m.lostByKind[1].kind, std::string("copy_hotspot"));
        QCOMPARE(m.lostByKind[1].fraction, 0.075);
        QCOMPARE(m.notAssessed.size(), std::size_t(1));
        QCOMPARE(m.trackNames.size(), a.trace->tracks().size());
    }

    void topOperatorsByDeviceTime()
    {
        const auto a = testing::makeAnalysedTrace();
        const ReportModel m = report::buildReportModel(*a.trace, a.result);
        QCOMPARE(m.operatorScope, std::string("device"));
        // Device top-level slices: conv 200+300, memcpy 100+100, all-reduce 100, relu 50 → 850 ns in all.
        QCOMPARE(m.topOperators.size(), std::size_t(4));
        QCOMPARE(m.topOperators[0].name, std::string("conv_kernel"));
        QCOMPARE(m.topOperators[0].totalNs, TimeNs(500));
        QCOMPARE(m.topOperators[0].count, std::uint64_t(2));
        QCOMPARE(m.topOperators[0].category, SliceCategory::Kernel);
        QCOMPARE(m.topOperators[0].fraction, 500.0 / 850.0);
        QCOMPARE(m.topOperators[1].name, std::string("Memcpy HtoD (Pageable -> Device)"));
        QCOMPARE(m.topOperators[1].totalNs, TimeNs(200));
        QCOMPARE(m.topOperators[2].name, std::string("ncclKernel_AllReduce"));
        QCOMPARE(m.topOperators[3].name, std::string("relu_kernel"));

        report::ReportOptions options;
        options.topOperators = 2;
        QCOMPARE(report::buildReportModel(*a.trace, a.result, options).topOperators.size(), std::size_t(2));
    }

    void cpuOnlyTraceCountsOutermostHostOps()
    {
        TraceBuilder b;
        const TrackId host = b.hostThread();
        b.slice(host, SliceCategory::HostOp, "aten::linear", 0, 100);
        b.slice(host, SliceCategory::HostOp, "aten::addmm", 10, 80); // nested: not counted twice
        b.slice(host, SliceCategory::HostOp, "aten::relu", 150, 50);
        b.slice(host, SliceCategory::Dataloader, "DataLoader.__next__", 200, 100);
        const TracePtr t = b.finalize();
        const ReportModel m = report::buildReportModel(*t, analysis::analyze(*t, {}, analysis::CancelToken()));
        QCOMPARE(m.operatorScope, std::string("host"));
        QCOMPARE(m.topOperators.size(), std::size_t(2));
        QCOMPARE(m.topOperators[0].name, std::string("aten::linear"));
        QCOMPARE(m.topOperators[0].totalNs, TimeNs(100));
        QCOMPARE(m.topOperators[1].name, std::string("aten::relu"));
        // One synthetic step over the trace [0, 300): host ops are the compute here.
        QCOMPARE(m.steps.size(), std::size_t(1));
        QVERIFY(m.steps[0].synthetic);
        QCOMPARE(m.steps[0].computeNs, TimeNs(150));
        QCOMPARE(m.steps[0].dataloaderNs, TimeNs(100));
        QCOMPARE(m.steps[0].idleNs, TimeNs(50));
        QCOMPARE(m.summary.analysedNs, TimeNs(300)); // the analysis's time: the synthetic step's window
    }

    void emptyTrace()
    {
        TraceBuilder b;
        const TracePtr t = b.finalize();
        const ReportModel m = report::buildReportModel(*t, {});
        QCOMPARE(m.findings.size(), std::size_t(0));
        QCOMPARE(m.topOperators.size(), std::size_t(0));
        QCOMPARE(m.summary.lostFraction, 0.0);
    }
};

QTEST_APPLESS_MAIN(TestReportModel)
#include "tst_reportmodel.moc"
