// SPDX-License-Identifier: MIT
// The flow pairing shared by the Chrome sinks: id parsing, the two dialect options, and the groups it walks.
#include "parsers/common/flowpairing.h"

#include <QTest>

#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

using namespace timesink::parsers;

Q_DECLARE_METATYPE(std::string)

class TestFlowPairing : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void parsesIds_data();
    void parsesIds();
    void numericValue_data();
    void numericValue();
    void idsOrderNumerically();
    void textIdsRoundTrip();
    void startRule_data();
    void startRule();
    void stepRule();
    void oneStartManyEnds();
    void loneStartsAndEnds();
    void categoriesKeptApart();
    void fileOrderAmongEqualIds();
    void releaseFreesEvents();
    void packedRecordsRoundTrip_data();
    void packedRecordsRoundTrip();
    void packedRecordsAreSmall();
};

namespace {

/// An event as a test writes it: phase, category, id text, ts, endpoint.
struct Ev
{
    char ph;
    std::string cat;
    std::string id;
    long long ts;
    std::uint32_t endpoint;
};

/// Feeds `events` to a pairing of `dialect` (categories ordered by first sight), sorts, and renders each group
/// as "cat/id start=endpoint@ts ends=[endpoint@ts,…]" ("-" when there is no start).
std::vector<std::string> pair(const std::vector<Ev>& events, FlowDialect dialect, std::uint64_t* duplicates = nullptr)
{
    FlowPairing p(dialect);
    FlowTextIds texts;
    for (const Ev& e : events) {
        if (!p.keeps(e.ph))
            continue;
        const std::uint32_t cat = p.category(e.cat);
        p.add(cat, e.ph, FlowId::parse(e.id, texts), e.ts, e.endpoint, e.ph == 'f');
    }
    p.sort();
    if (duplicates)
        *duplicates = p.duplicateStarts();
    std::vector<std::string> out;
    p.forEachGroup(
        [&](const FlowGroup& g) {
            std::string s(g.categoryText);
            s += '/';
            s += g.id.isText() ? std::string(texts.text(static_cast<std::uint32_t>(g.id.lo)))
                               : std::to_string(g.id.lo) + "#" + std::to_string(g.id.digits);
            s += " start=";
            s += g.start ? std::to_string(g.start->endpoint) + "@" + std::to_string(g.start->ts) : std::string("-");
            s += " ends=[";
            for (std::size_t i = 0; i < g.ends.size(); ++i) {
                if (i)
                    s += ',';
                s += std::to_string(g.ends[i].endpoint) + "@" + std::to_string(g.ends[i].ts);
            }
            s += ']';
            out.push_back(s);
        },
        true);
    return out;
}

constexpr FlowDialect kKineto {FlowDialect::Start::First, false};
constexpr FlowDialect kAscend {FlowDialect::Start::Last, true};

void dump(const std::vector<std::string>& got)
{
    for (const std::string& s : got)
        qInfo("%s", s.c_str());
}

} // namespace

void TestFlowPairing::parsesIds_data()
{
    QTest::addColumn<std::string>("text");
    QTest::addColumn<bool>("isText");
    QTest::addColumn<quint64>("hi");
    QTest::addColumn<quint64>("lo");
    QTest::addColumn<int>("digits");
    QTest::newRow("small") << std::string("7") << false << quint64(0) << quint64(7) << 1;
    QTest::newRow("leading zeros") << std::string("007") << false << quint64(0) << quint64(7) << 3;
    QTest::newRow("19 digits") << std::string("9999999999999999999") << false << quint64(0)
                               << quint64(9999999999999999999ULL) << 19;
    // torch_npu HostToDevice: 20 digits, beyond 64 bits.
    QTest::newRow("20 digits") << std::string("40004631069290000000") << false << quint64(0x2)
                               << quint64(0x2b2d0000ff95ee80ULL) << 20;
    QTest::newRow("38 digits") << std::string(38, '9') << false << quint64(0x4b3b4ca85a86c47aULL)
                               << quint64(0x098a223fffffffffULL) << 38;
    QTest::newRow("39 digits") << std::string(39, '9') << true << quint64(0) << quint64(0) << int(FlowId::kText);
    QTest::newRow("word") << std::string("HostToDevice") << true << quint64(0) << quint64(0) << int(FlowId::kText);
    QTest::newRow("signed") << std::string("-5") << true << quint64(0) << quint64(0) << int(FlowId::kText);
    QTest::newRow("empty") << std::string() << true << quint64(0) << quint64(0) << int(FlowId::kText);
}

void TestFlowPairing::parsesIds()
{
    QFETCH(std::string, text);
    QFETCH(bool, isText);
    QFETCH(quint64, hi);
    QFETCH(quint64, lo);
    QFETCH(int, digits);
    std::vector<std::string> interned;
    auto intern = [&](std::string_view t) {
        interned.emplace_back(t);
        return std::uint32_t(interned.size() - 1);
    };
    const FlowId id = FlowId::parse(text, intern);
    QCOMPARE(id.isText(), isText);
    QCOMPARE(int(id.digits), digits);
    if (isText) {
        QCOMPARE(interned.size(), std::size_t(1)); // only text ids reach the caller's pool
        QCOMPARE(interned[0], text);
        QCOMPARE(id.lo, quint64(0));
    } else {
        QVERIFY(interned.empty());
        QCOMPARE(id.hi, hi);
        QCOMPARE(id.lo, lo);
    }
}

void TestFlowPairing::numericValue_data()
{
    QTest::addColumn<std::string>("text");
    QTest::addColumn<bool>("fits");
    QTest::addColumn<qint64>("value");
    QTest::newRow("7") << std::string("7") << true << qint64(7);
    QTest::newRow("007 reads as 7") << std::string("007") << true << qint64(7);
    QTest::newRow("int64 max") << std::string("9223372036854775807") << true
                               << qint64(std::numeric_limits<std::int64_t>::max());
    QTest::newRow("int64 max + 1") << std::string("9223372036854775808") << false << qint64(0);
    QTest::newRow("23 digits, small value") << std::string("00000000000000000000042") << true << qint64(42);
    QTest::newRow("20 digits") << std::string("40004631069290000000") << false << qint64(0);
    QTest::newRow("text") << std::string("x1") << false << qint64(0);
}

void TestFlowPairing::numericValue()
{
    // Kineto reads a launch flow's id as its correlation the way std::from_chars reads the text.
    QFETCH(std::string, text);
    QFETCH(bool, fits);
    QFETCH(qint64, value);
    FlowTextIds texts;
    const std::optional<std::int64_t> v = FlowId::parse(text, texts).numericValue();
    QCOMPARE(v.has_value(), fits);
    if (fits)
        QCOMPARE(qint64(*v), value);
}

void TestFlowPairing::idsOrderNumerically()
{
    FlowTextIds texts;
    auto id = [&](std::string_view t) { return FlowId::parse(t, texts); };
    QVERIFY(id("9") < id("10"));
    QVERIFY(id("10000000000000000000") < id("20000000000000000000"));
    QVERIFY(id("20000000000000000000") < id("100000000000000000000"));
    QVERIFY(id("7") != id("007"));
    const FlowId text = id("zzz"); // the first text id: number 0, like the number "0"
    QCOMPARE(text.lo, std::uint64_t(0));
    QVERIFY(text != id("0"));
    QCOMPARE(id("40004631069290000000"), id("40004631069290000000"));
}

void TestFlowPairing::textIdsRoundTrip()
{
    FlowTextIds texts;
    const std::uint32_t a = texts("alpha");
    const std::uint32_t b = texts("beta");
    QVERIFY(a != b);
    QCOMPARE(texts("alpha"), a);
    QCOMPARE(texts.text(a), std::string_view("alpha"));
    QCOMPARE(texts.text(b), std::string_view("beta"));
}

void TestFlowPairing::startRule_data()
{
    QTest::addColumn<bool>("last");
    QTest::addColumn<std::string>("expected");
    QTest::newRow("first (Kineto)") << false << std::string("ac2g/5#1 start=1@10 ends=[9@40]");
    QTest::newRow("last (torch_npu)") << true << std::string("ac2g/5#1 start=3@30 ends=[9@40]");
}

void TestFlowPairing::startRule()
{
    QFETCH(bool, last);
    QFETCH(std::string, expected);
    const std::vector<Ev> events {{'s', "ac2g", "5", 10, 1},
                                  {'s', "ac2g", "5", 20, 2},
                                  {'f', "ac2g", "5", 40, 9},
                                  {'s', "ac2g", "5", 30, 3}};
    std::uint64_t duplicates = 0;
    const std::vector<std::string> got
        = pair(events, FlowDialect {last ? FlowDialect::Start::Last : FlowDialect::Start::First, false}, &duplicates);
    dump(got);
    QCOMPARE(got, std::vector<std::string> {expected});
    QCOMPARE(duplicates, std::uint64_t(2)); // counted in either dialect
}

void TestFlowPairing::stepRule()
{
    const std::vector<Ev> events {{'s', "c", "1", 10, 1}, {'t', "c", "1", 20, 2}, {'f', "c", "1", 30, 3}};
    QCOMPARE(pair(events, kKineto), std::vector<std::string> {"c/1#1 start=1@10 ends=[3@30]"});
    QCOMPARE(pair(events, kAscend), std::vector<std::string> {"c/1#1 start=1@10 ends=[2@20,3@30]"});
    QVERIFY(!FlowPairing(kKineto).keeps('t'));
    QVERIFY(FlowPairing(kAscend).keeps('t'));
    QVERIFY(!FlowPairing(kAscend).keeps('X'));
}

void TestFlowPairing::oneStartManyEnds()
{
    // A CUDA-graph replay: one launch, three device activities.
    const std::vector<Ev> events {{'s', "ac2g", "42", 1, 0},
                                  {'f', "ac2g", "42", 5, 4},
                                  {'f', "ac2g", "42", 6, 5},
                                  {'f', "ac2g", "42", 7, 4}};
    std::uint64_t duplicates = 7;
    QCOMPARE(pair(events, kKineto, &duplicates), std::vector<std::string> {"ac2g/42#2 start=0@1 ends=[4@5,5@6,4@7]"});
    QCOMPARE(duplicates, std::uint64_t(0));
}

void TestFlowPairing::loneStartsAndEnds()
{
    const std::vector<Ev> events {{'f', "c", "2", 5, 1}, {'f', "c", "2", 6, 2}, {'s', "c", "3", 7, 3}};
    const std::vector<std::string> expected {"c/2#1 start=- ends=[1@5,2@6]", "c/3#1 start=3@7 ends=[]"};
    QCOMPARE(pair(events, kKineto), expected);
    QCOMPARE(pair(events, kAscend), expected);
}

void TestFlowPairing::categoriesKeptApart()
{
    // One id in two categories is two flows; categories walk by their key, then by first sight.
    const std::vector<Ev> events {{'s', "fwdbwd", "1", 1, 0},
                                  {'s', "ac2g", "1", 2, 1},
                                  {'f', "ac2g", "1", 3, 2},
                                  {'f', "fwdbwd", "1", 4, 3}};
    const std::vector<std::string> byFirstSight {"fwdbwd/1#1 start=0@1 ends=[3@4]", "ac2g/1#1 start=1@2 ends=[2@3]"};
    QCOMPARE(pair(events, kKineto), byFirstSight);

    FlowPairing p(kKineto);
    FlowTextIds texts;
    auto keyOf = [](std::string_view cat) { return cat == "ac2g" ? std::uint32_t(1) : std::uint32_t(2); };
    const std::uint32_t fwd = p.category("fwdbwd", keyOf);
    const std::uint32_t ac2g = p.category("ac2g", keyOf);
    QCOMPARE(p.category("fwdbwd", keyOf), fwd);
    QCOMPARE(p.categoryCount(), std::size_t(2));
    QCOMPARE(p.categoryText(ac2g), std::string_view("ac2g"));
    p.add(fwd, 's', FlowId::parse("1", texts), 1, 0, false);
    p.add(ac2g, 's', FlowId::parse("1", texts), 2, 1, false);
    p.sort();
    std::vector<std::uint32_t> order;
    p.forEachGroup(
        [&](const FlowGroup& g) {
            order.push_back(g.category);
            QCOMPARE(g.categoryKey, keyOf(g.categoryText));
        },
        false);
    QCOMPARE(order, (std::vector<std::uint32_t> {ac2g, fwd}));
}

void TestFlowPairing::fileOrderAmongEqualIds()
{
    // Ids out of order (sorted then), equal ids keep file order; "007" and "7" stay apart; a 20-digit id pairs
    // with its own text only.
    const std::vector<Ev> events {
        {'f', "c", "3", 30, 1},
        {'f', "c", "7", 70, 1},
        {'f', "c", "3", 31, 2},
        {'s', "c", "007", 1, 9},
        {'f', "c", "007", 2, 8},
        {'s', "c", "40004631069290000001", 90, 5},
        {'s', "c", "3", 3, 7},
        {'f', "c", "3", 32, 3},
        {'f', "c", "40004631069290000001", 91, 6},
        {'s', "c", "40004631069290000000", 80, 4},
    };
    const std::vector<std::string> expected {
        "c/3#1 start=7@3 ends=[1@30,2@31,3@32]",
        "c/7#1 start=- ends=[1@70]",
        "c/7#3 start=9@1 ends=[8@2]",
        "c/" + std::to_string(0x2b2d0000ff95ee80ULL) + "#20 start=4@80 ends=[]",
        "c/" + std::to_string(0x2b2d0000ff95ee81ULL) + "#20 start=5@90 ends=[6@91]",
    };
    const std::vector<std::string> got = pair(events, kAscend);
    dump(got);
    QCOMPARE(got, expected);
}

void TestFlowPairing::releaseFreesEvents()
{
    FlowPairing p(kKineto);
    FlowTextIds texts;
    QVERIFY(p.empty());
    const std::uint32_t c = p.category("c");
    p.add(c, 's', FlowId::parse("1", texts), 1, 0, false);
    p.add(c, 'f', FlowId::parse("1", texts), 2, 1, true);
    QVERIFY(!p.empty());
    p.sort();
    int groups = 0;
    p.forEachGroup(
        [&](const FlowGroup& g) {
            ++groups;
            QVERIFY(g.ends[0].bindEnclosing);
            QVERIFY(!g.start->bindEnclosing);
        },
        false);
    p.forEachGroup([&](const FlowGroup&) { ++groups; }, true); // a second walk sees the same, then frees
    QCOMPARE(groups, 2);
    QVERIFY(p.empty());
    p.forEachGroup([&](const FlowGroup&) { ++groups; }, true);
    QCOMPARE(groups, 2);
    p.clear();
    QCOMPARE(p.categoryCount(), std::size_t(0));
}

void TestFlowPairing::packedRecordsRoundTrip_data()
{
    QTest::addColumn<bool>("inOrder");
    QTest::newRow("ids in order: packed") << true;
    QTest::newRow("ids out of order: sorted once") << false;
}

void TestFlowPairing::packedRecordsRoundTrip()
{
    // Records with every field at its extremes: 128-bit and text ids, digit counts that change, ids that repeat
    // and jump by 0, 62, 63 and 2^64 - 1, times that go back and span the whole 64-bit range, large endpoints.
    QFETCH(bool, inOrder);
    std::mt19937_64 rng(inOrder ? 7 : 8);
    std::vector<FlowRecord> records;
    FlowRecord r;
    const std::uint64_t jumps[] = {0, 1, 62, 63, 64, 1000, 1ULL << 40, ~0ULL};
    for (int i = 0; i < 5000; ++i) {
        switch (rng() % 6) {
        case 0:
            r.hi += rng() % 3; // a 20-digit id's upper half
            r.digits = static_cast<std::uint8_t>(rng() % 2 ? 20 : 38);
            break;
        case 1:
            r.digits = static_cast<std::uint8_t>(rng() % 2 ? FlowId::kText : 1 + rng() % 19);
            break;
        default:
            break;
        }
        const std::uint64_t jump = jumps[rng() % std::size(jumps)];
        if (inOrder && r.lo + jump < r.lo)
            r.hi += 1; // carry into hi: still in order
        r.lo += jump;
        const std::int64_t times[] = {0,
                                      1,
                                      -1,
                                      1000,
                                      -123456789,
                                      std::numeric_limits<std::int64_t>::max(),
                                      std::numeric_limits<std::int64_t>::min()};
        // Wrapping past the 64-bit ends on purpose (in unsigned arithmetic): the differences must still decode.
        r.ts = static_cast<std::int64_t>(static_cast<std::uint64_t>(times[rng() % std::size(times)]) + rng() % 1000);
        r.endpoint = static_cast<std::uint32_t>(rng() % 2 ? rng() % 8 : rng());
        r.bindEnclosing = rng() % 2 == 0;
        records.push_back(r);
    }
    if (inOrder) {
        std::stable_sort(records.begin(), records.end(),
                         [](const FlowRecord& a, const FlowRecord& b) { return a.id() < b.id(); });
    } else {
        std::shuffle(records.begin(), records.end(), rng);
    }

    FlowRecordList list;
    QVERIFY(list.empty());
    for (const FlowRecord& rec : records)
        list.push(rec);
    QCOMPARE(list.size(), records.size());
    QCOMPARE(list.sorted(), inOrder);
    QCOMPARE(list.last().ts, records.back().ts);

    auto same = [](const FlowRecord& a, const FlowRecord& b) {
        return a.hi == b.hi && a.lo == b.lo && a.digits == b.digits && a.ts == b.ts && a.endpoint == b.endpoint
            && a.bindEnclosing == b.bindEnclosing;
    };
    auto readAll = [&list] {
        std::vector<FlowRecord> out;
        FlowRecordList::Cursor c = list.cursor();
        for (FlowRecord x; c.next(x);)
            out.push_back(x);
        return out;
    };
    std::vector<FlowRecord> got = readAll();
    QCOMPARE(got.size(), records.size());
    for (std::size_t i = 0; i < got.size(); ++i)
        QVERIFY2(same(got[i], records[i]), qPrintable(QString::number(i)));

    // Sorting by id is stable: what std::stable_sort gives over the records as added.
    std::vector<FlowRecord> expected = records;
    std::stable_sort(expected.begin(), expected.end(),
                     [](const FlowRecord& a, const FlowRecord& b) { return a.id() < b.id(); });
    list.sortById();
    QVERIFY(list.sorted());
    QVERIFY(same(list.last(), expected.back()));
    // A record added after the sort, at or past the largest id, keeps the list in order.
    FlowRecord tail = expected.back();
    tail.ts += 1;
    list.push(tail);
    expected.push_back(tail);
    QVERIFY(list.sorted());
    got = readAll();
    QCOMPARE(got.size(), expected.size());
    for (std::size_t i = 0; i < got.size(); ++i)
        QVERIFY2(same(got[i], expected[i]), qPrintable(QString::number(i)));
}

void TestFlowPairing::packedRecordsAreSmall()
{
    // torch_npu's async_npu flows: 19-digit ids a few thousand apart, times microseconds apart, a few threads.
    FlowRecordList list;
    FlowRecord r {0, 1736408883000010000ULL, 1736408883000000000LL, 0, 19, true};
    for (int i = 0; i < 100000; ++i) {
        r.lo += 1000 + static_cast<std::uint64_t>(i % 7) * 300;
        r.ts += 2500 + (i % 5) * 100;
        r.endpoint = static_cast<std::uint32_t>(i % 3);
        list.push(r);
    }
    QVERIFY(list.sorted());
    QVERIFY2(list.bytes() <= 6 * list.size() + 32, qPrintable(QString::number(list.bytes())));
}

QTEST_GUILESS_MAIN(TestFlowPairing)
#include "tst_flowpairing.moc"
