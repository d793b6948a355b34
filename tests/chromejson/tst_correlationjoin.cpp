// SPDX-License-Identifier: MIT
// The correlation join shared by the Kineto and msprof-DB importers: launches ↔ activities by correlation id.
#include "parsers/common/correlationjoin.h"

#include <QTest>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

using namespace timesink;
using namespace timesink::parsers;

namespace {

model::SliceRef ref(std::uint32_t track, std::uint32_t index)
{
    model::SliceRef r;
    r.track = model::TrackId(track);
    r.index = model::SliceIndex(index);
    return r;
}

using Pair = std::pair<std::uint32_t, std::uint32_t>; // (launch index, activity index); tracks 0 and 1

std::vector<Pair> joined(CorrelationJoin& j, CorrelationJoin::Launches which = CorrelationJoin::Launches::First)
{
    std::vector<Pair> out;
    j.join([&](model::SliceRef launch,
               model::SliceRef activity) { out.emplace_back(launch.index.value, activity.index.value); },
           which);
    return out;
}

} // namespace

class TestCorrelationJoin : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void oneLaunchManyActivities()
    {
        // Launches out of id order, activities before and after their launch: every activity with a launched id
        // is linked, in activity-id order; id 9 has no launch and id 4 no activity.
        CorrelationJoin j;
        j.addActivity(7, ref(1, 100));
        j.addLaunch(7, ref(0, 1));
        j.addLaunch(4, ref(0, 2));
        j.addActivity(7, ref(1, 101)); // a CUDA-graph replay: a second activity of launch 7
        j.addActivity(9, ref(1, 102));
        j.addLaunch(5, ref(0, 3));
        j.addActivity(5, ref(1, 103));
        const std::vector<Pair> expected {{3, 103}, {1, 100}, {1, 101}};
        QCOMPARE(joined(j), expected);
        QVERIFY(j.linked(7));
        QVERIFY(j.linked(5));
        QVERIFY(!j.linked(4));
        QVERIFY(!j.linked(9));
        QVERIFY(j.launch(4) != nullptr);
        QCOMPARE(j.launch(4)->index.value, 2U);
        QVERIFY(j.launch(9) == nullptr);
        // The activities are consumed: a second join links nothing.
        QVERIFY(joined(j).empty());
    }

    void launchSoFarOnlyWhileSorted()
    {
        CorrelationJoin j;
        j.addLaunch(1, ref(0, 1));
        j.addLaunch(3, ref(0, 3));
        QVERIFY(j.launchSoFar(3) != nullptr);
        QCOMPARE(j.launchSoFar(3)->index.value, 3U);
        QVERIFY(j.launchSoFar(2) == nullptr);
        j.link(3);
        j.addLaunch(2, ref(0, 2)); // out of order: no answer before join() sorts
        QVERIFY(j.launchSoFar(1) == nullptr);
        QVERIFY(joined(j).empty());
        QVERIFY(j.linked(3)); // linked online
        QVERIFY(!j.linked(1));
        QCOMPARE(j.launch(2)->index.value, 2U);
    }

    void everyLaunchOfAnId()
    {
        // msprof: a connection's CANN API and its framework op both launched its task.
        CorrelationJoin first;
        CorrelationJoin every;
        for (CorrelationJoin* j : {&first, &every}) {
            j->addLaunch(8, ref(0, 1));
            j->addLaunch(8, ref(0, 2));
            j->addActivity(8, ref(1, 50));
        }
        QCOMPARE(joined(first).size(), std::size_t(1));
        std::vector<Pair> all = joined(every, CorrelationJoin::Launches::Every);
        std::sort(all.begin(), all.end());
        const std::vector<Pair> expected {{1, 50}, {2, 50}};
        QCOMPARE(all, expected);
    }

    void clearForgetsEverything()
    {
        CorrelationJoin j;
        j.addLaunch(1, ref(0, 1));
        j.addActivity(1, ref(1, 1));
        QCOMPARE(joined(j).size(), std::size_t(1));
        j.clear();
        QVERIFY(j.launch(1) == nullptr);
        QVERIFY(!j.linked(1));
    }
};

QTEST_APPLESS_MAIN(TestCorrelationJoin)
#include "tst_correlationjoin.moc"
