// SPDX-License-Identifier: MIT
#include "parsers/chromejson/chromeeventreader.h"
#include "parsers/chromejson/chromejsonscanner.h"

#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <bit>
#include <chrono>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

using namespace timesink;
using namespace timesink::parsers;
using namespace timesink::parsers::chromejson;

class TestChromeEventReader : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void microsToNs_data();
    void microsToNs();
    void microsToNsDigitByDigit();
    void scannerWholeInput();
    void scannerEverySplitPoint_data();
    void scannerEverySplitPoint();
    void scannerBlocksAgreeWithByteSteps();
    void scannerSkipsLargeElements();
    void scannerDeepNestingIsIterative();
    void scannerRejectsNonTraces_data();
    void scannerRejectsNonTraces();
    void readerDecodesEventsInOrder();
    void readerKeepsGoodEventsAroundBadOnes();
    void readerStringTimesAndIds_data();
    void readerStringTimesAndIds();
    void readerSkipsFlowNamesWhenAsked();
    void readerKeepsUnescapedStringsPastLaterBatches();
    void readerFindsEscapesAtEveryOffset();
    void readerParsesEventsWhereTheyWereRead();
    void plainDecoderAgreesWithSimdjson();
    void plainDecoderTakesCommonEvents();
};

namespace {

// Records everything the scanner reports as one text, so two runs can be compared exactly.
class Recorder : public ChromeJsonScanner::Handler
{
public:
    std::string log;
    void onContainer(bool wrapper) override { log += wrapper ? "object\n" : "array\n"; }
    void onTopLevel(std::string_view key, std::string_view raw) override
    {
        log += "top " + std::string(key) + " = " + std::string(raw) + "\n";
    }
    void onEvent(std::string_view text) override { log += "event " + std::string(text) + "\n"; }
    void onIssue(timesink::model::ImportWarningKind kind, std::string_view) override
    {
        log += "issue " + std::string(timesink::model::key(kind)) + "\n";
    }
};

std::string scanWhole(const std::string& text, std::uint64_t maxBytes, bool* complete = nullptr)
{
    Recorder r;
    ChromeJsonScanner s(r, maxBytes);
    s.feed(text.data(), text.size());
    if (complete)
        *complete = s.complete();
    return r.log;
}

class EventCollector : public ChromeEventSink
{
public:
    std::string log;
    std::vector<std::string> warnings;
    void onTopLevel(std::string_view key, std::string_view raw) override
    {
        log += "top " + std::string(key) + "=" + std::string(raw) + "\n";
    }
    void onEvent(const ChromeEvent& e) override
    {
        log += std::string(1, e.ph ? e.ph : '?') + " name=" + std::string(e.name) + " cat=" + std::string(e.cat)
            + " pid=" + std::string(e.pid) + (e.pidIsNumber ? "#" : "") + " tid=" + std::string(e.tid)
            + (e.tidIsNumber ? "#" : "") + " ts=" + (e.hasTs ? std::to_string(e.ts) : "-")
            + " dur=" + (e.hasDur ? std::to_string(e.dur) : "-") + (e.hasId ? " id=" + std::string(e.id) : "")
            + (e.bp.empty() ? "" : " bp=" + std::string(e.bp));
        for (const ChromeArg& a : e.args) {
            log += " " + std::string(a.key) + ":";
            switch (a.kind) {
            case ChromeArg::Kind::Int:
                log += "i" + std::to_string(a.i);
                break;
            case ChromeArg::Kind::Double:
                log += "d" + std::string(a.text);
                break;
            case ChromeArg::Kind::Bool:
                log += a.i ? "true" : "false";
                break;
            case ChromeArg::Kind::String:
                log += "s'" + std::string(a.text) + "'";
                break;
            case ChromeArg::Kind::Json:
                log += "j" + std::string(a.text);
                break;
            case ChromeArg::Kind::Null:
                log += "null";
                break;
            }
        }
        if (e.badFields)
            log += " bad";
        log += "\n";
    }
    void onWarning(timesink::model::ImportWarningKind kind, std::string_view, std::uint64_t count) override
    {
        warnings.push_back(std::string(timesink::model::key(kind)) + "×" + std::to_string(count));
    }
};

// Reads `path` with default options into `sink`; false (with the error printed) when the read fails.
/// Reads `path` into `sink` with `threads` (0: as the hardware allows), and reads and batches of the given sizes
/// (0: the reader's own).
ChromeReadResult readWith(const std::string& path, ChromeEventSink& sink, unsigned threads, std::size_t chunk = 0,
                          std::size_t batch = 0)
{
    ImportOptions options;
    options.threads = threads;
    ProgressSink progress;
    ChromeEventReader reader(path, options, progress);
    if (chunk > 0)
        reader.setReadChunkBytes(chunk);
    if (batch > 0)
        reader.setBatchBytes(batch);
    return reader.read(sink);
}

bool readAll(const std::string& path, EventCollector& sink)
{
    const ChromeReadResult r = readWith(path, sink, 0);
    if (!r.ok())
        qWarning("%s", r.status.message().c_str());
    return r.ok();
}

// Strings with braces, brackets, quotes and escapes in keys and values: the places a naive cutter gets wrong.
const char* const kTricky = R"({"schemaVersion": 1, "odd\"key": "va}l]ue\\", "nested": {"a": [1, {"b": "}"}]},
 "traceEvents": [
  {"ph": "X", "name": "a{b}[c]\"d\\", "pid": 1, "tid": 2, "ts": 10.5, "dur": 2, "args": {"k": "}\\\"{", "n": -3}},
  {"ph": "i", "name": "\u00e9\\\\", "pid": "Spans", "tid": "", "ts": "1736408883700059.821", "s": "g"} ,
  {"ph":"s","id":7,"pid":1,"tid":2,"ts":11,"cat":"ac2g","name":"ac2g"}
 ],
 "baseTimeNanoseconds": 1751410836000000000}
)";

} // namespace

void TestChromeEventReader::microsToNs_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("ok");
    QTest::addColumn<qint64>("ns");
    QTest::newRow("epoch 3 decimals") << "1736408883700059.821" << true << qint64(1736408883700059821LL);
    QTest::newRow("relative offset") << "1419247332972.313" << true << qint64(1419247332972313LL);
    QTest::newRow("int") << "1695835542515301" << true << qint64(1695835542515301000LL);
    QTest::newRow("small") << "4" << true << qint64(4000);
    QTest::newRow("float dur") << "7.6" << true << qint64(7600);
    QTest::newRow("round half up") << "840.07675" << true << qint64(840077);
    QTest::newRow("round down") << "0.0004" << true << qint64(0);
    QTest::newRow("negative round away") << "-0.0005" << true << qint64(-1);
    QTest::newRow("exponent") << "1.5e3" << true << qint64(1500000);
    QTest::newRow("negative exponent") << "2500E-3" << true << qint64(2500);
    QTest::newRow("trailing tab") << "1736413971558972.912\t" << true << qint64(1736413971558972912LL);
    QTest::newRow("many fraction digits") << "1.00000000000000000000000006" << true << qint64(1000);
    QTest::newRow("zero") << "0" << true << qint64(0);
    QTest::newRow("empty") << "" << false << qint64(0);
    QTest::newRow("garbage") << "abc" << false << qint64(0);
    QTest::newRow("two dots") << "1.2.3" << false << qint64(0);
    QTest::newRow("overflow") << "99999999999999999999" << false << qint64(0);
    QTest::newRow("huge exponent") << "1e400" << false << qint64(0);
    QTest::newRow("bare exponent") << "1e" << false << qint64(0);
    // Edges of the plain-digits fast path.
    QTest::newRow("largest ns") << "9223372036854775.807" << true << qint64(9223372036854775807LL);
    QTest::newRow("one past largest") << "9223372036854775.808" << false << qint64(0);
    QTest::newRow("19 digits times 1000") << "9999999999999999999" << false << qint64(0);
    QTest::newRow("leading zeros") << "007.5" << true << qint64(7500);
    QTest::newRow("trailing point") << "12." << true << qint64(12000);
    QTest::newRow("fourth decimal rounds") << "1.0005" << true << qint64(1001);
    QTest::newRow("19 whole digits and decimals") << "1234567890123456789.5" << false << qint64(0);
    QTest::newRow("20 whole digits and decimals") << "12345678901234567890.5" << false << qint64(0);
    QTest::newRow("many leading zeros") << "0000000000000000000000001.5" << true << qint64(1500);
    QTest::newRow("nine decimals") << "1.000000001" << true << qint64(1000);
    // Eight digits at a time.
    QTest::newRow("eight digits") << "12345678" << true << qint64(12345678000LL);
    QTest::newRow("sixteen digits") << "1876543210987654" << true << qint64(1876543210987654000LL);
    QTest::newRow("sixteen digits, too many ns") << "9876543210987654" << false << qint64(0);
    QTest::newRow("point in the first eight") << "1234567.125" << true << qint64(1234567125LL);
    QTest::newRow("slash in the first eight") << "123/5678.5" << false << qint64(0);
    QTest::newRow("colon in the second eight") << "12345678901:345.5" << false << qint64(0);
}

__extension__ typedef __int128 Wide; // NOLINT(modernize-use-using): __extension__ keeps -Wpedantic quiet

void TestChromeEventReader::microsToNsDigitByDigit()
{
    // Plain decimals (up to 19 whole digits, up to 3 decimals) against exact 128-bit arithmetic, and the same
    // strings with one byte that is not a digit (just below '0', just above '9', high bytes, NUL), which are refused.
    std::mt19937_64 next(20261203);
    for (int round = 0; round < 20000; ++round) {
        const std::size_t wholeDigits = 1 + next() % 19;
        const std::size_t decimals = next() % 5; // 0: no point; 1: a bare point; 2-4: 1-3 decimals
        std::string text;
        Wide value = 0;
        for (std::size_t i = 0; i < wholeDigits; ++i) {
            const int d = static_cast<int>(next() % 10);
            text.push_back(static_cast<char>('0' + d));
            value = value * 10 + d;
        }
        value *= 1000;
        if (decimals > 0)
            text.push_back('.');
        Wide scale = 100;
        for (std::size_t i = 1; i < decimals; ++i) {
            const int d = static_cast<int>(next() % 10);
            text.push_back(static_cast<char>('0' + d));
            value += d * scale;
            scale /= 10;
        }
        const auto parsed = microsTextToNs(text);
        const bool fits = value <= std::numeric_limits<std::int64_t>::max();
        QVERIFY2(parsed.has_value() == fits, text.c_str());
        if (fits)
            QVERIFY2(*parsed == static_cast<std::int64_t>(value), text.c_str());
        static constexpr char kNotDigits[] = {'/', ':', '\xFA', '\xFF', '\0', '\x80'};
        std::string bad = text;
        const std::size_t at = next() % wholeDigits;
        bad[at] = kNotDigits[next() % std::size(kNotDigits)];
        QVERIFY2(!microsTextToNs(bad).has_value(), bad.c_str());
    }
}
void TestChromeEventReader::microsToNs()
{
    QFETCH(QString, text);
    QFETCH(bool, ok);
    QFETCH(qint64, ns);
    const std::string t = text.toStdString();
    const auto v = microsTextToNs(t);
    QCOMPARE(v.has_value(), ok);
    if (ok)
        QCOMPARE(*v, ns);
}

void TestChromeEventReader::scannerWholeInput()
{
    bool complete = false;
    const std::string log = scanWhole(kTricky, 1 << 20, &complete);
    QVERIFY(complete);
    const std::string expected = "object\n"
                                 "top schemaVersion = 1\n"
                                 "top odd\\\"key = \"va}l]ue\\\\\"\n"
                                 "top nested = {\"a\": [1, {\"b\": \"}\"}]}\n"
                                 "event {\"ph\": \"X\", \"name\": \"a{b}[c]\\\"d\\\\\", \"pid\": 1, \"tid\": 2, "
                                 "\"ts\": 10.5, \"dur\": 2, \"args\": {\"k\": \"}\\\\\\\"{\", \"n\": -3}}\n"
                                 "event {\"ph\": \"i\", \"name\": \"\\u00e9\\\\\\\\\", \"pid\": \"Spans\", "
                                 "\"tid\": \"\", \"ts\": \"1736408883700059.821\", \"s\": \"g\"}\n"
                                 "event {\"ph\":\"s\",\"id\":7,\"pid\":1,\"tid\":2,\"ts\":11,\"cat\":\"ac2g\","
                                 "\"name\":\"ac2g\"}\n"
                                 "top baseTimeNanoseconds = 1751410836000000000\n";
    QCOMPARE(log, expected);
}

void TestChromeEventReader::scannerEverySplitPoint_data()
{
    QTest::addColumn<QString>("input");
    QTest::newRow("wrapper with tricky strings") << QString::fromUtf8(kTricky);
    QTest::newRow("bare array") << QStringLiteral(R"([{"a":"]"},{"b":[{}]} , 3, {"c":"\\"}])");
    QTest::newRow("bom and whitespace") << QString::fromUtf8("\xef\xbb\xbf \n[ {\"x\" : 1 } ]\n");
    QTest::newRow("scalars at top level") << QStringLiteral(R"({"a":true,"b":-1.5e3,"c":null,"traceEvents":[]})");
    QTest::newRow("truncated") << QStringLiteral(R"({"traceEvents":[{"a":1},{"b":"x)");
}
void TestChromeEventReader::scannerEverySplitPoint()
{
    QFETCH(QString, input);
    const std::string text = input.toStdString();
    bool wholeComplete = false;
    const std::string expected = scanWhole(text, 1 << 20, &wholeComplete);
    for (std::size_t split = 0; split <= text.size(); ++split) {
        Recorder r;
        ChromeJsonScanner s(r, 1 << 20);
        s.feed(text.data(), split);
        s.feed(text.data() + split, text.size() - split);
        QCOMPARE(r.log, expected);
        QCOMPARE(s.complete(), wholeComplete);
    }
    // Byte by byte: every position is a boundary at once.
    Recorder r;
    ChromeJsonScanner s(r, 1 << 20);
    for (char c : text)
        s.feed(&c, 1);
    QCOMPARE(r.log, expected);
}

// The scanner steps over 64-byte blocks when at least that much input is left and falls back to byte steps near
// backslashes and at the end of each piece: every tricky token (brackets and quotes inside strings, escaped quotes,
// backslash runs, nested arrays) is moved across every offset of a block, and the whole input must give exactly what
// feeding it byte by byte (byte steps only) gives.
void TestChromeEventReader::scannerBlocksAgreeWithByteSteps()
{
    const std::string tokens[] = {
        R"({"name":"a]}[{b","args":{"k":[1,[2,{"x":"}"}]]}})",
        R"({"name":"q\"}\"","args":{"s":"\\","t":"\\\"]"}})",
        R"({"name":"\\\\","ph":"X","args":{}})",
        R"({"a":[[[[]]]],"b":"[[[[","c":{"d":{"e":{}}}})",
        R"({"x":"\u005d\u007d","y":"\/"})",
    };
    std::string text = "{\"traceEvents\": [";
    std::size_t expectedEvents = 0;
    for (std::size_t shift = 0; shift < 130; ++shift) {
        for (const std::string& token : tokens) {
            // The filler moves the token by one byte per round; a string of braces, brackets or spaces.
            text += R"({"pad":")"
                + std::string(shift,
                              shift % 3 == 0       ? '}'
                                  : shift % 3 == 1 ? ' '
                                                   : '[')
                + R"("},)" + token + ",\n";
            expectedEvents += 2;
        }
    }
    text += R"({"last":"\\"}]})";
    ++expectedEvents;

    Recorder whole;
    ChromeJsonScanner blocks(whole, 1 << 20);
    QVERIFY(blocks.feed(text.data(), text.size()));
    QVERIFY(blocks.complete());
    QCOMPARE(blocks.eventCount(), std::uint64_t(expectedEvents));

    Recorder bytes;
    ChromeJsonScanner steps(bytes, 1 << 20);
    for (char c : text)
        steps.feed(&c, 1);
    QVERIFY(steps.complete());
    QCOMPARE(whole.log, bytes.log);

    // Pieces of odd sizes end blocks everywhere, with the state carried between them.
    for (std::size_t piece : {63U, 64U, 65U, 97U, 200U}) {
        Recorder r;
        ChromeJsonScanner s(r, 1 << 20);
        for (std::size_t at = 0; at < text.size(); at += piece)
            s.feed(text.data() + at, std::min(piece, text.size() - at));
        QVERIFY(s.complete());
        QCOMPARE(r.log, bytes.log);
    }

    // An element over the limit is skipped the same way with blocks as with byte steps.
    const std::string big = R"({"traceEvents":[{"a":1},{"name":")" + std::string(300, '{') + R"("},{"b":"\\"}]})";
    Recorder bigWhole;
    ChromeJsonScanner bigBlocks(bigWhole, 100);
    bigBlocks.feed(big.data(), big.size());
    QCOMPARE(bigWhole.log, std::string("object\nevent {\"a\":1}\nissue event_too_large\nevent {\"b\":\"\\\\\"}\n"));
}

void TestChromeEventReader::scannerSkipsLargeElements()
{
    const std::string big(200, 'x');
    const std::string text = R"({"traceEvents":[{"a":1},{"name":")" + big + R"("},{"b":2}]})";
    for (std::size_t split = 0; split <= text.size(); split += 7) {
        Recorder r;
        ChromeJsonScanner s(r, 64);
        s.feed(text.data(), split);
        s.feed(text.data() + split, text.size() - split);
        QCOMPARE(r.log, std::string("object\nevent {\"a\":1}\nissue event_too_large\nevent {\"b\":2}\n"));
        QVERIFY(s.complete());
    }
}

void TestChromeEventReader::scannerDeepNestingIsIterative()
{
    // A million nested arrays would overflow the stack of a recursive scanner.
    const std::size_t depth = 1000000;
    std::string text = R"({"traceEvents":[{"a":)";
    text.append(depth, '[');
    text.append(depth, ']');
    text += "}]}";
    Recorder r;
    ChromeJsonScanner s(r, std::uint64_t(1) << 30);
    s.feed(text.data(), text.size());
    QVERIFY(s.complete());
    QCOMPARE(s.eventCount(), std::uint64_t(1));
}

void TestChromeEventReader::scannerRejectsNonTraces_data()
{
    QTest::addColumn<QString>("input");
    QTest::addColumn<QString>("error");
    QTest::newRow("html") << "<html>"
                          << "found '<' at the start";
    QTest::newRow("number") << "42"
                            << "found '4' at the start";
    QTest::newRow("bad key") << "{a:1}"
                             << "expected a key in the top-level object, found 'a'";
    QTest::newRow("missing colon") << "{\"a\" 1}"
                                   << "expected ':' after the top-level key \"a\", found '1'";
}
void TestChromeEventReader::scannerRejectsNonTraces()
{
    QFETCH(QString, input);
    QFETCH(QString, error);
    const std::string text = input.toStdString();
    Recorder r;
    ChromeJsonScanner s(r, 1024);
    QVERIFY(!s.feed(text.data(), text.size()));
    QVERIFY(s.failed());
    QVERIFY2(s.fatalError().find(error.toStdString()) != std::string::npos, s.fatalError().c_str());
}

// The whole pipeline (reader thread, workers, in-order delivery) with tiny reads and tiny batches.
void TestChromeEventReader::readerDecodesEventsInOrder()
{
    QTemporaryDir dir;
    const std::string path = dir.filePath(QStringLiteral("t.json")).toStdString();
    std::ofstream(path) << kTricky;
    const std::string expected = "top schemaVersion=1\n"
                                 "top odd\\\"key=\"va}l]ue\\\\\"\n"
                                 "top nested={\"a\": [1, {\"b\": \"}\"}]}\n"
                                 "X name=a{b}[c]\"d\\ cat= pid=1# tid=2# ts=10500 dur=2000 k:s'}\\\"{' n:i-3\n"
                                 "i name=\xc3\xa9\\\\ cat= pid=Spans tid= ts=1736408883700059821 dur=-\n"
                                 "s name=ac2g cat=ac2g pid=1# tid=2# ts=11000 dur=- id=7\n"
                                 "top baseTimeNanoseconds=1751410836000000000\n";
    for (std::size_t chunk : {std::size_t(1), std::size_t(3), std::size_t(64), std::size_t(1) << 20}) {
        for (std::size_t batch : {std::size_t(1), std::size_t(100), std::size_t(1) << 20}) {
            for (unsigned threads : {1U, 3U}) {
                EventCollector sink;
                const ChromeReadResult r = readWith(path, sink, threads, chunk, batch);
                QVERIFY2(r.ok(), r.status.message().c_str());
                QCOMPARE(r.events, std::uint64_t(3));
                QVERIFY(r.wrapperObject);
                QVERIFY(!r.truncated);
                QCOMPARE(sink.log, expected);
                QVERIFY(sink.warnings.empty());
            }
        }
    }
}

void TestChromeEventReader::readerKeepsGoodEventsAroundBadOnes()
{
    QTemporaryDir dir;
    const std::string path = dir.filePath(QStringLiteral("t.json")).toStdString();
    // Event 2 is not valid JSON (missing colon) and event 3 has wrong types in every field.
    std::ofstream(path)
        << R"([{"ph":"X","name":"a","ts":1,"dur":1,"pid":1,"tid":1},)"
           R"({"ph":"X" "name":"broken"},)"
           R"({"ph":1,"name":{},"cat":[],"pid":{},"tid":true,"ts":"x","dur":[],"args":5},)"
           R"({"ph":"X","name":"b","ts":2,"dur":1,"pid":1,"tid":1,"args":{"d":1.25,"b":false,"z":null,"j":[1,[2]]}}])";
    EventCollector sink;
    QVERIFY(readAll(path, sink));
    QCOMPARE(sink.log,
             std::string("X name=a cat= pid=1# tid=1# ts=1000 dur=1000\n"
                         "? name= cat= pid= tid= ts=- dur=- bad\n"
                         "X name=b cat= pid=1# tid=1# ts=2000 dur=1000 d:d1.25 b:false z:null j:j[1,[2]]\n"));
    QCOMPARE(sink.warnings, (std::vector<std::string> {"malformed_event×1", "bad_field×1"}));
}

void TestChromeEventReader::readerStringTimesAndIds_data()
{
    QTest::addColumn<bool>("withBadEvent");
    QTest::newRow("fast path (whole batch parses)") << false;
    QTest::newRow("slow path (a malformed event in the batch)") << true;
}

void TestChromeEventReader::readerStringTimesAndIds()
{
    // torch_npu/msprof write "ts" and flow ids as strings; those without escapes are read straight from the input,
    // those with escapes through the unescaping path. Both must decode the same, in the batch-wide fast path and
    // the event-by-event slow path (whose input buffer is reused per event).
    QFETCH(bool, withBadEvent);
    QTemporaryDir dir;
    const std::string path = dir.filePath(QStringLiteral("t.json")).toStdString();
    std::ofstream(path)
        << "["
        << R"({"ph":"f","id":"40004631069296951295","pid":1,"tid":2,"ts":"1736408883700059.821" ,"bp":"e"},)"
        << R"({"ph":"f","id":"40004631069296951295","pid":1,"tid":2,"ts":"1736408883700059.821"},)"
        << (withBadEvent ? R"({"ph":"X" "name":"broken"},)" : "")
        << R"({"ph":"X","name":"k","pid":1,"tid":2,"ts":"12.5","dur":"3"}])";
    EventCollector sink;
    QVERIFY(readAll(path, sink));
    QCOMPARE(sink.log,
             std::string("f name= cat= pid=1# tid=2# ts=1736408883700059821 dur=- id=40004631069296951295 bp=e\n"
                         "f name= cat= pid=1# tid=2# ts=1736408883700059821 dur=- id=40004631069296951295\n"
                         "X name=k cat= pid=1# tid=2# ts=12500 dur=3000\n"));
}

void TestChromeEventReader::readerSkipsFlowNamesWhenAsked()
{
    // A sink that never reads flow names lets the decoder skip them (when "ph" comes first); every other field
    // and every other event keeps its name.
    class NoFlowNames : public EventCollector
    {
    public:
        [[nodiscard]] bool needsFlowNames() const override { return false; }
    };
    QTemporaryDir dir;
    const std::string path = dir.filePath(QStringLiteral("t.json")).toStdString();
    std::ofstream(path)
        << R"([{"ph":"s","name":"HostToDevice1","cat":"HostToDevice","id":"1","pid":1,"tid":2,"ts":"1.0"},)"
        << R"({"name":"late ph keeps it","ph":"f","id":"1","pid":1,"tid":3,"ts":"2.0","bp":"e"},)"
        << R"({"ph":"X","name":"k","pid":1,"tid":3,"ts":"2.0","dur":1}])";
    NoFlowNames sink;
    QVERIFY(readAll(path, sink));
    QCOMPARE(sink.log,
             std::string("s name= cat=HostToDevice pid=1# tid=2# ts=1000 dur=- id=1\n"
                         "f name=late ph keeps it cat= pid=1# tid=3# ts=2000 dur=- id=1 bp=e\n"
                         "X name=k cat= pid=1# tid=3# ts=2000 dur=1000\n"));
}

void TestChromeEventReader::readerKeepsUnescapedStringsPastLaterBatches()
{
    // simdjson unescapes a string with escapes into its parser's buffer, and each decoding thread keeps one parser
    // for all its batches: such strings must be copied out before the thread decodes its next batch. The sink holds
    // on to the first event until the workers have run ahead, then checks every event's escaped texts.
    QTemporaryDir dir;
    const std::string path = dir.filePath(QStringLiteral("t.json")).toStdString();
    constexpr int kEvents = 3000;
    {
        std::ofstream out(path);
        out << "[";
        for (int i = 0; i < kEvents; ++i) {
            out << (i ? ",\n" : "") << R"({"ph":"X","name":"n\")" << i << R"(","cat":"c\u0041)" << i
                << R"(","pid":1,"tid":1,"ts":)" << i << R"(,"dur":1,"args":{"k\t)" << i << R"(":"v\\)" << i << R"("}})";
        }
        out << "]";
    }
    class Checker : public ChromeEventSink
    {
    public:
        int seen = 0;
        std::vector<std::string> wrong;
        void onEvent(const ChromeEvent& e) override
        {
            if (seen == 0)
                std::this_thread::sleep_for(std::chrono::milliseconds(200));
            const std::string i = std::to_string(seen++);
            std::string got = std::string(e.name) + "|" + std::string(e.cat);
            for (const ChromeArg& a : e.args)
                got += "|" + std::string(a.key) + "=" + std::string(a.text);
            const std::string expected = "n\"" + i + "|cA" + i + "|k\t" + i + "=v\\" + i;
            if (got != expected && wrong.size() < 3)
                wrong.push_back("event " + i + ": " + got);
        }
        void onWarning(timesink::model::ImportWarningKind, std::string_view, std::uint64_t) override { }
    };
    for (std::size_t batch : {std::size_t(1), std::size_t(2000)}) {
        for (unsigned threads : {2U, 3U}) {
            Checker sink;
            const ChromeReadResult r = readWith(path, sink, threads, 0, batch);
            QVERIFY2(r.ok(), r.status.message().c_str());
            QCOMPARE(sink.seen, kEvents);
            QVERIFY2(sink.wrong.empty(), sink.wrong.empty() ? "" : sink.wrong.front().c_str());
        }
    }
}

void TestChromeEventReader::readerFindsEscapesAtEveryOffset()
{
    // The decoder looks for backslashes in strings and keys 16 bytes at a time: an escape at any offset, in the
    // first block, the last one or at a block's edge, must reach simdjson's unescaping (an escape it misses would
    // come out as written, "\\n" instead of a newline). Strings without escapes, of every length, are followed by
    // one with an escape within 16 bytes, which must not count for them.
    QTemporaryDir dir;
    const std::string path = dir.filePath(QStringLiteral("t.json")).toStdString();
    constexpr int kMax = 40;
    {
        std::ofstream out(path);
        out << "[";
        for (int k = 0; k <= kMax; ++k) {
            const std::string a(static_cast<std::size_t>(k), 'a');
            const std::string b(static_cast<std::size_t>(kMax - k), 'b');
            out << (k ? ",\n" : "") << R"({"ph":"X","name":")" << a << R"(\n)" << b << R"(","cat":")" << a
                << R"(","pid":1,"tid":1,"ts":)" << k << R"(,"dur":1,"args":{")" << a << R"(\u0041)" << b << R"(":")"
                << b << R"(\")" << a << R"(","p)" << a << R"(":"\t"}})";
        }
        out << "]";
    }
    EventCollector sink;
    QVERIFY(readAll(path, sink));
    std::string expected;
    for (int k = 0; k <= kMax; ++k) {
        const std::string a(static_cast<std::size_t>(k), 'a');
        const std::string b(static_cast<std::size_t>(kMax - k), 'b');
        expected += "X name=" + a + "\n" + b + " cat=" + a + " pid=1# tid=1# ts=" + std::to_string(k * 1000)
            + " dur=1000 " + a + "A" + b + ":s'" + b + "\"" + a + "' p" + a + ":s'\t'\n";
    }
    QCOMPARE(sink.log, expected);
    QVERIFY(sink.warnings.empty());
}

void TestChromeEventReader::readerParsesEventsWhereTheyWereRead()
{
    // Events are parsed in the read buffer, with the bytes around a read's events patched into an array; an
    // event cut by a read is carried into the next buffer, unless it is too large, and then copied like the
    // events before a top-level value. Every separator writers use, a non-object element between events, events
    // larger than a read, and reads of every size from 1 byte up must give the same events as one whole read,
    // in order, with their warnings.
    QTemporaryDir dir;
    const std::string path = dir.filePath(QStringLiteral("t.json")).toStdString();
    constexpr int kEvents = 600;
    std::string expected;
    {
        std::ofstream out(path);
        out << R"({"before": [1, "]"], "traceEvents": [)";
        const char* const separators[] = {",", ", ", ",\n  ", " ,", "\n,\n", ",\t"};
        for (int i = 0; i < kEvents; ++i) {
            if (i > 0)
                out << separators[i % std::size(separators)];
            if (i == 300)
                out << "17, "; // not an object: skipped with a warning, the array around it still read
            // Every 97th event is larger than any read below but the largest, and than what is carried.
            const std::string pad(i % 97 == 5 ? 9000 : static_cast<std::size_t>(i % 13), 'p');
            const std::string name = "e" + std::to_string(i) + (i % 50 == 0 ? "\\\\q" : "");
            out << R"({"ph":"X","name":")" << name << R"(","ts":)" << i << R"(,"dur":1,"pid":1,"tid":1,"args":{"p":")"
                << pad << R"("}})";
            expected += "X name=e" + std::to_string(i) + (i % 50 == 0 ? "\\q" : "")
                + " cat= pid=1# tid=1# ts=" + std::to_string(i * 1000) + " dur=1000 p:s'" + pad + "'\n";
        }
        out << R"(], "after": {"x": "}"}})";
    }
    expected = "top before=[1, \"]\"]\n" + expected + "top after={\"x\": \"}\"}\n";
    for (std::size_t chunk :
         {std::size_t(1), std::size_t(7), std::size_t(64), std::size_t(4096), std::size_t(1) << 20}) {
        for (unsigned threads : {1U, 3U}) {
            EventCollector sink;
            const ChromeReadResult r = readWith(path, sink, threads, chunk);
            QVERIFY2(r.ok(), r.status.message().c_str());
            QCOMPARE(r.events, std::uint64_t(kEvents));
            QVERIFY(!r.truncated);
            if (sink.log != expected) {
                std::size_t at = 0;
                while (at < sink.log.size() && at < expected.size() && sink.log[at] == expected[at])
                    ++at;
                qWarning("chunk %zu threads %u: differs at %zu: got '%s' expected '%s'", chunk, threads, at,
                         sink.log.substr(at > 80 ? at - 80 : 0, 200).c_str(),
                         expected.substr(at > 80 ? at - 80 : 0, 200).c_str());
            }
            QCOMPARE(sink.log, expected);
            QCOMPARE(sink.warnings, (std::vector<std::string> {"not_an_object×1"}));
        }
    }
}

namespace {

// Everything a read hands over, every field and an arg's double by its bits, and the warnings with their messages.
class FullDump : public ChromeEventSink
{
public:
    std::string log;
    void onTopLevel(std::string_view key, std::string_view raw) override
    {
        log += "top " + std::string(key) + "=" + std::string(raw) + "\n";
    }
    void onEvent(const ChromeEvent& e) override
    {
        auto field = [this](bool has, std::string_view v) { log += has ? "[" + std::string(v) + "]" : "-"; };
        log += std::to_string(static_cast<int>(e.ph)) + " ";
        field(true, e.name);
        field(true, e.cat);
        field(e.hasPid, e.pid);
        log += std::to_string(e.pidIsNumber) + ":" + std::to_string(e.pidNumber);
        field(e.hasTid, e.tid);
        log += std::to_string(e.tidIsNumber) + ":" + std::to_string(e.tidNumber);
        log += " ts " + (e.hasTs ? std::to_string(e.ts) : "-") + " dur " + (e.hasDur ? std::to_string(e.dur) : "-");
        field(e.hasId, e.id);
        field(true, e.bp);
        field(true, e.scope);
        log += " args " + std::to_string(e.hasArgs) + " bad " + std::to_string(e.badFields);
        for (const ChromeArg& a : e.args) {
            log += " {" + std::string(a.key) + "|" + std::to_string(static_cast<int>(a.kind)) + "|"
                + std::to_string(a.i) + "|" + std::to_string(std::bit_cast<std::uint64_t>(a.d)) + "|"
                + std::string(a.text) + "}";
        }
        log += "\n";
    }
    void onWarning(timesink::model::ImportWarningKind kind, std::string_view message, std::uint64_t count) override
    {
        log += "warning " + std::string(timesink::model::key(kind)) + " " + std::string(message) + " ×"
            + std::to_string(count) + "\n";
    }
};

// One read of `path` with the plain decoder on or off: the dump, the result, and how many events simdjson decoded.
std::string dumpRead(const std::string& path, bool plain, std::size_t chunk, std::uint64_t* bySimdjson = nullptr)
{
    PhaseTimes phases;
    ImportOptions options;
    options.threads = 2;
    options.phases = &phases;
    ProgressSink progress;
    ChromeEventReader reader(path, options, progress);
    reader.setPlainDecoding(plain);
    reader.setReadChunkBytes(chunk);
    FullDump sink;
    const ChromeReadResult r = reader.read(sink);
    if (bySimdjson)
        *bySimdjson = phases.simdjsonEvents;
    return std::to_string(static_cast<int>(r.status.kind())) + " " + r.status.message() + " events "
        + std::to_string(r.events) + (r.truncated ? " truncated" : "") + "\n" + sink.log;
}

// Events the plain decoder must read exactly as simdjson does, or leave to it: each line is one event.
const char* const kDecoderCases[] = {
    R"({"ph":"X","name":"aten::conv2d","cat":"cpu_op","pid":3096504,"tid":3096504,"ts":"1736408883000000.000","dur":12.5,"args":{"Sequence number":0,"Input Dims":"[[32, 3, 224, 224]]"}})",
    R"({"ph":"s","name":"HostToDevice4000","cat":"HostToDevice","id":"40004631069290000000","pid":3170820320,"tid":3099702,"ts":"1736408883000001.000"})",
    R"({"ph":"f","name":"torch_to_npu","cat":"async_npu","id":1736408883000010000,"pid":1,"tid":2,"ts":"1736408883000010.000","bp":"e"})",
    R"({"name":"AI Core Freq","ts":"1736408883000000.000","pid":3170820544,"tid":0,"args":{"MHz":1800},"ph":"C"})",
    R"(  {  "ph" : "X" ,	"name" : "spaced"
 , "pid" : 1 , "tid" : 1 , "ts" : 1 , "dur" : 2 , "args" : { "a" : [ 1 , { "b" : [ ] } ] , "o" : { } , "e" : [ ] }  }  )",
    R"({"ph":"X","name":"a\"quoted\"","pid":1,"tid":1,"ts":1,"dur":1})",
    R"({"ph":"X","name":"\u00e9t\u00e9","pid":1,"tid":1,"ts":1,"dur":1,"args":{"k\u0065y":"v\/","raw":["\"x\"","\u0041",{"\\":"\n"}]}})",
    R"({"p\u0068":"X","name":"escaped key","pid":1,"tid":1,"ts":1,"dur":1})",
    R"({"ph":"X","name":"été ✓ 名前","cat":"ünï","pid":"Spans","tid":"","ts":1.5e3,"dur":-0.0005,"args":{"s":"日本"}})",
    R"({"ph":"X","name":"nums","pid":-7,"tid":0,"ts":0,"dur":0,"args":{"a":-0,"b":-0.0,"c":1E5,"d":1e-5,"e":12345678901234567890,"f":-9223372036854775808,"g":9223372036854775807,"h":0.1,"i":2.2250738585072014e-308,"j":4.9e-324,"k":1.7976931348623157e308,"l":1e400,"m":1e-400}})",
    R"({"ph":"X","name":"lit","pid":1,"tid":1,"ts":1,"dur":1,"args":{"t":true,"f":false,"n":null}})",
    R"({"ph":"X","name":"badlit","pid":1,"tid":1,"ts":1,"dur":1,"args":{"t":tru}})",
    R"({"ph":"X","name":"badlit2","pid":1,"tid":1,"ts":1,"dur":1,"args":{"n":nulll}})",
    R"({"ph":"X","name":"lead0","pid":1,"tid":1,"ts":01,"dur":1})",
    R"({"ph":"X","name":"dot","pid":1,"tid":1,"ts":1.,"dur":.5})",
    R"({"ph":"X","name":"minus","pid":-,"tid":1,"ts":1,"dur":1})",
    R"({"ph":"X","name":"exp","pid":1,"tid":1,"ts":1e,"dur":1e+})",
    R"({"ph":"X","name":"junk","pid":1,"tid":1,"ts":12abc,"dur":1})",
    R"({"ph":"X","name":"types","pid":1.5,"tid":true,"ts":{},"dur":[],"cat":7,"args":3,"id":null,"bp":1,"s":2})",
    R"({"ph":7,"name":{"a":1},"pid":1,"tid":1,"ts":"x","dur":"1.5","id":{"local":"0x1"}})",
    R"({"ph":"","name":17,"pid":"1","tid":"2","ts":"","dur":""})",
    R"({"ph":"X","ph":"i","name":"dup","name":"dup2","pid":1,"tid":1,"ts":1,"ts":2,"dur":1,"args":{"a":1},"args":{"a":2}})",
    R"({"ph":"X","name":"unknown keys","pid":1,"tid":1,"ts":1,"dur":1,"tts":5,"tdur":{"x":[1,2,{"y":null}]},"bind_id":"a\"b","zzzzz":[[[[1]]]]})",
    R"({"ph":"s","name":"flow name \" escaped","cat":"c","id":1,"pid":1,"tid":1,"ts":1})",
    R"({"name":"flow name first","ph":"s","cat":"c","id":1,"pid":1,"tid":1,"ts":1})",
    R"({})",
    R"({"ph":"X","name":"empty args","pid":1,"tid":1,"ts":1,"dur":1,"args":{}})",
    R"({"ph":"X","name":"trailing comma","pid":1,"tid":1,"ts":1,"dur":1,})",
    R"({"ph":"X","name":"missing colon" "pid":1})",
    R"({"ph":"X","name":"missing value","pid":})",
    R"({"ph":"X","name":"single 'quotes'",'pid':1})",
    R"({"ph":"X","name":"bad escape \x","pid":1,"tid":1,"ts":1,"dur":1})",
    R"({"ph":"X","name":"ok","pid":1,"tid":1,"ts":1,"dur":1,"args":{"bad escape":"\q"}})",
    R"({"ph":"X","name":"ok","pid":1,"tid":1,"ts":1,"dur":1,"zzzzz":"\q skipped"})",
    R"({"ph":"X","name":"short unicode \u00","pid":1})",
    "{\"ph\":\"X\",\"name\":\"control\tchar\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1}",
    "{\"ph\":\"X\",\"name\":\"bad utf8 \xC3\x28\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1}",
    "{\"ph\":\"X\",\"name\":\"nul \x01\",\"pid\":1}",
    R"({"ph":"X","name":"deep","pid":1,"tid":1,"ts":1,"dur":1,"args":{"d":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}})",
    R"({"ph":"X","name":"unclosed nested","pid":1,"tid":1,"ts":1,"dur":1,"args":{"d":[1,2}})",
    R"({"ph":"X","name":"big","pid":123456789012345678901234567890,"tid":1,"ts":99999999999999999999,"dur":1})",
    R"({"ph":"X","name":"true","pid":1,"tid":1,"ts":1,"dur":1,"args":{"x":true ,"y":false	,"z":null
}})",
    R"({"ph":"X","name":"aten::empty","pid":1,"tid":1,"ts":"1736405443863674.400","dur":162.66,"cat":"cpu_op","args":{"Input Dims":";\r\n;\r\n","Input type":"ScalarList;\r\nScalar","Call stack":"a.py(180): f;\r\nb.py(2): g"}})",
    R"({"ph":"X","name":"every escape \" \\ \/ \b \f \n \r \t \u0041\u00e9\u20ac\u0000 end\\","pid":"\u0031","tid":"t\"","ts":"1\u0032.5","dur":1,"id":"\u0078","args":{"\u006b":"\\","e":"","q":"\""}})",
    R"({"ph":"X","name":"pair \ud83d\ude00","pid":1,"tid":1,"ts":1,"dur":1})",
    R"({"ph":"X","name":"lone high \ud83d","pid":1,"tid":1,"ts":1,"dur":1})",
    R"({"ph":"X","name":"lone low \ude00 x","pid":1,"tid":1,"ts":1,"dur":1})",
    R"({"ph":"X","name":"bad hex \u00zz","pid":1,"tid":1,"ts":1,"dur":1})",
    R"({"ph":"X","name":"ok","pid":1,"tid":1,"ts":1,"dur":1,"args":{"s":"\u00E9\u00c9"}})",
    R"({"ph":"X","name":"escape then control \n)"
    "\x01"
    R"(","pid":1})",
};

} // namespace

void TestChromeEventReader::plainDecoderAgreesWithSimdjson()
{
    // The plain decoder reads what it can and leaves the rest to simdjson, which stays the reference: every case
    // alone (a batch of one), and all of them in one array (a batch that simdjson reads event by event once one is
    // malformed), read in one piece and in 7-byte pieces, must give the same events and warnings either way.
    QTemporaryDir dir;
    std::string all = "[\n";
    int n = 0;
    std::uint64_t bySimdjson = 0; // cases the plain decoder declined
    for (const char* c : kDecoderCases) {
        const std::string path = dir.filePath(QStringLiteral("case%1.json").arg(n++)).toStdString();
        {
            std::ofstream out(path, std::ios::binary);
            out << "[" << c << "]";
        }
        const std::string reference = dumpRead(path, false, 1 << 20);
        std::uint64_t caseBySimdjson = 0;
        const std::string plain = dumpRead(path, true, 1 << 20, &caseBySimdjson);
        bySimdjson += caseBySimdjson;
        if (plain != reference)
            qWarning("case %d: %s\nplain:     %s\nreference: %s", n - 1, c, plain.c_str(), reference.c_str());
        QCOMPARE(plain, reference);
        QCOMPARE(dumpRead(path, true, 7), reference);
        all += std::string(all.size() > 2 ? ",\n" : "") + c;
    }
    all += "\n]";
    const std::string path = dir.filePath(QStringLiteral("all.json")).toStdString();
    {
        std::ofstream out(path, std::ios::binary);
        out << all;
    }
    const std::string reference = dumpRead(path, false, 1 << 20);
    QCOMPARE(dumpRead(path, true, 1 << 20), reference);
    QCOMPARE(dumpRead(path, true, 64), reference);
    // Exactly the 26 cases that are not valid JSON or UTF-8, nest past 64, escape a UTF-16 surrogate or hold a
    // number beyond a double went to simdjson; the others (escapes included) did not.
    QCOMPARE(bySimdjson, std::uint64_t(26));
    // What the reference made of a few of them, so the comparison is not between two empty reads.
    QVERIFY(reference.find("[a\"quoted\"]") != std::string::npos);
    QVERIFY(reference.find("{MHz|0|1800|") != std::string::npos);
    QVERIFY(reference.find("warning malformed_event") != std::string::npos);
}

void TestChromeEventReader::plainDecoderTakesCommonEvents()
{
    // Kineto's and torch_npu's events as profilers write them (escapes included: torch_npu separates the shapes
    // of an operator's inputs with "\r\n") never need simdjson.
    QTemporaryDir dir;
    const std::string path = dir.filePath(QStringLiteral("t.json")).toStdString();
    {
        std::ofstream out(path, std::ios::binary);
        out << R"({"schemaVersion": 1, "traceEvents": [)" << '\n';
        for (int i = 0; i < 2000; ++i) {
            out << (i ? ",\n" : "")
                << R"x(  {"ph": "X", "cat": "kernel", "name": "void at::native::kernel<float>(int)", "pid": 0, "tid": 7, "ts": )x"
                << 1736408883700059 + i << R"(.821, "dur": 3.5, "args": {"correlation": )" << i
                << R"(, "grid": [1, 2, 3], "est. achieved occupancy %": 98, "stream": 7, "ok": true, )"
                << R"("Input Dims": ";\r\n[3, 224]\r\n", "Call stack": "\"train.py\"(12): main"}})";
        }
        out << "\n]}";
    }
    std::uint64_t bySimdjson = 1;
    const std::string dump = dumpRead(path, true, 1 << 20, &bySimdjson);
    QCOMPARE(bySimdjson, std::uint64_t(0));
    QVERIFY(dump.find(" events 2000\n") != std::string::npos);
    QCOMPARE(dump, dumpRead(path, false, 1 << 20));
}

QTEST_APPLESS_MAIN(TestChromeEventReader)
#include "tst_chromeeventreader.moc"
