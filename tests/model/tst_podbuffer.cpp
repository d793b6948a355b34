// SPDX-License-Identifier: MIT
// PodBuffer, the realloc-backed column under ArgStore: growth keeps values, appending a buffer's own values
// survives the reallocation that append triggers, shrinking and moving keep the contents.
#include "model/argstore.h"
#include "model/podbuffer.h"

#include <QTest>

#include <numeric>
#include <vector>

using namespace timesink::model;

class TestPodBuffer : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void growsAndKeepsValues()
    {
        PodBuffer<std::uint64_t> b;
        QVERIFY(b.empty());
        std::vector<std::uint64_t> expected;
        for (std::uint64_t i = 0; i < 100000; ++i) {
            b.push_back(i * 7);
            expected.push_back(i * 7);
        }
        QCOMPARE(b.size(), expected.size());
        QVERIFY(b.capacity() >= b.size());
        QVERIFY(std::equal(expected.begin(), expected.end(), b.data()));
        b.shrinkToFit();
        QCOMPARE(b.capacity(), b.size());
        QVERIFY(std::equal(expected.begin(), expected.end(), b.data()));
    }

    void appendsItsOwnValuesAcrossAReallocation()
    {
        PodBuffer<int> b;
        const std::vector<int> first {1, 2, 3, 4, 5};
        b.append(first.data(), first.size());
        b.shrinkToFit(); // full: the next append must reallocate while reading from the old block
        b.append(b.data() + 1, 3);
        const std::vector<int> expected {1, 2, 3, 4, 5, 2, 3, 4};
        QCOMPARE(std::vector<int>(b.data(), b.data() + b.size()), expected);
    }

    void movesAndEmpties()
    {
        PodBuffer<int> a;
        const int v[] = {9, 8, 7};
        a.append(v, 3);
        PodBuffer<int> b(std::move(a));
        QCOMPARE(b.size(), std::size_t(3));
        QCOMPARE(b[2], 7);
        QVERIFY(a.empty() && a.data() == nullptr); // NOLINT(bugprone-use-after-move): moved-from state is defined
        a = std::move(b);
        QCOMPARE(a.back(), 7);
        a.clear();
        a.shrinkToFit();
        QCOMPARE(a.capacity(), std::size_t(0));
    }

    void argStoreOnTopOfIt()
    {
        ArgStore store;
        std::vector<ArgSetId> ids;
        for (int i = 0; i < 50000; ++i) {
            const Arg set[] = {{StringId(1), ArgValue::fromInt(i)}, {StringId(2), ArgValue::fromDouble(i * 0.5)}};
            ids.push_back(i % 2 ? store.addUnique(set) : store.add(set));
        }
        store.shrinkToFit();
        for (int i = 0; i < 50000; i += 997) {
            const auto set = store.get(ids[static_cast<std::size_t>(i)]);
            QCOMPARE(set.size(), std::size_t(2));
            QCOMPARE(set[0].value.i, std::int64_t(i));
            QCOMPARE(set[1].value.d, i * 0.5);
        }
    }
};

QTEST_APPLESS_MAIN(TestPodBuffer)
#include "tst_podbuffer.moc"
