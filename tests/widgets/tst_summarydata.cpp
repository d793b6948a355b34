// SPDX-License-Identifier: MIT
#include "testtraces.h"
#include "widgets/summarydata.h"

#include <QTest>

using namespace timesink;
using Activity = widgets::SummaryData::Activity;

namespace {

// What the GUI summarises: analyze()'s result with its default options.
analysis::AnalysisResult analysed(const model::Trace& trace)
{
    const analysis::CancelToken cancel;
    return analysis::analyze(trace, analysis::AnalysisOptions {}, cancel);
}

} // namespace

class TestSummaryData : public QObject
{
    Q_OBJECT
private slots:
    void stepBreakdown_data();
    void stepBreakdown();
    void partsAddUpToStep();
    void lostByKindAndTopOperators();
    void overlapPriority();
};

void TestSummaryData::stepBreakdown_data()
{
    QTest::addColumn<int>("step");
    QTest::addColumn<int>("activity");
    QTest::addColumn<qint64>("ns");
    // Worked out by hand from smallTrainingTrace():
    // step 1 [0,1000): kernel [200,400) → compute 200; HtoD [500,700) → copies 200; idle 600.
    // step 2 [1000,2000): kernel [1300,1350) → 50; DtoH [1600,1650) → copies 50;
    //   dataloader [1500,1900) minus the copy [1600,1650) → 350; idle 1000-50-50-350 = 550.
    QTest::newRow("s1 compute") << 0 << int(Activity::Compute) << qint64(200);
    QTest::newRow("s1 copies") << 0 << int(Activity::Copies) << qint64(200);
    QTest::newRow("s1 idle") << 0 << int(Activity::Idle) << qint64(600);
    QTest::newRow("s2 compute") << 1 << int(Activity::Compute) << qint64(50);
    QTest::newRow("s2 copies") << 1 << int(Activity::Copies) << qint64(50);
    QTest::newRow("s2 dataloader") << 1 << int(Activity::Dataloader) << qint64(350);
    QTest::newRow("s2 idle") << 1 << int(Activity::Idle) << qint64(550);
    QTest::newRow("s2 comm") << 1 << int(Activity::Communication) << qint64(0);
}

void TestSummaryData::stepBreakdown()
{
    QFETCH(int, step);
    QFETCH(int, activity);
    QFETCH(qint64, ns);
    const auto trace = testing::smallTrainingTrace();
    const auto data = widgets::SummaryData::compute(*trace, analysed(*trace));
    QCOMPARE(data.steps.size(), std::size_t(2));
    QCOMPARE(data.steps[static_cast<std::size_t>(step)].ns[static_cast<std::size_t>(activity)], ns);
}

void TestSummaryData::partsAddUpToStep()
{
    const auto trace = testing::smallTrainingTrace();
    for (const auto& s : widgets::SummaryData::compute(*trace, analysed(*trace)).steps) {
        model::TimeNs sum = 0;
        for (model::TimeNs v : s.ns)
            sum += v;
        QCOMPARE(sum, s.durationNs);
    }
}

void TestSummaryData::lostByKindAndTopOperators()
{
    const auto trace = testing::smallTrainingTrace();
    auto findings = testing::smallFindings(*trace);
    findings.push_back(findings[1]); // a second copy finding adds up under its kind
    analysis::AnalysisResult result = analysed(*trace);
    result.findings = findings;
    const auto data = widgets::SummaryData::compute(*trace, result);
    QCOMPARE(data.lostByKind.size(), std::size_t(2));
    // 2 × 200 copy vs 400 dataloader: equal totals keep the alphabetical order of kinds.
    QCOMPARE(data.lostByKind[0].name, std::string("copy_hotspot"));
    QCOMPARE(data.lostByKind[0].ns + data.lostByKind[1].ns, model::TimeNs(800));
    // Device scope: every outermost busy device slice, copies included (analysis::computeTopOperators); equal
    // totals by name.
    QCOMPARE(data.operatorScope, std::string("device"));
    QCOMPARE(data.topOperators.size(), std::size_t(4));
    QCOMPARE(data.topOperators[0].name, std::string("Memcpy HtoD"));
    QCOMPARE(data.topOperators[0].ns, model::TimeNs(200));
    QCOMPARE(data.topOperators[1].name, std::string("conv_fwd"));
    QCOMPARE(data.topOperators[1].ns, model::TimeNs(200));
    QCOMPARE(data.topOperators[3].name, std::string("relu_fwd"));
}

void TestSummaryData::overlapPriority()
{
    // Header example: kernel [10,50), memcpy [40,70) in step [0,100) → compute 40, copies 20, idle 40.
    model::TraceBuilder b;
    const auto host = b.hostThread();
    const auto gpu = b.deviceStream(0, 7);
    const auto copy = b.deviceStream(0, 8, model::DeviceKind::Gpu, model::TrackRole::DeviceCopy);
    b.step(host, 1, 0, 100);
    b.slice(gpu, model::SliceCategory::Kernel, "k", 10, 40);
    b.memcpy(copy, model::MemcpyDirection::HostToDevice, model::HostMemoryKind::Pinned, 40, 30);
    const auto trace = b.finalize();
    const auto s = widgets::SummaryData::compute(*trace, analysed(*trace)).steps.at(0);
    QCOMPARE(s.ns[Activity::Compute], model::TimeNs(40));
    QCOMPARE(s.ns[Activity::Copies], model::TimeNs(20));
    QCOMPARE(s.ns[Activity::Idle], model::TimeNs(40));
}

QTEST_GUILESS_MAIN(TestSummaryData)
#include "tst_summarydata.moc"
