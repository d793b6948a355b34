// SPDX-License-Identifier: MIT
#include "model/argstore.h"
#include "model/snapshotaccess.h"
#include "model/stringpool.h"

#include <QTest>

#include <bit>
#include <cmath>
#include <limits>
#include <span>
#include <string>
#include <utility>
#include <vector>

using namespace timesink::model;

class TestStringPool : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void emptyIsIdZero()
    {
        StringPool pool;
        QCOMPARE(pool.intern("").value, 0U);
        QVERIFY(pool.view(StringId()).empty());
    }
    void internIsByContents()
    {
        StringPool pool;
        std::string a = "aten::conv2d";
        std::string b = std::string("aten::") + "conv2d";
        const StringId ia = pool.intern(a);
        QCOMPARE(pool.intern(b), ia);
        QVERIFY(pool.intern("aten::relu") != ia);
        QCOMPARE(pool.view(ia), std::string_view("aten::conv2d"));
        QCOMPARE(pool.find("aten::conv2d"), ia);
        QVERIFY(pool.find("missing").isEmpty());
    }
    void viewsStayValidWhileGrowing()
    {
        StringPool pool;
        const StringId first = pool.intern("first");
        const std::string_view firstView = pool.view(first);
        for (int i = 0; i < 200000; ++i)
            pool.intern("name-" + std::to_string(i));
        const std::string huge(3 << 20, 'x'); // larger than a block
        const StringId h = pool.intern(huge);
        QCOMPARE(pool.view(h).size(), huge.size());
        QCOMPARE(firstView, std::string_view("first"));
        QCOMPARE(pool.view(first).data(), firstView.data());
        QCOMPARE(pool.view(pool.intern("name-12345")), std::string_view("name-12345"));
    }
    // The open-addressing index through many doublings: every string keeps its id, is found by contents, and
    // strings that share a prefix or differ in one byte stay apart.
    void indexSurvivesGrowth()
    {
        StringPool pool;
        constexpr int kCount = 300000;
        std::vector<StringId> ids;
        for (int i = 0; i < kCount; ++i)
            ids.push_back(pool.intern("thread " + std::to_string(i)));
        QCOMPARE(pool.size(), std::size_t(kCount + 1));
        for (int i = 0; i < kCount; i += 997) {
            QCOMPARE(pool.intern("thread " + std::to_string(i)), ids[std::size_t(i)]);
            QCOMPARE(pool.find("thread " + std::to_string(i)), ids[std::size_t(i)]);
            QCOMPARE(ids[std::size_t(i)].value, std::uint32_t(i + 1));
        }
        QVERIFY(pool.find("thread " + std::to_string(kCount)).isEmpty());
        QVERIFY(pool.find("thread").isEmpty());
        QVERIFY(pool.find("").isEmpty());
    }
    // Sanitising rewrites texts in place: the index then finds each by its new text, a sanitised text equal to an
    // existing string is found under the earlier id, and the old (invalid) text is gone.
    void indexFollowsUtf8Repair()
    {
        StringPool pool;
        const StringId bad = pool.intern("caf\xe9");
        const StringId good = pool.intern("ok");
        const StringId clash = pool.intern("x\xff");
        const StringId repaired = pool.intern("x\xef\xbf\xbd"); // what "x\xff" becomes: x U+FFFD
        QCOMPARE(pool.makeValidUtf8(), std::size_t(2));
        QCOMPARE(pool.find("ok"), good);
        QVERIFY(pool.find("caf\xe9").isEmpty());
        QCOMPARE(pool.find("caf\xef\xbf\xbd"), bad);
        QCOMPARE(pool.view(clash), pool.view(repaired));
        QCOMPARE(pool.find("x\xef\xbf\xbd"), clash);
        QCOMPARE(pool.intern("new"), StringId(5));
    }
    void movedPoolKeepsItsIndex()
    {
        StringPool a;
        const StringId id = a.intern("aten::mm");
        StringPool b(std::move(a));
        QCOMPARE(b.find("aten::mm"), id);
        QCOMPARE(b.intern("aten::mm"), id);
    }
    void outOfRangeIdIsEmpty()
    {
        StringPool pool;
        QVERIFY(pool.view(StringId(99)).empty());
    }
    void argSetsAreDeduplicated()
    {
        StringPool pool;
        ArgStore store;
        const Arg a[] = {{pool.intern("stream"), ArgValue::fromInt(7)},
                         {pool.intern("name"), ArgValue::fromString(pool.intern("x"))}};
        const Arg b[] = {{pool.intern("stream"), ArgValue::fromInt(8)}};
        const ArgSetId ia = store.add(a);
        QCOMPARE(store.add(a), ia);
        const ArgSetId ib = store.add(b);
        QVERIFY(ib != ia);
        QCOMPARE(store.get(ia).size(), std::size_t(2));
        QCOMPARE(store.find(ib, pool.intern("stream"))->i, std::int64_t(8));
        QVERIFY(!store.find(ib, pool.intern("name")));
        QVERIFY(!store.add({}).isValid());
        // A unique set is stored apart, even when identical, and never returned by add().
        const ArgSetId u = store.addUnique(b);
        QVERIFY(u != ib);
        QCOMPARE(store.find(u, pool.intern("stream"))->i, std::int64_t(8));
        QCOMPARE(store.add(b), ib);
        QCOMPARE(store.setCount(), std::size_t(3));
        QVERIFY(store.get(ArgSetId()).empty());
    }
    void argSetsShareTheirSchema()
    {
        StringPool pool;
        ArgStore store;
        const StringId stream = pool.intern("stream");
        const StringId name = pool.intern("name");
        const StringId ratio = pool.intern("ratio");
        // Every type, at the ends of its range, comes back as it went in (iterating and by index).
        const Arg first[] = {{stream, ArgValue::fromInt(std::numeric_limits<std::int64_t>::min())},
                             {name, ArgValue::fromString(pool.intern("x"))},
                             {ratio, ArgValue::fromDouble(-0.0)},
                             {pool.intern("sync"), ArgValue::fromBool(true)}};
        const Arg second[] = {{stream, ArgValue::fromInt(std::numeric_limits<std::int64_t>::max())},
                              {name, ArgValue::fromString(pool.intern("y"))},
                              {ratio, ArgValue::fromDouble(std::numeric_limits<double>::infinity())},
                              {pool.intern("sync"), ArgValue::fromBool(false)}};
        const ArgSetId a = store.addUnique(first);
        const ArgSetId b = store.addUnique(second);
        QCOMPARE(store.schemaCount(), std::size_t(1)); // same keys and types: one schema for both
        for (const auto& [id, args] :
             {std::pair {a, std::span<const Arg>(first)}, std::pair {b, std::span<const Arg>(second)}}) {
            const ArgSet set = store.get(id);
            QCOMPARE(set.size(), args.size());
            QVERIFY(set.equals(args));
            std::size_t i = 0;
            for (const Arg stored : set) {
                QCOMPARE(stored.key, args[i].key);
                QCOMPARE(stored.value.type, args[i].value.type);
                QCOMPARE(stored.value.rawBits(), args[i].value.rawBits());
                QCOMPARE(set[i].value.rawBits(), args[i].value.rawBits());
                ++i;
            }
        }
        QVERIFY(std::signbit(store.get(a)[2].value.d));
        QCOMPARE(store.find(b, ratio)->d, std::numeric_limits<double>::infinity());
        QCOMPARE(pool.view(StringId(store.find(b, name)->s)), std::string_view("y"));
        QCOMPARE(store.find(a, pool.intern("sync"))->i, std::int64_t(1));
        // The same keys with another type, fewer keys or another order are other schemas.
        const Arg otherType[] = {{stream, ArgValue::fromDouble(1.5)}};
        const Arg fewer[] = {{stream, ArgValue::fromInt(1)}};
        const Arg otherOrder[] = {{name, ArgValue::fromString(pool.intern("x"))}, {stream, ArgValue::fromInt(1)}};
        const ArgSetId t = store.add(otherType);
        const ArgSetId f = store.add(fewer);
        const ArgSetId o = store.add(otherOrder);
        QCOMPARE(store.schemaCount(), std::size_t(4));
        QCOMPARE(store.find(t, stream)->type, ArgValue::Type::Double);
        QCOMPARE(store.find(f, stream)->type, ArgValue::Type::Int);
        QCOMPARE(store.get(o)[0].key, name);
        // A set equal in keys and raw bits but not in types is not a duplicate.
        const Arg intBits[] = {{stream, ArgValue::fromInt(std::bit_cast<std::int64_t>(1.5))}};
        QVERIFY(store.add(intBits) != t);
        QCOMPARE(store.add(otherType), t);
        // Thousands of sets of the same few shapes cost their packed values (int64 min 10 bytes, a small string
        // id 1, a double 8, a bool 1) plus 8 a set, not 16 an arg.
        for (int i = 0; i < 10000; ++i)
            store.addUnique(first);
        store.shrinkToFit();
        QCOMPARE(store.schemaCount(), std::size_t(4));
        QVERIFY(store.bytesUsed() < 10000 * (10 + 1 + 8 + 1 + 8) + 4096);
    }
    void argValuesArePacked()
    {
        StringPool pool;
        ArgStore store;
        const StringId key = pool.intern("k");
        // Zigzag varints: the byte count follows the magnitude, either sign; string ids are plain varints.
        const std::pair<std::int64_t, std::size_t> ints[] = {{0, 1},
                                                             {-1, 1},
                                                             {63, 1},
                                                             {-64, 1},
                                                             {64, 2},
                                                             {-65, 2},
                                                             {8191, 2},
                                                             {8192, 3},
                                                             {4294967295, 5},
                                                             {-4294967296, 5},
                                                             {1LL << 55, 9},
                                                             {std::numeric_limits<std::int64_t>::max(), 10},
                                                             {std::numeric_limits<std::int64_t>::min(), 10}};
        std::size_t before = 0;
        for (const auto& [value, bytes] : ints) {
            const Arg set[] = {{key, ArgValue::fromInt(value)}};
            const ArgSetId id = store.addUnique(set);
            const auto& column = SnapshotAccess::argValueBytes(store);
            QCOMPARE(column.size() - before, bytes);
            before = column.size();
            QCOMPARE(store.find(id, key)->i, value);
        }
        const Arg text[] = {{key, ArgValue::fromString(StringId(300))}, {key, ArgValue::fromDouble(0.1)}};
        const ArgSetId t = store.addUnique(text);
        QCOMPARE(SnapshotAccess::argValueBytes(store).size() - before, std::size_t(2 + 8));
        QCOMPARE(store.get(t)[0].value.s, 300U);
        QCOMPARE(store.get(t)[1].value.d, 0.1);
        QVERIFY(!store.inconsistency(301));
        QCOMPARE(store.inconsistency(300).value_or(""), std::string("args")); // id 300 is not a string
    }
    void inconsistentStoresAreNamed()
    {
        // What a damaged snapshot can put in the columns: each is found before anything decodes past a set.
        auto build = [] {
            ArgStore store;
            const Arg set[]
                = {{StringId(1), ArgValue::fromInt(1000)}, {StringId(2), ArgValue::fromString(StringId(1))}};
            store.addUnique(set);
            store.addUnique(set);
            return store;
        };
        auto damaged = [&](auto&& damage) -> std::string {
            ArgStore store = build();
            if (store.inconsistency(3))
                return "the intact store is reported";
            damage(store);
            // The snapshot reader checks the layout, then the sets in pieces on two threads: the same finding.
            std::optional<std::string> inPieces = store.layoutInconsistency(3);
            for (std::size_t i = 0; !inPieces && i < store.setCount(); ++i)
                inPieces = store.setsInconsistency(3, i, i + 1);
            if (inPieces != store.inconsistency(3))
                return "the check in pieces differs";
            return store.inconsistency(3).value_or("");
        };
        using A = SnapshotAccess;
        // The first value's varint runs into the next one: the set decodes past its end.
        QCOMPARE(damaged([](ArgStore& s) { A::argValueBytes(s)[1] |= 0x80; }), std::string("args"));
        // A set whose bytes hold more than its schema's values.
        QCOMPARE(damaged([](ArgStore& s) { A::argOffsets(s)[1] += 1; }), std::string("args"));
        // Offsets that go backwards, or end short of the values.
        QCOMPARE(damaged([](ArgStore& s) { A::argOffsets(s)[1] = 7; }), std::string("arg offsets"));
        QCOMPARE(damaged([](ArgStore& s) { A::argValueBytes(s).push_back(0); }), std::string("arg offsets"));
        // A schema that does not exist, a key that is not a string.
        QCOMPARE(damaged([](ArgStore& s) { A::argSetSchemas(s)[0] = 1; }), std::string("arg schemas"));
        QCOMPARE(damaged([](ArgStore& s) { A::argSchemaKeys(s)[0].key = StringId(3); }), std::string("arg schemas"));
        // A varint of more than 64 bits.
        QCOMPARE(damaged([](ArgStore& s) {
                     auto& bytes = A::argValueBytes(s);
                     const std::uint8_t tooLong[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0x01};
                     bytes.clear();
                     for (int set = 0; set < 2; ++set)
                         bytes.append(tooLong, sizeof tooLong);
                     A::argOffsets(s)[1] = sizeof tooLong;
                     A::argOffsets(s)[2] = 2 * sizeof tooLong;
                 }),
                 std::string("args"));
    }
};

QTEST_APPLESS_MAIN(TestStringPool)
#include "tst_stringpool.moc"
