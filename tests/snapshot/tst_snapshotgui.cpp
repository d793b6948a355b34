// SPDX-License-Identifier: MIT
// The desktop app's snapshot cache: the loader stores an entry after importing, later opens read it, a damaged
// entry falls back to the source; Preferences sets the size limit and clears the cache; the File menu has both.
#include "app/gui/mainwindow.h"
#include "app/gui/snapshotcacheui.h"
#include "app/gui/traceloadjob.h"
#include "parsers/snapshot/snapshotcache.h"
#include "report/analysis/tracesummary.h"
#include "report/writers/json/jsonwriter.h"
#include "snapshottesthelpers.h"
#include "tests/common/status.h"

#include <QAction>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>

using namespace timesink;
using namespace timesink::testing;
namespace fs = std::filesystem;

namespace {
std::string summary(const model::Trace& t)
{
    return report::traceSummaryJson(t).dump();
}
} // namespace

class TestSnapshotGui : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        // The app's cache follows XDG_CACHE_HOME (parsers::snapshot::userCacheDirectory()): the user's is never
        // touched, and every run starts from an empty one.
        qputenv("XDG_CACHE_HOME", m_dir.filePath(QStringLiteral("xdg-cache")).toUtf8());
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_dir.path());
        QCoreApplication::setOrganizationName(QStringLiteral("TimesinkTests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_snapshotgui"));
        QCOMPARE(gui::snapshotCacheDirectory(), m_dir.filePath(QStringLiteral("xdg-cache/timesink/snapshots")));
        m_source = m_dir.filePath(QStringLiteral("trace.json.gz")).toStdString();
        fs::copy_file(fs::path(TIMESINK_FIXTURES_DIR) / "torch/hta_sampled_rank-0_noflows.json.gz", m_source);
    }
    void cleanupTestCase() { fs::remove_all(gui::snapshotCacheDirectory().toStdString()); }

    void loadStoreReload()
    {
        const fs::path dir = m_dir.filePath(QStringLiteral("cache")).toStdString();
        parsers::ProgressSink progress;
        gui::CachedLoad first = gui::loadThroughSnapshotCache(m_source, progress, dir, 1 << 30);
        QVERIFY2(first.result.ok(), first.result.status().message().c_str());
        QVERIFY(!first.fromSnapshot);
        QVERIFY(first.store.has_value());
        QVERIFY_OK(gui::storeInSnapshotCache(*first.result.value(), *first.store, dir, 1 << 30));

        gui::CachedLoad second = gui::loadThroughSnapshotCache(m_source, progress, dir, 1 << 30);
        QVERIFY(second.result.ok());
        QVERIFY(second.fromSnapshot);
        QVERIFY(!second.store);
        QCOMPARE(summary(*second.result.value()), summary(*first.result.value()));
        QCOMPARE(second.result.value()->metadata().sourcePath, m_source.string());

        // A damaged entry: the source is imported instead, and the entry is stored anew.
        const fs::path entry = parsers::snapshot::SnapshotCache(dir).entryFor(*first.store);
        const std::string bytes = readFile(entry);
        writeFile(entry, bytes.substr(0, bytes.size() / 3));
        gui::CachedLoad third = gui::loadThroughSnapshotCache(m_source, progress, dir, 1 << 30);
        QVERIFY(third.result.ok());
        QVERIFY(!third.fromSnapshot);
        QVERIFY(!third.note.isEmpty());
        QVERIFY(third.store.has_value());
        QCOMPARE(summary(*third.result.value()), summary(*first.result.value()));

        // Capacity 0 is off: nothing read, nothing to store.
        gui::CachedLoad off = gui::loadThroughSnapshotCache(m_source, progress, dir, 0);
        QVERIFY(off.result.ok());
        QVERIFY(!off.fromSnapshot && !off.store);
    }

    // The window's loader stores the entry on its own after an import, in the app's cache directory.
    void loadJobStoresEntry()
    {
        gui::setSnapshotCacheCapacityMB(64);
        gui::TraceLoadJob job;
        QSignalSpy done(&job, &gui::TraceLoadJob::finished);
        job.start(QString::fromStdString(m_source.string()));
        QVERIFY(done.wait(60000));
        const model::Expected<parsers::snapshot::SourceIdentity> id = parsers::snapshot::identifySource(m_source);
        QVERIFY_OK(id);
        const fs::path entry
            = parsers::snapshot::SnapshotCache(gui::snapshotCacheDirectory().toStdString()).entryFor(id.value());
        QTRY_VERIFY_WITH_TIMEOUT(fs::exists(entry), 30000);
    }

    void preferences()
    {
        gui::setSnapshotCacheCapacityMB(64);
        const fs::path dir = gui::snapshotCacheDirectory().toStdString();
        fs::create_directories(dir);
        writeFile(dir / "0000000000000001.tsnap", std::string(1000, 'x'));
        gui::PreferencesDialog dialog;
        auto* capacity = dialog.findChild<QSpinBox*>(QStringLiteral("snapshotCacheCapacity"));
        QVERIFY(capacity);
        QCOMPARE(capacity->value(), 64);
        capacity->setValue(100);
        dialog.findChild<QPushButton*>(QStringLiteral("clearSnapshotCache"))->click();
        QVERIFY(!fs::exists(dir / "0000000000000001.tsnap"));
        dialog.accept();
        QCOMPARE(gui::snapshotCacheCapacityBytes(), std::uint64_t(100) << 20);
        gui::setSnapshotCacheCapacityMB(0);
        QCOMPARE(gui::snapshotCacheCapacityBytes(), std::uint64_t(0));
    }

    void menuActions()
    {
        gui::MainWindow w;
        QVERIFY(w.findChild<QAction*>(QStringLiteral("actionPreferences")));
        QVERIFY(w.findChild<QAction*>(QStringLiteral("actionClearSnapshotCache")));
    }

private:
    QTemporaryDir m_dir;
    fs::path m_source;
};

QTEST_MAIN(TestSnapshotGui)
#include "tst_snapshotgui.moc"
