// SPDX-License-Identifier: MIT
// PodBuffer, the realloc-backed column under ArgStore: growth keeps values, appending a buffer's own values
// survives the reallocation that append triggers, shrinking and moving keep the contents, and buffers past 1 MiB
// (which map their pages ahead of the writes) give the same values through every way of growing.
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

    void largeBuffersGrowThroughTheirPrefaultedPages()
    {
        // 16 MiB of values through every growth path, checked against std::vector: push_back across the 256 KiB
        // windows, appends larger than a window, appends of the buffer's own values at a window's edge, a
        // resizeForOverwrite past the mapped pages, reserve, clear and shrinkToFit in between.
        PodBuffer<std::uint64_t> b;
        std::vector<std::uint64_t> expected;
        auto push = [&](std::uint64_t v) {
            b.push_back(v);
            expected.push_back(v);
        };
        for (std::uint64_t i = 0; i < 300000; ++i) // 2.3 MiB: past the 1 MiB where prefaulting starts
            push(i);
        std::vector<std::uint64_t> big(100000); // 0.8 MiB in one append: more than a window
        std::iota(big.begin(), big.end(), std::uint64_t(1) << 40);
        b.append(big.data(), big.size());
        expected.insert(expected.end(), big.begin(), big.end());
        for (int round = 0; round < 40; ++round) {
            const std::size_t from = expected.size() / 3;
            b.append(b.data() + from, 5000); // its own values, whatever the window or capacity left
            expected.insert(expected.end(), expected.begin() + std::ptrdiff_t(from),
                            expected.begin() + std::ptrdiff_t(from + 5000));
            push(std::uint64_t(round));
        }
        QCOMPARE(b.size(), expected.size());
        QVERIFY(std::equal(expected.begin(), expected.end(), b.data()));

        const std::size_t before = b.size();
        b.resizeForOverwrite(before + 70000); // beyond the mapped window, written by the caller
        expected.resize(before + 70000);
        for (std::size_t i = before; i < b.size(); ++i) {
            b[i] = i * 3;
            expected[i] = i * 3;
        }
        for (std::uint64_t i = 0; i < 50000; ++i)
            push(~i);
        b.reserve(b.size() * 3);
        for (std::uint64_t i = 0; i < 200000; ++i)
            push(i ^ 0x5555);
        QCOMPARE(b.size(), expected.size());
        QVERIFY(std::equal(expected.begin(), expected.end(), b.data()));

        b.shrinkToFit();
        QCOMPARE(b.capacity(), b.size());
        push(42);
        b.clear();
        expected.clear();
        for (std::uint64_t i = 0; i < 2000000; ++i) // 16 MiB refilled over the old block
            push(i * 11);
        QCOMPARE(b.size(), expected.size());
        QVERIFY(std::equal(expected.begin(), expected.end(), b.data()));
        PodBuffer<std::uint64_t> moved(std::move(b));
        moved.push_back(7);
        QCOMPARE(moved.back(), std::uint64_t(7));
        QCOMPARE(moved[1999999], std::uint64_t(1999999) * 11);

        // A mapped block shrunk below the mapping threshold stays one, grows again, and is released by a move
        // onto it and by its destructor (ASan and the leak checker watch both).
        std::vector<std::uint64_t> kept(moved.data(), moved.data() + 1000);
        moved.clear();
        moved.append(kept.data(), kept.size());
        moved.shrinkToFit();
        QCOMPARE(moved.capacity(), std::size_t(1000));
        for (std::uint64_t i = 0; i < 1000000; ++i)
            moved.push_back(i);
        QCOMPARE(moved.size(), std::size_t(1001000));
        QVERIFY(std::equal(kept.begin(), kept.end(), moved.data()));
        QCOMPARE(moved[1000999], std::uint64_t(999999));
        PodBuffer<std::uint64_t> other;
        for (std::uint64_t i = 0; i < 1000000; ++i)
            other.push_back(i);
        other = std::move(moved);
        QCOMPARE(other.size(), std::size_t(1001000));
        QCOMPARE(other[5], kept[5]);
    }

    void aBlockWrittenWholeStillGrowsAndShrinks()
    {
        // The snapshot reader's way: resizeForOverwrite to the final size (mapped blocks of 5 and 20 MiB), written
        // whole, then grown past 16 MiB and shrunk by remapping.
        for (const std::size_t count : {std::size_t(655360 + 123), std::size_t(2500000)}) {
            PodBuffer<std::uint64_t> b;
            b.resizeForOverwrite(count);
            for (std::size_t i = 0; i < count; ++i)
                b[i] = i * 7;
            for (std::uint64_t i = 0; i < 2000000; ++i)
                b.push_back(i);
            QCOMPARE(b.size(), count + 2000000);
            b.shrinkToFit();
            QCOMPARE(b.capacity(), b.size());
            QCOMPARE(b[count - 1], std::uint64_t(count - 1) * 7);
            QCOMPARE(b[count + 1999999], std::uint64_t(1999999));
            b.resizeForOverwrite(count / 2);
            b.shrinkToFit();
            QCOMPARE(b[count / 2 - 1], std::uint64_t(count / 2 - 1) * 7);
        }
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
