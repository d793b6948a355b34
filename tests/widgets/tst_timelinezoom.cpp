// SPDX-License-Identifier: MIT
#include "widgets/timelinezoom.h"

#include <QTest>

using timesink::model::TimeNs;
using timesink::widgets::TimelineZoom;

class TestTimelineZoom : public QObject
{
    Q_OBJECT
private slots:
    void mapping_data();
    void mapping();
    void epochTimesKeepNanoseconds();
    void zoomAroundKeepsAnchor_data();
    void zoomAroundKeepsAnchor();
    void zoomStopsAtLimits();
    void panClampsAtEdges_data();
    void panClampsAtEdges();
    void showRangeContainsRange();
    void degenerateTrace();
};

void TestTimelineZoom::mapping_data()
{
    QTest::addColumn<qint64>("start");
    QTest::addColumn<qint64>("end");
    QTest::addColumn<int>("width");
    QTest::addColumn<qint64>("time");
    QTest::addColumn<double>("x");

    // 1000 ns over 100 px: 10 ns a pixel.
    QTest::newRow("origin") << qint64(0) << qint64(1000) << 100 << qint64(0) << 0.0;
    QTest::newRow("quarter") << qint64(0) << qint64(1000) << 100 << qint64(250) << 25.0;
    QTest::newRow("end") << qint64(0) << qint64(1000) << 100 << qint64(1000) << 100.0;
    QTest::newRow("before start") << qint64(0) << qint64(1000) << 100 << qint64(-100) << -10.0;
    QTest::newRow("offset view") << qint64(5000) << qint64(6000) << 200 << qint64(5500) << 100.0;
    // 1 s over 1600 px: 625 000 ns a pixel.
    QTest::newRow("one second") << qint64(0) << qint64(1'000'000'000) << 1600 << qint64(500'000'000) << 800.0;
}

void TestTimelineZoom::mapping()
{
    QFETCH(qint64, start);
    QFETCH(qint64, end);
    QFETCH(int, width);
    QFETCH(qint64, time);
    QFETCH(double, x);
    TimelineZoom z;
    z.setWidth(width);
    z.setTraceRange(start, end);
    QCOMPARE(z.xAt(time), x);
    // The pixel maps back to the time at its left edge.
    QCOMPARE(z.timeAt(x), time);
}

void TestTimelineZoom::epochTimesKeepNanoseconds()
{
    // 1736408883700059821 ns is not representable as a double; the mapping must work on differences.
    const TimeNs t0 = 1736408883700059821LL;
    TimelineZoom z;
    z.setWidth(1000);
    z.setTraceRange(t0, t0 + 1000);
    QCOMPARE(z.xAt(t0 + 1), 1.0);
    QCOMPARE(z.timeAt(999.0), t0 + 999);
}

void TestTimelineZoom::zoomAroundKeepsAnchor_data()
{
    QTest::addColumn<double>("factor");
    QTest::addColumn<double>("x");
    QTest::addColumn<qint64>("expectedStart");
    QTest::addColumn<qint64>("expectedEnd");
    // Trace [0, 1000] on 100 px.
    QTest::newRow("2x at left edge") << 2.0 << 0.0 << qint64(0) << qint64(500);
    QTest::newRow("2x at centre") << 2.0 << 50.0 << qint64(250) << qint64(750);
    QTest::newRow("4x at right edge") << 4.0 << 100.0 << qint64(750) << qint64(1000);
    QTest::newRow("zoom out at full view stays") << 0.5 << 50.0 << qint64(0) << qint64(1000);
}

void TestTimelineZoom::zoomAroundKeepsAnchor()
{
    QFETCH(double, factor);
    QFETCH(double, x);
    QFETCH(qint64, expectedStart);
    QFETCH(qint64, expectedEnd);
    TimelineZoom z;
    z.setWidth(100);
    z.setTraceRange(0, 1000);
    const TimeNs anchor = z.timeAt(x);
    z.zoomAround(factor, x);
    QCOMPARE(z.start(), expectedStart);
    QCOMPARE(z.end(), expectedEnd);
    QCOMPARE(z.timeAt(x), anchor);
}

void TestTimelineZoom::zoomStopsAtLimits()
{
    TimelineZoom z;
    z.setWidth(100);
    z.setTraceRange(0, 1'000'000);
    for (int i = 0; i < 100; ++i)
        z.zoomAround(10.0, 50.0);
    QCOMPARE(z.span(), TimelineZoom::kMinSpanNs);
    for (int i = 0; i < 100; ++i)
        z.zoomAround(0.1, 50.0);
    QCOMPARE(z.start(), TimeNs(0));
    QCOMPARE(z.end(), TimeNs(1'000'000));
}

void TestTimelineZoom::panClampsAtEdges_data()
{
    QTest::addColumn<double>("dx");
    QTest::addColumn<qint64>("expectedStart");
    // View [250, 750] of [0, 1000] on 100 px: 5 ns a pixel.
    QTest::newRow("right 10 px") << 10.0 << qint64(300);
    QTest::newRow("left 10 px") << -10.0 << qint64(200);
    QTest::newRow("past the end") << 1000.0 << qint64(500);
    QTest::newRow("past the start") << -1000.0 << qint64(0);
}

void TestTimelineZoom::panClampsAtEdges()
{
    QFETCH(double, dx);
    QFETCH(qint64, expectedStart);
    TimelineZoom z;
    z.setWidth(100);
    z.setTraceRange(0, 1000);
    z.setRange(250, 750);
    z.panPixels(dx);
    QCOMPARE(z.start(), expectedStart);
    QCOMPARE(z.span(), TimeNs(500)); // panning never changes the zoom level
}

void TestTimelineZoom::showRangeContainsRange()
{
    TimelineZoom z;
    z.setWidth(800);
    z.setTraceRange(0, 10'000'000);
    z.showRange(4'000'000, 4'100'000);
    QVERIFY(z.start() <= 4'000'000);
    QVERIFY(z.end() >= 4'100'000);
    QVERIFY(z.span() < 200'000); // the margin is small
    // A range at the trace start stays inside the trace.
    z.showRange(0, 100);
    QCOMPARE(z.start(), TimeNs(0));
    QVERIFY(z.end() >= 100);
}

void TestTimelineZoom::degenerateTrace()
{
    TimelineZoom z;
    z.setWidth(0); // a hidden widget
    z.setTraceRange(42, 42);
    QCOMPARE(z.width(), 1);
    QVERIFY(z.span() > 0);
    QVERIFY(std::isfinite(z.xAt(42)));
}

QTEST_GUILESS_MAIN(TestTimelineZoom)
#include "tst_timelinezoom.moc"
