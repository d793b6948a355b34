// SPDX-License-Identifier: MIT
#include "app/gui/mainwindow.h"
#include "parsers/registry/traceloader.h"
#include "testtraces.h"
#include "widgets/detailspanel.h"
#include "widgets/findingsmodel.h"
#include "widgets/timelineview.h"
#include "widgets/trackspanel.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QDialog>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QScrollBar>
#include <QSet>
#include <QSettings>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QTreeView>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <new>
#include <stdexcept>
#include <thread>

using namespace timesink;
using gui::MainWindow;
using gui::TraceLoadJob;

namespace {

/// An analysis result with these findings over `analysedNs` (what TraceLoadJob hands the window), with the
/// trace's step split and device figures when given the trace.
analysis::AnalysisResult analysed(std::vector<analysis::Finding> findings, model::TimeNs analysedNs,
                                  const model::Trace* trace = nullptr)
{
    analysis::AnalysisResult r;
    r.findings = std::move(findings);
    r.analysedNs = analysedNs;
    if (trace)
        analysis::fillTraceFigures(*trace, {}, r);
    return r;
}

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

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

void writeFile(const QString& path, const QByteArray& content)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(content);
}

const QString kCpuSample = QStringLiteral(TIMESINK_SOURCE_DIR "/resources/samples/resnet18_cpu_legacy_2steps.json");

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
    void timelineShownBeforeAnalysis();
    void cancelledAnalysisKeepsTimeline();
    void badFileShowsErrorAndStaysUsable();
    void workerExceptionsAreErrors();
    void openDialogFilterListsEveryFormat();
    void loadsRealFixture_data();
    void loadsRealFixture();
    void searchFieldStepsThroughMatches();
    void shortcutsDialogListsActions();
    void singleKeyShortcutsActFromTables();
    void initialViewAndFindingAfterLoad();
    void notAssessedShownAndExported_data();
    void notAssessedShownAndExported();
    void traceExportRunsOffTheUiThread();
    void traceExportWritesOrReports();
    void trackListModelIsConsistent();
    void hundredThousandTracks();

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
    w.showTrace(gui::LoadedTrace {trace, analysed(testing::smallFindings(*trace), 2000, trace.get()), std::nullopt,
                                  QStringLiteral("/tmp/run1.json")});
    QCOMPARE(w.findingsModel()->rowCount(), 2);
    QCOMPARE(w.timeline()->trace(), trace);
    QVERIFY(w.windowTitle().startsWith(QStringLiteral("run1.json")));
    QCOMPARE(w.current().summary->steps.size(), std::size_t(2));
    QVERIFY(w.notAssessedLabel()->isHidden()); // every kind assessed: no line under the table
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
    w.showTrace(gui::LoadedTrace {trace, analysed(testing::smallFindings(*trace), 2000), std::nullopt, QString()});
    w.timeline()->showRange(0, 20); // somewhere else first
    w.findingsView()->setCurrentIndex(w.findingsProxy()->mapFromSource(w.findingsModel()->index(row, 0)));
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
    w.showTrace(gui::LoadedTrace {first, {}, std::nullopt, QStringLiteral("first.json")});
    std::atomic<bool> started {false};
    w.loadJob().setLoadFunction([&started](const std::filesystem::path&, parsers::ProgressSink& sink) {
        // A load that only ends when cancelled, reporting progress like an importer.
        started = true;
        std::uint64_t done = 0;
        while (!sink.cancelled()) {
            sink.report(done += 1024, 1 << 30, "reading events");
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        }
        return parsers::ImportResult(model::Status(model::StatusKind::Cancelled, "cancelled"));
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

/// An analysis that runs until released (or cancelled), then returns the small trace's findings.
struct HeldAnalysis
{
    std::shared_ptr<std::atomic<bool>> release = std::make_shared<std::atomic<bool>>(false);
    TraceLoadJob::AnalyzeFunction function() const
    {
        return [release = release](const model::Trace& t, const analysis::CancelToken& token) {
            while (!release->load() && !token.cancelled())
                std::this_thread::sleep_for(std::chrono::milliseconds(2));
            analysis::AnalysisResult r;
            r.cancelled = token.cancelled();
            if (!r.cancelled)
                r.findings = testing::smallFindings(t);
            return r;
        };
    }
};

void TestMainWindow::timelineShownBeforeAnalysis()
{
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    FinishCounter finished(w);
    const auto trace = testing::smallTrainingTrace();
    w.loadJob().setLoadFunction(
        [trace](const std::filesystem::path&, parsers::ProgressSink&) { return parsers::ImportResult(trace); });
    HeldAnalysis analysis;
    w.loadJob().setAnalyzeFunction(analysis.function());
    w.openPath(m_dir.filePath(QStringLiteral("early.json")));
    // The timeline shows the trace while the analyses still run; findings and the report wait for them.
    QTRY_COMPARE(w.timeline()->trace(), trace);
    QCOMPARE(finished.count, 0);
    QCOMPARE(w.current().trace, trace);
    QCOMPARE(w.findingsView()->model()->rowCount(), 0);
    QVERIFY(w.notAssessedLabel()->isVisibleTo(&w));
    QVERIFY2(w.notAssessedLabel()->text().contains(QStringLiteral("Analysing")),
             qPrintable(w.notAssessedLabel()->text()));
    QVERIFY(w.windowTitle().startsWith(QStringLiteral("early.json")));
    const QString refused = w.exportReportTo(m_dir.filePath(QStringLiteral("early.md")));
    QVERIFY2(refused.contains(QStringLiteral("analysed")), qPrintable(refused));
    QVERIFY(!QFile::exists(m_dir.filePath(QStringLiteral("early.md"))));
    // The user zooms in meanwhile; the findings arriving do not reset the view.
    w.timeline()->showRange(trace->startNs() + 1100, trace->startNs() + 1300);
    const model::TimeNs zoomStart = w.timeline()->zoom().start();
    const model::TimeNs zoomSpan = w.timeline()->zoom().span();
    QVERIFY(zoomSpan < trace->spanNs());
    analysis.release->store(true);
    QTRY_COMPARE(finished.count, 1);
    QCOMPARE(w.findingsView()->model()->rowCount(), static_cast<int>(testing::smallFindings(*trace).size()));
    QVERIFY(!w.notAssessedLabel()->text().contains(QStringLiteral("Analysing")));
    QCOMPARE(w.timeline()->zoom().start(), zoomStart);
    QCOMPARE(w.timeline()->zoom().span(), zoomSpan);
    QCOMPARE(w.exportReportTo(m_dir.filePath(QStringLiteral("early.md"))), QString());
    QVERIFY(readAll(m_dir.filePath(QStringLiteral("early.md"))).contains("## Findings"));
}

void TestMainWindow::cancelledAnalysisKeepsTimeline()
{
    MainWindow w;
    FinishCounter finished(w);
    const auto trace = testing::smallTrainingTrace();
    w.loadJob().setLoadFunction(
        [trace](const std::filesystem::path&, parsers::ProgressSink&) { return parsers::ImportResult(trace); });
    HeldAnalysis analysis;
    w.loadJob().setAnalyzeFunction(analysis.function());
    w.openPath(m_dir.filePath(QStringLiteral("stopped.json")));
    QTRY_COMPARE(w.timeline()->trace(), trace);
    w.loadJob().cancel();
    QTRY_COMPARE(finished.count, 1);
    // The trace stays on screen; it says that it has no findings because the analysis was stopped, and so does
    // its report.
    QCOMPARE(w.timeline()->trace(), trace);
    QVERIFY(w.current().analysis.cancelled);
    QVERIFY2(w.notAssessedLabel()->text().contains(QStringLiteral("cancelled")),
             qPrintable(w.notAssessedLabel()->text()));
    QVERIFY(!w.notAssessedLabel()->isHidden());
    // Shown again (as any later refresh of the window does), it still says why it has no findings.
    w.showTrace(w.current());
    QVERIFY2(w.notAssessedLabel()->text().contains(QStringLiteral("cancelled")),
             qPrintable(w.notAssessedLabel()->text()));
    QVERIFY(!w.notAssessedLabel()->isHidden());
    QCOMPARE(w.exportReportTo(m_dir.filePath(QStringLiteral("stopped.md"))), QString());
    QVERIFY(readAll(m_dir.filePath(QStringLiteral("stopped.md"))).contains("cancelled"));
}

void TestMainWindow::badFileShowsErrorAndStaysUsable()
{
    MainWindow w;
    QList<RecordedError> errors;
    w.setErrorReporter([&errors](const QString& t, const QString& m) { errors.append({t, m}); });
    const auto first = testing::smallTrainingTrace();
    w.showTrace(gui::LoadedTrace {first, {}, std::nullopt, QStringLiteral("first.json")});
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
        return parsers::ImportResult(testing::smallTrainingTrace());
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

// Out of memory in the analysis on the pool thread, or ArgStore's std::length_error in the import: each is the
// window's error message naming the file (issue 38), never an exception rethrown into the event loop (an abort).
void TestMainWindow::workerExceptionsAreErrors()
{
    MainWindow w;
    QList<RecordedError> errors;
    w.setErrorReporter([&errors](const QString& t, const QString& m) { errors.append({t, m}); });
    FinishCounter finished(w);
    const QString path = m_dir.filePath(QStringLiteral("huge.json"));
    QVERIFY(QFile(path).open(QIODevice::WriteOnly));

    w.loadJob().setLoadFunction([](const std::filesystem::path&, parsers::ProgressSink&) {
        return parsers::ImportResult(testing::smallTrainingTrace());
    });
    w.loadJob().setAnalyzeFunction(
        [](const model::Trace&, const analysis::CancelToken&) -> analysis::AnalysisResult { throw std::bad_alloc(); });
    w.openPath(path);
    QTRY_COMPARE(finished.count, 1);
    QCOMPARE(errors.size(), 1);
    QVERIFY2(errors[0].message.contains(QStringLiteral("out of memory")), qPrintable(errors[0].message));
    QVERIFY2(errors[0].message.contains(QStringLiteral("huge.json")), qPrintable(errors[0].message));

    w.loadJob().setLoadFunction([](const std::filesystem::path&, parsers::ProgressSink&) -> parsers::ImportResult {
        throw std::length_error("the trace's event args take more than 4 GiB");
    });
    w.openPath(path);
    QTRY_COMPARE(finished.count, 2);
    QCOMPARE(errors.size(), 2);
    QVERIFY2(errors[1].message.contains(QStringLiteral("4 GiB")), qPrintable(errors[1].message));

    // The window still loads the next trace.
    w.loadJob().setLoadFunction([](const std::filesystem::path&, parsers::ProgressSink&) {
        return parsers::ImportResult(testing::smallTrainingTrace());
    });
    w.loadJob().setAnalyzeFunction(noAnalysis);
    w.openPath(path);
    QTRY_COMPARE(finished.count, 3);
    QCOMPARE(errors.size(), 2);
    QVERIFY(w.timeline()->trace() != nullptr);
}

// The open dialogs' filter comes from the importers' descriptions: every file pattern of every format, once.
void TestMainWindow::openDialogFilterListsEveryFormat()
{
    const QString filter = MainWindow::traceFileFilter();
    QVERIFY2(filter.endsWith(QStringLiteral(";;All files (*)")), qPrintable(filter));
    for (const parsers::FormatDescription& f : parsers::supportedFormats()) {
        for (const std::string& p : f.filePatterns)
            QVERIFY2(filter.contains(QString::fromStdString(p) + QLatin1Char(' '))
                         || filter.contains(QString::fromStdString(p) + QLatin1Char(')')),
                     qPrintable(filter + QStringLiteral(" lacks ") + QString::fromStdString(p)));
    }
    QCOMPARE(filter.count(QStringLiteral("*.json ")), 1);
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
    // 119 layer rows: python3 -c "import re; print(sum(1 for l in open(F) if re.match(r'^\d+\s+\S+\s+\S+\s+(CPU|NPU)',
    // l)))" One frame, so one step.
    QTest::newRow("rknn layer table") << QStringLiteral(TIMESINK_FIXTURES_DIR
                                                        "/rknn/toolkit2_2.3.2_rk3588_eval_perf_layers_yolov8n_640.txt")
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
        QFAIL(qPrintable(QStringLiteral("importer %1 is not registered in parsers::allImporters()").arg(importer)));
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
    QCOMPARE(w.findingsModel()->rowCount(), static_cast<int>(w.current().analysis.findings.size()));
    QCOMPARE(w.current().summary->steps.size(), static_cast<std::size_t>(steps));
}

void TestMainWindow::searchFieldStepsThroughMatches()
{
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    const auto trace = testing::smallTrainingTrace();
    w.showTrace(gui::LoadedTrace {trace, {}, std::nullopt, QString()});
    // Typing searches once the keys pause, not at every keystroke; Enter runs a pending search at once.
    w.searchField()->setText(QStringLiteral("relu"));
    QCOMPARE(w.timeline()->search().count(), std::size_t(0));
    QTest::keyClick(w.searchField(), Qt::Key_Return);
    QCOMPARE(w.timeline()->search().count(), std::size_t(2)); // aten::relu, relu_fwd
    QVERIFY(
        trace
            ->str(
                trace->track(w.timeline()->selectedSlice().track).sliceName(w.timeline()->selectedSlice().index.value))
            .find("relu")
        != std::string_view::npos);
    w.searchField()->setText(QStringLiteral("cudaLaunch"));
    QTRY_COMPARE(w.timeline()->search().count(), std::size_t(2));
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

// Issue #47 item 3: after clicking a finding, F must fit the timeline, not jump to the finding whose title starts
// with "F" (the table's type-ahead); the same keys typed into the search field stay text.
void TestMainWindow::singleKeyShortcutsActFromTables()
{
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    w.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    const auto trace = testing::smallTrainingTrace();
    w.showTrace(gui::LoadedTrace {trace, analysed(testing::smallFindings(*trace), 2000), std::nullopt, QString()});
    QTableView* table = w.findingsView();
    table->setCurrentIndex(w.findingsProxy()->mapFromSource(w.findingsModel()->index(1, 0)));
    table->setFocus();
    QTRY_VERIFY(table->hasFocus());
    const QModelIndex before = table->currentIndex();
    const auto& zoom = w.timeline()->zoom();
    QVERIFY(zoom.span() < trace->spanNs()); // the finding zoomed in

    QTest::keyClick(table, Qt::Key_F);
    QCOMPARE(zoom.span(), trace->spanNs());
    QCOMPARE(table->currentIndex(), before); // no type-ahead jump
    QVERIFY(table->hasFocus());
    QTest::keyClick(table, Qt::Key_W);
    const model::TimeNs zoomedIn = zoom.span();
    QVERIFY(zoomedIn < trace->spanNs());
    const model::TimeNs startBeforePan = zoom.start();
    QTest::keyClick(table, Qt::Key_D);
    QVERIFY(zoom.start() > startBeforePan);
    QTest::keyClick(table, Qt::Key_A);
    QCOMPARE(zoom.start(), startBeforePan);
    QTest::keyClick(table, Qt::Key_S);
    QVERIFY(zoom.span() > zoomedIn);
    QCOMPARE(table->currentIndex(), before);

    // Typing in the search field types.
    w.searchField()->setFocus();
    QTRY_VERIFY(w.searchField()->hasFocus());
    const model::TimeNs span = zoom.span();
    QTest::keyClicks(w.searchField(), QStringLiteral("wasdfz"));
    QCOMPARE(w.searchField()->text(), QStringLiteral("wasdfz"));
    QCOMPARE(zoom.span(), span);
}

void TestMainWindow::initialViewAndFindingAfterLoad()
{
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    FinishCounter finished(w);
    w.loadJob().setLoadFunction([](const std::filesystem::path&, parsers::ProgressSink&) {
        return parsers::ImportResult(testing::smallTrainingTrace());
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

void TestMainWindow::notAssessedShownAndExported_data()
{
    QTest::addColumn<QString>("fileName");
    QTest::addColumn<QByteArray>("section");
    QTest::addColumn<QByteArray>("kind");
    QTest::newRow("markdown") << QStringLiteral("r.md") << QByteArray("## Not assessed")
                              << QByteArray("pipeline\\_bubble");
    QTest::newRow("html") << QStringLiteral("r.html") << QByteArray("<h2>Not assessed</h2>")
                          << QByteArray("pipeline_bubble");
    QTest::newRow("json") << QStringLiteral("r.json") << QByteArray("\"not_assessed\"")
                          << QByteArray("\"pipeline_bubble\"");
}

void TestMainWindow::notAssessedShownAndExported()
{
    QFETCH(QString, fileName);
    QFETCH(QByteArray, section);
    QFETCH(QByteArray, kind);
    // The CPU sample has no device work at all, so the device analyses cannot assess it:
    //   python3 -c "import json,collections; e=json.load(open(F))['traceEvents'];
    //               print(collections.Counter(x['pid'] for x in e))"   → {'CPU functions': 2645}
    MainWindow w;
    QList<RecordedError> errors;
    w.setErrorReporter([&errors](const QString& t, const QString& m) { errors.append({t, m}); });
    FinishCounter finished(w);
    w.openPath(kCpuSample);
    QTRY_COMPARE_WITH_TIMEOUT(finished.count, 1, 60000);
    QVERIFY2(errors.isEmpty(), errors.isEmpty() ? "" : qPrintable(errors[0].message));

    // Carried through the load job: the same list analysis::analyze() gives for the trace.
    const auto& notAssessed = w.current().analysis.notAssessed;
    const analysis::AnalysisResult direct
        = analysis::analyze(*w.current().trace, analysis::AnalysisOptions {}, analysis::CancelToken {});
    QCOMPARE(notAssessed.size(), direct.notAssessed.size());
    QStringList kinds;
    for (const analysis::NotAssessed& n : notAssessed)
        kinds << QString::fromStdString(n.kind);
    for (const char* deviceKind : {"pipeline_bubble", "copy_hotspot", "cpu_fallback"})
        QVERIFY2(kinds.contains(QLatin1String(deviceKind)), qPrintable(kinds.join(QLatin1Char(','))));

    // Shown under the findings table, one line per kind, with the reason.
    QLabel* label = w.notAssessedLabel();
    QVERIFY(!label->isHidden());
    const QStringList lines = label->text().split(QLatin1Char('\n'));
    QCOMPARE(lines.size(), static_cast<qsizetype>(notAssessed.size()));
    const qsizetype bubble = kinds.indexOf(QStringLiteral("pipeline_bubble"));
    QCOMPARE(lines[bubble],
             QStringLiteral("Not assessed: pipeline_bubble — %1")
                 .arg(QString::fromStdString(notAssessed[static_cast<std::size_t>(bubble)].reason)));
    QVERIFY(lines[bubble].contains(QStringLiteral("no device work")));

    // File → Export Report… writes the same "Not assessed" section as the CLI.
    const QString out = m_dir.filePath(fileName);
    QCOMPARE(w.exportReportTo(out), QString());
    const QByteArray report = readAll(out);
    QVERIFY2(report.contains(section), report.left(300).constData());
    QVERIFY(report.contains(kind));
    if (fileName.endsWith(QStringLiteral(".json"))) {
        const QJsonArray list
            = QJsonDocument::fromJson(report).object().value(QStringLiteral("not_assessed")).toArray();
        QCOMPARE(list.size(), static_cast<qsizetype>(notAssessed.size()));
        QCOMPARE(list.at(bubble).toObject().value(QStringLiteral("reason")).toString(),
                 QString::fromStdString(notAssessed[static_cast<std::size_t>(bubble)].reason));
    }

    // A trace with everything assessed hides the line again.
    w.showTrace(gui::LoadedTrace {testing::smallTrainingTrace(), {}, std::nullopt, QString()});
    QVERIFY(label->isHidden());
}

void TestMainWindow::traceExportRunsOffTheUiThread()
{
    MainWindow w;
    QList<RecordedError> errors;
    w.setErrorReporter([&errors](const QString& t, const QString& m) { errors.append({t, m}); });
    w.show();
    const QString input = m_dir.filePath(QStringLiteral("offthread.json"));
    writeFile(input, "{}");
    w.showTrace(gui::LoadedTrace {testing::smallTrainingTrace(), {}, std::nullopt, input});

    // An export that only returns when the test lets it: the window must stay responsive meanwhile.
    std::mutex mutex;
    std::condition_variable cv;
    bool release = false;
    std::atomic<bool> started {false};
    std::thread::id workerThread;
    gui::TraceExportRequest seen;
    w.setTraceExportFunction([&](const gui::TraceExportRequest& request) {
        {
            std::unique_lock lock(mutex);
            workerThread = std::this_thread::get_id();
            seen = request;
            started = true;
            cv.wait(lock, [&] { return release; });
        }
        return QString();
    });
    QSignalSpy done(&w, &MainWindow::traceExportFinished);
    auto* action = w.findChild<QAction*>(QStringLiteral("actionExportTrace"));
    QVERIFY(action && action->isEnabled());

    const QString out = m_dir.filePath(QStringLiteral("offthread.pftrace"));
    QCOMPARE(w.startTraceExport(out), QString());
    QTRY_VERIFY(started.load());
    QVERIFY(w.isExportingTrace());
    QVERIFY(!action->isEnabled()); // one export at a time
    QVERIFY(w.statusBar()->currentMessage().contains(QStringLiteral("Exporting trace")));
    QVERIFY(w.startTraceExport(out).contains(QStringLiteral("still running")));
    // The event loop runs while the worker is blocked: a timer fires and the window answers input.
    bool timerFired = false;
    QTimer::singleShot(0, &w, [&timerFired] { timerFired = true; });
    QTRY_VERIFY(timerFired);
    w.searchField()->setText(QStringLiteral("conv"));
    QTRY_COMPARE(w.timeline()->search().count(), std::size_t(2)); // aten::conv2d and conv_fwd
    {
        std::lock_guard lock(mutex);
        QVERIFY(workerThread != std::this_thread::get_id());
        QCOMPARE(seen.trace, w.current().trace); // the frozen trace is shared, not copied
        QCOMPARE(seen.format, exporters::TraceFormat::Perfetto);
        QCOMPARE(QString::fromStdString(seen.output.string()), out);
        QCOMPARE(QString::fromStdString(seen.input.string()), input);
        release = true;
    }
    cv.notify_all();
    QTRY_COMPARE(done.size(), 1);
    QCOMPARE(done[0].at(0).toString(), out);
    QCOMPARE(done[0].at(1).toString(), QString());
    QVERIFY(!w.isExportingTrace());
    QVERIFY(action->isEnabled());
    QVERIFY2(w.statusBar()->currentMessage().startsWith(QStringLiteral("Trace written to")),
             qPrintable(w.statusBar()->currentMessage()));
    QVERIFY(errors.isEmpty());
}

void TestMainWindow::traceExportWritesOrReports()
{
    MainWindow w;
    QList<RecordedError> errors;
    w.setErrorReporter([&errors](const QString& t, const QString& m) { errors.append({t, m}); });
    QSignalSpy done(&w, &MainWindow::traceExportFinished);
    QVERIFY(w.startTraceExport(m_dir.filePath(QStringLiteral("none.json"))).contains(QStringLiteral("No trace")));

    const QString input = m_dir.filePath(QStringLiteral("exported-input.json"));
    writeFile(input, "{}");
    const auto trace = testing::smallTrainingTrace();
    w.showTrace(gui::LoadedTrace {trace, analysed(testing::smallFindings(*trace), 2000), std::nullopt, input});

    // Refused before any work: the extension names no trace format.
    QVERIFY(w.startTraceExport(m_dir.filePath(QStringLiteral("t.txt"))).contains(QStringLiteral(".pftrace")));
    QVERIFY(!w.isExportingTrace());

    // Written by the real exporter on the worker: Chrome JSON with the trace's events.
    const QString out = m_dir.filePath(QStringLiteral("exported.json"));
    QCOMPARE(w.startTraceExport(out), QString());
    QTRY_COMPARE(done.size(), 1);
    QCOMPARE(done[0].at(1).toString(), QString());
    QJsonParseError parseError {};
    const QJsonDocument doc = QJsonDocument::fromJson(readAll(out), &parseError);
    QCOMPARE(parseError.error, QJsonParseError::NoError);
    const QByteArray text = readAll(out);
    for (const char* name : {"aten::conv2d", "conv_fwd", "relu_fwd", "DataLoader next"})
        QVERIFY2(text.contains(name), name);
    QVERIFY(errors.isEmpty());

    // Failures come back through the status bar and the error reporter; the input is never replaced.
    QCOMPARE(w.startTraceExport(input), QString()); // .json is a trace format; the exporter refuses the path
    QTRY_COMPARE(done.size(), 2);
    QVERIFY2(done[1].at(1).toString().contains(QStringLiteral("refusing to overwrite the input")),
             qPrintable(done[1].at(1).toString()));
    QCOMPARE(readAll(input), QByteArray("{}"));
    QCOMPARE(errors.size(), 1);
    QVERIFY(w.statusBar()->currentMessage().startsWith(QStringLiteral("Trace export failed")));

    QCOMPARE(w.startTraceExport(m_dir.filePath(QStringLiteral("no/dir/t.pftrace"))), QString());
    w.waitForTraceExport(); // delivers the outcome at once
    QCOMPARE(done.size(), 3);
    QVERIFY2(done[2].at(1).toString().contains(QStringLiteral("no/dir")), qPrintable(done[2].at(1).toString()));
    QCOMPARE(errors.size(), 2);
}

// The track list is a model over the timeline's layout (no item per track): Qt's own checks of a model, over a
// small trace, through a filter and a layout change.
void TestMainWindow::trackListModelIsConsistent()
{
    MainWindow w;
    QAbstractItemModel* model = w.tracksPanel()->tree()->model();
    QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    const auto trace = testing::smallTrainingTrace();
    w.showTrace(gui::LoadedTrace {trace, analysed({}, 0), std::nullopt, QStringLiteral("/tmp/run1.json")});
    const widgets::TrackLayout& layout = w.timeline()->layout();
    QCOMPARE(model->rowCount(), static_cast<int>(layout.groups().size()));
    for (int g = 0; g < model->rowCount(); ++g) {
        const QModelIndex group = model->index(g, widgets::TracksPanel::Name);
        QCOMPARE(group.data().toString(), layout.groups()[std::size_t(g)].title);
        QCOMPARE(model->rowCount(group), static_cast<int>(layout.groups()[std::size_t(g)].tracks.size()));
        for (int t = 0; t < model->rowCount(group); ++t) {
            QCOMPARE(model->index(t, 0, group).data(widgets::TracksPanel::kTrackRole).toUInt(),
                     layout.groups()[std::size_t(g)].tracks[std::size_t(t)].value);
            QCOMPARE(model->index(t, 0, group).parent(), group);
        }
    }
    // Unchecking a track hides it in the timeline; pinning pins it.
    const QModelIndex firstTrack = model->index(0, widgets::TracksPanel::Name, model->index(0, 0));
    const model::TrackId id(firstTrack.data(widgets::TracksPanel::kTrackRole).toUInt());
    QVERIFY(model->setData(firstTrack, Qt::Unchecked, Qt::CheckStateRole));
    QVERIFY(layout.isTrackHidden(id));
    QCOMPARE(firstTrack.data(Qt::CheckStateRole).toInt(), int(Qt::Unchecked));
    QVERIFY(model->setData(firstTrack.siblingAtColumn(widgets::TracksPanel::Pinned), Qt::Checked, Qt::CheckStateRole));
    QVERIFY(layout.isPinned(id));
    // A filter that matches nothing empties the list; clearing it brings every group back.
    w.tracksPanel()->filter()->setText(QStringLiteral("no such track"));
    QCOMPARE(model->rowCount(), 0);
    w.tracksPanel()->filter()->clear();
    QCOMPARE(model->rowCount(), static_cast<int>(layout.groups().size()));
}

// Issue 35: a trace of 100,000 single-kernel tracks, each on its own GPU (generated: pid = args.device = i), opens
// through the real import; the track list answers for all of it without an item per track, scrolls to the end and
// paints; so does the timeline. Functional checks only (the times are in bench_gui_open).
void TestMainWindow::hundredThousandTracks()
{
    constexpr int kDevices = 100000;
    const QString path = m_dir.filePath(QStringLiteral("devices.json"));
    {
        QByteArray text = "{\"schemaVersion\": 1, \"traceEvents\": [\n";
        text.reserve(kDevices * 140);
        for (int i = 0; i < kDevices; ++i) {
            const QByteArray n = QByteArray::number(i);
            text += (i ? ",\n" : "") + QByteArray("{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":") + n
                + ",\"tid\":7,\"ts\":" + QByteArray::number(1000 + i) + ",\"dur\":1,\"args\":{\"device\":" + n
                + ",\"stream\":7}}";
        }
        text += "\n]}\n";
        writeFile(path, text);
    }
    MainWindow w;
    w.resize(1600, 1000);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    FinishCounter finished(w);
    w.loadJob().setAnalyzeFunction(noAnalysis);
    w.openPath(path);
    QTRY_COMPARE_WITH_TIMEOUT(finished.count, 1, 300000);
    const model::TracePtr trace = w.timeline()->trace();
    QVERIFY(trace);
    QCOMPARE(trace->tracks().size(), std::size_t(kDevices));

    // The timeline: a group per device (header and stream row), ordered by device index.
    widgets::TimelineView* timeline = w.timeline();
    const widgets::TrackLayout& layout = timeline->layout();
    QCOMPARE(layout.groups().size(), std::size_t(kDevices));
    QCOMPARE(layout.rows().size(), std::size_t(2 * kDevices));
    QCOMPARE(trace->track(layout.rows().back().track).deviceIndex, kDevices - 1);
    timeline->verticalScrollBar()->setValue(timeline->verticalScrollBar()->maximum());
    timeline->viewport()->repaint();
    const int bottomRow = timeline->rowAtPos(QPoint(400, timeline->viewport()->height() - 4));
    QVERIFY2(bottomRow >= 2 * kDevices - 2, qPrintable(QString::number(bottomRow)));
    QVERIFY(timeline->lastPaintStats().rectsDrawn > 0);

    // The track list: every group, each with its one track, the last one GPU 99,999's.
    widgets::TracksPanel* panel = w.tracksPanel();
    QTreeView* tree = panel->tree();
    QAbstractItemModel* model = tree->model();
    QCOMPARE(model->rowCount(), kDevices);
    const QModelIndex lastGroup = model->index(kDevices - 1, widgets::TracksPanel::Name);
    QCOMPARE(lastGroup.data().toString(), layout.groups().back().title);
    QCOMPARE(model->rowCount(lastGroup), 1);
    const QModelIndex lastTrack = model->index(0, widgets::TracksPanel::Name, lastGroup);
    const model::TrackId lastId(lastTrack.data(widgets::TracksPanel::kTrackRole).toUInt());
    QCOMPARE(trace->track(lastId).deviceIndex, kDevices - 1);

    // Scrolled to the end, the last group is on screen and painted (its row is not blank).
    tree->expand(lastGroup);
    tree->scrollTo(lastTrack);
    const QRect rowRect = tree->visualRect(lastGroup);
    QVERIFY(tree->viewport()->rect().contains(rowRect));
    QCOMPARE(tree->indexAt(rowRect.center()), lastGroup);
    const QImage shot = tree->viewport()->grab().toImage();
    QSet<QRgb> colours;
    for (int x = rowRect.left(); x < std::min(rowRect.right(), shot.width()); ++x)
        colours.insert(shot.pixel(x, rowRect.center().y()));
    QVERIFY2(colours.size() > 1, "the last group's row is blank");

    // A check box change repaints without resetting the list (the group stays open).
    QVERIFY(model->setData(lastTrack, Qt::Unchecked, Qt::CheckStateRole));
    QVERIFY(layout.isTrackHidden(lastId));
    QCOMPARE(layout.rows().size(), std::size_t(2 * kDevices - 1));
    QCOMPARE(model->rowCount(), kDevices);
    QVERIFY(tree->isExpanded(lastGroup));

    // Filters: one device (opened), then 11,111 ("GPU 1", "GPU 10"–"GPU 19", … "GPU 19999": left closed).
    panel->filter()->setText(QStringLiteral("GPU 99999"));
    QCOMPARE(model->rowCount(), 1);
    QVERIFY(tree->isExpanded(model->index(0, 0)));
    panel->filter()->setText(QStringLiteral("GPU 1"));
    QCOMPARE(model->rowCount(), 1 + 10 + 100 + 1000 + 10000);
    QVERIFY(!tree->isExpanded(model->index(0, 0)));
    panel->filter()->clear();
    QCOMPARE(model->rowCount(), kDevices);
}

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
