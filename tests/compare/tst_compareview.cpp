// SPDX-License-Identifier: MIT
#include "model/tracebuilder.h"
#include "tests/common/fixtures.h"
#include "widgets/compareview.h"
#include "widgets/operatordiffmodel.h"
#include "widgets/timelineview.h"
#include "widgets/waterfallchart.h"

#include <QComboBox>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QTest>
#include <QTreeWidget>

using namespace timesink;
using model::SliceCategory;
using model::TimeNs;
using widgets::CompareView;
using widgets::OperatorDiffModel;

namespace {

/// Two steps of `stepNs` starting at `origin` (runs have unrelated clocks); each step runs aten::conv2d
/// (kernel `convNs`, launched through a flow) and aten::relu_ (kernel 10 ns).
model::TracePtr run(TimeNs origin, TimeNs stepNs, TimeNs convNs, std::int64_t firstStep)
{
    model::TraceBuilder b;
    const auto host = b.hostThread();
    const auto gpu = b.deviceStream(0, 7);
    for (int s = 0; s < 2; ++s) {
        const TimeNs t0 = origin + s * stepNs;
        b.step(host, firstStep + s, t0, stepNs);
        b.slice(host, SliceCategory::HostOp, "aten::conv2d", t0 + 100, 200);
        b.addFlow(b.slice(host, SliceCategory::RuntimeApi, "cudaLaunchKernel", t0 + 110, 10),
                  b.slice(gpu, SliceCategory::Kernel, "conv_kernel", t0 + 400, convNs));
        b.slice(host, SliceCategory::HostOp, "aten::relu_", t0 + 320, 50);
        b.addFlow(b.slice(host, SliceCategory::RuntimeApi, "cudaLaunchKernel", t0 + 330, 10),
                  b.slice(gpu, SliceCategory::Kernel, "relu_kernel", t0 + 400 + convNs, 10));
    }
    return b.finalize();
}

analysis::Finding finding(std::string title, TimeNs lost)
{
    analysis::Finding f;
    f.kind = "pipeline_bubble";
    f.title = std::move(title);
    f.lostNs = lost;
    return f;
}

/// A view comparing a run at clock 1'000'000 (steps #10, #11 of 10 µs) with one at 5'000'000'000 (#50, #51
/// of 12 µs): conv 2000 → 3000 ns per step.
struct Fixture
{
    CompareView view;
    Fixture()
    {
        view.resize(1200, 900);
        QString error;
        if (!view.setRuns(run(1'000'000, 10'000, 2000, 10), {finding("Device idle 1 ms", 100)},
                          run(5'000'000'000, 12'000, 3000, 50), {finding("Device idle 3 ms", 300)}, {}, error))
            qFatal("setRuns: %s", qPrintable(error));
        view.show();
    }
    QModelIndex proxyRowOf(const QString& name) const
    {
        const auto* proxy = view.operatorProxy();
        for (int r = 0; r < proxy->rowCount(); ++r) {
            const QModelIndex i = proxy->index(r, OperatorDiffModel::Name);
            if (i.data().toString() == name)
                return i;
        }
        return {};
    }
};

/// The aligned range a timeline shows: its visible range relative to the anchor step start.
std::pair<TimeNs, TimeNs> aligned(const widgets::TimelineView* v, TimeNs anchor)
{
    return {v->zoom().start() - anchor, v->zoom().end() - anchor};
}

} // namespace

class TestCompareView : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void showsTheComparison()
    {
        Fixture f;
        QCOMPARE(f.view.operatorModel()->rowCount(), 2);
        QCOMPARE(f.view.stepPairs()->count(), 2);
        QCOMPARE(f.view.baselineAnchor(), TimeNs(1'000'000));
        QCOMPARE(f.view.candidateAnchor(), TimeNs(5'000'000'000));
        // First row (largest |delta|): conv, 4000 → 6000 ns over the two steps.
        const QModelIndex first = f.view.operatorProxy()->index(0, OperatorDiffModel::Name);
        QCOMPARE(first.data().toString(), QStringLiteral("aten::conv2d"));
        QCOMPARE(f.view.operatorProxy()->index(0, OperatorDiffModel::Delta).data().toString(),
                 QStringLiteral("+2.00 µs"));
        QCOMPARE(f.view.operatorProxy()->index(0, OperatorDiffModel::Ratio).data().toString(), QStringLiteral("1.50×"));
        QCOMPARE(f.view.baselineFindings()->topLevelItemCount(), 1);
        QCOMPARE(f.view.candidateFindings()->topLevelItem(0)->text(2), QStringLiteral("+200 ns"));
    }

    /// The Waterfall tab chains its bars from the baseline's step time (2 × 10 µs) to the candidate's (2 × 12 µs);
    /// the Kernel classes tab lists the convolution (4 → 6 µs) and the elementwise kernels; Efficiency comes last.
    void waterfallAndClasses()
    {
        Fixture f;
        QCOMPARE(f.view.bottomTabs()->count(), 4);
        QCOMPARE(f.view.bottomTabs()->tabText(1), QStringLiteral("Waterfall"));
        QCOMPARE(f.view.bottomTabs()->tabText(3), QStringLiteral("Efficiency"));
        const auto& bars = f.view.waterfall()->bars();
        QVERIFY(bars.size() >= 3);
        QCOMPARE(bars.front().to - bars.front().from, TimeNs(20'000));
        QCOMPARE(bars.back().to - bars.back().from, TimeNs(24'000));
        for (std::size_t i = 2; i + 1 < bars.size(); ++i)
            QCOMPARE(bars[i].from, bars[i - 1].to);
        QCOMPARE(bars[bars.size() - 2].to, TimeNs(24'000)); // the parts end where the candidate's bar ends
        const QTreeWidget* classes = f.view.kernelClasses();
        QCOMPARE(classes->topLevelItemCount(), 2);
        QCOMPARE(classes->topLevelItem(0)->text(0), QStringLiteral("convolution"));
        QCOMPARE(classes->topLevelItem(0)->text(3), QStringLiteral("+2.00 µs"));
        QCOMPARE(classes->topLevelItem(1)->text(0), QStringLiteral("elementwise"));
        // The chart paints its bars (the baseline bar's colour is on the image).
        f.view.bottomTabs()->setCurrentIndex(1);
        f.view.waterfall()->resize(760, 300);
        const QImage image = f.view.waterfall()->grab().toImage();
        bool baselineBlue = false;
        for (int y = 0; y < image.height() && !baselineBlue; ++y) {
            for (int x = 0; x < image.width() && !baselineBlue; ++x)
                baselineBlue = image.pixelColor(x, y) == QColor(0x4c, 0x78, 0xa8);
        }
        QVERIFY(baselineBlue);
    }

    void initialViewIsStepAligned()
    {
        Fixture f;
        // Both show the longer first step (12 µs) from their own step start.
        const std::pair<TimeNs, TimeNs> firstStep(0, 12'000);
        QCOMPARE(aligned(f.view.baselineTimeline(), f.view.baselineAnchor()), firstStep);
        QCOMPARE(aligned(f.view.candidateTimeline(), f.view.candidateAnchor()), firstStep);
    }

    void zoomAndPanMoveBoth_data()
    {
        QTest::addColumn<bool>("fromBaseline");
        QTest::addColumn<int>("action"); // 0 zoom in, 1 zoom out, 2 pan right, 3 pan left, 4 key W, 5 key D
        for (bool base : {true, false}) {
            const char* side = base ? "baseline" : "candidate";
            QTest::addRow("%s zoom in", side) << base << 0;
            QTest::addRow("%s zoom out", side) << base << 1;
            QTest::addRow("%s pan right", side) << base << 2;
            QTest::addRow("%s pan left", side) << base << 3;
            QTest::addRow("%s key W", side) << base << 4;
            QTest::addRow("%s key D", side) << base << 5;
        }
    }
    void zoomAndPanMoveBoth()
    {
        QFETCH(bool, fromBaseline);
        QFETCH(int, action);
        Fixture f;
        widgets::TimelineView* source = fromBaseline ? f.view.baselineTimeline() : f.view.candidateTimeline();
        // Start from the middle of the first step so panning either way has room.
        source->zoomBy(4.0);
        source->panBy(0.2);
        const auto before = aligned(source, fromBaseline ? f.view.baselineAnchor() : f.view.candidateAnchor());
        switch (action) {
        case 0:
            source->zoomBy(2.0);
            break;
        case 1:
            source->zoomBy(0.75);
            break;
        case 2:
            source->panBy(0.3);
            break;
        case 3:
            source->panBy(-0.3);
            break;
        case 4:
            QTest::keyClick(source, Qt::Key_W);
            break;
        case 5:
            QTest::keyClick(source, Qt::Key_D);
            break;
        }
        const auto base = aligned(f.view.baselineTimeline(), f.view.baselineAnchor());
        const auto cand = aligned(f.view.candidateTimeline(), f.view.candidateAnchor());
        QVERIFY(base != before || action == 1); // the action did something (zooming out may hit the trace edge)
        QCOMPARE(cand, base);
    }

    void pickingAStepPairRealigns()
    {
        Fixture f;
        f.view.stepPairs()->setCurrentIndex(1);
        QCOMPARE(f.view.baselineAnchor(), TimeNs(1'010'000));
        QCOMPARE(f.view.candidateAnchor(), TimeNs(5'000'012'000));
        // The 12 µs window would run past the baseline's end (1'020'000 + the last kernels), so the baseline
        // view is clamped to the trace and starts 2 µs earlier; the candidate follows on the aligned axis.
        QCOMPARE(f.view.baselineTimeline()->zoom().end(), f.view.baselineTimeline()->zoom().traceEnd());
        QCOMPARE(f.view.baselineTimeline()->zoom().span(), TimeNs(12'000));
        QCOMPARE(aligned(f.view.candidateTimeline(), f.view.candidateAnchor()),
                 aligned(f.view.baselineTimeline(), f.view.baselineAnchor()));
    }

    void selectingAnOperatorHighlightsBothTimelines()
    {
        Fixture f;
        QSignalSpy spy(&f.view, &CompareView::operatorSelected);
        const QImage baseBefore = f.view.baselineTimeline()->renderImage();
        const QImage candBefore = f.view.candidateTimeline()->renderImage();
        f.view.operatorTable()->selectRow(f.proxyRowOf(QStringLiteral("aten::conv2d")).row());
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.at(0).at(0).toString(), QStringLiteral("aten::conv2d"));
        // Outlines are drawn on both timelines.
        QVERIFY(f.view.baselineTimeline()->renderImage() != baseBefore);
        QVERIFY(f.view.candidateTimeline()->renderImage() != candBefore);
        const auto* op = f.view.operatorModel()->operatorAt(
            f.view.operatorProxy()->mapToSource(f.proxyRowOf(QStringLiteral("aten::conv2d"))).row());
        QCOMPARE(op->baselineOccurrences.size(), std::size_t(4)); // 2 operator slices + 2 kernels
        QCOMPARE(op->candidateOccurrences.size(), std::size_t(4));
        f.view.operatorTable()->clearSelection();
        QCOMPARE(spy.count(), 2);
        QCOMPARE(spy.at(1).at(0).toString(), QString());
        QCOMPARE(f.view.baselineTimeline()->renderImage(), baseBefore);
        QCOMPARE(f.view.candidateTimeline()->renderImage(), candBefore);
    }

    // Issue #47 item 4: at 1600×1000 no finding title is cut to "Device …" without a way to read it: a title wider
    // than its column is cut in the middle (its start and its figures stay), and its tooltip holds the whole title.
    void findingTitlesAreReadable()
    {
        CompareView view;
        view.resize(1600, 1000);
        const std::string longTitle
            = "Device idle while the host runs framework ops that issue no device work: 29.9 ms "
              "in 81 gaps";
        QString error;
        QVERIFY(view.setRuns(run(1'000'000, 10'000, 2000, 10), {finding(longTitle, 100), finding("Short", 50)},
                             run(5'000'000'000, 12'000, 3000, 50), {finding(longTitle, 300)}, {}, error));
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        for (QTreeWidget* list : {view.baselineFindings(), view.candidateFindings()}) {
            QVERIFY(list->topLevelItemCount() > 0);
            const QFontMetrics fm(list->font());
            const int column = list->columnWidth(0);
            for (int i = 0; i < list->topLevelItemCount(); ++i) {
                QTreeWidgetItem* item = list->topLevelItem(i);
                const QString text = item->text(0);
                QVERIFY(item->toolTip(0).contains(text));
                if (fm.horizontalAdvance(text) + 12 <= column)
                    continue;
                QCOMPARE(list->textElideMode(), Qt::ElideMiddle);
                // The title column gets the room: wider than the two number columns together.
                QVERIFY2(column > list->columnWidth(1) + list->columnWidth(2),
                         qPrintable(QStringLiteral("%1 px for titles").arg(column)));
            }
            // The numbers' headers fit.
            for (int c = 1; c < list->columnCount(); ++c)
                QVERIFY(fm.horizontalAdvance(list->headerItem()->text(c)) <= list->columnWidth(c));
        }
    }

    void tableFiltersAndSorts()
    {
        Fixture f;
        f.view.operatorFilter()->setText(QStringLiteral("RELU"));
        QCOMPARE(f.view.operatorProxy()->rowCount(), 1);
        QCOMPARE(f.view.operatorProxy()->index(0, 0).data().toString(), QStringLiteral("aten::relu"));
        f.view.operatorFilter()->clear();
        QCOMPARE(f.view.operatorProxy()->rowCount(), 2);
        // Numeric sort on the raw value: relu's delta (0) sorts before conv's (+2 µs) ascending.
        f.view.operatorTable()->sortByColumn(OperatorDiffModel::Delta, Qt::AscendingOrder);
        QCOMPARE(f.view.operatorProxy()->index(0, 0).data().toString(), QStringLiteral("aten::relu"));
        f.view.operatorTable()->sortByColumn(OperatorDiffModel::Delta, Qt::DescendingOrder);
        QCOMPARE(f.view.operatorProxy()->index(0, 0).data().toString(), QStringLiteral("aten::conv2d"));
    }

    /// The Efficiency tab of an H100 run against an MI300 run (TraceLens's Qwen traces): a row per class with each
    /// side's share of its own chip, the limit, and the sentence in full as a tooltip.
    void efficiencyTabOnRealRuns()
    {
        LOAD_FIXTURE(h100, std::string("torch/tracelens_h100_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"));
        LOAD_FIXTURE(mi300, std::string("torch/tracelens_mi300_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"));
        CompareView view;
        view.resize(1600, 1000);
        QString error;
        QVERIFY2(view.setRuns(h100, {}, mi300, {}, {}, error), qPrintable(error));
        const analysis::efficiency::CompareEfficiency& e = view.result().efficiency;
        QVERIFY(!e.classes.empty());
        QVERIFY(view.efficiencyHeadline()->text().contains(QStringLiteral("H100")));
        QVERIFY(view.efficiencyHeadline()->text().contains(QStringLiteral("MI300")));
        const QTreeWidget* table = view.efficiencyClasses();
        QCOMPARE(table->topLevelItemCount(), static_cast<int>(e.classes.size()));
        const std::vector<analysis::efficiency::EfficiencyRow> rows = analysis::efficiency::efficiencyRows(e);
        for (int i = 0; i < table->topLevelItemCount(); ++i) {
            const QTreeWidgetItem* item = table->topLevelItem(i);
            QCOMPARE(item->text(0).toStdString(), rows[static_cast<std::size_t>(i)].cls);
            QCOMPARE(item->text(1).toStdString(), rows[static_cast<std::size_t>(i)].baseline);
            QCOMPARE(item->text(4).replace(QLatin1Char(' '), QLatin1Char('_')).toStdString(),
                     std::string(rows[static_cast<std::size_t>(i)].cause));
            QCOMPARE(item->toolTip(5), item->text(5));
            QVERIFY(!item->text(5).isEmpty());
        }
    }

    void badStepSelectionKeepsTheView()
    {
        Fixture f;
        analysis::CompareOptions options;
        std::string message;
        QVERIFY(analysis::CompareStepSelection::parse("#99", options.baselineSteps, message));
        QString error;
        QVERIFY(!f.view.setRuns(run(0, 100, 10, 1), {}, run(0, 100, 10, 1), {}, options, error));
        QCOMPARE(error,
                 QStringLiteral("baseline: no step numbered #99: the trace has 2 steps: indices 0-1, numbers "
                                "#1-#2"));
        QCOMPARE(f.view.operatorModel()->rowCount(), 2);
        QCOMPARE(f.view.baselineAnchor(), TimeNs(1'000'000));
    }
};

QTEST_MAIN(TestCompareView)
#include "tst_compareview.moc"
