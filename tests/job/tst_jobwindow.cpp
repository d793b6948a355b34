// SPDX-License-Identifier: MIT
// The job overview in the viewer: heat map (self-explaining, with its values as a table), the aligned rank lanes,
// findings with their details, the sortable per-rank table, opening a rank's trace at a step, comparing two ranks,
// and the main window opening a folder of ranks as a job — on the planted job (tests/job/plantedjob.h), on small
// hand-built jobs whose numbers are written out below, and on 1,024 ranks (virtualised lanes).
#include "analysis/core/pass.h"
#include "app/gui/jobwindow.h"
#include "app/gui/mainwindow.h"
#include "parsers/registry/traceloader.h"
#include "report/jsonreportwriter.h"
#include "report/reportmodel.h"
#include "tests/job/plantedjob.h"
#include "widgets/compareview.h"
#include "widgets/detailspanel.h"
#include "widgets/joblanes.h"
#include "widgets/joboverview.h"
#include "widgets/tablecopy.h"

#include <QApplication>
#include <QComboBox>
#include <QElapsedTimer>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include <fstream>

using timesink::gui::JobWindow;
using timesink::gui::MainWindow;
using timesink::widgets::JobHeatMap;
using timesink::widgets::JobLanesPanel;
using timesink::widgets::JobLanesView;
using timesink::widgets::JobOverview;
using timesink::widgets::TableCopy;
namespace analysis = timesink::analysis;

namespace {

constexpr std::int64_t kMs = 1'000'000;

/// One rank of a hand-built job: steps {number, start, duration} on the rank's clock, each with one all-reduce
/// [collStart, duration) relative to the step, exposed from `exposedFrom` on.
struct Step
{
    std::int64_t number;
    std::int64_t start;
    std::int64_t duration;
    std::int64_t collStart;
    std::int64_t exposedFrom;
};

analysis::RankSummary rankOf(std::int32_t rank, std::int32_t world, const std::vector<Step>& steps)
{
    analysis::RankSummary r;
    r.rank = rank;
    r.worldSize = world;
    r.source = "rank-" + std::to_string(rank) + ".json";
    r.tracePath = r.source;
    r.backend = "nccl";
    for (const Step& s : steps) {
        analysis::RankStep st;
        st.number = s.number;
        st.startNs = s.start;
        st.durationNs = s.duration;
        st.computeNs = s.exposedFrom;
        st.communicationNs = s.duration - s.exposedFrom;
        st.collectives.push_back({"allreduce", s.collStart, s.duration, {{s.exposedFrom, s.duration}}});
        r.steps.push_back(st);
        r.analysedNs += s.duration;
    }
    return r;
}

/// The `analyze --format json` report of a trace, as the CLI writes it (load, analyse, report model, JSON).
void writeReport(const std::filesystem::path& trace, const std::filesystem::path& out)
{
    timesink::parsers::ProgressSink quiet;
    timesink::parsers::ImportResult loaded = timesink::parsers::loadTrace(trace, {}, quiet);
    if (!loaded.ok())
        throw std::runtime_error(loaded.error);
    timesink::analysis::CancelToken cancel;
    const analysis::AnalysisResult result = analysis::analyze(*loaded.trace, {}, cancel);
    const timesink::report::ReportModel model = timesink::report::buildReportModel(*loaded.trace, result, {});
    std::ofstream(out) << timesink::report::reportJson(model).dump(-1, ' ', false,
                                                                   nlohmann::ordered_json::error_handler_t::replace);
}

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
        QCOMPARE(map->measure(), analysis::JobMeasure::CommunicationWait);
        QCOMPARE(map->value(0, 1), 18 * kMs);
        QCOMPARE(map->value(2, 1), std::int64_t(0)); // the straggler waits for no one
        QCOMPARE(map->value(9, 1), std::int64_t(-1));
        QCOMPARE(o->findingsTable()->rowCount(), 2);
        QCOMPARE(o->findingsTable()->item(0, 0)->text(), QStringLiteral("Straggler")); // the kind's label
        QVERIFY(o->findingsTable()->item(0, 1)->text().startsWith(QStringLiteral("Rank 2 is a straggler")));
        QCOMPARE(o->ranksTable()->rowCount(), 4);
        QCOMPARE(o->ranksTable()->item(2, 0)->text(), QStringLiteral("2 (straggler)"));
        QCOMPARE(o->ranksTable()->item(0, 4)->text(), QStringLiteral("54.0 ms")); // wait over three steps
        QCOMPARE(o->ranksTable()->item(2, 5)->text(), QStringLiteral("162 ms"));  // 3 × 54 ms caused on the others
        o->measureBox()->setCurrentIndex(0);
    }

    // Issue 37 (2): the map names its measure and unit, numbers the steps, scales its colours from a visible 0, marks
    // the straggler, and its numbers are a copyable table.
    void heatMapExplainsItself()
    {
        JobOverview* o = m_window->overview();
        JobHeatMap* map = o->heatMap();
        QCOMPARE(map->title(), QStringLiteral("Step time per rank and step (ms)"));
        QVERIFY(map->isStraggler(2));
        QVERIFY(!map->isStraggler(0));
        QCOMPARE(map->toolTipAt(map->cellRect(2, 1).center()),
                 QStringLiteral("Rank 2 (straggler), step 2: step time 54.000 ms"));
        o->measureBox()->setCurrentIndex(1);
        QCOMPARE(map->title(), QStringLiteral("Communication wait per rank and step (ms)"));
        // The straggler waits 0: painted pale yellow (jobHeatColor(0) = #fff4b2), never the white of "no data".
        QCOMPARE(map->value(2, 1), std::int64_t(0));
        QCOMPARE(map->colorOf(0), QColor(0xff, 0xf4, 0xb2));
        QCOMPARE(map->colorOf(map->maxValue()), QColor(0xa0, 0x00, 0x26));
        map->resize(map->sizeHint());
        const QImage shot = map->grab().toImage();
        QCOMPARE(shot.pixelColor(map->cellRect(2, 1).center()), QColor(0xff, 0xf4, 0xb2));
        QCOMPARE(shot.pixelColor(map->cellRect(0, 1).center()), QColor(0xa0, 0x00, 0x26)); // 18 ms, the largest
        // The values tab: rank × step in ms, the straggler named, copyable as Markdown.
        QTableWidget* values = o->valuesTable();
        QCOMPARE(values->rowCount(), 4);
        QCOMPARE(values->columnCount(), 4);
        QCOMPARE(values->horizontalHeaderItem(2)->text(), QStringLiteral("Step 2 (ms)"));
        QCOMPARE(values->item(0, 2)->text(), QStringLiteral("18.000"));
        QCOMPARE(values->item(2, 2)->text(), QStringLiteral("0.000"));
        QVERIFY(o->tabs()->tabText(1).contains(QStringLiteral("Communication wait per rank and step (ms)")));
        const QString md = TableCopy::text(values, TableCopy::Scope::Markdown);
        QVERIFY2(md.contains(QStringLiteral("| 2 (straggler) | 0.000 | 0.000 | 0.000 |")), qPrintable(md));
        o->measureBox()->setCurrentIndex(2); // wait caused: the straggler is the hot row
        QCOMPARE(map->value(2, 1), 54 * kMs);
        QCOMPARE(map->value(0, 1), std::int64_t(0));
        o->measureBox()->setCurrentIndex(0);
    }

    // Missing steps are hatched and said so; ranks the world size expects but no input gave are named.
    void heatMapMarksMissing()
    {
        // World size 3: rank 0 has steps 1 and 2, rank 1 only step 1, rank 2 is missing.
        JobOverview o;
        o.setJob(analysis::analyzeJob(
            {rankOf(0, 3, {{1, 0, 40 * kMs, 10 * kMs, 20 * kMs}, {2, 40 * kMs, 40 * kMs, 10 * kMs, 20 * kMs}}),
             rankOf(1, 3, {{1, 0, 40 * kMs, 10 * kMs, 20 * kMs}})}));
        QCOMPARE(o.job().missingRanks, std::vector<std::int32_t>({2}));
        JobHeatMap* map = o.heatMap();
        QCOMPARE(map->value(1, 1), std::int64_t(-1));
        QCOMPARE(map->toolTipAt(map->cellRect(1, 1).center()), QStringLiteral("Rank 1 has no step 2"));
        QCOMPARE(o.valuesTable()->item(1, 2)->text(), QStringLiteral("no step"));
        map->resize(map->sizeHint());
        const QImage shot = map->grab().toImage();
        // Hatched: the cell holds more than one colour, and none is a heat colour.
        const QRect cell = map->cellRect(1, 1);
        QSet<QRgb> colours;
        for (int x = cell.left(); x <= cell.right(); ++x)
            colours.insert(shot.pixel(x, cell.center().y()));
        QVERIFY(colours.size() >= 2);
        QVERIFY(!colours.contains(map->colorOf(40 * kMs).rgb()));
    }

    // Issue 37 (4): the findings read as labels and the selected one's details explain Lost against the time in
    // collectives; the ranks table sorts by number and is copyable.
    void findingsAndRanksReadable()
    {
        JobOverview* o = m_window->overview();
        QTableWidget* findings = o->findingsTable();
        QCOMPARE(findings->item(1, 0)->text(), QStringLiteral("Communication"));
        findings->selectRow(1);
        const QString details = o->findingDetails()->toPlainText();
        // Planted: 204 ms in collectives over the ranks, 162 ms of it waiting for rank 2 → 42 ms lost here.
        QVERIFY2(details.contains(QStringLiteral("204 ms in collectives")), qPrintable(details));
        QVERIFY2(details.contains(QStringLiteral("Lost counts 42.0 ms of it: the other 162 ms is the ranks waiting for "
                                                 "the straggler (rank 2)")),
                 qPrintable(details));
        QTableWidget* ranks = o->ranksTable();
        ranks->sortByColumn(5, Qt::DescendingOrder); // wait caused, most first
        QCOMPARE(o->rankIndexOfRow(0), 2);
        QCOMPARE(ranks->item(0, 0)->text(), QStringLiteral("2 (straggler)"));
        ranks->sortByColumn(4, Qt::DescendingOrder); // wait: the straggler waits least
        QCOMPARE(o->rankIndexOfRow(3), 2);
        ranks->sortByColumn(0, Qt::AscendingOrder);
        QCOMPARE(o->rankIndexOfRow(3), 3);
        ranks->selectRow(2);
        QVERIFY(TableCopy::text(ranks, TableCopy::Scope::Rows).contains(QStringLiteral("2 (straggler)\t3\t54.0 ms")));
        ranks->clearSelection();
    }

    // Issue 37 (1): the planted job's step 2 on the common clock. From the planted definitions (plantedjob.h):
    // ranks 0, 1, 3 enter the all-reduce at 30 ms, compute overlaps it to 32 ms, they wait to 50 ms (rank 2's
    // arrival), then 4 ms of transfer to 54 ms; rank 2 enters at 50 ms, its tail kernel overlaps to 52 ms.
    void lanesShowTheWait()
    {
        // The overview's lanes panel, shown on its own so that its geometry is real.
        JobLanesPanel shown;
        shown.resize(900, 300);
        shown.setJob(&m_window->overview()->job());
        shown.show();
        QVERIFY(QTest::qWaitForWindowExposed(&shown));
        JobLanesPanel* panel = &shown;
        panel->showStep(2);
        panel->alignBox()->setCurrentIndex(0);
        JobLanesView* view = panel->view();
        const analysis::StepLanes& lanes = view->lanes();
        QCOMPARE(lanes.step, std::int64_t(2));
        QCOMPARE(lanes.lanes.size(), std::size_t(4));
        QCOMPARE(lanes.axisStart, std::int64_t(0));
        QCOMPARE(lanes.axisEnd, 54 * kMs);
        const std::vector<analysis::LaneSegment>& r0 = lanes.lanes[0].segments;
        QCOMPARE(r0.size(), std::size_t(3));
        QCOMPARE(r0[0].kind, analysis::LaneKind::Overlapped);
        QCOMPARE(r0[0].start, 30 * kMs);
        QCOMPARE(r0[1].kind, analysis::LaneKind::Wait);
        QCOMPARE(r0[1].start, 32 * kMs);
        QCOMPARE(r0[1].end, 50 * kMs);
        QCOMPARE(r0[2].kind, analysis::LaneKind::Transfer);
        QCOMPARE(r0[2].end, 54 * kMs);
        const std::vector<analysis::LaneSegment>& r2 = lanes.lanes[2].segments;
        QCOMPARE(r2.size(), std::size_t(2));
        QCOMPARE(r2[0].kind, analysis::LaneKind::Overlapped);
        QCOMPARE(r2[0].start, 50 * kMs);
        QCOMPARE(r2[1].kind, analysis::LaneKind::Transfer);
        QCOMPARE(r2[1].start, 52 * kMs);
        QVERIFY(lanes.lanes[2].straggler);
        QVERIFY(!lanes.lanes[0].straggler);
        QCOMPARE(lanes.lastArrivals.size(), std::size_t(1));
        QCOMPARE(lanes.lastArrivals[0].first, 50 * kMs);        // the edge the others wait on …
        QCOMPARE(lanes.lastArrivals[0].second, std::size_t(2)); // … is rank 2's arrival
        // Drawn: the wait is hatched (two colours along the lane), the transfer solid, the edge a line.
        const QImage shot = view->viewport()->grab().toImage();
        const int y0 = JobLanesView::kLaneHeight / 2;
        QSet<QRgb> wait;
        for (int x = int(view->xOf(33 * kMs)); x < int(view->xOf(49 * kMs)); ++x)
            wait.insert(shot.pixel(x, y0));
        QVERIFY(wait.size() >= 2);
        QCOMPARE(shot.pixelColor(int(view->xOf(53 * kMs)), y0), QColor(0x21, 0x66, 0xac));
        QVERIFY(view->toolTipAt(QPoint(int(view->xOf(40 * kMs)), y0))
                    .contains(QStringLiteral("waiting for the last rank: 18.0 ms")));
        // Sorted by wait the straggler comes last; the filter keeps the ranks it names.
        panel->sortBox()->setCurrentIndex(1);
        QCOMPARE(view->order().back(), std::size_t(2));
        panel->sortBox()->setCurrentIndex(0);
        panel->filterEdit()->setText(QStringLiteral("1-2"));
        QCOMPARE(view->order(), std::vector<std::size_t>({1, 2}));
        panel->filterEdit()->setText(QStringLiteral("x"));
        QCOMPARE(view->order(), std::vector<std::size_t>({1, 2})); // not a list: unchanged
        panel->filterEdit()->clear();
        QCOMPARE(view->order().size(), std::size_t(4));
    }

    // The three alignments on a job whose ranks start the step 10 ms apart on one clock: rank 0's step [0, 54) with
    // its all-reduce [20, 54); rank 1's step [10, 54) with its all-reduce [30, 44) of it, i.e. [40, 54).
    void lanesAlignments()
    {
        const analysis::JobResult job
            = analysis::analyzeJob({rankOf(0, 2, {{1, 0, 54 * kMs, 20 * kMs, 20 * kMs}}),
                                    rankOf(1, 2, {{1, 10 * kMs, 44 * kMs, 30 * kMs, 30 * kMs}})});
        const analysis::StepLanes common = analysis::stepLanes(job, 1, analysis::LaneAlign::CommonClock);
        QCOMPARE(common.lanes[1].stepStart, 10 * kMs);
        QCOMPARE(common.lastArrivals[0].first, 40 * kMs);
        QCOMPARE(common.lanes[0].segments.front().kind, analysis::LaneKind::Wait); // rank 0 waits [20, 40)
        QCOMPARE(common.lanes[0].segments.front().end, 40 * kMs);
        const analysis::StepLanes start = analysis::stepLanes(job, 1, analysis::LaneAlign::StepStart);
        QCOMPARE(start.lanes[1].stepStart, std::int64_t(0));
        QCOMPARE(start.lanes[1].segments.front().start, 30 * kMs);
        const analysis::StepLanes coll = analysis::stepLanes(job, 1, analysis::LaneAlign::Collective, 0);
        QCOMPARE(coll.lanes[1].stepStart, 10 * kMs); // the all-reduce ends (54 ms on rank 0, 44 ms on rank 1) line up
        QCOMPARE(coll.lanes[1].stepEnd, 54 * kMs);
        const analysis::StepLanes none = analysis::stepLanes(job, 7);
        QVERIFY(none.lanes.empty());
        // The panel lists the collective by its operation.
        JobLanesPanel panel;
        panel.setJob(&job);
        QCOMPARE(panel.alignBox()->count(), 3);
        QCOMPARE(panel.alignBox()->itemText(2), QStringLiteral("Collective 1 (allreduce) end"));
    }

    // 1,024 ranks: only the visible lanes are painted; filter and sort work on all of them.
    void lanesScaleTo1024Ranks()
    {
        std::vector<analysis::RankSummary> ranks;
        for (int r = 0; r < 1024; ++r) {
            // Rank r enters the all-reduce at 20 + (r % 10) ms; rank 9 (and every r ≡ 9 mod 10) is last.
            ranks.push_back(rankOf(r, 1024, {{1, 0, 54 * kMs, (20 + r % 10) * kMs, 20 * kMs}}));
        }
        const analysis::JobResult job = analysis::analyzeJob(std::move(ranks));
        JobLanesPanel panel;
        panel.resize(900, 400);
        panel.setJob(&job);
        panel.show();
        JobLanesView* view = panel.view();
        QCOMPARE(view->order().size(), std::size_t(1024));
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        view->viewport()->repaint();
        QVERIFY(view->lastPaintedLanes() > 0);
        QVERIFY(view->lastPaintedLanes() <= view->viewport()->height() / JobLanesView::kLaneHeight + 2);
        panel.filterEdit()->setText(QStringLiteral("0-7, 1000-"));
        QCOMPARE(view->order().size(), std::size_t(8 + 24));
        panel.filterEdit()->clear();
        panel.sortBox()->setCurrentIndex(1); // wait, most first: the ranks that arrived first (r % 10 == 0) waited 9 ms
        QCOMPARE(job.ranks[view->order().front()].rank % 10, 0);
        QCOMPARE(job.ranks[view->order().back()].rank % 10, 9);
    }

    // Issue 37 (3): double-clicking a heat-map cell opens that rank's trace at that step. Rank 1's step 3 starts
    // 2 × 54 ms + 3 × 7 µs after its trace start at 0 + 1 × 7 µs (plantedjob.h): [108.014, 162.014] ms.
    void doubleClickOpensRankTimeline()
    {
        QStringList opened;
        std::vector<std::pair<double, double>> views;
        m_window->setTimelineOpener([&](const QString& path, double startMs, double endMs) {
            opened << path;
            views.emplace_back(startMs, endMs);
        });
        JobHeatMap* map = m_window->overview()->heatMap();
        QTest::mouseDClick(map, Qt::LeftButton, {}, map->cellRect(1, 2).center());
        QCOMPARE(opened.size(), 1);
        QVERIFY(opened.front().endsWith(QStringLiteral("rank-1.json")));
        QCOMPARE(views.back().first, 108.014);
        QCOMPARE(views.back().second, 162.014);
        QTableWidget* ranks = m_window->overview()->ranksTable();
        emit ranks->cellDoubleClicked(3, 0);
        QCOMPARE(opened.size(), 2);
        QVERIFY(opened.back().endsWith(QStringLiteral("rank-3.json")));
        QCOMPARE(views.back().first, -1.0); // a rank, no step: the whole trace
        // A lane: rank 2 at the step the lanes show.
        JobLanesView* lanes = m_window->overview()->lanes()->view();
        m_window->overview()->lanes()->showStep(1);
        lanes->resize(600, 200);
        QTest::mouseDClick(lanes->viewport(), Qt::LeftButton, {},
                           QPoint(300, 2 * JobLanesView::kLaneHeight + JobLanesView::kLaneHeight / 2));
        QCOMPARE(opened.size(), 3);
        QVERIFY(opened.back().endsWith(QStringLiteral("rank-2.json")));
        QCOMPARE(views.back().first, 0.0); // step 1 is where rank 2's trace starts
        QCOMPARE(views.back().second, 54.0);
    }

    // A rank merged from a report opens the trace the report names; when that trace is not on this machine the
    // window says where it was.
    void drillDownFromReports()
    {
        JobWindow window;
        window.setShowMessages(false);
        QStringList opened;
        window.setTimelineOpener([&](const QString& path, double, double) { opened << path; });
        analysis::JobResult job = m_window->overview()->job();
        job.ranks[0].source = "/reports/rank-0.report.json";
        job.ranks[1].source = "/reports/rank-1.report.json";
        job.ranks[1].tracePath = "/elsewhere/node7/rank-1.json";
        window.overview()->setJob(job);
        window.openRank(0, 2);
        QCOMPARE(opened.size(), 1);
        QVERIFY(opened.front().endsWith(QStringLiteral("rank-0.json")));
        window.openRank(1, 2);
        QCOMPARE(opened.size(), 1);
        QCOMPARE(window.statusLabel()->text(),
                 QStringLiteral("Rank 1 came from the report /reports/rank-1.report.json; its trace was "
                                "/elsewhere/node7/rank-1.json, which is not on this machine. Copy it here and open it "
                                "with File → Open."));
        QCOMPARE(window.overview()->ranksTable()->item(1, 7)->text(), QStringLiteral("/elsewhere/node7/rank-1.json"));
    }

    // 256 ranks merged from their reports: the window is ready (analysed, laid out, painted) quickly. Measured, not
    // asserted (the machine's load decides the figure): docs/gui.md quotes it.
    void manyRanksFromReports()
    {
        QTemporaryDir dir;
        timesink::testing::PlantedJob planted;
        planted.ranks = 256;
        planted.straggler = 77;
        const auto traces
            = timesink::testing::writePlantedJob(dir.filePath(QStringLiteral("traces")).toStdString(), planted);
        const std::filesystem::path reports = dir.filePath(QStringLiteral("reports")).toStdString();
        std::filesystem::create_directories(reports);
        for (const auto& t : traces)
            writeReport(t, reports / (t.stem().string() + ".report.json"));
        QElapsedTimer clock;
        clock.start();
        JobWindow window;
        QSignalSpy ready(&window, &JobWindow::jobReady);
        QString error;
        QVERIFY2(window.start({QString::fromStdString(reports.string())}, error), qPrintable(error));
        QVERIFY(ready.wait(60'000));
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.repaint();
        const qint64 ms = clock.elapsed();
        qInfo("256-rank job window from reports: ready and painted in %lld ms", static_cast<long long>(ms));
        QCOMPARE(window.overview()->job().ranks.size(), std::size_t(256));
        QVERIFY(window.overview()->heatMap()->isStraggler(77));
        QCOMPARE(window.overview()->lanes()->view()->lanes().lanes.size(), std::size_t(256));
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
