// SPDX-License-Identifier: MIT
#include "testtraces.h"
#include "widgets/categorypalette.h"
#include "widgets/detailspanel.h"
#include "widgets/timelineview.h"

#include <QApplication>
#include <QHelpEvent>
#include <QPainter>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTest>
#include <QTextDocument>
#include <QToolTip>
#include <QWheelEvent>

using namespace timesink;
using widgets::TimelinePainter;
using widgets::TimelineView;
using widgets::TimelineZoom;

namespace {

QPoint centreOf(const TimelineView& view, model::SliceRef ref)
{
    const auto r
        = TimelinePainter::sliceRect(*view.trace(), view.zoom(), view.layout(), view.verticalScrollBar()->value(), ref);
    return r ? r->center().toPoint() : QPoint(-1, -1);
}

/// `count` back-to-back 10 ns kernels on one stream: many more slices than pixels.
model::TracePtr denseTrace(int count)
{
    model::TraceBuilder b;
    const auto gpu = b.deviceStream(0, 7);
    for (int i = 0; i < count; ++i)
        b.slice(gpu, i % 3 ? model::SliceCategory::Kernel : model::SliceCategory::Memset, "k", i * 10LL, 10);
    return b.finalize();
}

} // namespace

class TestTimelineView : public QObject
{
    Q_OBJECT
private slots:
    void init();
    void clickSelectsAndHitTests_data();
    void clickSelectsAndHitTests();
    void wheelZoomsAroundCursor();
    void keysZoomAndPan();
    void headerClickCollapses();
    void layoutGroupsAndOrder();
    void searchRevealsMatches();
    void selectionDrawsOutline();
    void zoomToSelection();
    void hoverTooltip();
    void detailsShowEveryFieldAndArg();
    void flowArrowToDeviceWork();
    void summariesAtFullZoomOut();
    void mergesSubPixelSlices();
    void paletteColoursDiffer();
    void stepLabelsInRuler_data();
    void stepLabelsInRuler();
    void foldsPythonTrunk();

private:
    std::unique_ptr<TimelineView> m_view;
    model::TracePtr m_trace;
};

void TestTimelineView::init()
{
    m_trace = testing::smallTrainingTrace();
    m_view = std::make_unique<TimelineView>();
    m_view->resize(1200, 500);
    m_view->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_view.get()));
    m_view->setTrace(m_trace);
}

void TestTimelineView::clickSelectsAndHitTests_data()
{
    QTest::addColumn<QString>("name");
    QTest::newRow("kernel") << QStringLiteral("conv_fwd");
    QTest::newRow("nested host op") << QStringLiteral("aten::relu");
    QTest::newRow("copy") << QStringLiteral("Memcpy HtoD");
    QTest::newRow("dataloader") << QStringLiteral("DataLoader next");
}

void TestTimelineView::clickSelectsAndHitTests()
{
    QFETCH(QString, name);
    const model::SliceRef ref = testing::findSlice(*m_trace, name.toStdString());
    QVERIFY(ref.isValid());
    const QPoint p = centreOf(*m_view, ref);
    QCOMPARE(m_view->sliceAt(p), ref);
    QSignalSpy spy(m_view.get(), &TimelineView::sliceSelected);
    QTest::mouseClick(m_view->viewport(), Qt::LeftButton, {}, p);
    QCOMPARE(m_view->selectedSlice(), ref);
    QCOMPARE(spy.count(), 1);
    // Clicking empty space (the ruler) clears the selection.
    QTest::mouseClick(m_view->viewport(), Qt::LeftButton, {}, QPoint(p.x(), 5));
    QVERIFY(!m_view->selectedSlice().isValid());
}

void TestTimelineView::wheelZoomsAroundCursor()
{
    const QPointF pos(TimelinePainter::kLabelWidth + 300, 100);
    const model::TimeNs before = m_view->zoom().timeAt(300);
    const model::TimeNs span = m_view->zoom().span();
    QWheelEvent wheel(pos, m_view->viewport()->mapToGlobal(pos), QPoint(), QPoint(0, 240), Qt::NoButton, Qt::NoModifier,
                      Qt::NoScrollPhase, false);
    QApplication::sendEvent(m_view->viewport(), &wheel);
    QVERIFY(m_view->zoom().span() < span);
    QVERIFY(std::abs(m_view->zoom().timeAt(300) - before) <= 1);
}

void TestTimelineView::keysZoomAndPan()
{
    m_view->setFocus();
    const model::TimeNs full = m_view->zoom().span();
    QTest::keyClick(m_view.get(), Qt::Key_W);
    QVERIFY(m_view->zoom().span() < full);
    const model::TimeNs start = m_view->zoom().start();
    QTest::keyClick(m_view.get(), Qt::Key_D);
    QVERIFY(m_view->zoom().start() > start);
    QTest::keyClick(m_view.get(), Qt::Key_A);
    QCOMPARE(m_view->zoom().start(), start);
    QTest::keyClick(m_view.get(), Qt::Key_S);
    QTest::keyClick(m_view.get(), Qt::Key_F);
    QCOMPARE(m_view->zoom().span(), full);
}

void TestTimelineView::headerClickCollapses()
{
    const auto& rows = m_view->layout().rows();
    QVERIFY(rows.front().isHeader());
    const int before = m_view->layout().totalHeight();
    const QPoint header(20, TimelinePainter::kRulerHeight + rows.front().y + 5);
    QCOMPARE(m_view->groupHeaderAt(header), 0);
    QTest::mouseClick(m_view->viewport(), Qt::LeftButton, {}, header);
    QVERIFY(m_view->layout().groups()[0].collapsed);
    QVERIFY(m_view->layout().totalHeight() < before);
    // Selecting a slice on a hidden track expands its group again.
    const model::SliceRef ref = testing::findSlice(*m_trace, "conv_fwd"); // on GPU 0, group 0
    m_view->selectSlice(ref, true);
    QVERIFY(!m_view->layout().groups()[0].collapsed);
}

void TestTimelineView::layoutGroupsAndOrder()
{
    model::TraceBuilder b;
    const auto host = b.hostThread("main", 1, 1);
    b.hostThread("idle", 1, 2); // no slices: left out
    const auto copy = b.deviceStream(0, 9, model::DeviceKind::Gpu, model::TrackRole::DeviceCopy);
    const auto compute = b.deviceStream(0, 7);
    b.slice(host, model::SliceCategory::HostOp, "op", 0, 10);
    b.slice(host, model::SliceCategory::RuntimeApi, "launch", 2, 5); // depth 1
    b.slice(compute, model::SliceCategory::Kernel, "k", 0, 10);
    b.memcpy(copy, model::MemcpyDirection::HostToDevice, model::HostMemoryKind::Pinned, 0, 10);
    const auto trace = b.finalize();
    const widgets::TrackLayout layout(*trace);
    using L = widgets::TrackLayout;
    QCOMPARE(layout.groups().size(), std::size_t(2));
    QCOMPARE(layout.groups()[0].title, QStringLiteral("GPU 0")); // devices first
    QCOMPARE(layout.groups()[1].title, QStringLiteral("process 1"));
    // Compute before copy inside the device group, whatever the creation order.
    QCOMPARE(layout.groups()[0].tracks.front(), compute);
    QCOMPARE(layout.groups()[1].tracks.size(), std::size_t(1));
    // Rows: header, compute, copy, header, host (2 depths).
    QCOMPARE(layout.rows().size(), std::size_t(5));
    QCOMPARE(layout.rows()[3].y, L::kHeaderHeight + 2 * (L::kDepthHeight + L::kTrackGap));
    QCOMPARE(layout.depthY(host, 1), layout.rows()[4].y + L::kDepthHeight);
    QCOMPARE(layout.rowAt(layout.rows()[4].y + 20), 4);
    QCOMPARE(layout.totalHeight(), layout.rows()[4].y + 2 * L::kDepthHeight + L::kTrackGap);
}

void TestTimelineView::searchRevealsMatches()
{
    QCOMPARE(m_view->setSearchQuery(QStringLiteral("relu")), std::size_t(2)); // aten::relu, relu_fwd
    m_view->showRange(0, 50);                                                 // matches are off screen
    const model::SliceRef r = m_view->nextMatch();
    QVERIFY(r.isValid());
    const model::Track& t = m_trace->track(r.track);
    QVERIFY(m_view->zoom().start() <= t.ts(r.index.value));
    QVERIFY(m_view->zoom().end() >= t.end(r.index.value));
    QCOMPARE(m_view->selectedSlice(), r);
    QVERIFY(m_view->previousMatch().isValid());
}

void TestTimelineView::selectionDrawsOutline()
{
    const model::SliceRef ref = testing::findSlice(*m_trace, "conv_fwd");
    const QImage before = m_view->renderImage();
    m_view->selectSlice(ref);
    const QImage after = m_view->renderImage();
    const auto rect = TimelinePainter::sliceRect(*m_trace, m_view->zoom(), m_view->layout(), 0, ref);
    QVERIFY(rect);
    // The top-left corner of the outline changes colour; the slice interior does not.
    const QPoint corner = rect->topLeft().toPoint() + QPoint(1, 1);
    QVERIFY(before.pixelColor(corner) != after.pixelColor(corner));
}

void TestTimelineView::flowArrowToDeviceWork()
{
    // The first launch flows to conv_fwd: selecting it draws an arrow whose head touches the kernel's left edge.
    const model::SliceRef launch = testing::findSlice(*m_trace, "cudaLaunchKernel");
    const model::SliceRef kernel = testing::findSlice(*m_trace, "conv_fwd");
    QCOMPARE(m_trace->flowsFrom(launch).size(), std::size_t(1));
    const auto target = TimelinePainter::sliceRect(*m_trace, m_view->zoom(), m_view->layout(), 0, kernel);
    QVERIFY(target);
    const QPoint head = QPointF(target->left() - 3, target->center().y()).toPoint();
    const QColor before = m_view->renderImage().pixelColor(head);
    m_view->selectSlice(launch);
    const QColor after = m_view->renderImage().pixelColor(head);
    QVERIFY(before != after);
    QVERIFY(after.blue() > after.red()); // the arrow colour is blue on both palettes
}

void TestTimelineView::hoverTooltip()
{
    const model::SliceRef ref = testing::findSlice(*m_trace, "Memcpy HtoD");
    const QPoint p = centreOf(*m_view, ref);
    QHelpEvent help(QEvent::ToolTip, p, m_view->viewport()->mapToGlobal(p));
    QApplication::sendEvent(m_view->viewport(), &help);
    QTRY_VERIFY(QToolTip::isVisible());
    const QString text = QToolTip::text();
    QVERIFY2(text.contains(QStringLiteral("Memcpy HtoD")), qPrintable(text)); // name
    QVERIFY(text.contains(QStringLiteral("200 ns")));                         // duration
    QVERIFY(text.contains(QStringLiteral("Memcpy")));                         // category
    QToolTip::hideText();
}

void TestTimelineView::detailsShowEveryFieldAndArg()
{
    model::TraceBuilder b;
    const auto gpu = b.deviceStream(0, 7);
    const model::Arg args[] = {
        {b.intern("grid"), model::ArgValue::fromString(b.intern("[128, 1, 1]"))},
        {b.intern("registers per thread"), model::ArgValue::fromInt(72)},
        {b.intern("est. achieved occupancy %"), model::ArgValue::fromDouble(37.5)},
        {b.intern("pinned"), model::ArgValue::fromBool(true)},
    };
    const model::SliceRef k = b.slice(gpu, model::SliceCategory::Kernel, "gemm<float>", 1000, 2500, args);
    (void)k;
    const auto trace = b.finalize();
    const QString html = widgets::DetailsPanel::sliceHtml(*trace, testing::findSlice(*trace, "gemm<float>"));
    QTextDocument doc;
    doc.setHtml(html);
    const QString text = doc.toPlainText();
    for (const char* expected : {"gemm<float>", "Kernel", "2.50 µs", "stream 7", "GPU 0", "grid", "[128, 1, 1]",
                                 "registers per thread", "72", "37.5", "true"})
        QVERIFY2(text.contains(QString::fromUtf8(expected)), expected);
}

void TestTimelineView::zoomToSelection()
{
    m_view->setTimeSelection(std::pair(model::TimeNs(1100), model::TimeNs(1400)));
    m_view->zoomToSelection();
    QCOMPARE(m_view->zoom().start(), model::TimeNs(1100));
    QCOMPARE(m_view->zoom().end(), model::TimeNs(1400));
    m_view->setTimeSelection(std::nullopt);
    m_view->selectSlice(testing::findSlice(*m_trace, "relu_fwd"));
    m_view->zoomToSelection();
    QVERIFY(m_view->zoom().start() <= 1300 && m_view->zoom().end() >= 1350);
}

void TestTimelineView::summariesAtFullZoomOut()
{
    const auto trace = denseTrace(200'000);
    m_view->setTrace(trace);
    (void)m_view->renderImage();
    QImage image(m_view->viewport()->size(), QImage::Format_ARGB32_Premultiplied);
    QPainter p(&image);
    widgets::TimelineDecorations none;
    const auto stats = TimelinePainter().paint(p, image.size(), *trace, m_view->zoom(), m_view->layout(), 0, none,
                                               m_view->palette());
    // 200 000 slices over < 1000 px: summary buckets, not slices, and about one per pixel.
    QCOMPARE(stats.slicesVisited, std::size_t(0));
    QVERIFY(stats.bucketsVisited > 0);
    QVERIFY(stats.bucketsVisited <= 200'000 / 16);
    QVERIFY(stats.rectsDrawn <= static_cast<std::size_t>(image.width()));
}

void TestTimelineView::mergesSubPixelSlices()
{
    const auto trace = denseTrace(4000); // 4000 slices, 10 ns each, 40 µs over ~980 px: sub-pixel
    m_view->setTrace(trace);
    QImage image(m_view->viewport()->size(), QImage::Format_ARGB32_Premultiplied);
    QPainter p(&image);
    widgets::TimelineDecorations none;
    const auto stats = TimelinePainter().paint(p, image.size(), *trace, m_view->zoom(), m_view->layout(), 0, none,
                                               m_view->palette());
    QCOMPARE(stats.bucketsVisited, std::size_t(0)); // fewer slices than 16 × width: no summaries
    QCOMPARE(stats.slicesVisited, std::size_t(4000));
    QVERIFY(stats.rectsDrawn < 50); // back-to-back slices fold into one run
}

void TestTimelineView::paletteColoursDiffer()
{
    for (bool dark : {false, true}) {
        QSet<QRgb> seen;
        for (auto c : {model::SliceCategory::HostOp, model::SliceCategory::RuntimeApi, model::SliceCategory::Kernel,
                       model::SliceCategory::Memcpy, model::SliceCategory::Communication,
                       model::SliceCategory::Dataloader, model::SliceCategory::FallbackOp})
            seen.insert(widgets::CategoryPalette::fill(c, dark).rgb());
        QCOMPARE(seen.size(), 7);
    }
    // Text contrasts with the fill on both palettes.
    QCOMPARE(widgets::CategoryPalette::text(QColor(250, 250, 250)), QColor(Qt::black));
    QCOMPARE(widgets::CategoryPalette::text(QColor(20, 20, 20)), QColor(Qt::white));
}

void TestTimelineView::stepLabelsInRuler_data()
{
    // smallTrainingTrace(): step #1 = [0, 1000), step #2 = [1000, 2000) ns.
    const QFontMetrics metrics(QApplication::font());
    // Room for "#1" but not "step 1" (labels keep 2 px clear on each side).
    const int narrow = metrics.horizontalAdvance(QStringLiteral("#1")) + 5;
    QVERIFY(metrics.horizontalAdvance(QStringLiteral("step 1")) + 4 > narrow);
    QTest::addColumn<qint64>("t0");
    QTest::addColumn<qint64>("t1");
    QTest::addColumn<int>("width");
    QTest::addColumn<QString>("expected"); // "step:x0-x1:text;…"
    QTest::newRow("both steps") << qint64(0) << qint64(2000) << 300
                                << QStringLiteral("0:0-150:step 1;1:150-300:step 2");
    QTest::newRow("from the middle of step 1")
        << qint64(500) << qint64(2000) << 300 << QStringLiteral("0:0-100:step 1;1:100-300:step 2");
    QTest::newRow("inside step 2") << qint64(1200) << qint64(1400) << 300 << QStringLiteral("1:0-300:step 2");
    QTest::newRow("narrow: the number only") << qint64(0) << qint64(2000) << 2 * narrow
                                             << QStringLiteral("0:0-%1:#1;1:%1-%2:#2").arg(narrow).arg(2 * narrow);
    QTest::newRow("too narrow for any text") << qint64(0) << qint64(2000) << 8 << QStringLiteral("0:0-4:;1:4-8:");
}

void TestTimelineView::stepLabelsInRuler()
{
    QFETCH(qint64, t0);
    QFETCH(qint64, t1);
    QFETCH(int, width);
    QFETCH(QString, expected);
    TimelineZoom zoom;
    zoom.setTraceRange(m_trace->startNs(), m_trace->endNs());
    zoom.setWidth(width);
    zoom.setRange(t0, t1);
    QStringList got;
    for (const TimelinePainter::StepLabel& l :
         TimelinePainter::stepLabels(*m_trace, zoom, QFontMetrics(QApplication::font())))
        got << QStringLiteral("%1:%2-%3:%4").arg(l.step).arg(l.x0).arg(l.x1).arg(l.text);
    QCOMPARE(got.join(QLatin1Char(';')), expected);
}

// Issue #47 item 1: a host thread whose top levels hold only Python frames opens at its first framework op; the
// folded levels draw nothing and hit nothing, the label says so, and selecting a folded frame unfolds them.
void TestTimelineView::foldsPythonTrunk()
{
    model::TraceBuilder b;
    const auto gpu = b.deviceStream(0, 7);
    const auto deep = b.hostThread("python", 1, 1);
    // Five nested Python frames, then a framework op and its launch.
    for (int d = 0; d < 5; ++d)
        b.slice(deep, model::SliceCategory::PythonFrame, "frame " + std::to_string(d), d * 10LL, 10'000 - d * 20LL);
    const auto op = b.slice(deep, model::SliceCategory::HostOp, "aten::mm", 100, 1000);
    b.slice(deep, model::SliceCategory::RuntimeApi, "cudaLaunchKernel", 200, 50);
    b.slice(gpu, model::SliceCategory::Kernel, "gemm", 400, 500);
    // Two Python levels only: too shallow to fold.
    const auto shallow = b.hostThread("python", 1, 2);
    b.slice(shallow, model::SliceCategory::PythonFrame, "a", 0, 5000);
    b.slice(shallow, model::SliceCategory::PythonFrame, "b", 10, 4000);
    b.slice(shallow, model::SliceCategory::HostOp, "aten::add", 20, 100);
    // Python frames alone: every level stays.
    const auto pythonOnly = b.hostThread("python", 1, 3);
    for (int d = 0; d < 6; ++d)
        b.slice(pythonOnly, model::SliceCategory::PythonFrame, "p", d * 10LL, 10'000 - d * 20LL);
    const model::TracePtr trace = b.finalize();
    m_view->setTrace(trace);
    const widgets::TrackLayout& layout = m_view->layout();
    QCOMPARE(layout.trunkDepth(deep), std::size_t(5));
    QCOMPARE(layout.firstDepth(deep), std::size_t(5));
    QCOMPARE(layout.visibleDepth(deep), std::size_t(2)); // the op and its launch
    QCOMPARE(layout.firstDepth(shallow), std::size_t(0));
    QCOMPARE(layout.visibleDepth(shallow), std::size_t(3));
    QCOMPARE(layout.firstDepth(pythonOnly), std::size_t(0));
    QCOMPARE(layout.visibleDepth(pythonOnly), std::size_t(6));
    QCOMPARE(layout.firstDepth(gpu), std::size_t(0));
    // The op is the thread's first row and is hit there; a folded frame has no rectangle.
    const int row = layout.rowOfTrack(deep);
    QVERIFY(row >= 0);
    QCOMPARE(layout.depthY(deep, 5), layout.rows()[static_cast<std::size_t>(row)].y);
    QCOMPARE(layout.depthY(deep, 0), -1);
    QCOMPARE(layout.rows()[static_cast<std::size_t>(row)].height, 2 * widgets::TrackLayout::kDepthHeight);
    m_view->fitAll();
    const QPoint p = centreOf(*m_view, op);
    QVERIFY(p.y() >= 0);
    QCOMPARE(m_view->sliceAt(p), op);
    const model::SliceRef frame = testing::findSlice(*trace, "frame 2");
    QVERIFY(!TimelinePainter::sliceRect(*trace, m_view->zoom(), layout, m_view->verticalScrollBar()->value(), frame));
    // The label's tooltip says what is folded.
    const QPoint label(20, p.y());
    QHelpEvent help(QEvent::ToolTip, label, m_view->viewport()->mapToGlobal(label));
    QApplication::sendEvent(m_view->viewport(), &help);
    QTRY_VERIFY(QToolTip::isVisible());
    QVERIFY2(QToolTip::text().contains(QStringLiteral("top 5 levels hold only Python frames")),
             qPrintable(QToolTip::text()));
    QToolTip::hideText();
    // The arrangement is kept by key: unfolding is remembered, folding again is the default.
    widgets::TrackLayout::State state = layout.state();
    QVERIFY(state.isDefault());
    // Selecting a folded frame (from search, say) unfolds its thread.
    m_view->selectSlice(frame, true);
    QCOMPARE(layout.firstDepth(deep), std::size_t(0));
    QCOMPARE(layout.visibleDepth(deep), std::size_t(7));
    QVERIFY(TimelinePainter::sliceRect(*trace, m_view->zoom(), layout, m_view->verticalScrollBar()->value(), frame));
    state = layout.state();
    QCOMPARE(state.trunkShown.size(), 1);
    widgets::TrackLayout fresh(*trace);
    QCOMPARE(fresh.firstDepth(deep), std::size_t(5));
    fresh.applyState(widgets::TrackLayout::State::fromVariant(state.toVariant()));
    QCOMPARE(fresh.firstDepth(deep), std::size_t(0));
    // A limit counts from the first level drawn.
    fresh.showTrunk(deep, false);
    fresh.setDepthLimit(deep, 1);
    QCOMPARE(fresh.visibleDepth(deep), std::size_t(1));
    QVERIFY(fresh.isDepthShown(deep, 5));
    QVERIFY(!fresh.isDepthShown(deep, 6));
}

QTEST_MAIN(TestTimelineView)
#include "tst_timelineview.moc"
