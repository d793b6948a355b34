// SPDX-License-Identifier: MIT
// Issue 12 at the layers: the UTF-8 and checked-arithmetic helpers, the builder's time boundary and text
// sanitising, and InputStream's decompression limits and zstd framing.
#include "hardeninghelpers.h"
#include "model/checkedmath.h"
#include "model/tracebuilder.h"
#include "model/utf8.h"
#include "parsers/common/inputstream.h"
#include "parsers/common/regularfile.h"
#include "parsers/registry/traceloader.h"
#include "tests/common/status.h"

#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>

using namespace timesink;
using namespace timesink::testing;

namespace {

std::string readAll(parsers::InputStream& s)
{
    std::string out;
    char buf[1 << 16];
    for (std::size_t n; (n = s.read(buf, sizeof buf)) > 0;)
        out.append(buf, n);
    return out;
}

} // namespace

class TestHardening : public QObject
{
    Q_OBJECT
private slots:
    void utf8ValidationFollowsUnicode()
    {
        using model::isValidUtf8;
        using model::toValidUtf8;
        QVERIFY(isValidUtf8("plain ascii, long enough to take the eight-byte path"));
        QVERIFY(isValidUtf8("\xe5\x8d\xb7\xe7\xa7\xaf conv \xf0\x9f\x94\xa5"));
        QVERIFY(!isValidUtf8("\xbe\xed\xbb\xfd")); // GBK
        QVERIFY(!isValidUtf8("\xc0\xaf"));         // overlong '/'
        QVERIFY(!isValidUtf8("\xed\xa0\x80"));     // surrogate
        QVERIFY(!isValidUtf8("\xf4\x90\x80\x80")); // above U+10FFFF
        QVERIFY(!isValidUtf8("abc\xe5\x8d"));      // cut sequence
        std::size_t replaced = 0;
        QCOMPARE(toValidUtf8("a\xff"
                             "b",
                             &replaced),
                 std::string("a\xef\xbf\xbd"
                             "b"));
        QCOMPARE(replaced, std::size_t(1));
        // A cut 3-byte sequence is one maximal subpart: one U+FFFD, and the next byte starts over.
        QCOMPARE(toValidUtf8("\xe5\x8d"
                             "x"),
                 std::string("\xef\xbf\xbd"
                             "x"));
        QCOMPARE(toValidUtf8("\xe5\x8d\xb7"), std::string("\xe5\x8d\xb7"));
        QVERIFY(isValidUtf8(toValidUtf8("\xc3(\xa0\xa1\xf0\x28\x8c\xbc")));
    }

    void checkedMathNeverWraps()
    {
        using model::doubleToInt64;
        QVERIFY(!doubleToInt64(1e308));
        QVERIFY(!doubleToInt64(-1e308));
        QVERIFY(!doubleToInt64(std::nan("")));
        QVERIFY(!doubleToInt64(std::numeric_limits<double>::infinity()));
        QVERIFY(!doubleToInt64(9223372036854775808.0));
        QCOMPARE(*doubleToInt64(-9223372036854775808.0), std::numeric_limits<std::int64_t>::min());
        QCOMPARE(*doubleToInt64(2.5), std::int64_t(2)); // round half to even, like nearbyint
        QCOMPARE(*doubleToInt64(1e15), std::int64_t(1'000'000'000'000'000));
        QCOMPARE(model::doubleToInt64Clamped(1e308), std::numeric_limits<std::int64_t>::max());
        QCOMPARE(model::saturatingAdd(std::int64_t(9e18), std::int64_t(9e18)),
                 std::numeric_limits<std::int64_t>::max());
        QCOMPARE(model::saturatingSub(std::int64_t(-9e18), std::int64_t(9e18)),
                 std::numeric_limits<std::int64_t>::min());
        QVERIFY(!model::timeInRange(std::int64_t(9e18)));
        QVERIFY(model::timeInRange(std::int64_t(1.7e18))); // today as epoch ns
    }

    // The builder is the import boundary for time and text: out-of-range slices are dropped and counted, ill-formed
    // UTF-8 anywhere in the trace is replaced and said once.
    void builderDropsOutOfRangeAndSanitisesText()
    {
        model::TraceBuilder b;
        const auto t = b.hostThread("main\xff");
        b.slice(t, model::SliceCategory::HostOp, "ok", 1000, 10);
        b.slice(t, model::SliceCategory::HostOp, "early", std::int64_t(-9e18), 10);
        b.slice(t, model::SliceCategory::HostOp, "ends too late", model::kMaxTimeNs - 5, 10);
        b.slice(t, model::SliceCategory::HostOp, "gbk \xbe\xed\xbb\xfd", 2000, 10);
        b.addCounterSample(t, std::int64_t(9e18), 1.0);
        b.warn(model::ImportWarningKind::MalformedEvent, "quoting {\"name\": \"\xc3(\"}");
        b.metadata().sourcePath = "/tmp/\xe9t\xe9.json"; // Latin-1 file name
        const model::TracePtr trace = b.finalize();
        QCOMPARE(trace->sliceCount(), std::size_t(2));
        QCOMPARE(trace->spanNs(), model::TimeNs(1010));
        std::uint64_t outOfRange = 0;
        std::uint64_t invalid = 0;
        for (const model::ImportWarning& w : trace->warnings()) {
            QVERIFY(model::isValidUtf8(w.message));
            if (w.kind == "time_out_of_range")
                outOfRange = w.count;
            if (w.kind == "invalid_utf8")
                invalid = w.count;
        }
        QCOMPARE(outOfRange, std::uint64_t(3));
        QCOMPARE(invalid, std::uint64_t(4)); // track name, slice name, warning message, source path
        for (std::uint32_t i = 0; i < trace->strings().size(); ++i)
            QVERIFY(model::isValidUtf8(trace->str(model::StringId(i))));
        QVERIFY(model::isValidUtf8(trace->metadata().sourcePath));
        QCOMPARE(trace->str(trace->tracks()[0].name), std::string_view("main\xef\xbf\xbd"));
    }

    // Decompressed size is bounded by a ratio to the compressed size and by an absolute cap; the message names
    // both and the option that raises them.
    void decompressionLimitsStopABomb()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("bomb.gz"));
        QVERIFY(writeBytes(path, gzipBytes(QByteArray(1 << 20, 'x'), 16))); // 16 MiB in ~16 KiB
        parsers::DecompressionLimits limits;
        limits.maxRatio = 100;
        limits.ratioFloorBytes = 0;
        std::string error;
        auto s = parsers::InputStream::open(path.toStdString(), error, limits);
        QVERIFY2(s, error.c_str());
        const std::string data = readAll(*s);
        QVERIFY(s->limitHit());
        QCOMPARE(data.size(), static_cast<std::size_t>(s->fileSize() * 100));
        QVERIFY(s->limitMessage().find("ratio limit") != std::string::npos);
        QVERIFY(s->limitMessage().find("--max-decompressed") != std::string::npos);

        limits = {};
        limits.maxBytes = 1 << 20;
        s = parsers::InputStream::open(path.toStdString(), error, limits);
        QCOMPARE(readAll(*s).size(), std::size_t(1) << 20);
        QVERIFY(s->limitMessage().find("absolute limit") != std::string::npos);

        // The defaults let a real trace through.
        s = parsers::InputStream::open(TIMESINK_FIXTURES_DIR "/torch/hta_a100_trace_diff_control.json.gz", error);
        QCOMPARE(readAll(*s).size(), std::size_t(34825284));
        QVERIFY(!s->limitHit());
    }

    // Whitespace without end, even after a valid start, stops with an error instead of minutes of reading.
    void whitespaceRunsStopEarly()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("ws.json.gz"));
        QVERIFY(writeBytes(path, gzipBytes(QByteArray(1 << 20, ' '), 40, "{\"traceEvents\": [{\"ph\": \"X\"},", "]}")));
        std::string error;
        auto s = parsers::InputStream::open(path.toStdString(), error);
        const std::string data = readAll(*s);
        QVERIFY(data.size() < (20U << 20));
        QVERIFY2(s->error().find("nothing but whitespace") != std::string::npos, s->error().c_str());
    }

    // zstd: skippable frames (pzstd) are read past; the path and the reader agree on "zstd".
    void zstdSkippableFramesAreRead()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("pz.zst"));
        QByteArray bytes("\x5f\x2a\x4d\x18\x02\x00\x00\x00\xab\xcd", 10);
        bytes += zstdBytes("{\"traceEvents\": []}");
        QVERIFY(writeBytes(path, bytes));
        std::string error;
        auto s = parsers::InputStream::open(path.toStdString(), error);
        QVERIFY(s);
        QCOMPARE(s->compression(), parsers::InputStream::Compression::Zstd);
        QCOMPARE(readAll(*s), std::string("{\"traceEvents\": []}"));
        QVERIFY(s->error().empty());
    }

    void specialFilesAreNeverOpened()
    {
        QTemporaryDir dir;
        const QString fifo = dir.filePath(QStringLiteral("f"));
        QVERIFY(makeFifo(fifo));
        std::string error;
        QCOMPARE(parsers::openRegularFile(fifo.toStdString(), error), -1);
        QVERIFY(error.find("not a regular file (it is a FIFO)") != std::string::npos);
        QVERIFY(!parsers::InputStream::open("/dev/zero", error));
        QVERIFY(error.find("character device") != std::string::npos);
        std::string text;
        QVERIFY(!parsers::readSmallRegularFile("/dev/zero", 1 << 20, "operator map", text, error));
        QVERIFY(!parsers::notRegularFileReason("/dev/null").empty());
        QVERIFY(parsers::notRegularFileReason(TIMESINK_FIXTURES_DIR "/torch/hta_triton_example.json.gz").empty());
    }

    // A torch_npu run folder whose ASCEND_PROFILER_OUTPUT is a link to where the data was written (issue 49) opens
    // as the same run; a link back up the tree (a loop) is named as a problem and not listed again.
    void linkedProfilerOutputIsFollowed()
    {
        namespace fs = std::filesystem;
        const fs::path fixture = fs::path(TIMESINK_FIXTURES_DIR) / "torch_npu/msinsight_text_level0_rank0_ascend_pt";
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        const fs::path run = root / "rank0_ascend_pt";
        const fs::path data = root / "storage" / "output";
        fs::create_directories(run);
        fs::create_directories(data);
        for (const char* f : {"profiler_info_0.json", "profiler_metadata.json"})
            fs::copy_file(fixture / f, run / f);
        fs::copy(fixture / "ASCEND_PROFILER_OUTPUT", data);
        fs::create_directory_symlink("../storage/output", run / "ASCEND_PROFILER_OUTPUT");
        fs::create_directory_symlink("../../rank0_ascend_pt", data / "back_to_the_run");

        const model::Expected<parsers::SourceProbe> probed = parsers::probeSource(run);
        QVERIFY_OK(probed);
        const parsers::SourceProbe& probe = probed.value();
        const auto listed = [&](const std::string& entry) {
            return std::find(probe.entries.begin(), probe.entries.end(), fs::path(entry)) != probe.entries.end();
        };
        QVERIFY(listed("ASCEND_PROFILER_OUTPUT/trace_view.json"));
        QVERIFY(listed("ASCEND_PROFILER_OUTPUT/kernel_details.csv"));
        for (const fs::path& e : probe.entries)
            QVERIFY2(e.string().find("back_to_the_run/") == std::string::npos, e.c_str());
        QVERIFY(std::any_of(probe.problems.begin(), probe.problems.end(), [](const std::string& p) {
            return p.find("back_to_the_run: a link to a folder listed already") != std::string::npos;
        }));

        parsers::ProgressSink progress;
        const parsers::ImportResult viaLink = parsers::loadTrace(run, {}, progress);
        QVERIFY2(viaLink.ok(), viaLink.status().message().c_str());
        const parsers::ImportResult direct = parsers::loadTrace(fixture, {}, progress);
        QVERIFY2(direct.ok(), direct.status().message().c_str());
        QCOMPARE(viaLink.value()->sliceCount(), direct.value()->sliceCount());
        QCOMPARE(viaLink.value()->flows().size(), direct.value()->flows().size());
        QCOMPARE(viaLink.value()->metadata().format, direct.value()->metadata().format);
    }

    // Many distinct pid/tid pairs: one track each (correctness; the time is measured by bench_tracks).
    void manyDistinctThreadsGetOneTrackEach()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("threads.json"));
        QByteArray json = "{\"schemaVersion\": 1, \"traceEvents\": [";
        constexpr int kThreads = 20000;
        for (int i = 0; i < kThreads; ++i) {
            json += (i ? "," : "") + QByteArray("{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op\",\"pid\":")
                + QByteArray::number(i / 100) + ",\"tid\":" + QByteArray::number(i) + ",\"ts\":" + QByteArray::number(i)
                + ",\"dur\":1}";
        }
        json += "]}";
        QVERIFY(writeBytes(path, json));
        parsers::ProgressSink progress;
        const parsers::ImportResult r = parsers::loadTrace(path.toStdString(), {}, progress);
        QVERIFY2(r.ok(), r.status().message().c_str());
        QCOMPARE(r.value()->tracks().size(), std::size_t(kThreads));
        QCOMPARE(r.value()->sliceCount(), std::size_t(kThreads));
    }
};

QTEST_GUILESS_MAIN(TestHardening)
#include "tst_hardening.moc"
