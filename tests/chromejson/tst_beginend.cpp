// SPDX-License-Identifier: MIT
// The B/E matcher shared by the Chrome sinks: per-thread stacks, and what it hands back when events do not pair.
#include "parsers/common/beginend.h"

#include <QTest>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

using namespace timesink::parsers;

class TestBeginEnd : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void nestedClosesInnermostFirst();
    void threadsInterleaveIndependently();
    void unmatchedEndLeavesOthersOpen();
    void unclosedBeginsAreDrainedInOrder();
    void movesOnlyPayloads();
};

namespace {

/// What a sink keeps of a B: here its name and start.
struct Open
{
    std::string name;
    long long ts = 0;
};

std::string nameOf(const std::optional<Open>& o)
{
    return o ? o->name : std::string("<none>");
}

} // namespace

void TestBeginEnd::nestedClosesInnermostFirst()
{
    BeginEndMatcher<Open> m;
    m.begin(7, {"step", 0});
    m.begin(7, {"linear", 10});
    m.begin(7, {"matmul", 15});
    QCOMPARE(m.openCount(), std::size_t(3));
    const std::optional<Open> a = m.end(7);
    QCOMPARE(nameOf(a), std::string("matmul"));
    QCOMPARE(a->ts, 15LL);
    QCOMPARE(nameOf(m.end(7)), std::string("linear"));
    m.begin(7, {"add", 45}); // a sibling opened after the inner ones closed
    QCOMPARE(nameOf(m.end(7)), std::string("add"));
    QCOMPARE(nameOf(m.end(7)), std::string("step"));
    QCOMPARE(m.openCount(), std::size_t(0));
    QVERIFY(!m.end(7).has_value()); // one E too many
}

void TestBeginEnd::threadsInterleaveIndependently()
{
    // Two threads whose events alternate in the file: an E never closes another thread's B.
    BeginEndMatcher<Open> m;
    m.begin(1, {"t1-outer", 0});
    m.begin(2, {"t2-outer", 1});
    m.begin(1, {"t1-inner", 2});
    m.begin(2, {"t2-inner", 3});
    QCOMPARE(nameOf(m.end(2)), std::string("t2-inner"));
    QCOMPARE(nameOf(m.end(1)), std::string("t1-inner"));
    QCOMPARE(nameOf(m.end(1)), std::string("t1-outer"));
    QVERIFY(!m.end(1).has_value());
    QCOMPARE(m.openCount(), std::size_t(1));
    QCOMPARE(nameOf(m.end(2)), std::string("t2-outer"));
    // Thread keys are full 64-bit values, not truncated.
    m.begin(0x100000001ULL, {"high", 0});
    QVERIFY(!m.end(1).has_value());
    QCOMPARE(nameOf(m.end(0x100000001ULL)), std::string("high"));
}

void TestBeginEnd::unmatchedEndLeavesOthersOpen()
{
    BeginEndMatcher<Open> m;
    m.begin(1, {"open", 0});
    QVERIFY(!m.end(3).has_value()); // a thread never seen
    m.begin(3, {"x", 1});
    QCOMPARE(nameOf(m.end(3)), std::string("x"));
    QVERIFY(!m.end(3).has_value()); // a thread seen, but nothing open any more
    QCOMPARE(m.openCount(), std::size_t(1));
    QCOMPARE(nameOf(m.end(1)), std::string("open"));
}

void TestBeginEnd::unclosedBeginsAreDrainedInOrder()
{
    BeginEndMatcher<Open> m;
    m.begin(9, {"nine-outer", 0});
    m.begin(2, {"two-outer", 1});
    m.begin(9, {"nine-inner", 2});
    m.begin(5, {"five", 3});
    QCOMPARE(nameOf(m.end(5)), std::string("five")); // closed: not drained
    m.begin(2, {"two-inner", 4});
    std::vector<std::pair<std::uint64_t, std::string>> drained;
    m.drainOpen([&](std::uint64_t thread, Open& o) { drained.emplace_back(thread, o.name); });
    const std::vector<std::pair<std::uint64_t, std::string>> expected {{2, "two-outer"},
                                                                       {2, "two-inner"},
                                                                       {9, "nine-outer"},
                                                                       {9, "nine-inner"}};
    QCOMPARE(drained, expected);
    QCOMPARE(m.openCount(), std::size_t(0));
    QVERIFY(!m.end(9).has_value());
    int calls = 0;
    m.drainOpen([&](std::uint64_t, Open&) { ++calls; });
    QCOMPARE(calls, 0);
}

void TestBeginEnd::movesOnlyPayloads()
{
    // A payload that cannot be copied (a sink may keep buffers in it) goes in and comes out by move.
    BeginEndMatcher<std::unique_ptr<int>> m;
    m.begin(1, std::make_unique<int>(4));
    m.begin(1, std::make_unique<int>(5));
    std::optional<std::unique_ptr<int>> inner = m.end(1);
    QVERIFY(inner.has_value());
    QCOMPARE(**inner, 5);
    int left = 0;
    m.drainOpen([&](std::uint64_t, std::unique_ptr<int>& p) { left = *p; });
    QCOMPARE(left, 4);
}

QTEST_GUILESS_MAIN(TestBeginEnd)
#include "tst_beginend.moc"
