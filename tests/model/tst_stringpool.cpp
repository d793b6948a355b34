// SPDX-License-Identifier: MIT
#include "model/argstore.h"
#include "model/stringpool.h"

#include <QTest>

#include <string>
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
        QVERIFY(store.find(ib, pool.intern("name")) == nullptr);
        QVERIFY(!store.add({}).isValid());
        // A unique set is stored apart, even when identical, and never returned by add().
        const ArgSetId u = store.addUnique(b);
        QVERIFY(u != ib);
        QCOMPARE(store.find(u, pool.intern("stream"))->i, std::int64_t(8));
        QCOMPARE(store.add(b), ib);
        QCOMPARE(store.setCount(), std::size_t(3));
        QVERIFY(store.get(ArgSetId()).empty());
    }
};

QTEST_APPLESS_MAIN(TestStringPool)
#include "tst_stringpool.moc"
