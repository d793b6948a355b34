// SPDX-License-Identifier: MIT
// Issue 12, end to end through timesink-cli: every bad input gets a clear error, nothing is ever lost. One test per
// class of the issue; each failed (crashed, hung, printed wrong numbers or lost a file) before the fix.
#include "hardeninghelpers.h"
#include "model/memoryhint.h"
#include "model/utf8.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>
#include <unistd.h>

using namespace timesink::testing;

namespace {

const QString kCli = QStringLiteral(TIMESINK_CLI_PATH);
const QString kFixtures = QStringLiteral(TIMESINK_FIXTURES_DIR);
const QString kKineto = kFixtures + QStringLiteral("/torch/hta_a100_cuda_event_sync_trace.json.gz");
const QString kTorchNpu = kFixtures + QStringLiteral("/torch_npu/msinsight_text_level0_rank0_ascend_pt");
const QString kProf = kFixtures + QStringLiteral("/msprof/neo-pan_real_cann_minimal_sanitized/PROF_001");
const QString kDb = kFixtures + QStringLiteral("/msprof/msinsight_test_full_db_msprof_0.db");

HardRun cli(const QStringList& args, int timeoutMs = 60000, const QString& stdoutFile = {})
{
    return runTool(kCli, args, timeoutMs, stdoutFile);
}

/// A small Kineto trace: the Kineto marks in the head, then `events` (JSON objects, comma separated).
QByteArray kinetoTrace(const QByteArray& events, const QByteArray& extraTopLevel = {})
{
    return "{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0, \"name\": \"GPU\"}]" + extraTopLevel
        + ", \"traceEvents\": [" + events + "]}";
}

QByteArray traceEvent(const QByteArray& name, qint64 tsUs, qint64 durUs, int tid = 1, const QByteArray& cat = "cpu_op",
                      const QByteArray& args = {})
{
    return "{\"ph\": \"X\", \"cat\": \"" + cat + "\", \"name\": \"" + name
        + "\", \"pid\": 1, \"tid\": " + QByteArray::number(tid) + ", \"ts\": " + QByteArray::number(tsUs)
        + ", \"dur\": " + QByteArray::number(durUs) + (args.isEmpty() ? QByteArray() : ", \"args\": " + args) + "}";
}

nlohmann::json parseJson(const QByteArray& text)
{
    return nlohmann::json::parse(text.constData(), text.constData() + text.size(), nullptr, false);
}

bool hasWarning(const nlohmann::json& info, const std::string& kind, std::uint64_t* count = nullptr)
{
    if (!info.contains("warnings"))
        return false;
    for (const auto& w : info["warnings"]) {
        if (w.value("kind", std::string()) == kind) {
            if (count)
                *count = w.value("count", std::uint64_t(0));
            return true;
        }
    }
    return false;
}

bool validUtf8(const QByteArray& bytes)
{
    return timesink::model::isValidUtf8(std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())));
}

} // namespace

class TestHardeningCli : public QObject
{
    Q_OBJECT
private slots:
    // The suite never reads or writes the user's cache or settings: this test's CLI runs get a home of their
    // own. It runs twice (tests/hardening/CMakeLists.txt): once with no snapshot cache at all, and once
    // (TIMESINK_TEST_CACHE=populated) with the cache directory already holding entries, as on any machine where
    // the GUI or `--cache` ran before. Before: `info FIFO` hung forever in the second case (the cache lookup
    // opened the FIFO to hash it).
    void initTestCase()
    {
        QVERIFY(m_home.isValid());
        qputenv("XDG_CACHE_HOME", m_home.filePath(QStringLiteral("cache")).toUtf8());
        qputenv("XDG_CONFIG_HOME", m_home.filePath(QStringLiteral("config")).toUtf8());
        if (qgetenv("TIMESINK_TEST_CACHE") != "populated")
            return;
        for (const QString& trace : {kKineto, kTorchNpu, kProf, kDb}) {
            const HardRun r = cli({QStringLiteral("info"), QStringLiteral("--cache"), trace});
            QVERIFY2(r.exitCode == 0, r.err.constData());
        }
        const QDir entries(m_home.filePath(QStringLiteral("cache/timesink/snapshots")));
        QCOMPARE(entries.entryList({QStringLiteral("*.tsnap")}, QDir::Files).size(), 4);
    }

    // A read-only home (and so no cache directory to be had), or a read-only cache directory: every command
    // still works; `--cache` says the snapshot was not cached and why, and the exit code stays 0.
    void readOnlyHomeAndCache()
    {
        QTemporaryDir dir;
        QVERIFY(QFile::setPermissions(
            dir.path(), QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner | QFile::ReadOther | QFile::ExeOther));
        const QString trace = dir.filePath(QStringLiteral("trace.json.gz"));
        QVERIFY(QFile::copy(kKineto, trace));
        QVERIFY(QFile::setPermissions(trace, QFile::ReadOwner | QFile::ReadOther));
        const QString home = dir.filePath(QStringLiteral("home"));
        const QString cacheHome = dir.filePath(QStringLiteral("cachehome"));
        QVERIFY(QDir().mkpath(home) && QDir().mkpath(cacheHome + QStringLiteral("/timesink/snapshots")));
        const HardRun plain = cli({QStringLiteral("info"), QStringLiteral("--no-cache"), trace});
        QCOMPARE(plain.exitCode, 0);
        const auto readOnly = QFile::ReadOwner | QFile::ExeOwner | QFile::ReadOther | QFile::ExeOther;
        for (const QString& d : {home, cacheHome + QStringLiteral("/timesink/snapshots"),
                                 cacheHome + QStringLiteral("/timesink"), cacheHome})
            QVERIFY(QFile::setPermissions(d, readOnly));
        // Root writes anywhere: run as nobody when we are root (the folders are root's, so read-only to nobody).
        const bool root = ::geteuid() == 0;
        for (const bool xdg : {false, true}) {
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            env.insert(QStringLiteral("HOME"), home);
            if (xdg)
                env.insert(QStringLiteral("XDG_CACHE_HOME"), cacheHome);
            else
                env.remove(QStringLiteral("XDG_CACHE_HOME"));
            env.remove(QStringLiteral("XDG_CONFIG_HOME"));
            QProcess p;
            p.setProcessEnvironment(env);
            QStringList args = {QStringLiteral("info"), QStringLiteral("--cache"), trace};
            if (root)
                p.start(QStringLiteral("setpriv"),
                        QStringList {QStringLiteral("--reuid=65534"), QStringLiteral("--regid=65534"),
                                     QStringLiteral("--clear-groups"), kCli}
                            + args);
            else
                p.start(kCli, args);
            QVERIFY(p.waitForFinished(60000));
            const QByteArray err = p.readAllStandardError();
            QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0, err.constData());
            QCOMPARE(p.readAllStandardOutput(), plain.out);
            QVERIFY2(err.contains("snapshot not cached"), err.constData());
        }
        for (const QString& d : {cacheHome, cacheHome + QStringLiteral("/timesink"),
                                 cacheHome + QStringLiteral("/timesink/snapshots"), home})
            QFile::setPermissions(d, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    }

    // ---- Crashes and wrong numbers ----

    // Bytes that are not UTF-8 (a malformed event quoted in a warning, a GBK RKNN log) reach every writer: each
    // emits valid UTF-8 (JSON parses), and the trace says so once. Before: `info --format json` aborted with
    // nlohmann type_error 316.
    void writersEmitValidUtf8ForAnyBytes()
    {
        QTemporaryDir dir;
        const QString kineto = dir.filePath(QStringLiteral("bad-bytes.json"));
        QByteArray events = traceEvent("aten::mm", 1000, 50) + ", " + traceEvent("aten::\xff\xfe-op", 1100, 30) + ", "
            + "{\"ph\": \"X\", \"name\": \"\xc3(\xa0\", \"pid\": 1, \"tid\": 1, \"ts\": \"1200\", \"dur\": [1]}";
        QVERIFY(writeBytes(kineto, kinetoTrace(events)));
        // An RKNN perf table from a Chinese Windows console (GBK, not UTF-8) in its layer names.
        QByteArray rknn
            = readBytes(kFixtures + QStringLiteral("/rknn/toolkit2_2.3.2_rk3588_eval_perf_layers_yolov8n_640.txt"));
        QVERIFY(!rknn.isEmpty());
        rknn.replace("Conv", "Conv\xbe\xed\xbb\xfd"); // 卷积 in GBK
        const QString rknnPath = dir.filePath(QStringLiteral("gbk-perf.txt"));
        QVERIFY(writeBytes(rknnPath, rknn));

        for (const QString& input : {kineto, rknnPath}) {
            const HardRun info
                = cli({QStringLiteral("info"), input, QStringLiteral("--format"), QStringLiteral("json")});
            QVERIFY2(info.exitCode == 0, info.err.constData());
            QVERIFY(validUtf8(info.out));
            const nlohmann::json j = parseJson(info.out);
            QVERIFY2(!j.is_discarded(), info.out.left(400).constData());
            std::uint64_t replaced = 0;
            QVERIFY2(hasWarning(j, "invalid_utf8", &replaced), info.out.left(2000).constData());
            QVERIFY(replaced >= 1);
            const HardRun text = cli({QStringLiteral("info"), input});
            QCOMPARE(text.exitCode, 0);
            QVERIFY(validUtf8(text.out));
            QVERIFY(text.out.contains("invalid_utf8"));
            for (const char* ext : {"json", "md", "html", "csv"}) {
                const QString out = dir.filePath(QStringLiteral("report.") + QLatin1String(ext));
                const HardRun r = cli({QStringLiteral("analyze"), input, QStringLiteral("-o"), out});
                QVERIFY2(r.exitCode == 0, r.err.constData());
                const QByteArray written = readBytes(out);
                QVERIFY2(validUtf8(written), ext);
                if (QLatin1String(ext) == QLatin1String("json"))
                    QVERIFY(!parseJson(written).is_discarded());
            }
            const HardRun analyzeText = cli({QStringLiteral("analyze"), input});
            QCOMPARE(analyzeText.exitCode, 0);
            QVERIFY(validUtf8(analyzeText.out));
            for (const char* ext : {"json", "pftrace"}) {
                const QString out = dir.filePath(QStringLiteral("export.") + QLatin1String(ext));
                const HardRun r = cli({QStringLiteral("export"), input, QStringLiteral("-o"), out});
                QVERIFY2(r.exitCode == 0, r.err.constData());
                if (QLatin1String(ext) == QLatin1String("json")) {
                    const QByteArray written = readBytes(out);
                    QVERIFY(validUtf8(written));
                    QVERIFY(!parseJson(written).is_discarded());
                }
            }
        }
    }

    // Extreme but well-formed times: events at ±9e15 µs and a time base that overflows when added are dropped and
    // counted (time_out_of_range); the span and the per-operator totals never wrap. Before: a negative span and a
    // negative operator total with exit 0.
    void extremeTimesAreDroppedAndSumsNeverWrap()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("extreme.json"));
        // Three 4e15 µs (4e18 ns) operators on three threads: each fits, their sum (1.2e19 ns) does not.
        const QByteArray events = traceEvent("aten::huge", 0, 4'000'000'000'000'000LL, 1) + ", "
            + traceEvent("aten::huge", 0, 4'000'000'000'000'000LL, 2) + ", "
            + traceEvent("aten::huge", 0, 4'000'000'000'000'000LL, 3) + ", "
            + traceEvent("aten::early", -9'000'000'000'000'000LL, 1, 4) + ", "
            + traceEvent("aten::late", 9'000'000'000'000'000LL, 1, 4) + ", "
            + traceEvent("aten::wraps", 4'000'000'000'000'000LL, 4'000'000'000'000'000LL, 5);
        QVERIFY(writeBytes(path, kinetoTrace(events)));
        const HardRun info = cli({QStringLiteral("info"), path, QStringLiteral("--format"), QStringLiteral("json")});
        QVERIFY2(info.exitCode == 0, info.err.constData());
        const nlohmann::json j = parseJson(info.out);
        QVERIFY(!j.is_discarded());
        std::uint64_t dropped = 0;
        QVERIFY(hasWarning(j, "time_out_of_range", &dropped));
        QCOMPARE(dropped, std::uint64_t(3)); // early, late, and the one whose end overflows
        QCOMPARE(j["slices"].get<std::int64_t>(), std::int64_t(3));
        QCOMPARE(j["span_ns"].get<std::int64_t>(), std::int64_t(4'000'000'000'000'000'000LL));

        const HardRun analyze
            = cli({QStringLiteral("analyze"), path, QStringLiteral("--format"), QStringLiteral("json")});
        QVERIFY2(analyze.exitCode == 0, analyze.err.constData());
        const nlohmann::json report = parseJson(analyze.out);
        QVERIFY(!report.is_discarded());
        bool sawHuge = false;
        for (const auto& op : report["top_operators"]) {
            QVERIFY2(op["total_ns"].get<std::int64_t>() >= 0, op.dump().c_str());
            if (op["name"] == "aten::huge") {
                sawHuge = true;
                QCOMPARE(op["total_ns"].get<std::int64_t>(), std::numeric_limits<std::int64_t>::max());
            }
        }
        QVERIFY(sawHuge);

        // A time base that overflows every event's time.
        const QString based = dir.filePath(QStringLiteral("base.json"));
        // 4e18 ns + 1e15 µs is beyond the range; 4e18 ns + 10 µs is not.
        QVERIFY(writeBytes(
            based,
            kinetoTrace(traceEvent("aten::mm", 1'000'000'000'000'000LL, 5) + ", " + traceEvent("aten::mm", 10, 5),
                        ", \"baseTimeNanoseconds\": 4000000000000000000")));
        const HardRun b = cli({QStringLiteral("info"), based, QStringLiteral("--format"), QStringLiteral("json")});
        QVERIFY2(b.exitCode == 0, b.err.constData());
        const nlohmann::json bj = parseJson(b.out);
        QVERIFY(hasWarning(bj, "time_out_of_range", &dropped));
        QCOMPARE(dropped, std::uint64_t(1));
        QCOMPARE(bj["span_ns"].get<std::int64_t>(), std::int64_t(5000));
        // Every event out of range: the error says so instead of "no usable events" alone.
        QVERIFY(writeBytes(based, kinetoTrace(traceEvent("aten::mm", 9'000'000'000'000'000LL, 5))));
        const HardRun none = cli({QStringLiteral("info"), based});
        QCOMPARE(none.exitCode, 2);
        QVERIFY2(none.err.contains("time_out_of_range"), none.err.constData());
    }

    // Doubles that do not fit an int64 (a copy of 1e308 bytes, an External id of 1e308) are range-checked: the
    // import and the analysis finish. (Undefined behaviour before; the asan preset's float-cast-overflow check
    // catches a regression.)
    void hugeDoublesAreRangeChecked()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("doubles.json"));
        const QByteArray events = traceEvent("aten::copy_", 1000, 100, 1, "cpu_op", "{\"External id\": 1e308}") + ", "
            + "{\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy HtoD (Pageable -> Device)\", \"pid\": 0, "
              "\"tid\": 7, \"ts\": 1010, \"dur\": 50, \"args\": {\"bytes\": 1e308, \"External id\": 1e308, "
              "\"correlation\": -1e308, \"device\": 0, \"stream\": 7}}";
        QVERIFY(writeBytes(path, kinetoTrace(events)));
        for (const char* format : {"json", "text"}) {
            const HardRun r = cli({QStringLiteral("analyze"), path, QStringLiteral("--format"), QLatin1String(format)});
            QVERIFY2(r.exitCode == 0, r.err.constData());
        }
        const HardRun c
            = cli({QStringLiteral("compare"), path, path, QStringLiteral("--format"), QStringLiteral("json")});
        QVERIFY2(c.exitCode == 0, c.err.constData());
    }

    // ---- Hangs and unbounded memory ----

    // A FIFO or device anywhere in the input: given directly, as a file of a bundle, as msprof JSON, as a database,
    // or as a symlink to /dev/zero. Nothing blocks; the output says "not a regular file". Before: blocked forever
    // (or read /dev/zero without end, or skipped the file silently).
    void nonRegularFilesAreNamedNeverOpened()
    {
        QTemporaryDir dir;
        const QString fifo = dir.filePath(QStringLiteral("trace.json"));
        QVERIFY(makeFifo(fifo));
        HardRun r = cli({QStringLiteral("info"), fifo}, 20000);
        QVERIFY2(!r.timedOut, "blocked on a FIFO");
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("not a regular file"), r.err.constData());
        // Every command, also with the cache in use (--cache: the lookup must not open it either), `export` to a
        // snapshot (which records the source's identity) and `job` (which looks for a rank report in it).
        const QStringList commands[] = {
            {QStringLiteral("info"), QStringLiteral("--cache"), fifo},
            {QStringLiteral("analyze"), fifo},
            {QStringLiteral("export"), fifo, QStringLiteral("-o"), dir.filePath(QStringLiteral("out.tsnap"))},
            {QStringLiteral("job"), fifo},
        };
        for (const QStringList& args : commands) {
            r = cli(args, 20000);
            QVERIFY2(!r.timedOut, qPrintable(args.join(QLatin1Char(' '))));
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(r.err.contains("not a regular file"), r.err.constData());
        }

        const QString dbFifo = dir.filePath(QStringLiteral("msprof_0.db"));
        QVERIFY(makeFifo(dbFifo));
        r = cli({QStringLiteral("info"), dbFifo}, 20000);
        QVERIFY2(!r.timedOut, "blocked on a FIFO named .db");
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("not a regular file"), r.err.constData());

        // One file of a torch_npu bundle replaced by a FIFO or a symlink to /dev/zero, in turn.
        const QStringList members = {QStringLiteral("trace_view.json"), QStringLiteral("kernel_details.csv"),
                                     QStringLiteral("step_trace_time.csv"), QStringLiteral("op_statistic.csv")};
        for (const QString& member : members) {
            for (bool zero : {false, true}) {
                QTemporaryDir bundleDir;
                const QString bundle = bundleDir.filePath(QStringLiteral("rank0_ascend_pt"));
                QVERIFY(copyTree(kTorchNpu, bundle));
                const QString target = bundle + QStringLiteral("/ASCEND_PROFILER_OUTPUT/") + member;
                QFile::remove(target);
                if (zero)
                    QVERIFY(QFile::link(QStringLiteral("/dev/zero"), target));
                else
                    QVERIFY(makeFifo(target));
                r = cli({QStringLiteral("info"), bundle}, 30000);
                QVERIFY2(!r.timedOut, qPrintable(member));
                QVERIFY2(r.exitCode == 0 || r.exitCode == 2, r.err.constData());
                QVERIFY2(r.all().contains("not a regular file"),
                         qPrintable(member + QStringLiteral(": ") + QString::fromUtf8(r.all())));
                QVERIFY(r.all().contains(member.toUtf8()));
            }
        }
        // msprof JSON of a PROF_ folder.
        QTemporaryDir profDir;
        const QString prof = profDir.filePath(QStringLiteral("PROF_001"));
        QVERIFY(copyTree(kProf, prof));
        const QString msprofFifo = prof + QStringLiteral("/mindstudio_profiler_output/msprof_001.json");
        QVERIFY(makeFifo(msprofFifo));
        r = cli({QStringLiteral("info"), prof}, 30000);
        QVERIFY2(!r.timedOut, "blocked on msprof_*.json FIFO");
        QVERIFY2(r.all().contains("not a regular file"), r.all().constData());
    }

    // --op-map reads only regular files and at most 16 MB. Before: /dev/zero grew without bound.
    void operatorMapIsBoundedAndRegular()
    {
        HardRun r = cli(
            {QStringLiteral("compare"), kKineto, kKineto, QStringLiteral("--op-map"), QStringLiteral("/dev/zero")},
            20000);
        QVERIFY2(!r.timedOut, "read /dev/zero without end");
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("not a regular file"), r.err.constData());

        QTemporaryDir dir;
        const QString big = dir.filePath(QStringLiteral("big.tsv"));
        QByteArray line("aten::mm\tmatmul\n");
        QVERIFY(writeBytes(big, line.repeated((17 << 20) / line.size())));
        r = cli({QStringLiteral("compare"), kKineto, kKineto, QStringLiteral("--op-map"), big}, 20000);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("larger than 16 MB"), r.err.constData());
    }

    // Decompression bombs: a stream of nothing but whitespace stops early; the absolute limit is overridable and
    // stops with a warning naming it. Before: minutes of work, and no option to bound it.
    void decompressionIsBounded()
    {
        QTemporaryDir dir;
        const QString spaces = dir.filePath(QStringLiteral("spaces.json.gz"));
        // {"traceEvents": [ + 64 MiB of spaces (a 64 KiB file).
        QVERIFY(writeBytes(spaces, gzipBytes(QByteArray(1 << 20, ' '), 64, kinetoTrace("").chopped(2), "]}")));
        HardRun r = cli({QStringLiteral("info"), spaces}, 60000);
        QVERIFY(!r.timedOut);
        QVERIFY2(r.all().contains("nothing but whitespace"), r.all().constData());

        const HardRun limited = cli({QStringLiteral("info"), kKineto, QStringLiteral("--max-decompressed"),
                                     QStringLiteral("8K"), QStringLiteral("--format"), QStringLiteral("json")});
        QVERIFY2(limited.exitCode == 0, limited.err.constData());
        const nlohmann::json j = parseJson(limited.out);
        QVERIFY(hasWarning(j, "decompressed_limit"));
        QVERIFY(j.dump().find("--max-decompressed") != std::string::npos);
        const HardRun bad
            = cli({QStringLiteral("info"), kKineto, QStringLiteral("--max-decompressed"), QStringLiteral("lots")});
        QCOMPARE(bad.exitCode, 1);
    }

    // `job` reads its ranks under the same --max-decompressed limit as every other command, and a rank cut by it
    // is named in the job's warnings (its numbers cover only part of the run). Before: job ignored the option.
    void jobHonoursTheDecompressionLimit()
    {
        const QString ranks = kFixtures + QStringLiteral("/torch/hta_job_2ranks");
        const HardRun full = cli({QStringLiteral("job"), ranks, QStringLiteral("--format"), QStringLiteral("json")});
        QVERIFY2(full.exitCode == 0, full.err.constData());
        const nlohmann::json all = parseJson(full.out);
        QVERIFY(all.is_object());
        // The HTA sample is 2 ranks of a 128-rank job, and in step 552 its ranks ran their all-reduce and all-to-all
        // in another order (issue 50 matches them as collectives): that, and nothing else, is what the job warns about.
        QCOMPARE(all["warnings"].size(), std::size_t(2));
        QCOMPARE(all["warnings"][0].get<std::string>(),
                 std::string("ranks 2–127 are missing (world size 128, 2 ranks given)"));
        QCOMPARE(all["warnings"][1].get<std::string>(),
                 std::string("1 rank-steps ran different collectives than the group's first rank; only the common "
                             "prefix was aligned"));

        // rank-0.json.gz inflates to 1.7 MB: 1M cuts both ranks.
        const HardRun limited = cli({QStringLiteral("--max-decompressed"), QStringLiteral("1M"), QStringLiteral("job"),
                                     ranks, QStringLiteral("--format"), QStringLiteral("json")});
        QVERIFY2(limited.exitCode == 0, limited.err.constData());
        const nlohmann::json cut = parseJson(limited.out);
        QVERIFY(cut.is_object());
        const std::string warnings = cut["warnings"].dump();
        QVERIFY2(warnings.find("rank 0: ") != std::string::npos && warnings.find("rank 1: ") != std::string::npos,
                 warnings.c_str());
        QVERIFY2(warnings.find("--max-decompressed") != std::string::npos, warnings.c_str());
        // Less of each rank was read: its compute time is smaller than with the whole file.
        QVERIFY(cut["ranks"][0]["steps"][0]["compute_ns"].get<std::int64_t>()
                < all["ranks"][0]["steps"][0]["compute_ns"].get<std::int64_t>());

        const HardRun bad
            = cli({QStringLiteral("--max-decompressed"), QStringLiteral("lots"), QStringLiteral("job"), ranks});
        QCOMPARE(bad.exitCode, 1);
    }

    // Allocation failure (a bomb of one repeated event under a memory cap) is a clean exit 2 that names the
    // limit, never an abort.
    void outOfMemoryIsACleanError()
    {
#if defined(TIMESINK_ADDRESS_SANITIZER)
        QSKIP("AddressSanitizer reserves terabytes of address space; an address-space cap cannot be tested here");
#else
        QTemporaryDir dir;
        const QString bomb = dir.filePath(QStringLiteral("bomb.json.gz"));
        const QByteArray one
            = traceEvent("aten::mm", 1000, 5, 1, "cpu_op", "{\"Input Dims\": [[1]], \"seq\": 1}") + ",\n";
        QVERIFY(writeBytes(
            bomb,
            gzipBytes(one.repeated(1000), 3000, kinetoTrace("").chopped(2), traceEvent("aten::mm", 1, 1) + "]}")));
        const HardRun r = runTool(
            QStringLiteral("/bin/sh"),
            {QStringLiteral("-c"),
             QStringLiteral("ulimit -v 300000; exec \"$0\" info \"$1\" --max-decompressed-ratio 100000"), kCli, bomb},
            120000);
        QVERIFY(!r.timedOut);
        QVERIFY2(r.exitCode == 2, r.all().constData());
        QVERIFY2(r.err.contains("out of memory") && r.err.contains("--max-decompressed"), r.err.constData());
#endif
    }

    // ---- Data loss ----

    // -o never replaces an input: a file inside an input bundle, the operator map, or a special file.
    void outputNeverReplacesInputs()
    {
        QTemporaryDir dir;
        const QString bundle = dir.filePath(QStringLiteral("RUN_ascend_pt"));
        QVERIFY(copyTree(kTorchNpu, bundle));
        const QString kernels = bundle + QStringLiteral("/ASCEND_PROFILER_OUTPUT/kernel_details.csv");
        const QByteArray before = readBytes(kernels);
        HardRun r = cli({QStringLiteral("analyze"), bundle, QStringLiteral("-o"), kernels});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("inside the input folder"), r.err.constData());
        QCOMPARE(readBytes(kernels), before);
        r = cli({QStringLiteral("analyze"), bundle, QStringLiteral("-o"), bundle + QStringLiteral("/report.html")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY(!QFile::exists(bundle + QStringLiteral("/report.html")));

        const QString map = dir.filePath(QStringLiteral("ops.json"));
        QVERIFY(writeBytes(map, "aten::mm\tmatmul\n"));
        r = cli(
            {QStringLiteral("compare"), kKineto, kKineto, QStringLiteral("--op-map"), map, QStringLiteral("-o"), map});
        QCOMPARE(r.exitCode, 1);
        QCOMPARE(readBytes(map), QByteArray("aten::mm\tmatmul\n"));

        // job: not inside a folder of ranks, not over a rank given by name.
        const QString job = dir.filePath(QStringLiteral("job"));
        QVERIFY(copyTree(kFixtures + QStringLiteral("/torch/hta_job_2ranks"), job));
        const QString rank0 = job + QStringLiteral("/rank-0.json.gz");
        const QByteArray rankBefore = readBytes(rank0);
        r = cli({QStringLiteral("job"), job, QStringLiteral("-o"), job + QStringLiteral("/job.json")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("inside the input folder"), r.err.constData());
        QVERIFY(!QFile::exists(job + QStringLiteral("/job.json")));
        r = cli({QStringLiteral("job"), job, QStringLiteral("-o"), rank0, QStringLiteral("--format"),
                 QStringLiteral("json")});
        QCOMPARE(r.exitCode, 1);
        r = cli({QStringLiteral("job"), rank0, job + QStringLiteral("/rank-1.json.gz"), QStringLiteral("-o"), rank0,
                 QStringLiteral("--format"), QStringLiteral("json")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("refusing to overwrite the input"), r.err.constData());
        QCOMPARE(readBytes(rank0), rankBefore);
        r = cli({QStringLiteral("job"), job, QStringLiteral("-o"), dir.filePath(QStringLiteral("job.json"))});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(QFile::exists(dir.filePath(QStringLiteral("job.json"))));

        const QString fifo = dir.filePath(QStringLiteral("out.json"));
        QVERIFY(makeFifo(fifo));
        r = cli({QStringLiteral("analyze"), kKineto, QStringLiteral("-o"), fifo});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("not a regular file"), r.err.constData());
        QVERIFY(isFifo(fifo));
        r = cli({QStringLiteral("export"), kKineto, QStringLiteral("-o"), fifo});
        QCOMPARE(r.exitCode, 1);
        QVERIFY(isFifo(fifo));
    }

    // A failed write to stdout (`> /dev/full`) exits 4 with a message, for every command and format.
    void failedStdoutWritesAreErrors()
    {
        const QList<QStringList> commands = {
            {QStringLiteral("info"), kKineto},
            {QStringLiteral("info"), kKineto, QStringLiteral("--format"), QStringLiteral("json")},
            {QStringLiteral("analyze"), kKineto},
            {QStringLiteral("analyze"), kKineto, QStringLiteral("--format"), QStringLiteral("md")},
            {QStringLiteral("compare"), kKineto, kKineto},
            {QStringLiteral("compare"), kKineto, kKineto, QStringLiteral("--format"), QStringLiteral("json")},
            {QStringLiteral("--help")},
        };
        for (const QStringList& args : commands) {
            const HardRun r = cli(args, 60000, QStringLiteral("/dev/full"));
            QVERIFY2(r.exitCode == 4, qPrintable(args.join(QLatin1Char(' '))));
            QVERIFY2(r.err.contains("cannot write to standard output"), r.err.constData());
        }
    }

    // ---- Errors that mislead ----

    // A folder with a torch_npu run and a separate msprof PROF_ run imports one and names both.
    void severalRunsImportWhatIsThere()
    {
        QTemporaryDir dir;
        QVERIFY(copyTree(kTorchNpu, dir.filePath(QStringLiteral("node1_123_ascend_pt"))));
        QVERIFY(copyTree(kProf, dir.filePath(QStringLiteral("PROF_000001_20990101"))));
        const HardRun r = cli({QStringLiteral("info"), dir.path(), QStringLiteral("--format"), QStringLiteral("json")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const nlohmann::json j = parseJson(r.out);
        QVERIFY(j["slices"].get<std::int64_t>() > 0);
        QVERIFY(hasWarning(j, "multiple_runs"));
        const std::string text = j.dump();
        QVERIFY(text.find("imported node1_123_ascend_pt") != std::string::npos);
        QVERIFY(text.find("not imported: PROF_000001_20990101") != std::string::npos);
    }

    // pzstd output (a skippable frame first), a zstd window beyond the default, and cut gzip files.
    void compressedInputsSayWhatIsWrong()
    {
        QTemporaryDir dir;
        const QByteArray json = gunzipFile(kKineto);
        QVERIFY(!json.isEmpty());
        // Skippable frame 0x184D2A50 with a 4-byte payload, as pzstd writes, then the data.
        QByteArray pz("\x50\x2a\x4d\x18\x04\x00\x00\x00\x00\x00\x00\x00", 12);
        pz += zstdBytes(json);
        const QString pzPath = dir.filePath(QStringLiteral("trace.json.zst"));
        QVERIFY(writeBytes(pzPath, pz));
        HardRun r = cli({QStringLiteral("info"), pzPath});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(r.out.contains("kineto"));

        // A frame declaring a 4 GiB window (window descriptor 0xB0: 2^(10+22)), one raw block; and the same data
        // as `zstd --long=31` writes it (2 GiB window, which plain libzstd refuses by default).
        QByteArray wide("\x28\xb5\x2f\xfd\x00\xb0", 6);
        const QByteArray payload = kinetoTrace(traceEvent("aten::mm", 1, 1));
        const quint32 blockHeader = 1U | (static_cast<quint32>(payload.size()) << 3);
        wide.append(static_cast<char>(blockHeader & 0xff));
        wide.append(static_cast<char>((blockHeader >> 8) & 0xff));
        wide.append(static_cast<char>((blockHeader >> 16) & 0xff));
        wide += payload;
        const QString widePath = dir.filePath(QStringLiteral("wide.json.zst"));
        QVERIFY(writeBytes(widePath, wide));
        r = cli({QStringLiteral("info"), widePath});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("window too large"), r.err.constData());
        wide[5] = '\xa8';
        QVERIFY(writeBytes(widePath, wide));
        r = cli({QStringLiteral("info"), widePath});
        QVERIFY2(r.exitCode == 0, r.err.constData());

        const QByteArray gz = readBytes(kKineto);
        for (int cut : {10, 200}) {
            const QString cutPath = dir.filePath(QStringLiteral("cut%1.json.gz").arg(cut));
            QVERIFY(writeBytes(cutPath, gz.left(cut)));
            r = cli({QStringLiteral("info"), cutPath});
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(r.err.contains("truncated"), r.err.constData());
        }
    }

    // traceEvents after more than 64 KiB of metadata (hundreds of deviceProperties) is still a Kineto trace.
    void lateTraceEventsKeyIsFound()
    {
        QTemporaryDir dir;
        QByteArray props;
        for (int i = 0; i < 800; ++i) {
            props += QByteArray(i ? ", " : "") + "{\"id\": " + QByteArray::number(i)
                + ", \"name\": \"NVIDIA A100-SXM4-80GB\", \"totalGlobalMem\": 85031714816, \"computeMajor\": 8, "
                  "\"computeMinor\": 0, \"maxThreadsPerBlock\": 1024, \"numSms\": 108}";
        }
        QByteArray trace = "{\"schemaVersion\": 1, \"deviceProperties\": [" + props + "], \"traceEvents\": ["
            + traceEvent("aten::mm", 1000, 50) + "]}";
        QVERIFY(trace.indexOf("traceEvents") > 64 * 1024);
        const QString path = dir.filePath(QStringLiteral("late.json"));
        QVERIFY(writeBytes(path, trace));
        const HardRun r = cli({QStringLiteral("info"), path, QStringLiteral("--format"), QStringLiteral("json")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(parseJson(r.out)["format"].get<std::string>(), std::string("kineto"));
    }

    // A database whose tables exist but whose time columns are unusable says so (not "empty"); a folder that
    // cannot be read says "Permission denied" (not "no Ascend output").
    void databaseAndFolderProblemsAreNamed()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("msprof_0.db"));
        QVERIFY(QFile::copy(kDb, db));
        QFile::setPermissions(db, QFile::ReadOwner | QFile::WriteOwner);
        // Every time becomes text that is no number.
        const HardRun sql = runTool(
            QStringLiteral("python3"),
            {QStringLiteral("-c"),
             QStringLiteral("import sqlite3,sys\n"
                            "c=sqlite3.connect(sys.argv[1])\n"
                            "for (t,) in c.execute(\"select name from sqlite_master where type='table'\").fetchall():\n"
                            "  cols=[r[1] for r in c.execute('pragma table_info(\"%s\")'%t)]\n"
                            "  for col in cols:\n"
                            "    if col in ('startNs','endNs','timestampNs'):\n"
                            "      c.execute('update \"%s\" set \"%s\"=\\'n/a\\''%(t,col))\n"
                            "c.commit()\n"),
             db});
        QVERIFY2(sql.exitCode == 0, sql.err.constData());
        HardRun r = cli({QStringLiteral("info"), db});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(!r.err.contains("is empty"), r.err.constData());
        QVERIFY2(r.err.contains("bad_ts"), r.err.constData());

        const QString locked = dir.filePath(QStringLiteral("locked"));
        QVERIFY(QDir().mkpath(locked));
        QVERIFY(copyTree(kTorchNpu, locked + QStringLiteral("/rank0_ascend_pt")));
        QVERIFY(QFile::setPermissions(locked, QFile::WriteOwner));
        // Root reads any folder: run as nobody when we are root.
        QStringList args = {QStringLiteral("info"), locked};
        QString program = kCli;
        if (::geteuid() == 0) {
            QVERIFY(QFile::setPermissions(dir.path(),
                                          QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner | QFile::ReadOther
                                              | QFile::ExeOther));
            args = QStringList {QStringLiteral("--reuid=65534"), QStringLiteral("--regid=65534"),
                                QStringLiteral("--clear-groups"), kCli}
                + args;
            program = QStringLiteral("setpriv");
        }
        r = runTool(program, args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("Permission denied"), r.err.constData());
        QFile::setPermissions(locked, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    }

private:
    QTemporaryDir m_home;
};

QTEST_GUILESS_MAIN(TestHardeningCli)
#include "tst_hardeningcli.moc"
