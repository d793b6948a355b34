// SPDX-License-Identifier: MIT
// `timesink-cli export TRACE -o FILE.tsnap`, then every command on the snapshot: `info --format json` and
// `analyze --format json` print exactly what they print for the source (the path aside), for every fixture. What
// they print for the source is its golden output where it has one (tests/golden/, which the golden_outputs test
// holds to the CLI's output for the source in the same run): running the source's import and analyses again here
// was half of this test's time, and under the sanitizers the longest test of the suite.
// The snapshot cache: `--cache` stores an entry, later runs use it, a damaged entry is ignored and removed.
#include "snapshottesthelpers.h"
#include "tests/common/clirunner.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <optional>
#include <sstream>
#include <sys/stat.h>

using namespace timesink::testing;
namespace fs = std::filesystem;

namespace {

/// The output with every occurrence of `path` replaced by PATH.
QByteArray withoutPath(QByteArray out, const std::string& path)
{
    return out.replace(QByteArray::fromStdString(path), QByteArrayLiteral("PATH"));
}

/// The golden output of `COMMAND --format json` for a fixture (relative to tests/data), with the path the goldens
/// name it by (that relative path); nothing for a fixture that tests/golden/fixtures.txt does not list, whose goldens
/// golden_outputs would not check.
std::optional<QByteArray> goldenOutput(const std::string& fixture, const char* command)
{
    const fs::path golden = fs::path(TIMESINK_SOURCE_DIR) / "tests/golden";
    std::istringstream listed(readFile(golden / "fixtures.txt"));
    bool isListed = false;
    for (std::string line; std::getline(listed, line);)
        isListed = isListed || line == fixture;
    if (!isListed)
        return std::nullopt;
    std::string base = fixture;
    for (std::size_t slash = base.find('/'); slash != std::string::npos; slash = base.find('/', slash + 2))
        base.replace(slash, 1, "__");
    const fs::path file = golden / (base + "." + command + ".json");
    if (!fs::exists(file))
        return std::nullopt;
    return QByteArray::fromStdString(readFile(file));
}

std::vector<fs::path> cacheEntries(const fs::path& dir)
{
    std::vector<fs::path> out;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        if (it->path().extension() == ".tsnap")
            out.push_back(it->path());
    }
    return out;
}

} // namespace

class TestSnapshotCli : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        // Never the user's cache: every run of this test sees an empty cache directory of its own.
        QVERIFY(m_cacheHome.isValid());
        qputenv("XDG_CACHE_HOME", m_cacheHome.path().toUtf8());
    }

    void fixtures_data()
    {
        QTest::addColumn<QString>("fixture");
        for (const std::string& f : allFixtures())
            QTest::newRow(f.c_str()) << QString::fromStdString(f);
    }
    void fixtures()
    {
        QFETCH(QString, fixture);
        const std::string source = std::string(TIMESINK_FIXTURES_DIR) + "/" + fixture.toStdString();
        QTemporaryDir dir;
        const std::string file = dir.filePath(QStringLiteral("trace.tsnap")).toStdString();
        const CliRun exported = runCli({QStringLiteral("export"), QString::fromStdString(source), QStringLiteral("-o"),
                                        QString::fromStdString(file)});
        QVERIFY2(exported.exitCode == 0, exported.err.constData());
        QVERIFY(fs::file_size(file) > 0);
        for (const char* command : {"info", "analyze"}) {
            const QStringList args = {QString::fromLatin1(command), QStringLiteral("--format"), QStringLiteral("json")};
            // The source's output: its golden (a run that exited 0, with the path relative to tests/data), or a run.
            CliRun a;
            std::string sourcePath = source;
            if (const std::optional<QByteArray> golden = goldenOutput(fixture.toStdString(), command)) {
                a.exitCode = 0;
                a.out = *golden;
                sourcePath = fixture.toStdString();
            } else {
                a = runCli(args + QStringList {QString::fromStdString(source)});
            }
            const CliRun b = runCli(args + QStringList {QString::fromStdString(file)});
            QCOMPARE(b.exitCode, a.exitCode);
            QVERIFY(!a.out.isEmpty());
            // The path a snapshot reports is its own; import warnings that name the source still name it.
            QCOMPARE(withoutPath(withoutPath(b.out, file), source), withoutPath(a.out, sourcePath));
        }
    }

    void exportUsage()
    {
        QTemporaryDir dir;
        const QString source = QStringLiteral(TIMESINK_FIXTURES_DIR "/torch/hta_a100_cuda_event_sync_trace.json.gz");
        const QString named = dir.filePath(QStringLiteral("snapshot.bin"));
        CliRun r = runCli({QStringLiteral("export"), source, QStringLiteral("-o"), named, QStringLiteral("--format"),
                           QStringLiteral("tsnap")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        r = runCli({QStringLiteral("info"), named});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains("ProfilerStep") || r.out.contains("steps"));
        r = runCli({QStringLiteral("export"), dir.filePath(QStringLiteral("missing.json")), QStringLiteral("-o"),
                    dir.filePath(QStringLiteral("x.tsnap"))});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains("missing.json"));
        // A snapshot from another format version is refused with exit code 2 and a message naming it.
        std::string bytes = readFile(named.toStdString());
        bytes[8] = char(bytes[8] + 1);
        writeFile(named.toStdString(), bytes);
        r = runCli({QStringLiteral("info"), named});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains("snapshot.bin"));
        QVERIFY(r.err.contains("newer Timesink"));
    }

    void cache()
    {
        QTemporaryDir dir;
        const fs::path source = dir.filePath(QStringLiteral("trace.json.gz")).toStdString();
        fs::copy_file(fs::path(TIMESINK_FIXTURES_DIR) / "torch/hta_a100_nccl_data.json.gz", source);
        const fs::path entries = fs::path(m_cacheHome.path().toStdString()) / "timesink/snapshots";
        const QStringList info = {QStringLiteral("info"), QStringLiteral("--format"), QStringLiteral("json"),
                                  QString::fromStdString(source.string())};
        const CliRun plain = runCli(info);
        QCOMPARE(plain.exitCode, 0);
        QVERIFY(cacheEntries(entries).empty()); // reading never writes

        CliRun r = runCli(info + QStringList {QStringLiteral("--cache")});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.out, plain.out);
        const auto written = cacheEntries(entries);
        QCOMPARE(written.size(), std::size_t(1));

        // Used when current: same output (the path is the source's).
        const auto before = fs::last_write_time(written.front());
        r = runCli(info);
        QCOMPARE(r.out, plain.out);
        QVERIFY(fs::last_write_time(written.front()) >= before);

        // A damaged entry is reported, ignored and removed; the source is imported instead.
        const std::string bytes = readFile(written.front());
        writeFile(written.front(), bytes.substr(0, bytes.size() - 10));
        r = runCli(info);
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.out, plain.out);
        QVERIFY2(r.err.contains("ignoring the cached snapshot"), r.err.constData());
        QVERIFY(cacheEntries(entries).empty());

        // --no-cache never touches the cache.
        r = runCli(info + QStringList {QStringLiteral("--cache"), QStringLiteral("--no-cache")});
        QCOMPARE(r.out, plain.out);
        QVERIFY(cacheEntries(entries).empty());
    }

    // The cache is a trust boundary (issue 36): what sits in it is checked before it is believed.
    void cacheTrust()
    {
        QTemporaryDir dir;
        QTemporaryDir home;
        qputenv("XDG_CACHE_HOME", home.path().toUtf8());
        const fs::path entries = fs::path(home.path().toStdString()) / "timesink/snapshots";
        const fs::path a = dir.filePath(QStringLiteral("a.json.gz")).toStdString();
        const fs::path b = dir.filePath(QStringLiteral("b.json.gz")).toStdString();
        fs::copy_file(fs::path(TIMESINK_FIXTURES_DIR) / "torch/hta_a100_cuda_event_sync_trace.json.gz", a);
        fs::copy_file(fs::path(TIMESINK_FIXTURES_DIR) / "torch/hta_sampled_rank-0_noflows.json.gz", b);
        const auto info = [](const fs::path& p, const QStringList& extra = {}) {
            return runCli(QStringList {QStringLiteral("info"), QStringLiteral("--format"), QStringLiteral("json"),
                                       QString::fromStdString(p.string())}
                          + extra);
        };
        const CliRun plainA = info(a, {QStringLiteral("--no-cache")});
        const CliRun plainB = info(b, {QStringLiteral("--no-cache")});
        QCOMPARE(plainA.exitCode, 0);
        QCOMPARE(plainB.exitCode, 0);

        // Two processes filling the cache with the same trace at once: both succeed, one entry, no leftovers.
        {
            QProcess p1;
            QProcess p2;
            const QStringList args = {QStringLiteral("info"), QStringLiteral("--cache"), QStringLiteral("--format"),
                                      QStringLiteral("json"), QString::fromStdString(a.string())};
            p1.start(QStringLiteral(TIMESINK_CLI_PATH), args);
            p2.start(QStringLiteral(TIMESINK_CLI_PATH), args);
            QVERIFY(p1.waitForFinished(60000) && p2.waitForFinished(60000));
            QCOMPARE(p1.exitCode(), 0);
            QCOMPARE(p2.exitCode(), 0);
            QCOMPARE(p1.readAllStandardOutput(), plainA.out);
            QCOMPARE(p2.readAllStandardOutput(), plainA.out);
            std::size_t files = 0;
            for (const auto& e : fs::directory_iterator(entries))
                files += e.path().extension() == ".tsnap" ? 1 : 100; // a temporary file left behind counts 100
            QCOMPARE(files, std::size_t(1));
        }
        // The cache folder is private: created 0700.
        QCOMPARE(fs::status(entries).permissions() & (fs::perms::group_all | fs::perms::others_all), fs::perms::none);
        const fs::path entryA = cacheEntries(entries).front();

        // An entry whose name (key) is a's but whose content is b's snapshot: not believed, a is imported.
        QCOMPARE(info(b, {QStringLiteral("--cache")}).exitCode, 0);
        fs::path entryB;
        for (const fs::path& e : cacheEntries(entries))
            if (e != entryA)
                entryB = e;
        QVERIFY(!entryB.empty());
        fs::copy_file(entryB, entryA, fs::copy_options::overwrite_existing);
        CliRun r = info(a);
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.out, plainA.out);

        // A symlink under an entry's name (to a FIFO, to another trace's entry): never followed, removed.
        QCOMPARE(info(a, {QStringLiteral("--cache")}).exitCode, 0);
        const fs::path fifo = dir.filePath(QStringLiteral("fifo")).toStdString();
        QVERIFY(::mkfifo(fifo.c_str(), 0600) == 0);
        for (const fs::path& target : {fifo, entryB}) {
            fs::remove(entryA);
            fs::create_symlink(target, entryA);
            r = info(a);
            QVERIFY2(r.exitCode == 0, r.err.constData());
            QCOMPARE(r.out, plainA.out);
            QVERIFY2(r.err.contains("not a regular file"), r.err.constData());
            QVERIFY(!fs::is_symlink(fs::symlink_status(entryA)));
        }
        QVERIFY(fs::exists(entryB)); // the link was removed, not what it pointed to

        // A cache folder others may write to is tightened before use, not trusted as it is.
        fs::permissions(entries, fs::perms::group_write | fs::perms::others_write, fs::perm_options::add);
        QCOMPARE(info(a, {QStringLiteral("--cache")}).exitCode, 0);
        QCOMPARE(fs::status(entries).permissions() & (fs::perms::group_write | fs::perms::others_write),
                 fs::perms::none);

        // The folder Timesink 0.x used (…/Timesink/Timesink/snapshots) moves to …/timesink/snapshots, entries and
        // all, and they are used.
        QTemporaryDir oldHome;
        const fs::path legacy = fs::path(oldHome.path().toStdString()) / "Timesink/Timesink/snapshots";
        fs::create_directories(legacy.parent_path());
        fs::rename(entries, legacy);
        qputenv("XDG_CACHE_HOME", oldHome.path().toUtf8());
        r = info(a);
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.out, plainA.out);
        const fs::path moved = fs::path(oldHome.path().toStdString()) / "timesink/snapshots";
        QVERIFY(!fs::exists(fs::path(oldHome.path().toStdString()) / "Timesink"));
        QCOMPARE(cacheEntries(moved).size(), std::size_t(2));
        qputenv("XDG_CACHE_HOME", m_cacheHome.path().toUtf8());
    }

private:
    QTemporaryDir m_cacheHome;
};

QTEST_GUILESS_MAIN(TestSnapshotCli)
#include "tst_snapshotcli.moc"
