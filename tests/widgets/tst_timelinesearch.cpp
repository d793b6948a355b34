// SPDX-License-Identifier: MIT
#include "testtraces.h"
#include "widgets/timelinesearch.h"

#include <QTest>

using namespace timesink;

class TestTimelineSearch : public QObject
{
    Q_OBJECT
private slots:
    void counts_data();
    void counts();
    void stepsThroughMatchesInTimeOrder();
    void previousWrapsBackwards();
    void perTrackDepthLists();
    void seekStartsAtView();
    void noTrace();
};

void TestTimelineSearch::counts_data()
{
    QTest::addColumn<QString>("query");
    QTest::addColumn<int>("expected");
    // Counted by hand from smallTrainingTrace()'s slice list (testtraces.h).
    QTest::newRow("case-insensitive") << QStringLiteral("CONV") << 2;  // aten::conv2d, conv_fwd
    QTest::newRow("shared name") << QStringLiteral("cudaLaunch") << 2; // two launches
    QTest::newRow("memcpy") << QStringLiteral("memcpy") << 2;
    QTest::newRow("step markers") << QStringLiteral("ProfilerStep#") << 2;
    QTest::newRow("nothing") << QStringLiteral("allreduce") << 0;
    QTest::newRow("empty clears") << QString() << 0;
}

void TestTimelineSearch::counts()
{
    QFETCH(QString, query);
    QFETCH(int, expected);
    const auto trace = testing::smallTrainingTrace();
    widgets::TimelineSearch s;
    s.setTrace(trace.get());
    QCOMPARE(static_cast<int>(s.search(query)), expected);
    QCOMPARE(static_cast<int>(s.matches().size()), expected);
}

void TestTimelineSearch::stepsThroughMatchesInTimeOrder()
{
    const auto trace = testing::smallTrainingTrace();
    widgets::TimelineSearch s;
    s.setTrace(trace.get());
    s.search(QStringLiteral("conv"));
    auto tsOf = [&](model::SliceRef r) { return trace->track(r.track).ts(r.index.value); };
    QCOMPARE(s.currentIndex(), -1);
    QCOMPARE(tsOf(s.next()), model::TimeNs(100)); // aten::conv2d
    QCOMPARE(tsOf(s.next()), model::TimeNs(200)); // conv_fwd
    QCOMPARE(tsOf(s.next()), model::TimeNs(100)); // wraps
    QCOMPARE(s.currentIndex(), 0);
}

void TestTimelineSearch::previousWrapsBackwards()
{
    const auto trace = testing::smallTrainingTrace();
    widgets::TimelineSearch s;
    s.setTrace(trace.get());
    s.search(QStringLiteral("cudaLaunchKernel"));
    auto tsOf = [&](model::SliceRef r) { return trace->track(r.track).ts(r.index.value); };
    QCOMPARE(tsOf(s.previous()), model::TimeNs(1110));
    QCOMPARE(tsOf(s.previous()), model::TimeNs(120));
    QCOMPARE(tsOf(s.previous()), model::TimeNs(1110));
}

void TestTimelineSearch::perTrackDepthLists()
{
    const auto trace = testing::smallTrainingTrace();
    widgets::TimelineSearch s;
    s.setTrace(trace.get());
    s.search(QStringLiteral("cudaLaunchKernel"));
    const model::SliceRef launch = testing::findSlice(*trace, "cudaLaunchKernel");
    const model::Track& host = trace->track(launch.track);
    // Launches nest in step marker > aten op, so they sit at depth 2.
    const std::size_t depth = host.depth(launch.index.value);
    QCOMPARE(depth, std::size_t(2));
    QCOMPARE(s.matchesAt(launch.track, depth).size(), std::size_t(2));
    QVERIFY(s.matchesAt(launch.track, 0).empty());
    QVERIFY(s.matchesAt(model::TrackId(99), 0).empty());
}

void TestTimelineSearch::seekStartsAtView()
{
    const auto trace = testing::smallTrainingTrace();
    widgets::TimelineSearch s;
    s.setTrace(trace.get());
    s.search(QStringLiteral("fwd"));
    s.seek(1000);
    const model::SliceRef r = s.next();
    QCOMPARE(trace->str(trace->track(r.track).sliceName(r.index.value)), std::string_view("relu_fwd"));
}

void TestTimelineSearch::noTrace()
{
    widgets::TimelineSearch s;
    QCOMPARE(s.search(QStringLiteral("x")), std::size_t(0));
    QVERIFY(!s.next().isValid());
    QVERIFY(!s.previous().isValid());
}

QTEST_GUILESS_MAIN(TestTimelineSearch)
#include "tst_timelinesearch.moc"
