// SPDX-License-Identifier: MIT
// The job overview in the viewer: heat map, findings, per-rank table, opening a rank's timeline, comparing two
// ranks, and the main window opening a folder of ranks as a job — on the planted job (tests/job/plantedjob.h).
#include "app/gui/jobwindow.h"
#include "app/gui/mainwindow.h"
#include "tests/job/plantedjob.h"
#include "widgets/compareview.h"
#include "widgets/joboverview.h"

#include <QApplication>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

using timesink::gui::JobWindow;
using timesink::gui::MainWindow;
using timesink::widgets::JobHeatMap;
using timesink::widgets::JobOverview;

namespace {

constexpr std::int64_t kMs = 1'000'000;

} // namespace

class TestJobWindow : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        timesink::testing::writePlantedJob(m_dir.path().toStdString(), {});
        m_window = std::make_unique<JobWindow>();
        QString error;
        QSignalSpy ready(m_window.get(), &JobWindow::jobReady);
        QVERIFY(m_window->start({m_dir.path()}, error));
        QVERIFY(ready.wait(60'000));
        QVERIFY(ready.front().front().toStringList().isEmpty());
    }

    // A job folder with other files beside the ranks (issue 36): the window opens the ranks and its banner names
    // what was skipped.
    void skippedFilesAreNamedInTheBanner()
    {
        QTemporaryDir dir;
        timesink::testing::writePlantedJob(dir.path().toStdString(), {});
        QFile notes(dir.filePath(QStringLiteral("notes.json")));
        QVERIFY(notes.open(QIODevice::WriteOnly));
        notes.write("{\"experiment\": \"lr sweep\"}");
        notes.close();
        JobWindow window;
        QString error;
        QSignalSpy ready(&window, &JobWindow::jobReady);
        QVERIFY2(window.start({dir.path()}, error), qPrintable(error));
        QVERIFY(ready.wait(60'000));
        QCOMPARE(window.overview()->job().ranks.size(), std::size_t(4));
        bool named = false;
        for (const QLabel* label : window.findChildren<QLabel*>())
            named = named
                || label->text().contains(QStringLiteral("Warning: skipped ") + notes.fileName()
                                          + QStringLiteral(": not a trace Timesink knows"));
        QVERIFY(named);
    }

    void heatMapAndTables()
    {
        JobOverview* o = m_window->overview();
        QCOMPARE(o->job().ranks.size(), std::size_t(4));
        JobHeatMap* map = o->heatMap();
        QCOMPARE(map->value(0, 1), 54 * kMs);
        QCOMPARE(map->maxValue(), 54 * kMs);
        o->measureBox()->setCurrentIndex(1); // communication wait
        QCOMPARE(map->measure(), JobHeatMap::Measure::CommunicationWait);
        QCOMPARE(map->value(0, 1), 18 * kMs);
        QCOMPARE(map->value(2, 1), std::int64_t(0)); // the straggler waits for no one
        QCOMPARE(map->value(9, 1), std::int64_t(-1));
        QCOMPARE(o->findingsTable()->rowCount(), 2);
        QCOMPARE(o->findingsTable()->item(0, 0)->text(), QStringLiteral("straggler"));
        QVERIFY(o->findingsTable()->item(0, 1)->text().startsWith(QStringLiteral("Rank 2 is a straggler")));
        QCOMPARE(o->ranksTable()->rowCount(), 4);
        QCOMPARE(o->ranksTable()->item(2, 0)->text(), QStringLiteral("2"));
        QCOMPARE(o->ranksTable()->item(0, 4)->text(), QStringLiteral("54.0 ms")); // wait over three steps
        o->measureBox()->setCurrentIndex(0);
    }

    void doubleClickOpensRankTimeline()
    {
        QStringList opened;
        m_window->setTimelineOpener([&opened](const QString& path) { opened << path; });
        JobHeatMap* map = m_window->overview()->heatMap();
        QTest::mouseDClick(map, Qt::LeftButton, {}, map->cellRect(1, 2).center());
        QCOMPARE(opened.size(), 1);
        QVERIFY(opened.front().endsWith(QStringLiteral("rank-1.json")));
        QTableWidget* ranks = m_window->overview()->ranksTable();
        emit ranks->cellDoubleClicked(3, 0);
        QCOMPARE(opened.size(), 2);
        QVERIFY(opened.back().endsWith(QStringLiteral("rank-3.json")));
    }

    void twoRanksGoToCompare()
    {
        JobOverview* o = m_window->overview();
        QTableWidget* ranks = o->ranksTable();
        ranks->clearSelection();
        QVERIFY(!o->compareButton()->isEnabled());
        ranks->selectRow(0);
        ranks->setSelectionMode(QAbstractItemView::MultiSelection);
        ranks->selectRow(2);
        ranks->setSelectionMode(QAbstractItemView::ExtendedSelection);
        QVERIFY(o->compareButton()->isEnabled());
        QSignalSpy spy(o, &JobOverview::compareRequested);
        o->compareButton()->click();
        QCOMPARE(spy.size(), 1);
        QCOMPARE(spy.front().at(0).toInt(), 0);
        QCOMPARE(spy.front().at(1).toInt(), 2);
        // The window loads both ranks and opens them side by side.
        QTRY_VERIFY_WITH_TIMEOUT(m_window->lastCompareView() != nullptr, 60'000);
        QVERIFY(m_window->lastCompareView()->windowTitle().contains(QStringLiteral("rank-0.json")));
        QVERIFY(m_window->lastCompareView()->windowTitle().contains(QStringLiteral("rank-2.json")));
        m_window->lastCompareView()->close();
    }

    // Opening a folder of ranks in the main window shows the job, not one of the ranks.
    void mainWindowOpensJobFolder()
    {
        MainWindow main;
        main.setErrorReporter([](const QString& title, const QString& message) {
            QFAIL(qPrintable(title + QStringLiteral(": ") + message));
        });
        main.openPath(m_dir.path());
        JobWindow* job = nullptr;
        for (QWidget* w : QApplication::topLevelWidgets()) {
            if (auto* j = qobject_cast<JobWindow*>(w); j && j != m_window.get())
                job = j;
        }
        QVERIFY(job);
        QTRY_COMPARE_WITH_TIMEOUT(job->overview()->job().ranks.size(), std::size_t(4), 60'000);
        QVERIFY(!main.loadJob().isRunning()); // no single-trace load was started
        job->close();
    }

private:
    QTemporaryDir m_dir;
    std::unique_ptr<JobWindow> m_window;
};

QTEST_MAIN(TestJobWindow)
#include "tst_jobwindow.moc"
