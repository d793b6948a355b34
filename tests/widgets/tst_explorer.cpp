// SPDX-License-Identifier: MIT
// The explorer in the window (docs/gui.md): range statistics, operators, flame graph, following flows, track
// arrangement, copyable tables, the layout and the small things. Numbers over smallTrainingTrace() are worked out
// in tests/widgets/testtraces.h; the A100 fixture's in tests/analysis/tst_explore.cpp.
#include "analysis/core/savingreason.h"
#include "app/gui/mainwindow.h"
#include "testtraces.h"
#include "widgets/compareview.h"
#include "widgets/detailspanel.h"
#include "widgets/findingsmodel.h"
#include "widgets/flamegraphview.h"
#include "widgets/operatorview.h"
#include "widgets/rangestatsview.h"
#include "widgets/summaryview.h"
#include "widgets/tablecopy.h"
#include "widgets/timeformat.h"
#include "widgets/timelinepainter.h"
#include "widgets/timelineview.h"
#include "widgets/trackspanel.h"

#include <QAbstractBarSeries>
#include <QAbstractItemModelTester>
#include <QAction>
#include <QApplication>
#include <QBarCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QClipboard>
#include <QDockWidget>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMimeData>
#include <QProgressBar>
#include <QRegularExpression>
#include <QScrollBar>
#include <QSet>
#include <QSettings>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>
#include <QTreeWidget>
#include <QValueAxis>

#include <cmath>

using namespace timesink;
using model::TimeNs;

namespace {

gui::LoadedTrace loaded(model::TracePtr trace, std::vector<analysis::Finding> findings = {}, QString path = {})
{
    gui::LoadedTrace l;
    l.trace = std::move(trace);
    l.analysis.findings = std::move(findings);
    l.path = std::move(path);
    return l;
}

/// A trace with a host thread 8 levels deep and four GPU streams: enough rows to scroll.
model::TracePtr deepTrace(std::int64_t pid = 10)
{
    using model::SliceCategory;
    model::TraceBuilder b;
    const auto host = b.hostThread("python", pid, pid + 1);
    for (int d = 0; d < 8; ++d)
        b.slice(host, SliceCategory::PythonFrame, "frame " + std::to_string(d), d * 10, 1000 - d * 20);
    for (int s = 0; s < 4; ++s) {
        const auto gpu = b.deviceStream(0, 7 + s);
        b.slice(gpu, SliceCategory::Kernel, "kernel " + std::to_string(s), 100 + s * 10, 200);
    }
    b.step(host, 1, 0, 1000);
    return b.finalize();
}

QPoint timeToPos(const widgets::TimelineView& view, TimeNs t, int y)
{
    return {widgets::TimelinePainter::kLabelWidth + static_cast<int>(view.zoom().xAt(t)), y};
}

/// One host op, "aten::other", and nothing else: a trace whose call tree a stale result would show.
model::TracePtr oneOpTrace()
{
    model::TraceBuilder b;
    const auto host = b.hostThread("python", 10, 11);
    b.slice(host, model::SliceCategory::HostOp, "aten::other", 0, 500);
    return b.finalize();
}

} // namespace

class TestExplorer : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_dir.path());
        QCoreApplication::setOrganizationName(QStringLiteral("TimesinkTests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_explorer"));
    }

    void init() { QSettings().clear(); }

    // Shift+drag over [150, 1150) fills the statistics dock; rows sort by any column; "select all" outlines every
    // instance and "find next" steps through them.
    void rangeSelectionFillsStatistics()
    {
        gui::MainWindow w;
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        const auto trace = testing::smallTrainingTrace();
        w.showTrace(loaded(trace));
        widgets::TimelineView* tl = w.timeline();
        const int y = widgets::TimelinePainter::kRulerHeight + 30;
        QTest::mousePress(tl->viewport(), Qt::LeftButton, Qt::ShiftModifier, timeToPos(*tl, 150, y));
        QTest::mouseMove(tl->viewport(), timeToPos(*tl, 700, y));
        QTest::mouseRelease(tl->viewport(), Qt::LeftButton, Qt::ShiftModifier, timeToPos(*tl, 1150, y));
        QVERIFY(tl->timeSelection());
        widgets::RangeStatsView* stats = w.rangeStats();
        QAbstractItemModelTester tester(stats->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        const auto& rows = stats->model()->stats().rows;
        QVERIFY(!rows.empty());
        // A pixel is about 1.4 ns here: the range is 150..1150 give or take that; conv_fwd counts fully.
        const auto conv = std::find_if(rows.begin(), rows.end(), [](const auto& r) { return r.key == "conv_fwd"; });
        QVERIFY(conv != rows.end());
        QCOMPARE(conv->totalNs, TimeNs(200));
        QVERIFY(stats->summaryLabel()->text().contains(QStringLiteral(" slices")));

        // Sort by count, ascending: the proxy orders by the raw number.
        stats->table()->sortByColumn(widgets::RangeStatsModel::Count, Qt::AscendingOrder);
        const QModelIndex first = stats->proxy()->index(0, widgets::RangeStatsModel::Count);
        QCOMPARE(first.data(widgets::RangeStatsModel::kSortRole).toULongLong(), 1ULL);

        // Category grouping; select all kernels; find next steps through them in time order.
        stats->setGroupBy(analysis::RangeGroupBy::Category);
        QCOMPARE(stats->model()->headerData(0, Qt::Horizontal).toString(), QStringLiteral("Category"));
        int kernelRow = -1;
        for (int r = 0; r < stats->proxy()->rowCount(); ++r)
            if (stats->proxy()->index(r, 0).data().toString() == QStringLiteral("Kernel"))
                kernelRow = r;
        QVERIFY(kernelRow >= 0);
        stats->table()->setCurrentIndex(stats->proxy()->index(kernelRow, 0));
        QSignalSpy highlight(stats, &widgets::RangeStatsView::highlightRequested);
        stats->selectAllOfCurrent();
        QCOMPARE(highlight.count(), 1);
        QCOMPARE(highlight.at(0).at(0).value<std::vector<model::SliceRef>>().size(), std::size_t(1));
        // Only conv_fwd is in the range; find next selects it on the timeline.
        QCOMPARE(stats->findNext(), testing::findSlice(*trace, "conv_fwd"));
        QCOMPARE(tl->selectedSlice(), testing::findSlice(*trace, "conv_fwd"));

        // Ctrl+click on the copy engine's label: only that track counts now.
        const model::TrackId copy = testing::findSlice(*trace, "Memcpy HtoD").track;
        const int row = tl->layout().rowOfTrack(copy);
        QVERIFY(row >= 0);
        const QPoint label(40,
                           widgets::TimelinePainter::kRulerHeight + tl->layout().rows()[static_cast<std::size_t>(row)].y
                               - tl->verticalScrollBar()->value() + 5);
        QTest::mouseClick(tl->viewport(), Qt::LeftButton, Qt::ControlModifier, label);
        QCOMPARE(tl->selectedTracks(), std::vector<model::TrackId> {copy});
        QCOMPARE(stats->model()->rowCount(), 1);
        QCOMPARE(stats->model()->stats().totalNs, TimeNs(200)); // HtoD [500, 700)

        // Esc clears the range and the statistics.
        tl->setFocus();
        QTest::keyClick(tl, Qt::Key_Escape);
        QCOMPARE(stats->model()->rowCount(), 0);
    }

    // Zoom to selection: the view shows the range and is not left tinted; the statistics stay.
    void zoomToSelectionLeavesNoTint()
    {
        gui::MainWindow w;
        w.resize(1200, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.showTrace(loaded(testing::smallTrainingTrace()));
        widgets::TimelineView* tl = w.timeline();
        tl->selectTimeRange(std::pair<TimeNs, TimeNs>(100, 400));
        const int before = w.rangeStats()->model()->rowCount();
        QVERIFY(before > 0);
        tl->zoomToSelection();
        QVERIFY(!tl->timeSelection());
        QCOMPARE(tl->zoom().start(), TimeNs(100));
        QCOMPARE(w.rangeStats()->model()->rowCount(), before);
    }

    // The operator table: framework ops with launched device time; the trees; double-click → slowest call.
    void operatorTableAndTrees()
    {
        const auto trace = testing::smallTrainingTrace();
        widgets::OperatorView view;
        view.resize(900, 300);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QAbstractItemModelTester tester(view.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        // A trace replaced before its tree arrives: only the last one's tree is shown.
        view.setTrace(oneOpTrace());
        view.setTrace(trace);
        QTRY_VERIFY(!view.computing());        // built in the background once a window installed the runner
        QCOMPARE(view.model()->rowCount(), 2); // aten::conv2d, aten::relu
        const QModelIndex top = view.proxy()->index(0, widgets::CallTreeModel::Name);
        QCOMPARE(top.data().toString(), QStringLiteral("aten::conv2d"));
        QCOMPARE(view.proxy()->index(0, widgets::CallTreeModel::Device).data().toString(), QStringLiteral("200 ns"));
        QCOMPARE(view.proxy()->index(0, widgets::CallTreeModel::Calls).data().toString(), QStringLiteral("1"));
        QSignalSpy jumps(&view, &widgets::OperatorView::sliceRequested);
        QCOMPARE(view.jumpToSlowest(view.proxy()->index(1, 0)), testing::findSlice(*trace, "aten::relu"));
        QCOMPARE(jumps.count(), 1);

        // Step 2 only: relu alone.
        view.setScope(1);
        QTRY_VERIFY(!view.computing());
        QCOMPARE(view.model()->rowCount(), 1);
        view.setScope(-1);

        view.setMode(widgets::CallTreeModel::Mode::TopDown);
        view.setAllHostSlices(true);
        QTRY_VERIFY(!view.computing());
        // Top level: the two steps; under step 1 the conv2d with its launch.
        QCOMPARE(view.model()->rowCount(), 2);
        view.setMode(widgets::CallTreeModel::Mode::BottomUp);
        QTRY_VERIFY(!view.computing());
        QModelIndex launch;
        for (int r = 0; r < view.proxy()->rowCount(); ++r)
            if (view.proxy()->index(r, 0).data().toString() == QStringLiteral("cudaLaunchKernel"))
                launch = view.proxy()->index(r, 0);
        QVERIFY(launch.isValid());
        QCOMPARE(view.proxy()->rowCount(launch), 2); // called from conv2d and from relu
        QCOMPARE(launch.siblingAtColumn(widgets::CallTreeModel::Device).data().toString(), QStringLiteral("250 ns"));
        // The filter keeps parents of matches.
        view.filter()->setText(QStringLiteral("relu"));
        QVERIFY(view.proxy()->rowCount() >= 1);
    }

    // The flame graph: click a box to zoom into it, click the top bar to go back; device time is in the tooltip data.
    void flameGraphZooms()
    {
        const auto trace = testing::smallTrainingTrace();
        widgets::FlameGraphView view;
        view.resize(800, 200);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setTrace(oneOpTrace());
        view.setTrace(trace);
        QTRY_VERIFY(!view.computing()); // built in the background once a window installed the runner
        const analysis::CallTree& tree = view.tree();
        int step1 = -1;
        for (int c : tree.root().children)
            if (trace->str(tree.nodes[static_cast<std::size_t>(c)].name) == "ProfilerStep#1")
                step1 = c;
        QVERIFY(step1 > 0);
        const QRectF r = view.nodeRect(step1);
        QVERIFY(!r.isEmpty());
        QCOMPARE(qRound(r.width()), qRound(view.width() * 0.5)); // 1000 of 2000 ns
        QTest::mouseClick(&view, Qt::LeftButton, {}, r.center().toPoint());
        QCOMPARE(view.zoomNode(), step1);
        QCOMPARE(qRound(view.nodeRect(step1).width()), view.width());
        // conv2d (200 of step 1's 1000 ns) is a fifth of the width now.
        const int conv = tree.nodes[static_cast<std::size_t>(step1)].children.front();
        QCOMPARE(qRound(view.nodeRect(conv).width()), qRound(view.width() * 0.2));
        QCOMPARE(tree.nodes[static_cast<std::size_t>(conv)].deviceNs, TimeNs(200));
        QTest::mouseClick(&view, Qt::LeftButton, {}, QPoint(5, 5)); // the top bar: back out
        QCOMPARE(view.zoomNode(), 0);
        QSignalSpy jumps(&view, &widgets::FlameGraphView::sliceRequested);
        QTest::mouseDClick(&view, Qt::LeftButton, {}, view.nodeRect(step1).center().toPoint());
        QVERIFY(jumps.count() >= 1);
    }

    // Follow the work: flows are links that jump; "select launched device work" outlines the kernels; evidence
    // is clickable with durations; numbers carry units.
    void detailsFollowTheWork()
    {
        gui::MainWindow w;
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        const auto trace = testing::smallTrainingTrace();
        w.showTrace(loaded(trace, testing::smallFindings(*trace)));
        const model::SliceRef launch = testing::findSlice(*trace, "cudaLaunchKernel");
        const model::SliceRef kernel = testing::findSlice(*trace, "conv_fwd");
        w.timeline()->selectSlice(launch);
        const QString html = w.details()->toHtml();
        QVERIFY(html.contains(QStringLiteral("slice:%1:%2").arg(kernel.track.value).arg(kernel.index.value)));
        w.details()->activateLink(QUrl(QStringLiteral("slice:%1:%2").arg(kernel.track.value).arg(kernel.index.value)));
        QCOMPARE(w.timeline()->selectedSlice(), kernel);
        // The kernel's view is a few times its length, around it.
        QVERIFY(w.timeline()->zoom().start() <= 200 && w.timeline()->zoom().end() >= 400);
        QVERIFY(w.timeline()->zoom().span() < 2000);
        // And back: the kernel lists its launch.
        QVERIFY(w.details()->toHtml().contains(
            QStringLiteral("slice:%1:%2").arg(launch.track.value).arg(launch.index.value)));

        // The op that launched it: "Select launched device work" outlines conv_fwd.
        const model::SliceRef op = testing::findSlice(*trace, "aten::conv2d");
        w.timeline()->selectSlice(op);
        QVERIFY(w.details()->toPlainText().contains(QStringLiteral("Select launched device work")));
        w.details()->activateLink(QUrl(QStringLiteral("launched:%1:%2").arg(op.track.value).arg(op.index.value)));
        QCOMPARE(w.timeline()->highlighted(), std::vector<model::SliceRef> {kernel});
        QVERIFY(w.details()->toPlainText().contains(QStringLiteral("1 device slice")));

        // A finding's evidence: a link per event with its duration.
        const std::vector<analysis::Finding> findings = testing::smallFindings(*trace);
        const QString findingHtml = widgets::DetailsPanel::findingHtml(trace.get(), findings[1]);
        const model::SliceRef memcpy = testing::findSlice(*trace, "Memcpy HtoD");
        QVERIFY(findingHtml.contains(QStringLiteral("slice:%1:%2").arg(memcpy.track.value).arg(memcpy.index.value)));
        QVERIFY(findingHtml.contains(QStringLiteral("200 ns")));
        QVERIFY(findingHtml.contains(QStringLiteral("Copy hotspot")));

        // Numbers with units.
        analysis::Finding f = findings[1];
        f.details = {analysis::Detail {"bytes", std::int64_t {140'649'195'952}},
                     analysis::Detail {"copy_ns", std::int64_t {11'725'163'944}}};
        const QString numbers = widgets::DetailsPanel::findingHtml(trace.get(), f);
        QVERIFY(numbers.contains(QStringLiteral("131 GiB")));
        QVERIFY(numbers.contains(QStringLiteral("11.7 s")));
        QVERIFY(numbers.contains(QStringLiteral("140649195952"))); // the raw value stays next to it

        // A priced finding says what fixing it saves and how that was estimated; a job's finding (no saving
        // method: stragglers and merged kinds are not re-timed) shows neither, rather than "saves 0 ns".
        f.savingMethod = "retimed";
        f.savingNs = 1'500'000;
        f.savingRule = "The copies become asynchronous.";
        f.perStep = {analysis::StepLoss {}};
        const QString priced = widgets::DetailsPanel::findingHtml(trace.get(), f);
        QVERIFY(priced.contains(QStringLiteral("Fixing it saves")));
        QVERIFY(priced.contains(QStringLiteral("1.50 ms")));
        QVERIFY(priced.contains(QStringLiteral("How the saving is estimated")));
        QVERIFY(priced.contains(QStringLiteral(">Saving<")));
        // Issue #47 item 6: a saving far from the lost time shows the analysis's reason right under it.
        f.lostNs = 11'700;
        f.savingReason = analysis::savingReason(f, 1'490'000);
        QVERIFY(!f.savingReason.empty());
        const QString explained = widgets::DetailsPanel::findingHtml(trace.get(), f);
        const auto reasonAt = explained.indexOf(QStringLiteral("critical path runs through this cause for 1.49 ms"));
        QVERIFY2(reasonAt > explained.indexOf(QStringLiteral("Fixing it saves")), qPrintable(explained));
        QVERIFY(reasonAt < explained.indexOf(QStringLiteral("lost (")));
        f.savingReason.clear();
        f.savingMethod.clear();
        const QString unpriced = widgets::DetailsPanel::findingHtml(trace.get(), f);
        QVERIFY(!unpriced.contains(QStringLiteral("Fixing it saves")));
        QVERIFY(!unpriced.contains(QStringLiteral("How the saving is estimated")));
        QVERIFY(!unpriced.contains(QStringLiteral(">Saving<")));
        QVERIFY(unpriced.contains(QStringLiteral(">Lost<")));
    }

    // Copy out of tables: a cell, the selected rows with the header, the whole table as Markdown.
    void tablesCopy()
    {
        gui::MainWindow w;
        w.resize(1200, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        const auto trace = testing::smallTrainingTrace();
        w.showTrace(loaded(trace, testing::smallFindings(*trace)));
        QTableView* view = w.findingsView();
        view->setCurrentIndex(w.findingsProxy()->index(0, widgets::FindingsModel::LostMs));
        QCOMPARE(widgets::TableCopy::text(view, widgets::TableCopy::Scope::Cell), QStringLiteral("400 ns"));
        const QString rows = widgets::TableCopy::text(view, widgets::TableCopy::Scope::Rows);
        QCOMPARE(rows.split(QLatin1Char('\n')).value(0),
                 QStringLiteral("Kind\tFinding\tSaving\tLost\t% of time\tOccurrences"));
        QVERIFY(rows.contains(
            QStringLiteral("Dataloader starvation\tDataloader starves the device for 400 ns\t0 ns\t400 ns")));
        const QString md = widgets::TableCopy::text(view, widgets::TableCopy::Scope::Markdown);
        QVERIFY(md.startsWith(QStringLiteral(
            "| Kind | Finding | Saving | Lost | % of time | Occurrences |\n|---|---|---|---|---|---|\n")));
        QCOMPARE(md.count(QLatin1Char('\n')), 4);
        // The context menu has the three entries, and Copy Row puts the row on the clipboard.
        QMenu menu;
        widgets::TableCopy::addActions(&menu, view);
        QCOMPARE(menu.actions().size(), 3);
        menu.actions().at(1)->trigger();
        QCOMPARE(QApplication::clipboard()->text(), rows);
        // Sorting by a column sorts numerically through the proxy.
        view->sortByColumn(widgets::FindingsModel::LostMs, Qt::AscendingOrder);
        QCOMPARE(w.findingsProxy()->index(0, widgets::FindingsModel::LostMs).data().toString(),
                 QStringLiteral("200 ns"));
        // Selecting the first row (now the copy hotspot) shows that finding.
        view->setCurrentIndex(w.findingsProxy()->index(0, 0));
        QVERIFY(w.details()->toPlainText().contains(QStringLiteral("Pageable host-to-device copy")));
    }

    // Pinned tracks stay on screen while the rest scrolls; hidden tracks and groups go; groups reorder by drag;
    // a host thread shows only its top levels; the arrangement comes back for a trace of the same kind.
    void tracksPinHideReorderRemember()
    {
        gui::MainWindow w;
        w.resize(1200, 700);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.showTrace(loaded(deepTrace(10)));
        widgets::TimelineView* tl = w.timeline();
        const auto& groups = tl->layout().groups();
        QCOMPARE(groups.size(), std::size_t(2));
        QCOMPARE(groups[0].title, QStringLiteral("GPU 0"));
        const model::TrackId stream10 = groups[0].tracks.back();
        // Pin a GPU stream, limit the host depth, then scroll to the bottom: the stream is still under the ruler.
        QMenu* menu = tl->labelMenu(tl->layout().rowOfTrack(stream10));
        QVERIFY(menu);
        menu->findChild<QAction*>(QStringLiteral("pinTrack"))->trigger();
        delete menu;
        QVERIFY(tl->layout().isPinned(stream10));
        QCOMPARE(tl->layout().pinnedHeight(), widgets::TrackLayout::kDepthHeight + widgets::TrackLayout::kTrackGap);
        tl->verticalScrollBar()->setValue(tl->verticalScrollBar()->maximum());
        const model::SliceRef atTop = tl->sliceAt(timeToPos(*tl, 160, widgets::TimelinePainter::kRulerHeight + 5));
        QCOMPARE(atTop.track, stream10);

        const model::TrackId host = groups[1].tracks.front();
        QCOMPARE(tl->layout().visibleDepth(host), std::size_t(9)); // the step marker and eight frames
        w.tracksPanel()->depthLimit()->setValue(3);
        QCOMPARE(tl->layout().visibleDepth(host), std::size_t(3));
        QCOMPARE(tl->layout().rows()[static_cast<std::size_t>(tl->layout().rowOfTrack(host))].height,
                 3 * widgets::TrackLayout::kDepthHeight);

        // Hide a stream from the Tracks panel's filter: "Show only matching" keeps "stream 7" (and the pinned one).
        w.tracksPanel()->filter()->setText(QStringLiteral("stream 7"));
        w.tracksPanel()->showOnlyMatching();
        QVERIFY(tl->layout().isTrackHidden(groups[0].tracks[1]));
        QVERIFY(!tl->layout().isTrackHidden(groups[0].tracks[0]));
        QVERIFY(tl->layout().groups()[1].hidden); // no host thread is called "stream 7"
        QVERIFY(tl->layout().isPinned(stream10)); // pinned tracks stay

        // Show all again, then drag the host group's header above the GPU group.
        tl->changeLayout([](widgets::TrackLayout& l) { l.showAll(); });
        tl->verticalScrollBar()->setValue(0);
        const auto headerY = [tl](int group) {
            for (const auto& r : tl->layout().rows())
                if (r.isHeader() && r.group == group)
                    return widgets::TimelinePainter::kRulerHeight + r.y - tl->verticalScrollBar()->value() + 5;
            return -1;
        };
        const int from = headerY(1);
        const int to = headerY(0);
        QVERIFY(from > to && to > 0);
        QTest::mousePress(tl->viewport(), Qt::LeftButton, {}, QPoint(40, from));
        QTest::mouseMove(tl->viewport(), QPoint(40, from - 10));
        QTest::mouseMove(tl->viewport(), QPoint(40, to));
        QTest::mouseRelease(tl->viewport(), Qt::LeftButton, {}, QPoint(40, to));
        QCOMPARE(tl->layout().groups()[0].title, QStringLiteral("process 10"));

        // Another trace of the same kind (other process id): pinned, depth and order come back.
        w.showTrace(loaded(deepTrace(4242)));
        QCOMPARE(tl->layout().groups()[0].title, QStringLiteral("process 4242"));
        QCOMPARE(tl->layout().pinnedTracks().size(), std::size_t(1));
        QCOMPARE(tl->layout().hostDepthLimit(), 3);
        const QString pinnedKey = tl->layout().trackKey(tl->layout().pinnedTracks().front());
        QCOMPARE(pinnedKey, QStringLiteral("GPU 0/stream 10"));
    }

    // View → Reset Layout restores the docks; a squeezed layout is not saved.
    void layoutResetAndNeverDegenerate()
    {
        {
            gui::MainWindow w;
            w.resize(1024, 640);
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            QVERIFY(!w.isLayoutDegenerate());
            // The findings table keeps a header and four rows at 1024×640.
            QVERIFY(w.findingsView()->height() >= w.findingsView()->minimumHeight());
            QVERIFY(w.findingsView()->minimumHeight() >= 4 * w.findingsView()->verticalHeader()->defaultSectionSize());
            auto* details = w.findChild<QDockWidget*>(QStringLiteral("DetailsDock"));
            details->setFloating(true);
            details->hide();
            w.resetLayout();
            QVERIFY(!details->isFloating());
            QVERIFY(details->isVisible());
            QVERIFY(w.findChild<QAction*>(QStringLiteral("actionResetLayout")));
            // The minimum sizes hold: the findings dock cannot be squeezed under its table's minimum.
            auto* findings = w.findChild<QDockWidget*>(QStringLiteral("FindingsDock"));
            w.resizeDocks({findings}, {5}, Qt::Vertical);
            QApplication::processEvents();
            QVERIFY(w.findingsView()->height() >= w.findingsView()->minimumHeight());
            QVERIFY(!w.isLayoutDegenerate());
            w.close(); // a good layout is saved
        }
        const QByteArray good = QSettings().value(QStringLiteral("window/state")).toByteArray();
        QVERIFY(!good.isEmpty());
        {
            // A window forced smaller than its panels need squeezes them: that layout is not saved.
            gui::MainWindow w;
            w.setMinimumSize(0, 0);
            w.setFixedSize(560, 300);
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            QApplication::processEvents();
            QVERIFY(w.isLayoutDegenerate());
            w.close();
            QCOMPARE(QSettings().value(QStringLiteral("window/state")).toByteArray(), good);
        }
        QVERIFY(gui::MainWindow::progressText(QStringLiteral("reading"), 44LL << 20, 954LL << 20, 500)
                == QStringLiteral("reading 44 / 954 MB"));
        // 44 MB in 2 s: 910 MB more take 41.4 s.
        QCOMPARE(gui::MainWindow::progressText(QStringLiteral("reading"), 44LL << 20, 954LL << 20, 2000),
                 QStringLiteral("reading 44 / 954 MB · 41 s left"));
        QCOMPARE(gui::MainWindow::progressText(QStringLiteral("reading"), 1LL << 20, 954LL << 20, 2000),
                 QStringLiteral("reading 1.0 / 954 MB · 31 min 46 s left"));
    }

    // "1 step", not "1 steps"; a dropped file opens; the status bar forgets "Comparing with" when that window closes.
    // Issue #47 item 7: Fit All shows the work, not a marker after it. The Qwen H100 trace's last kernel ends
    // 49.8 ms in; Kineto's global "Record Window End" instant sits at 64.1 ms (both read off the raw file).
    void fitAllShowsTheWork()
    {
        model::TraceBuilder b;
        const auto host = b.hostThread("python", 1, 1);
        b.slice(host, model::SliceCategory::HostOp, "aten::mm", 0, 100);
        const auto marks = b.hostThread("", 2, 2);
        b.slice(marks, model::SliceCategory::Other, "Record Window End", 1'000, 0);
        const auto synthetic = b.finalize();
        QCOMPARE(synthetic->endNs(), model::TimeNs(1'000));
        QCOMPARE(widgets::TimelineView::navigableRange(*synthetic), std::pair(model::TimeNs(0), model::TimeNs(100)));
        model::TraceBuilder onlyMarks;
        const auto t = onlyMarks.hostThread("", 2, 2);
        onlyMarks.slice(t, model::SliceCategory::Other, "a", 10, 0);
        onlyMarks.slice(t, model::SliceCategory::Other, "b", 50, 0);
        const auto markTrace = onlyMarks.finalize();
        QCOMPARE(widgets::TimelineView::navigableRange(*markTrace), std::pair(model::TimeNs(10), model::TimeNs(50)));

        gui::MainWindow w;
        w.resize(1400, 900);
        w.show();
        const QString path
            = QStringLiteral(TIMESINK_FIXTURES_DIR "/torch/tracelens_h100_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz");
        w.openPath(path);
        QTRY_VERIFY_WITH_TIMEOUT(w.current().path == path && w.current().trace, 60000);
        w.timeline()->fitAll();
        const auto& zoom = w.timeline()->zoom();
        const model::Trace& trace = *w.current().trace;
        QCOMPARE(zoom.start(), trace.startNs());
        QCOMPARE(trace.spanNs() / 100'000, model::TimeNs(640)); // 64.1 ms including the marker
        QCOMPARE(zoom.span() / 10'000, model::TimeNs(4'984));   // 49.84 ms: the last kernel's and Python call's end
    }

    // Issue #47 item 1: device groups first, always. The MI300 Qwen trace names its GPU processes "python3", as
    // its host process is named, and labels them "GPU 0" … "GPU 12"; its kernels run on GPU 2.
    void deviceGroupsFirst()
    {
        gui::MainWindow w;
        w.setErrorReporter([](const QString& title, const QString& message) {
            QFAIL(qPrintable(title + QStringLiteral(": ") + message));
        });
        w.resize(1920, 1080);
        w.show();
        const QString path
            = QStringLiteral(TIMESINK_FIXTURES_DIR "/torch/tracelens_mi300_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz");
        w.openPath(path);
        QTRY_VERIFY_WITH_TIMEOUT(w.current().path == path && w.current().trace, 60000);
        const widgets::TrackLayout& layout = w.timeline()->layout();
        QString groups;
        for (const auto& g : layout.groups())
            groups += g.title + (g.device ? QStringLiteral(" [device] ") : QStringLiteral(" [host] "));
        QVERIFY2(!layout.groups().empty() && layout.groups().front().device, qPrintable(groups));
        QVERIFY2(layout.groups().front().title.contains(QStringLiteral("GPU 2")), qPrintable(groups));
        // Its first kernel row is on screen without scrolling.
        const auto& rows = layout.rows();
        const auto firstTrackRow = std::find_if(rows.begin(), rows.end(), [](const auto& r) { return !r.isHeader(); });
        QVERIFY(firstTrackRow != rows.end());
        QVERIFY(w.current().trace->track(firstTrackRow->track).deviceKind != model::DeviceKind::Cpu);
        QVERIFY(firstTrackRow->y + firstTrackRow->height < w.timeline()->viewport()->height());
        // Deep host stacks start folded to the levels that hold framework ops: the Python thread's 40-level stack
        // opens at its first framework op, and nothing but Python frames is folded away.
        const model::Trace& mi300 = *w.current().trace;
        std::size_t folded = 0;
        for (const auto& g : layout.groups()) {
            for (const model::TrackId id : g.tracks) {
                const model::Track& t = mi300.track(id);
                const std::size_t first = layout.firstDepth(id);
                for (std::size_t d = 0; d < first; ++d) {
                    for (const std::uint32_t i : t.slicesAtDepth(d))
                        QCOMPARE(t.category(i), model::SliceCategory::PythonFrame);
                }
                if (first > 0) {
                    const auto level = t.slicesAtDepth(first);
                    QVERIFY(std::any_of(level.begin(), level.end(), [&t](std::uint32_t i) {
                        return t.category(i) != model::SliceCategory::PythonFrame;
                    }));
                }
                folded = std::max(folded, first);
            }
        }
        qInfo("the deepest fold: %zu Python-only levels", folded);
        // A group order remembered from another Kineto trace (its GPU was "GPU 0", its host groups listed first)
        // keeps the GPU on top here.
        {
            widgets::TrackLayout fresh(mi300);
            widgets::TrackLayout::State saved;
            for (const auto& g : layout.groups())
                if (!g.device)
                    saved.groupOrder << g.key;
            saved.groupOrder << QStringLiteral("GPU 0");
            fresh.applyState(saved);
            QVERIFY(fresh.groups().front().device);
            QVERIFY(fresh.groups().front().title.contains(QStringLiteral("GPU 2")));
        }
        QVERIFY2(folded >= widgets::TrackLayout::kMinTrunkLevels, qPrintable(QString::number(folded)));

        // Both panes of the H100 vs MI300 compare window start with their GPU.
        const QString h100
            = QStringLiteral(TIMESINK_FIXTURES_DIR "/torch/tracelens_h100_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz");
        w.openPath(h100);
        QTRY_VERIFY_WITH_TIMEOUT(w.current().path == h100 && w.current().trace, 60000);
        w.compareWith(path);
        QTRY_VERIFY_WITH_TIMEOUT(w.statusLabel()->text().startsWith(QStringLiteral("Comparing with")), 60000);
        widgets::CompareView* compare = nullptr;
        for (QWidget* top : QApplication::topLevelWidgets())
            if (auto* c = qobject_cast<widgets::CompareView*>(top))
                compare = c;
        QVERIFY(compare);
        for (const widgets::TimelineView* pane : {compare->baselineTimeline(), compare->candidateTimeline()}) {
            const auto& paneGroups = pane->layout().groups();
            QVERIFY(!paneGroups.empty());
            QVERIFY(paneGroups.front().device);
            QVERIFY(paneGroups.front().title.startsWith(QStringLiteral("GPU")));
        }
        compare->window()->close();
    }

    void smallThings()
    {
        gui::MainWindow w;
        w.setErrorReporter([](const QString& title, const QString& message) {
            QFAIL(qPrintable(title + QStringLiteral(": ") + message));
        });
        w.resize(1200, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        model::TraceBuilder b;
        const auto host = b.hostThread("python", 1, 1);
        b.slice(host, model::SliceCategory::HostOp, "aten::mm", 0, 100);
        w.showTrace(loaded(b.finalize(), {}, QStringLiteral("one.json")));
        QCOMPARE(w.statusLabel()->text(), QStringLiteral("one.json: 1 event on 1 track, 1 step, 0 findings"));

        // A synthesized drop of a real fixture opens it.
        const QString path = QStringLiteral(TIMESINK_FIXTURES_DIR "/torch/hta_a100_cuda_event_sync_trace.json.gz");
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(path)});
        QDragEnterEvent enter(QPoint(200, 200), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&w, &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(200, 200), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&w, &drop);
        QVERIFY(drop.isAccepted());
        QTRY_VERIFY_WITH_TIMEOUT(w.current().path == path, 30000);
        QVERIFY(w.current().trace);
        // Compare with the same file; closing the compare window puts the trace summary back.
        w.compareWith(path);
        QTRY_VERIFY_WITH_TIMEOUT(w.statusLabel()->text().startsWith(QStringLiteral("Comparing with")), 30000);
        QWidget* compare = nullptr;
        for (QWidget* top : QApplication::topLevelWidgets())
            if (top->windowTitle().startsWith(QStringLiteral("Compare ")))
                compare = top;
        QVERIFY(compare);
        compare->close();
        QTRY_VERIFY(!w.statusLabel()->text().startsWith(QStringLiteral("Comparing with")));
        QVERIFY(w.statusLabel()->text().startsWith(QStringLiteral("hta_a100_cuda_event_sync_trace.json.gz: ")));

        // A folder drops the same way (a bundle).
        QMimeData folder;
        folder.setUrls({QUrl::fromLocalFile(
            QStringLiteral(TIMESINK_FIXTURES_DIR "/torch_npu/msinsight_text_level0_rank0_ascend_pt"))});
        QDragEnterEvent enterFolder(QPoint(200, 200), Qt::CopyAction, &folder, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&w, &enterFolder);
        QVERIFY(enterFolder.isAccepted());
        QDropEvent dropFolder(QPointF(200, 200), Qt::CopyAction, &folder, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&w, &dropFolder);
        QVERIFY(dropFolder.isAccepted());
        QTRY_VERIFY_WITH_TIMEOUT(w.current().path.endsWith(QStringLiteral("msinsight_text_level0_rank0_ascend_pt")),
                                 60000);
    }

    // Readable numbers: the ruler at deep zoom counts from a base time; chart axes use round ticks in a unit that
    // fits; operator bars carry their values and tell apart names that share a prefix.
    void readableNumbers()
    {
        widgets::TimelineZoom zoom;
        zoom.setTraceRange(0, 60'000'000'000);
        zoom.setWidth(1000);
        zoom.setRange(30'512'345'000, 30'512'368'000); // 23 µs, half a minute in
        const TimeNs step = widgets::TimeFormat::tickStep(zoom.nsPerPixel(), 90);
        QCOMPARE(step, TimeNs(5'000)); // 23 ns a pixel × 90 px → 2 070 ns → the next 1-2-5 step is 5 µs
        const auto base = widgets::TimelinePainter::rulerBase(zoom, step);
        QVERIFY(base);
        QCOMPARE(*base, TimeNs(30'512'300'000)); // a multiple of 100 µs, the first power of ten ≥ 23 µs
        QCOMPARE(widgets::TimelinePainter::rulerBaseText(*base, zoom.span()), QStringLiteral("30.5123 s"));
        QCOMPARE(widgets::TimeFormat::formatOffset(30'512'350'000 - *base, step), QStringLiteral("50 µs"));
        // Issue #47 item 7: 15.5 ms into a 64 ms trace at a 4 µs view, the corner reads milliseconds, not
        // "0.01551 s", and ticks 500 ns apart read "+3.0 µs", not "+3000 ns".
        zoom.setTraceRange(0, 64'100'000);
        zoom.setRange(15'512'000, 15'516'000);
        const TimeNs fine = widgets::TimeFormat::tickStep(zoom.nsPerPixel(), 90);
        QCOMPARE(fine, TimeNs(500));
        const auto msBase = widgets::TimelinePainter::rulerBase(zoom, fine);
        QVERIFY(msBase);
        QCOMPARE(*msBase, TimeNs(15'510'000));
        QCOMPARE(widgets::TimelinePainter::rulerBaseText(*msBase, zoom.span()), QStringLiteral("15.51 ms"));
        QCOMPARE(widgets::TimeFormat::formatOffset(15'513'000 - *msBase, fine, zoom.end() - *msBase),
                 QStringLiteral("3.0 µs"));
        QCOMPARE(widgets::TimeFormat::formatOffset(15'513'500 - *msBase, fine, zoom.end() - *msBase),
                 QStringLiteral("3.5 µs"));
        QCOMPARE(widgets::TimelinePainter::rulerBaseText(0, 4'000), QStringLiteral("0 µs"));
        zoom.setTraceRange(0, 60'000'000'000);
        zoom.fitAll();
        QVERIFY(!widgets::TimelinePainter::rulerBase(zoom, widgets::TimeFormat::tickStep(zoom.nsPerPixel(), 90)));

        widgets::SummaryData data;
        widgets::SummaryData::StepBreakdown s1;
        s1.number = 1;
        s1.durationNs = 2'400'000'000; // 2.4 s: the axis is in seconds
        s1.ns[widgets::SummaryData::Compute] = 2'400'000'000;
        data.steps = {s1};
        data.topOperators = {{"aten::_convolution_backward_weight_and_input", 1'500'000, 3},
                             {"aten::_convolution_backward_weight_only_input", 900'000, 2}};
        widgets::SummaryView view;
        view.setData(data);
        const auto vertical = view.stepsChart()->chart()->axes(Qt::Vertical);
        QCOMPARE(vertical.size(), 1);
        auto* stepAxis = qobject_cast<QValueAxis*>(vertical.front());
        QVERIFY(stepAxis);
        QCOMPARE(stepAxis->titleText(), QStringLiteral("s"));
        // Nice numbers: a round maximum at or above 2.52 s (2.4 × 1.05).
        QVERIFY(stepAxis->max() >= 2.52);
        QCOMPARE(std::fmod(stepAxis->max() * 2, 1.0), 0.0);
        auto* opAxis = qobject_cast<QBarCategoryAxis*>(view.operatorsChart()->chart()->axes(Qt::Vertical).front());
        QVERIFY(opAxis);
        const QStringList names = opAxis->categories();
        QCOMPARE(names.size(), 2);
        QVERIFY(names[0] != names[1]);
        QVERIFY(names[0].endsWith(QStringLiteral("input")) && names[0].contains(QStringLiteral("…")));
        auto* series = qobject_cast<QAbstractBarSeries*>(view.operatorsChart()->chart()->series().front());
        QVERIFY(series && series->isLabelsVisible());
        QCOMPARE(series->labelsFormat(), QStringLiteral("@value ms"));
        // Issue #47 item 7: three significant digits, kind labels rather than ids, and kernels whose short names
        // collide told apart by more of their names, not by "(2)".
        QCOMPARE(series->labelsPrecision(), 3);
        data.lostByKind = {{"pipeline_bubble", 2'000'000, 4}, {"copy_hotspot", 1'000'000, 1}};
        data.topOperators = {
            {"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>(int)", 700'000, 9},
            {"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>(int)", 600'000, 8},
            {"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>(long)", 500'000, 7}};
        view.setData(data);
        auto* lostAxis = qobject_cast<QBarCategoryAxis*>(view.lostChart()->chart()->axes(Qt::Vertical).front());
        QVERIFY(lostAxis);
        QCOMPARE(lostAxis->categories(),
                 QStringList({QStringLiteral("Copy hotspot"), QStringLiteral("Pipeline bubble")}));
        opAxis = qobject_cast<QBarCategoryAxis*>(view.operatorsChart()->chart()->axes(Qt::Vertical).front());
        const QStringList kernels = opAxis->categories();
        QCOMPARE(kernels.size(), 3);
        for (const QString& k : kernels) {
            QVERIFY2(!k.contains(QRegularExpression(QStringLiteral("\\(\\d+\\)$"))), qPrintable(k));
            QVERIFY2(k.size() <= 48, qPrintable(k));
        }
        QCOMPARE(QSet<QString>(kernels.begin(), kernels.end()).size(), 3);
    }

private:
    QTemporaryDir m_dir;
};

QTEST_MAIN(TestExplorer)
#include "tst_explorer.moc"
