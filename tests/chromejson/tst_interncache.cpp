// SPDX-License-Identifier: MIT
// The intern cache in front of the string pool must give exactly the pool's ids, whatever it holds or evicts.
#include "model/tracebuilder.h"
#include "parsers/common/interncache.h"

#include <QTest>

#include <string>
#include <vector>

using namespace timesink;
using namespace timesink::parsers;

class TestInternCache : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void givesThePoolsIds();
    void emptyIsTheNullId();
    void internedLastFollowsItsText();
    void textsAlikeAtTheirEndsStayApart();
    void shortTextsDifferingInAnyByteStayApart();
};

namespace {

/// Texts of every length class the sinks see: short names, 8-byte-boundary lengths, long kernel names that share
/// prefix and suffix, more distinct texts than the cache has slots (so slots are evicted and refilled).
std::vector<std::string> texts()
{
    std::vector<std::string> out;
    const std::string kernel = "void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl<";
    for (int i = 0; i < 3000; ++i) {
        switch (i % 5) {
        case 0:
            out.push_back("aten::op" + std::to_string(i));
            break;
        case 1:
            out.push_back(std::string(static_cast<std::size_t>(i % 17) + 1, 'a')); // a..aaaa (17 lengths)
            break;
        case 2:
            out.push_back(kernel + std::to_string(i) + ">(int)");
            break;
        case 3:
            out.push_back(kernel + std::to_string(i % 40) + std::string(static_cast<std::size_t>(i % 9), 'x'));
            break;
        default:
            out.push_back(std::to_string(i % 250)); // short numbers repeat
            break;
        }
    }
    return out;
}

/// Interns each text three times through a cache and once straight into a pool of its own: the first text whose
/// id or text differs between the two (described), or "" when none does.
std::string firstMismatch(const std::vector<std::string>& texts)
{
    model::TraceBuilder cached;
    model::TraceBuilder plain;
    InternCache cache(cached);
    for (int round = 0; round < 3; ++round) {
        for (const std::string& s : texts) {
            const model::StringId got = cache(s);
            if (got.value != plain.intern(s).value || cached.str(got) != std::string_view(s))
                return "round " + std::to_string(round) + ": a text of " + std::to_string(s.size()) + " bytes";
        }
    }
    return {};
}

} // namespace

void TestInternCache::givesThePoolsIds()
{
    model::TraceBuilder cached;
    model::TraceBuilder plain;
    InternCache cache(cached);
    const std::vector<std::string> all = texts();
    // Three rounds in different orders: hits, misses and evictions all answer like the pool.
    for (int round = 0; round < 3; ++round) {
        for (std::size_t k = 0; k < all.size(); ++k) {
            const std::string& s = all[round == 1 ? all.size() - 1 - k : (k * 7 + std::size_t(round)) % all.size()];
            const model::StringId got = cache(s);
            QCOMPARE(got.value, plain.intern(s).value);
            QCOMPARE(cached.str(got), std::string_view(s));
        }
    }
}

void TestInternCache::emptyIsTheNullId()
{
    model::TraceBuilder b;
    InternCache cache(b);
    QCOMPARE(cache(std::string_view()).value, model::StringId().value);
    QCOMPARE(cache("x").value, b.intern("x").value);
    QCOMPARE(cache("").value, b.intern("").value);
    InternedLast last;
    QCOMPARE(last(b, "").value, model::StringId().value);
    QCOMPARE(last(b, "y").value, b.intern("y").value);
    QCOMPARE(last(b, "").value, model::StringId().value);
}

void TestInternCache::internedLastFollowsItsText()
{
    model::TraceBuilder b;
    InternedLast last;
    // The same text again, a new text, an equal text at another address, and back.
    const std::string a = "correlation";
    const std::string other = "External id";
    const std::string aCopy = a;
    for (const std::string* s : {&a, &a, &other, &aCopy, &other, &other, &a}) {
        const model::StringId got = last(b, *s);
        QCOMPARE(b.str(got), std::string_view(*s));
        QCOMPARE(got.value, b.intern(*s).value);
    }
}

/// The cache decides texts of up to 16 bytes by their first and last eight bytes and length, and longer ones by
/// those plus the bytes between: texts that agree on all but one of these must still get their own ids.
void TestInternCache::textsAlikeAtTheirEndsStayApart()
{
    using namespace std::string_literals;
    const std::vector<std::string> alike = {
        "a"s,
        "a\0"s,
        "\0a"s,
        "a\0\0\0\0\0\0\0"s,
        "a\0\0\0\0\0\0\0\0"s, // zero bytes are not padding
        "12345678"s,
        "123456789"s,
        "1234567812345678"s,
        "1234567X12345678"s,
        "12345678X2345678"s,
        "HEAD-of-x-middle-A-x-the-TAIL"s,
        "HEAD-of-x-middle-B-x-the-TAIL"s,
        "HEAD-of-x-middle-AB-x-the-TAIL"s,
        "aaaaaaaabaaaaaaaa"s,
        "aaaaaaaacaaaaaaaa"s, // 17 bytes: one byte between the ends
    };
    const std::string mismatch = firstMismatch(alike);
    QVERIFY2(mismatch.empty(), mismatch.c_str());
}

/// Texts under eight bytes are read in overlapping fixed-size pieces: a text of each length 1-7 with any one byte
/// changed (to another letter or to a zero byte) is another text, and a longer one's prefix is too.
void TestInternCache::shortTextsDifferingInAnyByteStayApart()
{
    std::vector<std::string> all;
    const std::string base = "abcdefgh";
    for (std::size_t n = 1; n < 8; ++n) {
        all.push_back(base.substr(0, n));
        for (std::size_t k = 0; k < n; ++k) {
            for (const char c : {'Z', '\0'}) {
                std::string s = base.substr(0, n);
                s[k] = c;
                all.push_back(s);
            }
        }
    }
    const std::string mismatch = firstMismatch(all);
    QVERIFY2(mismatch.empty(), mismatch.c_str());
}

QTEST_GUILESS_MAIN(TestInternCache)
#include "tst_interncache.moc"
