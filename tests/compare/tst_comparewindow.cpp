// SPDX-License-Identifier: MIT
// File → Compare With…: the shown trace is the baseline, the chosen one is loaded in the background and
// both open in a compare window.
#include "app/gui/mainwindow.h"
#include "model/tracebuilder.h"
#include "widgets/compareview.h"
#include "widgets/layercompareview.h"
#include "widgets/operatordiffmodel.h"
#include "widgets/tablecopy.h"
#include "widgets/tableheight.h"

#include <QAction>
#include <QApplication>
#include <QHeaderView>
#include <QLabel>
#include <QScrollBar>
#include <QSettings>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace timesink;

namespace {

widgets::CompareView* openCompareView()
{
    for (QWidget* w : QApplication::topLevelWidgets()) {
        if (auto* view = qobject_cast<widgets::CompareView*>(w); view && view->isVisible())
            return view;
    }
    return nullptr;
}

/// One ProfilerStep with aten::mm launching a 1 µs kernel: a baseline that shares aten::mm with the A100 fixture.
model::TracePtr baseline()
{
    model::TraceBuilder b;
    b.metadata().format = "kineto";
    const auto host = b.hostThread();
    const auto gpu = b.deviceStream(0, 7);
    b.step(host, 1, 0, 100'000);
    b.slice(host, model::SliceCategory::HostOp, "aten::mm", 100, 5'000);
    b.addFlow(b.slice(host, model::SliceCategory::RuntimeApi, "cudaLaunchKernel", 200, 1'000),
              b.slice(gpu, model::SliceCategory::Kernel, "gemm", 2'000, 1'000));
    return b.finalize();
}

} // namespace

class TestCompareWindow : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_dir.path());
        QCoreApplication::setOrganizationName(QStringLiteral("TimesinkTests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_comparewindow"));
    }

    void menuHasCompareActions()
    {
        gui::MainWindow w;
        QVERIFY(w.findChild<QAction*>(QStringLiteral("actionCompareWith")));
        QVERIFY(w.findChild<QAction*>(QStringLiteral("actionCompareWithFolder")));
    }

    void needsABaselineFirst()
    {
        gui::MainWindow w;
        QStringList errors;
        w.setErrorReporter([&errors](const QString& title, const QString&) { errors << title; });
        w.compareWith(QStringLiteral(TIMESINK_FIXTURES_DIR "/torch/hta_a100_trace_diff_control.json.gz"));
        QCOMPARE(errors, QStringList {QStringLiteral("Compare runs")});
        QVERIFY(!w.compareJob());
    }

    void unreadableCandidateIsReported()
    {
        gui::MainWindow w;
        QStringList errors;
        w.setErrorReporter([&errors](const QString& title, const QString&) { errors << title; });
        w.showTrace(gui::LoadedTrace {baseline(), {}, std::nullopt, QStringLiteral("base.json")});
        w.compareWith(m_dir.filePath(QStringLiteral("missing.json")));
        QTRY_COMPARE(errors, QStringList {QStringLiteral("Cannot compare")});
        QVERIFY(!openCompareView());
    }

    void opensACompareWindow()
    {
        gui::MainWindow w;
        QStringList errors;
        w.setErrorReporter([&errors](const QString& title, const QString& message) { errors << title + message; });
        w.showTrace(gui::LoadedTrace {baseline(), {}, std::nullopt, QStringLiteral("base.json")});
        w.compareWith(QStringLiteral(TIMESINK_FIXTURES_DIR "/torch/hta_a100_trace_diff_control.json.gz"));
        widgets::CompareView* view = nullptr;
        QTRY_VERIFY_WITH_TIMEOUT((view = openCompareView()) != nullptr, 60000);
        QVERIFY2(errors.isEmpty(), qPrintable(errors.join(QLatin1Char('\n'))));
        QVERIFY(view->windowTitle().contains(QStringLiteral("hta_a100_trace_diff_control.json.gz")));
        QCOMPARE(view->result().steps.size(), std::size_t(1)); // one baseline step against the first of six
        // aten::mm is on both sides: 1 µs here, 6.946 ms in ProfilerStep#1009 (tst_comparefixtures).
        const auto& ops = view->operatorModel()->operators();
        auto it = std::find_if(ops.begin(), ops.end(), [](const auto& o) { return o.name == "aten::mm"; });
        QVERIFY(it != ops.end());
        QCOMPARE(it->baselineNs, model::TimeNs(1'000));
        QCOMPARE(it->candidateNs, model::TimeNs(6'946'000));
        view->close(); // WA_DeleteOnClose
    }

    // Two edge runs: the single-core YOLOv8n table as the baseline, RKNN_NPU_CORE_0_1_2 as the candidate, opened
    // as a user would (File → Open, then Compare With…). The window's Layers tab shows the layer comparison that
    // compareRuns() computed (the CLI's and the reports' result). Python over the raw tables (Time(us), WorkLoad
    // and FullName columns of each ID row; pairs by FullName):
    //   108 rows each, 108 pairs; totals 128441 -> 96186 us (0.75x); WorkLoad changed in 25 pairs, each
    //   100.0%/0.0%/0.0% -> 33.3%/33.3%/33.3%; by delta, most slower: ID 4 ConvExSwish 4204 -> 12009 us, most
    //   faster: ID 2 ConvExSwish (Conv:/model.0/conv/Conv) 16130 -> 9524 us; MaxPool rows sum 1013 -> 5627 us.
    void edgeRunsShowTheLayerComparison()
    {
        gui::MainWindow w;
        QStringList errors;
        w.setErrorReporter([&errors](const QString& title, const QString& message) { errors << title + message; });
        w.openPath(
            QStringLiteral(TIMESINK_FIXTURES_DIR "/rknn/rknpu2_1.6.0_rk3588_perf_detail_yolov8n_1920_singlecore.txt"));
        QTRY_VERIFY_WITH_TIMEOUT(w.current().trace && !w.loadJob().isRunning(), 60000);
        w.compareWith(QStringLiteral(TIMESINK_FIXTURES_DIR
                                     "/rknn/rknpu2_2.0.0b0_rk3588_perf_detail_yolov8n_1920x1088_multicore.txt"));
        widgets::CompareView* view = nullptr;
        QTRY_VERIFY_WITH_TIMEOUT((view = openCompareView()) != nullptr, 60000);
        QVERIFY2(errors.isEmpty(), qPrintable(errors.join(QLatin1Char('\n'))));
        widgets::LayerCompareView* layers = view->layerCompare();
        QCOMPARE(view->bottomTabs()->indexOf(layers), 0);
        QCOMPARE(view->bottomTabs()->currentWidget(), layers);
        QCOMPARE(view->bottomTabs()->tabText(0), QStringLiteral("Layers (edge runs)"));
        QVERIFY(view->result().layers.present);

        const QString summary = layers->summary()->text();
        QVERIFY2(summary.contains(QStringLiteral("108 layers matched (108 by FullName")), qPrintable(summary));
        QVERIFY2(summary.contains(QStringLiteral("(0.75×)")), qPrintable(summary));
        QVERIFY2(summary.contains(QStringLiteral("25 layers changed placement")), qPrintable(summary));
        QVERIFY2(summary.contains(QStringLiteral("Input sizes differ")), qPrintable(summary));

        using L = widgets::LayerCompareView;
        auto sortValue = [](QTableView* t, int row, int col) { return t->model()->index(row, col).data(L::kSortRole); };
        auto text = [](QTableView* t, int row, int col) { return t->model()->index(row, col).data().toString(); };
        // Op types: MaxPool got slower the most, first.
        QTableView* ops = layers->opTypeTable();
        QCOMPARE(text(ops, 0, L::OpType), QStringLiteral("MaxPool"));
        QCOMPARE(sortValue(ops, 0, L::OpBaseline).toLongLong(), 1'013'000LL);
        QCOMPARE(sortValue(ops, 0, L::OpCandidate).toLongLong(), 5'627'000LL);
        QCOMPARE(text(ops, 0, L::OpRatio), QStringLiteral("5.55×"));
        // The placement changes: 25, every one core 0 → cores 0+1+2.
        QTableView* moved = layers->movedTable();
        QCOMPARE(moved->model()->rowCount(), 25);
        for (int r = 0; r < moved->model()->rowCount(); ++r)
            QCOMPARE(text(moved, r, L::Placement), QStringLiteral("core 0 → cores 0+1+2"));
        QVERIFY(layers->movedTitle()->text().contains(QStringLiteral(": 25")));
        // Every layer, slower first; a click on Delta sorts the other way on the raw number.
        QTableView* all = layers->layerTable();
        QCOMPARE(all->model()->rowCount(), 108);
        QCOMPARE(text(all, 0, L::CandidateId), QStringLiteral("4"));
        QCOMPARE(sortValue(all, 0, L::LayerBaseline).toLongLong(), 4'204'000LL);
        QCOMPARE(sortValue(all, 0, L::LayerCandidate).toLongLong(), 12'009'000LL);
        all->sortByColumn(L::LayerDelta, Qt::AscendingOrder);
        QCOMPARE(text(all, 0, L::CandidateId), QStringLiteral("2"));
        QCOMPARE(sortValue(all, 0, L::LayerDelta).toLongLong(), -6'606'000LL);
        QCOMPARE(text(all, 0, L::Name), QStringLiteral("Conv:/model.0/conv/Conv"));
        QCOMPARE(text(all, 0, L::InputShape), QStringLiteral("changed"));
        // Copyable as shown.
        all->selectRow(0);
        const QString copied = widgets::TableCopy::text(all, widgets::TableCopy::Scope::Rows);
        QVERIFY2(copied.startsWith(QStringLiteral("Base ID\tCand ID\tOp type")), qPrintable(copied));
        QVERIFY2(copied.contains(QStringLiteral("Conv:/model.0/conv/Conv")), qPrintable(copied));
        const QString markdown = widgets::TableCopy::text(ops, widgets::TableCopy::Scope::Markdown);
        QVERIFY(markdown.contains(QStringLiteral("| MaxPool | 3 → 3 |")));

        // Sized as on a 1600×1000 screen, the op types (11 here) show every row and the two layer tables still
        // keep at least four rows each; no pane of the short tables grows past its rows.
        view->resize(1600, 1000);
        view->show();
        QVERIFY(QTest::qWaitForWindowExposed(view));
        QTest::qWait(50);
        QCOMPARE(ops->verticalScrollBar()->maximum(), 0);
        QCOMPARE(ops->height(), widgets::tableHeightForRows(ops));
        QVERIFY(moved->height() >= widgets::tableHeightForRows(moved, 4));
        QVERIFY(all->height() >= widgets::tableHeightForRows(all, 4));
        qInfo("Layers tab: op types %d px (%d rows), moved %d px, all layers %d px", ops->height(),
              int(ops->model()->rowCount()), moved->height(), all->height());

        // Compared again on fewer frames, the tab stays and shows the new result; two non-edge runs have no tab.
        QVERIFY(view->applySteps());
        QCOMPARE(view->bottomTabs()->indexOf(layers), 0);
        view->close();
    }

    void nonEdgeRunsHaveNoLayersTab()
    {
        widgets::CompareView view;
        QString error;
        QVERIFY(view.setRuns(baseline(), {}, baseline(), {}, {}, error));
        QVERIFY(!view.result().layers.present);
        QCOMPARE(view.bottomTabs()->indexOf(view.layerCompare()), -1);
        QCOMPARE(view.bottomTabs()->count(), 4); // operators, waterfall, kernel classes, efficiency
    }

private:
    QTemporaryDir m_dir;
};

QTEST_MAIN(TestCompareWindow)
#include "tst_comparewindow.moc"
