// SPDX-License-Identifier: MIT
#include "app/gui/mainwindow.h"
#include "parsers/common/traceloader.h"
#include "testtraces.h"
#include "widgets/detailspanel.h"
#include "widgets/findingsmodel.h"
#include "widgets/timelineview.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QDialog>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <thread>

using namespace timesink;
using gui::MainWindow;
using gui::TraceLoadJob;

namespace {

struct RecordedError
{
    QString title;
    QString message;
};

/// Counts finished() of a window's load job (Outcome is not a QVariant type, so no QSignalSpy).
struct FinishCounter
{
    int count = 0;
    explicit FinishCounter(MainWindow& w)
    {
        QObject::connect(&w.loadJob(), &TraceLoadJob::finished, &w, [this] { ++count; });
    }
};

analysis::AnalysisResult noAnalysis(const model::Trace&, const analysis::CancelToken&)
{
    return {};
}

} // namespace

class TestMainWindow : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void showTraceFillsFindings();
    void selectingFindingShowsEvidence_data();
    void selectingFindingShowsEvidence();
    void cancelKeepsPreviousTrace();
    void badFileShowsErrorAndStaysUsable();
    void loadsRealFixture_data();
    void loadsRealFixture();
    void searchFieldStepsThroughMatches();
    void shortcutsDialogListsActions();
    void initialViewAndFindingAfterLoad();

private:
    QTemporaryDir m_dir;
};

void TestMainWindow::initTestCase()
{
    QVERIFY(m_dir.isValid());
    // Keep recent files and geometry of the tests out of the user's settings.
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_dir.path());
    QCoreApplication::setOrganizationName(QStringLiteral("TimesinkTests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_mainwindow"));
}

void TestMainWindow::showTraceFillsFindings()
{
    MainWindow w;
    QAbstractItemModelTester tester(w.findingsModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    const auto trace = testing::smallTrainingTrace();
    w.showTrace(gui::LoadedTrace {trace, testing::smallFindings(*trace), 2000, std::nullopt,
                                  QStringLiteral("/tmp/run1.json")});
    QCOMPARE(w.findingsModel()->rowCount(), 2);
    QCOMPARE(w.timeline()->trace(), trace);
    QVERIFY(w.windowTitle().startsWith(QStringLiteral("run1.json")));
    QCOMPARE(w.current().summary->steps.size(), std::size_t(2));
}

void TestMainWindow::selectingFindingShowsEvidence_data()
{
    QTest::addColumn<int>("row");
    QTest::addColumn<qint64>("evidenceStart");
    QTest::addColumn<qint64>("evidenceEnd");
    QTest::addColumn<QString>("recommendation");
    QTest::newRow("dataloader") << 0 << qint64(1500) << qint64(1900) << QStringLiteral("num_workers");
    QTest::newRow("copy") << 1 << qint64(500) << qint64(700) << QStringLiteral("pin_memory");
}

void TestMainWindow::selectingFindingShowsEvidence()
{
    QFETCH(int, row);
    QFETCH(qint64, evidenceStart);
    QFETCH(qint64, evidenceEnd);
    QFETCH(QString, recommendation);
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    const auto trace = testing::smallTrainingTrace();
    w.showTrace(gui::LoadedTrace {trace, testing::smallFindings(*trace), 2000, std::nullopt, QString()});
    w.timeline()->showRange(0, 20); // somewhere else first
    w.findingsView()->setCurrentIndex(w.findingsModel()->index(row, 0));
    const auto& zoom = w.timeline()->zoom();
    QVERIFY2(zoom.start() <= evidenceStart && zoom.end() >= evidenceEnd,
             qPrintable(QStringLiteral("view [%1, %2]").arg(zoom.start()).arg(zoom.end())));
    // Zoomed in on it, not just fit-all.
    QVERIFY(zoom.span() < trace->spanNs());
    QVERIFY(w.details()->toPlainText().contains(recommendation));
}

void TestMainWindow::cancelKeepsPreviousTrace()
{
    MainWindow w;
    const auto first = testing::smallTrainingTrace();
    w.showTrace(gui::LoadedTrace {first, {}, 0, std::nullopt, QStringLiteral("first.json")});
    std::atomic<bool> started {false};
    w.loadJob().setLoadFunction([&started](const std::filesystem::path&, parsers::ProgressSink& sink) {
        // A load that only ends when cancelled, reporting progress like an importer.
        started = true;
        std::uint64_t done = 0;
        while (!sink.cancelled()) {
            sink.report(done += 1024, 1 << 30, "reading events");
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        }
        return parsers::ImportResult::failure(parsers::ImportErrorKind::Cancelled, "cancelled");
    });
    w.loadJob().setAnalyzeFunction(noAnalysis);
    QList<RecordedError> errors;
    w.setErrorReporter([&errors](const QString& t, const QString& m) { errors.append({t, m}); });
    FinishCounter finished(w);
    QSignalSpy progress(&w.loadJob(), &TraceLoadJob::progress);
    w.openPath(QStringLiteral("/nonexistent/slow.json"));
    QTRY_VERIFY(started.load());
    // The importer's byte counts and phase reach the window while it loads.
    QTRY_VERIFY(!progress.isEmpty() && progress.last().at(2).toString() == QStringLiteral("reading events"));
    QVERIFY(progress.last().at(0).toLongLong() > 0);
    QCOMPARE(progress.last().at(1).toLongLong(), qint64(1) << 30);
    QVERIFY(w.loadJob().isRunning());
    QCOMPARE(w.timeline()->trace(), first); // the old trace stays while loading
    w.loadJob().cancel();
    QTRY_COMPARE(finished.count, 1);
    QCOMPARE(w.timeline()->trace(), first);
    QCOMPARE(w.current().path, QStringLiteral("first.json"));
    QVERIFY(errors.isEmpty()); // cancelling is not an error
}

void TestMainWindow::badFileShowsErrorAndStaysUsable()
{
    MainWindow w;
    QList<RecordedError> errors;
    w.setErrorReporter([&errors](const QString& t, const QString& m) { errors.append({t, m}); });
    const auto first = testing::smallTrainingTrace();
    w.showTrace(gui::LoadedTrace {first, {}, 0, std::nullopt, QStringLiteral("first.json")});
    FinishCounter finished(w);

    // Garbage through the real loader: no importer accepts it.
    const QString garbage = m_dir.filePath(QStringLiteral("garbage.json"));
    QFile f(garbage);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("\x01\x02 this is not a trace {{{");
    f.close();
    w.openPath(garbage);
    QTRY_COMPARE(finished.count, 1);
    QCOMPARE(errors.size(), 1);
    QVERIFY2(errors[0].message.contains(QStringLiteral("garbage.json")), qPrintable(errors[0].message));
    QCOMPARE(w.timeline()->trace(), first);

    // A missing file names the file too.
    w.openPath(m_dir.filePath(QStringLiteral("missing.json")));
    QTRY_COMPARE(finished.count, 2);
    QCOMPARE(errors.size(), 2);
    QVERIFY(errors[1].message.contains(QStringLiteral("missing.json")));

    // Still usable: the next good load replaces the trace and is remembered as recent.
    const QString good = m_dir.filePath(QStringLiteral("good.json"));
    QVERIFY(QFile(good).open(QIODevice::WriteOnly));
    w.loadJob().setLoadFunction([](const std::filesystem::path&, parsers::ProgressSink&) {
        return parsers::ImportResult::success(testing::smallTrainingTrace());
    });
    w.loadJob().setAnalyzeFunction(noAnalysis);
    w.openPath(good);
    QTRY_COMPARE(finished.count, 3);
    QVERIFY(w.timeline()->trace() != first);
    QVERIFY(w.timeline()->trace() != nullptr);
    QCOMPARE(w.recentFiles().value(0), good);
    QVERIFY(w.windowTitle().startsWith(QStringLiteral("good.json")));
    // Closing remembers the window geometry for the next start.
    w.close();
    QVERIFY(!QSettings().value(QStringLiteral("window/geometry")).toByteArray().isEmpty());
}

void TestMainWindow::loadsRealFixture_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("importer");
    QTest::addColumn<int>("steps");
    QTest::addColumn<int>("slices"); // -1: not checked
    // Two ProfilerStep markers in the sample: grep -c '"name": "ProfilerStep#' gives 2.
    QTest::newRow("kineto cpu sample") << QStringLiteral(TIMESINK_SOURCE_DIR
                                                         "/resources/samples/resnet18_cpu_legacy_2steps.json")
                                       << QStringLiteral("chromejson") << 2 << -1;
    // 119 layer rows: python3 -c "import re; print(sum(1 for l in open(F) if re.match(r'^\d+\s+\S+\s+\S+\s+(CPU|NPU)', l)))"
    // One frame, so one step.
    QTest::newRow("rknn layer table")
        << QStringLiteral(TIMESINK_FIXTURES_DIR "/rknn/toolkit2_2.3.2_rk3588_eval_perf_layers_yolov8n_640.txt")
        << QStringLiteral("rknn") << 1 << 119;
}

void TestMainWindow::loadsRealFixture()
{
    QFETCH(QString, path);
    QFETCH(QString, importer);
    QFETCH(int, steps);
    QFETCH(int, slices);
    const auto importers = parsers::allImporters();
    if (std::none_of(importers.begin(), importers.end(),
                     [&](const auto& i) { return QString::fromUtf8(i->id().data(), i->id().size()) == importer; }))
        QSKIP("this importer is not registered in parsers::allImporters() yet");
    MainWindow w;
    QAbstractItemModelTester tester(w.findingsModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QList<RecordedError> errors;
    w.setErrorReporter([&errors](const QString& t, const QString& m) { errors.append({t, m}); });
    FinishCounter finished(w);
    w.openPath(path);
    QTRY_COMPARE_WITH_TIMEOUT(finished.count, 1, 60000);
    QVERIFY2(errors.isEmpty(), errors.isEmpty() ? "" : qPrintable(errors[0].message));
    QVERIFY(w.timeline()->trace() != nullptr);
    QCOMPARE(static_cast<int>(w.timeline()->trace()->steps().size()), steps);
    if (slices >= 0)
        QCOMPARE(static_cast<int>(w.timeline()->trace()->sliceCount()), slices);
    QCOMPARE(w.findingsModel()->rowCount(), static_cast<int>(w.current().findings.size()));
    QCOMPARE(w.current().summary->steps.size(), static_cast<std::size_t>(steps));
}

void TestMainWindow::searchFieldStepsThroughMatches()
{
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    const auto trace = testing::smallTrainingTrace();
    w.showTrace(gui::LoadedTrace {trace, {}, 0, std::nullopt, QString()});
    w.searchField()->setText(QStringLiteral("cudaLaunch"));
    QCOMPARE(w.timeline()->search().count(), std::size_t(2));
    QTest::keyClick(w.searchField(), Qt::Key_Return);
    const model::SliceRef a = w.timeline()->selectedSlice();
    QVERIFY(a.isValid());
    QTest::keyClick(w.searchField(), Qt::Key_Return);
    const model::SliceRef b = w.timeline()->selectedSlice();
    QVERIFY(b.isValid() && b != a);
    QVERIFY(w.details()->toPlainText().contains(QStringLiteral("cudaLaunchKernel")));
}

void TestMainWindow::shortcutsDialogListsActions()
{
    MainWindow w;
    w.show();
    auto* action = w.findChild<QAction*>(QStringLiteral("actionKeyboardShortcuts"));
    QVERIFY(action);
    QCOMPARE(action->shortcut(), QKeySequence(QKeySequence::HelpContents));
    action->trigger();
    QDialog* dialog = nullptr;
    QTRY_VERIFY((dialog = w.findChild<QDialog*>()) != nullptr);
    QVERIFY(dialog->isVisible());
    dialog->close();
}

void TestMainWindow::initialViewAndFindingAfterLoad()
{
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    FinishCounter finished(w);
    w.loadJob().setLoadFunction([](const std::filesystem::path&, parsers::ProgressSink&) {
        return parsers::ImportResult::success(testing::smallTrainingTrace());
    });
    w.loadJob().setAnalyzeFunction([](const model::Trace& t, const analysis::CancelToken&) {
        analysis::AnalysisResult r;
        r.findings = testing::smallFindings(t);
        return r;
    });
    // --finding 2 --view 0.0011:0.0013 (ms): the finding is selected, then the view is applied last.
    w.setInitialFinding(1);
    w.setInitialView(0.0011, 0.0013);
    w.openPath(m_dir.filePath(QStringLiteral("initial.json")));
    QTRY_COMPARE(finished.count, 1);
    QCOMPARE(w.findingsView()->currentIndex().row(), 1);
    QVERIFY(w.details()->toPlainText().contains(QStringLiteral("pin_memory")));
    QVERIFY(w.timeline()->zoom().start() <= 1100 && w.timeline()->zoom().end() >= 1300);
    QVERIFY(w.timeline()->zoom().span() < 400);
    // Only the first load is affected.
    w.openPath(m_dir.filePath(QStringLiteral("again.json")));
    QTRY_COMPARE(finished.count, 2);
    QCOMPARE(w.timeline()->zoom().span(), w.timeline()->trace()->spanNs());
}

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
