// SPDX-License-Identifier: MIT
// The job overview in the viewer: heat map (self-explaining, with its values as a table), the aligned rank lanes,
// findings with their details, the sortable per-rank table, opening a rank's trace at a step, comparing two ranks,
// and the main window opening a folder of ranks as a job — on the planted job (tests/job/plantedjob.h), on small
// hand-built jobs whose numbers are written out below, and on 1,024 ranks (virtualised lanes).
#include "analysis/core/pass.h"
#include "app/gui/compareexport.h"
#include "app/gui/jobwindow.h"
#include "app/gui/mainwindow.h"
#include "app/job/jobrunner.h"
#include "parsers/registry/traceloader.h"
#include "report/analysis/reportmodel.h"
#include "report/core/schemas.h"
#include "report/job/rankreportreader.h"
#include "report/job/ranksummary.h"
#include "report/reportoutput.h"
#include "report/writers/html/jobcharts.h"
#include "report/writers/json/jsonwriter.h"
#include "tests/common/clirunner.h"
#include "tests/common/status.h"
#include "tests/job/plantedjob.h"
#include "widgets/compareview.h"
#include "widgets/detailspanel.h"
#include "widgets/findingsmodel.h"
#include "widgets/jobcompareview.h"
#include "widgets/joblanes.h"
#include "widgets/joblinkmap.h"
#include "widgets/joboverview.h"
#include "widgets/tablecopy.h"
#include "widgets/tableheight.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <fstream>

using timesink::gui::JobWindow;
using timesink::gui::MainWindow;
using timesink::widgets::JobHeatMap;
using timesink::widgets::JobLanesPanel;
using timesink::widgets::JobLanesView;
using timesink::widgets::JobLinkMap;
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
        st.collectives.push_back({"allreduce", s.collStart, s.duration, {{s.exposedFrom, s.duration}}, {}, {}, -1});
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
        throw std::runtime_error(loaded.status().message());
    timesink::analysis::CancelToken cancel;
    const analysis::AnalysisResult result = analysis::analyze(*loaded.value(), {}, cancel);
    const timesink::report::ReportModel model = timesink::report::buildReportModel(*loaded.value(), result, {});
    std::ofstream(out) << timesink::report::reportJson(model).dump(-1, ' ', false,
                                                                   nlohmann::ordered_json::error_handler_t::replace);
}

/// The job of `paths` (traces, report files or folders of them), as `timesink-cli job` runs it.
analysis::JobResult jobOf(const std::vector<std::filesystem::path>& paths)
{
    std::vector<timesink::app::JobInput> inputs;
    std::string error;
    if (!timesink::app::collectJobInputs(paths, inputs, error))
        throw std::runtime_error(error);
    timesink::app::JobRunOptions options;
    options.threads = 2;
    return timesink::app::runJob(inputs, options).result;
}

const analysis::JobRankStep& stepOf(const analysis::JobResult& job, std::size_t rankIndex, std::int64_t step)
{
    for (const analysis::JobRankStep& s : job.ranks.at(rankIndex).steps) {
        if (s.number == step)
            return s;
    }
    throw std::runtime_error("no step " + std::to_string(step));
}

std::int64_t total(const analysis::RankLane& lane, analysis::LaneKind kind)
{
    std::int64_t ns = 0;
    for (const analysis::LaneSegment& seg : lane.segments)
        ns += seg.kind == kind ? seg.end - seg.start : 0;
    return ns;
}

/// "Copy 0–4000000, Idle …": a lane's segments, for comparing lanes with a readable failure.
std::string segmentsText(const analysis::RankLane& lane)
{
    static const char* const names[] = {"Wait", "Transfer", "Overlapped", "Compute", "Copy", "Idle", "CollectiveIdle"};
    static_assert(std::size(names) == analysis::kLaneKindCount);
    std::string out;
    for (const analysis::LaneSegment& seg : lane.segments)
        out += std::string(out.empty() ? "" : ", ") + names[static_cast<int>(seg.kind)] + " "
            + std::to_string(seg.start) + "-" + std::to_string(seg.end);
    return out;
}

std::string lanesText(const analysis::StepLanes& lanes)
{
    std::string out;
    for (const analysis::RankLane& l : lanes.lanes)
        out += std::to_string(l.rankIndex) + ": [" + std::to_string(l.stepStart) + ", " + std::to_string(l.stepEnd)
            + ") " + segmentsText(l) + "\n";
    return out;
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
        // Issue #47 item 7: every rank's step takes 54 ms, so the step-time map is one flat colour; the window opens
        // on the communication wait, which tells the ranks apart (18 ms, and 0 on the straggler).
        QCOMPARE(map->measure(), analysis::JobMeasure::CommunicationWait);
        QCOMPARE(o->measureBox()->currentIndex(), 1);
        QVERIFY(o->findChild<QLabel*>(QStringLiteral("jobMeasureNote"))->text().isEmpty());
        o->measureBox()->setCurrentIndex(0);
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
        QCOMPARE(o->ranksTable()->item(0, 5)->text(), QStringLiteral("0 ns"));    // no idle inside (no plane tasks)
        QCOMPARE(o->ranksTable()->item(2, 6)->text(), QStringLiteral("162 ms"));  // 3 × 54 ms caused on the others
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
        // Issue 50: a job step's time sums its ranks; the per-step table says so.
        QVERIFY2(details.contains(QStringLiteral("Rank-time")) && !details.contains(QStringLiteral("Step time")),
                 qPrintable(details));
        QTableWidget* ranks = o->ranksTable();
        ranks->sortByColumn(6, Qt::DescendingOrder); // wait caused, most first
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
        // Before the all-reduce the device computes (the compute kernel [0, c)); the device is never idle.
        const std::vector<analysis::LaneSegment>& r0 = lanes.lanes[0].segments;
        QCOMPARE(r0.size(), std::size_t(4));
        QCOMPARE(r0[0].kind, analysis::LaneKind::Compute);
        QCOMPARE(r0[0].start, std::int64_t(0));
        QCOMPARE(r0[0].end, 30 * kMs);
        QCOMPARE(r0[1].kind, analysis::LaneKind::Overlapped);
        QCOMPARE(r0[1].start, 30 * kMs);
        QCOMPARE(r0[2].kind, analysis::LaneKind::Wait);
        QCOMPARE(r0[2].start, 32 * kMs);
        QCOMPARE(r0[2].end, 50 * kMs);
        QCOMPARE(r0[3].kind, analysis::LaneKind::Transfer);
        QCOMPARE(r0[3].end, 54 * kMs);
        const std::vector<analysis::LaneSegment>& r2 = lanes.lanes[2].segments;
        QCOMPARE(r2.size(), std::size_t(3));
        QCOMPARE(r2[0].kind, analysis::LaneKind::Compute);
        QCOMPARE(r2[0].end, 50 * kMs);
        QCOMPARE(r2[1].kind, analysis::LaneKind::Overlapped);
        QCOMPARE(r2[1].start, 50 * kMs);
        QCOMPARE(r2[2].kind, analysis::LaneKind::Transfer);
        QCOMPARE(r2[2].start, 52 * kMs);
        QCOMPARE(lanes.lanesWithoutActivity, std::size_t(0));
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

    // Issue 37 (1), what the device did: the planted job with a 4 ms copy and 3 ms of idle at the start of every step
    // (plantedjob.h: memcpy [0, 4) ms, nothing [4, 7), compute kernel [7, c), the tail kernel and the all-reduce
    // from c). Step 2 aligned on the step start: ranks 0, 1, 3 copy [0, 4), idle [4, 7), compute [7, 30), then
    // the all-reduce (compute-overlapped [30, 32), waiting [32, 50), transfer [50, 54)); rank 2 computes [7, 50).
    // A rank's compute segments plus the all-reduce's compute-overlapped part are its own device compute (23 + 2 =
    // 25 ms, 45 on rank 2), its idle segments its idle time (3 ms); the job built from the ranks' reports draws the
    // same lanes, and a report without the activity (written before it) draws the collectives only and says so.
    void lanesShowComputeCopyIdle()
    {
        QTemporaryDir dir;
        timesink::testing::PlantedJob planted;
        planted.copyNs = 4 * kMs;
        planted.idleNs = 3 * kMs;
        const auto traces
            = timesink::testing::writePlantedJob(dir.filePath(QStringLiteral("traces")).toStdString(), planted);
        const std::filesystem::path reports = dir.filePath(QStringLiteral("reports")).toStdString();
        std::filesystem::create_directories(reports);
        for (const auto& t : traces)
            writeReport(t, reports / (t.stem().string() + ".report.json"));
        const analysis::JobResult fromTraces = jobOf({traces.front().parent_path()});
        const analysis::JobResult fromReports = jobOf({reports});
        QCOMPARE(fromTraces.ranks.size(), std::size_t(4));
        const analysis::StepLanes lanes = analysis::stepLanes(fromTraces, 2, analysis::LaneAlign::StepStart);
        QCOMPARE(lanes.lanes.size(), std::size_t(4));
        using K = analysis::LaneKind;
        const auto expect = [](std::int64_t computeEnd, bool waits) {
            std::vector<analysis::LaneSegment> v = {{K::Copy, 0, 4 * kMs},
                                                    {K::Idle, 4 * kMs, 7 * kMs},
                                                    {K::Compute, 7 * kMs, computeEnd},
                                                    {K::Overlapped, computeEnd, computeEnd + 2 * kMs}};
            if (waits)
                v.push_back({K::Wait, computeEnd + 2 * kMs, 50 * kMs});
            v.push_back({K::Transfer, waits ? 50 * kMs : computeEnd + 2 * kMs, 54 * kMs});
            return v;
        };
        for (const analysis::RankLane& lane : lanes.lanes) {
            const bool straggler = lane.rankIndex == 2;
            const std::vector<analysis::LaneSegment> want = expect((straggler ? 50 : 30) * kMs, !straggler);
            QVERIFY2(lane.segments.size() == want.size(), segmentsText(lane).c_str());
            for (std::size_t i = 0; i < want.size(); ++i) {
                QCOMPARE(lane.segments[i].kind, want[i].kind);
                QCOMPARE(lane.segments[i].start, want[i].start);
                QCOMPARE(lane.segments[i].end, want[i].end);
            }
            QVERIFY(lane.hasActivity);
            QCOMPARE(lane.resolutionNs, std::int64_t(1)); // a handful of pieces: exact
            const analysis::JobRankStep& own = stepOf(fromTraces, lane.rankIndex, 2);
            QCOMPARE(own.computeNs, (straggler ? 45 : 25) * kMs);
            QCOMPARE(total(lane, K::Compute) + total(lane, K::Overlapped), own.computeNs);
            QCOMPARE(total(lane, K::Idle), own.idleNs);
            QCOMPARE(own.idleNs, 3 * kMs);
        }
        // From the reports: the same lanes, on every alignment.
        for (const analysis::LaneAlign align : {analysis::LaneAlign::CommonClock, analysis::LaneAlign::StepStart}) {
            for (std::int64_t step = 1; step <= 3; ++step)
                QCOMPARE(lanesText(analysis::stepLanes(fromReports, step, align)),
                         lanesText(analysis::stepLanes(fromTraces, step, align)));
        }
        // Drawn: rank 0's lane is orange, pale, then green before the all-reduce.
        JobLanesPanel panel;
        panel.resize(900, 300);
        panel.setJob(&fromReports);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        panel.showStep(2);
        panel.alignBox()->setCurrentIndex(1);
        JobLanesView* view = panel.view();
        const QImage shot = view->viewport()->grab().toImage();
        const int y0 = JobLanesView::kLaneHeight / 2;
        QCOMPARE(shot.pixelColor(int(view->xOf(2 * kMs)), y0), QColor(0xe0, 0x82, 0x14));
        QCOMPARE(shot.pixelColor(int(view->xOf(5500 * 1000)), y0), QColor(0xef, 0xd5, 0x95));
        QCOMPARE(shot.pixelColor(int(view->xOf(20 * kMs)), y0), QColor(0x4d, 0xac, 0x26));
        QVERIFY(
            view->toolTipAt(QPoint(int(view->xOf(20 * kMs)), y0)).contains(QStringLiteral("device compute: 23.0 ms")));
        QVERIFY(
            view->toolTipAt(QPoint(int(view->xOf(5500 * 1000)), y0)).contains(QStringLiteral("device idle: 3.00 ms")));

        // The job report's SVG draws the same segments.
        const std::string svg = timesink::report::jobLanesSvg(fromReports, 2);
        for (const char* part :
             {"fill=\"#4dac26\"><title>rank 0: device compute, 23", "fill=\"#e08214\"><title>rank 0: copy / memset, 4",
              "fill=\"#efd595\"><title>rank 0: device idle, 3"})
            QVERIFY2(svg.find(part) != std::string::npos, part);
        QVERIFY(svg.find("recorded no device activity") == std::string::npos);

        // A report written before the field: rank 1's loses it; its lane keeps only the all-reduce.
        const std::filesystem::path old = reports / "rank-1.report.json";
        nlohmann::ordered_json j = nlohmann::ordered_json::parse(std::ifstream(old));
        for (auto& step : j["steps"])
            step.erase("device_activity");
        std::ofstream(old) << j.dump();
        const analysis::JobResult mixed = jobOf({reports});
        QVERIFY2(mixed.warnings.empty(), mixed.warnings.empty() ? "" : mixed.warnings.front().c_str());
        const analysis::StepLanes partial = analysis::stepLanes(mixed, 2, analysis::LaneAlign::StepStart);
        QCOMPARE(partial.lanesWithoutActivity, std::size_t(1));
        QVERIFY(!partial.lanes[1].hasActivity);
        QCOMPARE(segmentsText(partial.lanes[1]),
                 std::string("Overlapped 30000000-32000000, Wait 32000000-50000000, "
                             "Transfer 50000000-54000000"));
        QCOMPARE(segmentsText(partial.lanes[0]), segmentsText(lanes.lanes[0]));
        panel.setJob(&mixed);
        panel.showStep(2);
        bool said = false;
        for (const QLabel* label : panel.findChildren<QLabel*>())
            said = said || label->text().contains(QStringLiteral("Rank 1 recorded no device activity for this step"));
        QVERIFY(said);
        QVERIFY(timesink::report::jobLanesSvg(mixed, 2).find("1 of 4 ranks recorded no device activity")
                != std::string::npos);
        // A broken activity keeps the step and its numbers, leaves the picture out, and says so.
        for (auto& step : j["steps"])
            step["device_activity"] = {{"resolution_ns", 1}, {"compute", {{0, 99 * kMs}}}};
        std::ofstream(old) << j.dump();
        const timesink::model::Expected<analysis::RankSummary> read = timesink::report::readRankReport(old);
        QVERIFY_OK(read);
        const analysis::RankSummary& broken = read.value();
        QCOMPARE(broken.steps.size(), std::size_t(3));
        QVERIFY(!broken.steps[1].hasActivity);
        QCOMPARE(broken.warnings.size(), std::size_t(3));
        QVERIFY(broken.warnings.front().find("device_activity left out: a range of \"compute\" [0, 99000000] lies "
                                             "outside the step")
                != std::string::npos);
    }

    // Issue 37 (1) on the real 2-rank Ascend job (torch_npu text export): step 50's device activity against the raw
    // trace_view.json (tests/job/verify_fixtures.py, "step device activity"): in the step window, compute = union of
    // the Ascend Hardware AI_CORE / MIX_AIV / AI_VECTOR_CORE / DSA_SQE tasks and the PLACE_HOLDER_SQE ones not named
    // as a sync (EVENT_RECORD), copy = union of
    // PCIE_DMA_SQE / SDMA / SDMA_SQE tasks less compute, busy = those with the HCCL lanes, idle = step − busy.
    // (times rounded half up to whole ns, as the importer reads them):
    //   rank 0: step 155,985,800 ns, compute 8,873,740 (187 pieces), copy 4,814,777, busy 111,690,082,
    //           idle 44,295,718; outside the hcom operations: compute 4,845,067, copy 853,137
    //   rank 1: step 153,888,390 ns, compute 8,878,280, copy 5,257,045, busy 106,522,718, idle 47,365,672;
    //           outside: compute 4,862,047, copy 1,285,385
    // Few enough pieces to be exact: the compute adds up to the rank's own device compute, idle to step − busy.
    void realAscendLanes()
    {
        const std::string base = std::string(TIMESINK_FIXTURES_DIR) + "/torch_npu/msinsight_text_level1_rank";
        const std::vector<std::filesystem::path> traces = {base + "0_ascend_pt", base + "1_ascend_pt"};
        const analysis::JobResult job = jobOf(traces);
        QCOMPARE(job.ranks.size(), std::size_t(2));
        struct Want
        {
            std::int64_t duration, compute, copy, idle, laneCompute, laneCopy;
        };
        const Want want[2] = {{155'985'800, 8'873'740, 4'814'777, 44'295'718, 4'845'067, 853'137},
                              {153'888'390, 8'878'280, 5'257'045, 47'365'672, 4'862'047, 1'285'385}};
        const analysis::StepLanes lanes = analysis::stepLanes(job, 50, analysis::LaneAlign::StepStart);
        QCOMPARE(lanes.lanes.size(), std::size_t(2));
        for (std::size_t r = 0; r < 2; ++r) {
            const analysis::JobRankStep& s = stepOf(job, r, 50);
            QCOMPARE(s.durationNs, want[r].duration);
            QVERIFY(s.hasActivity);
            QCOMPARE(s.activity.resolutionNs, std::int64_t(1));
            QCOMPARE(analysis::totalLength(s.activity.compute), want[r].compute);
            QCOMPARE(analysis::totalLength(s.activity.compute), s.computeNs); // the rank's own analysis
            QCOMPARE(analysis::totalLength(s.activity.copy), want[r].copy);
            QCOMPARE(analysis::totalLength(s.activity.idle), want[r].idle);
            const analysis::RankLane& lane = lanes.lanes[r];
            QCOMPARE(total(lane, analysis::LaneKind::Compute), want[r].laneCompute);
            QCOMPARE(total(lane, analysis::LaneKind::Copy), want[r].laneCopy);
            QCOMPARE(total(lane, analysis::LaneKind::Idle), want[r].idle);
        }
        // The ranks' reports give the same lanes.
        QTemporaryDir dir;
        std::vector<std::filesystem::path> reports;
        for (std::size_t r = 0; r < 2; ++r) {
            reports.push_back(dir.filePath(QStringLiteral("rank%1.report.json").arg(r)).toStdString());
            writeReport(traces[r], reports.back());
        }
        const analysis::JobResult merged = jobOf(reports);
        for (const analysis::LaneAlign align : {analysis::LaneAlign::CommonClock, analysis::LaneAlign::StepStart})
            QCOMPARE(lanesText(analysis::stepLanes(merged, 50, align)), lanesText(analysis::stepLanes(job, 50, align)));
    }

    // Issue 50 (5): one definition of waiting and idle inside the collectives. Ascend level1 rank 0 opened alone
    // (its Communication finding, as the findings table and the details panel show it) and inside the 2-rank job
    // (the ranks table, the lanes and their tooltip) gives the same figures, the ones `timesink-cli analyze` prints:
    // "3.66 ms moving data, 4.64 ms waiting for peers, 93.7 ms idle inside the collectives" (communication.json's
    // main-plane wait 4,636,473 ns; idle 93,662,879 ns, tst_breakdown). The lanes draw exactly those intervals:
    // the Wait segments add up to the wait, the CollectiveIdle segments to the idle, for both ranks.
    void oneDefinitionOfWaitingAscend()
    {
        const QString base = QStringLiteral(TIMESINK_FIXTURES_DIR "/torch_npu/msinsight_text_level1_rank");
        const QString rank0 = base + QStringLiteral("0_ascend_pt");
        const QString rank1 = base + QStringLiteral("1_ascend_pt");

        // Alone, in the single-rank window.
        MainWindow main;
        main.setErrorReporter([](const QString& title, const QString& message) {
            QFAIL(qPrintable(title + QStringLiteral(": ") + message));
        });
        QSignalSpy loaded(&main.loadJob(), &timesink::gui::TraceLoadJob::finished);
        main.openPath(rank0);
        QVERIFY(loaded.wait(120'000));
        const timesink::widgets::FindingsModel* model = main.findingsModel();
        int row = -1;
        for (int i = 0; i < model->rowCount(); ++i) {
            if (model->finding(i)->kind == "communication")
                row = i;
        }
        QVERIFY(row >= 0);
        const QString title = model->data(model->index(row, timesink::widgets::FindingsModel::Title)).toString();
        QVERIFY2(title.contains(QStringLiteral("(3.66 ms moving data, 4.64 ms waiting for peers, 93.7 ms idle inside "
                                               "the collectives)")),
                 qPrintable(title));
        main.selectFinding(row);
        const QString details = main.details()->toPlainText();
        // "wait_ns 4.64 ms (4636473)": the details panel's figure, in words and in ns.
        const auto shown = [&details](const QString& key) {
            const QRegularExpressionMatch m
                = QRegularExpression(QStringLiteral("\\b%1\\s+(\\S+ \\S+) \\((\\d+)\\)").arg(key)).match(details);
            return m.hasMatch() ? std::pair(m.captured(1), m.captured(2).toLongLong()) : std::pair(QString(), -1LL);
        };
        const auto [aloneWaitText, aloneWait] = shown(QStringLiteral("wait_ns"));
        const auto [aloneIdleText, aloneIdle] = shown(QStringLiteral("idle_ns"));
        QVERIFY2(aloneWait >= 0 && aloneIdle >= 0, qPrintable(details));
        QCOMPARE(aloneWait, 4'636'473LL);
        QCOMPARE(aloneIdle, 93'662'879LL);
        QCOMPARE(aloneWaitText, QStringLiteral("4.64 ms"));
        QCOMPARE(aloneIdleText, QStringLiteral("93.7 ms"));

        // In the job window over rank 0 and rank 1.
        JobWindow window;
        QString error;
        QSignalSpy ready(&window, &JobWindow::jobReady);
        QVERIFY2(window.start({rank0, rank1}, error), qPrintable(error));
        QVERIFY(ready.wait(120'000));
        JobOverview* o = window.overview();
        const analysis::JobResult& job = o->job();
        QCOMPARE(job.ranks.size(), std::size_t(2));
        QTableWidget* ranks = o->ranksTable();
        QCOMPARE(ranks->horizontalHeaderItem(4)->text(), QStringLiteral("Wait"));
        QCOMPARE(ranks->horizontalHeaderItem(5)->text(), QStringLiteral("Idle in collectives"));
        for (int r = 0; r < ranks->rowCount(); ++r) {
            const int index = o->rankIndexOfRow(r);
            std::int64_t wait = 0;
            std::int64_t idle = 0;
            for (const analysis::JobRankStep& s : job.ranks[std::size_t(index)].steps) {
                wait += s.communicationWaitNs;
                idle += s.communicationIdleNs;
            }
            QCOMPARE(std::int64_t(ranks->item(r, 4)->data(Qt::UserRole).toDouble()), wait);
            QCOMPARE(std::int64_t(ranks->item(r, 5)->data(Qt::UserRole).toDouble()), idle);
            if (job.ranks[std::size_t(index)].rank != 0)
                continue;
            // Rank 0 in the job says what rank 0 alone says, to the nanosecond.
            QCOMPARE(wait, std::int64_t(aloneWait));
            QCOMPARE(idle, std::int64_t(aloneIdle));
            QCOMPARE(ranks->item(r, 4)->text(), QStringLiteral("4.64 ms"));
            QCOMPARE(ranks->item(r, 5)->text(), QStringLiteral("93.7 ms"));
        }

        // The lanes: every rank's measured split, drawn as it is counted.
        JobLanesPanel panel;
        panel.resize(1200, 300);
        panel.setJob(&job);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        JobLanesView* view = panel.view();
        for (const analysis::JobStep& step : job.steps) {
            panel.showStep(step.number);
            const analysis::StepLanes& lanes = view->lanes();
            QCOMPARE(lanes.step, step.number);
            for (const analysis::RankLane& lane : lanes.lanes) {
                const analysis::JobRankStep& s = stepOf(job, lane.rankIndex, step.number);
                QVERIFY(lane.measuredSplit);
                QCOMPARE(s.activity.resolutionNs, std::int64_t(1));
                QVERIFY(s.communicationIdleNs > 0);
                QCOMPARE(total(lane, analysis::LaneKind::Wait), s.communicationWaitNs);
                QCOMPARE(total(lane, analysis::LaneKind::CollectiveIdle), s.communicationIdleNs);
                QCOMPARE(lane.waitNs, s.communicationWaitNs);
                QCOMPARE(lane.collectiveIdleNs, s.communicationIdleNs);
                // No nanosecond is drawn twice: the segments never overlap.
                analysis::IntervalList drawn;
                for (const analysis::LaneSegment& seg : lane.segments)
                    drawn.push_back({seg.start, seg.end});
                std::int64_t sum = 0;
                for (const analysis::LaneSegment& seg : lane.segments)
                    sum += seg.end - seg.start;
                QCOMPARE(analysis::totalLength(analysis::unite(drawn)), sum);
            }
        }
        // Rank 0's lane tooltip over one of its idle-inside-the-collective segments: the same figures, in words.
        panel.showStep(job.ranks[0].steps.front().number);
        const analysis::StepLanes& lanes = view->lanes();
        const analysis::RankLane* lane0 = nullptr;
        int row0 = 0;
        for (int i = 0; i < int(view->order().size()); ++i) {
            const analysis::RankLane& l = lanes.lanes[view->order()[std::size_t(i)]];
            if (job.ranks[l.rankIndex].rank == 0) {
                lane0 = &l;
                row0 = i;
            }
        }
        QVERIFY(lane0);
        const analysis::LaneSegment* longestIdle = nullptr;
        for (const analysis::LaneSegment& seg : lane0->segments) {
            if (seg.kind == analysis::LaneKind::CollectiveIdle
                && (!longestIdle || seg.end - seg.start > longestIdle->end - longestIdle->start))
                longestIdle = &seg;
        }
        QVERIFY(longestIdle);
        const QPoint at(int(view->xOf((longestIdle->start + longestIdle->end) / 2)),
                        row0 * JobLanesView::kLaneHeight + JobLanesView::kLaneHeight / 2);
        const QString tip = view->toolTipAt(at);
        QVERIFY2(tip.contains(QStringLiteral("communication wait 4.64 ms, idle inside the collectives 93.7 ms")),
                 qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral("idle inside the collective (no plane task running): ")), qPrintable(tip));
        // Drawn in its own colour, which the legend names.
        QCOMPARE(view->viewport()->grab().toImage().pixelColor(at), QColor(0x76, 0x2a, 0x83));
        const auto* legend = panel.findChild<QLabel*>(QStringLiteral("jobLanesLegend"));
        QVERIFY(legend && legend->text().contains(QStringLiteral("#762a83")));
    }

    // The Links tab of the Ascend 2-rank job: the rank-pair matrix of both ranks' communication_matrix.json
    // (2 senders × 8 receivers, two of eight ranks profiled). Expected figures from scripts/checks/rank_links.py
    // over the raw files: 0-1 HCCS 61210624 bytes in 3883938 ns = 15.7599 GB/s, 1-7 HCCS 60332352 bytes in
    // 3983940 ns = 15.1439 GB/s, 0-0 LOCAL 61210656 bytes in 145803 ns = 419.8175 GB/s; the fastest HCCS link is
    // 0-7 at 15.9965 GB/s. The planted (GPU-style) job has none.
    void ascendLinkMap()
    {
        QVERIFY(!m_window->overview()->linkMap()->hasLinks());
        QVERIFY(m_window->overview()->linkMap()->cellText(0, 0).isEmpty());
        const std::string base = std::string(TIMESINK_FIXTURES_DIR) + "/torch_npu/msinsight_text_level1_rank";
        JobWindow window;
        QString error;
        QSignalSpy ready(&window, &JobWindow::jobReady);
        QVERIFY2(
            window.start({QString::fromStdString(base + "1_ascend_pt"), QString::fromStdString(base + "0_ascend_pt")},
                         error),
            qPrintable(error));
        QVERIFY(ready.wait(60'000));
        const JobLinkMap* map = window.overview()->linkMap();
        QVERIFY(map->hasLinks());
        QCOMPARE(map->sources(), (std::vector<std::int32_t> {0, 1}));
        QCOMPARE(map->destinations(), (std::vector<std::int32_t> {0, 1, 2, 3, 4, 5, 6, 7}));
        struct Want
        {
            int row, column;
            const char* transport;
            std::int64_t bytes, transitNs;
            const char* text;
        };
        const Want want[] = {{0, 1, "HCCS", 61'210'624, 3'883'938, "15.8"},
                             {1, 7, "HCCS", 60'332'352, 3'983'940, "15.1"},
                             {0, 0, "LOCAL", 61'210'656, 145'803, "419.8"},
                             {1, 0, "HCCS", 61'210'624, 3'860'477, "15.9"}};
        for (const Want& w : want) {
            const std::vector<timesink::model::RankLink> links = map->cellLinks(w.row, w.column);
            QCOMPARE(links.size(), std::size_t(1));
            QCOMPARE(links[0].transport, std::string(w.transport));
            QCOMPARE(links[0].bytes, w.bytes);
            QCOMPARE(links[0].transitNs, w.transitNs);
            QCOMPARE(map->cellText(w.row, w.column), QLatin1String(w.text));
        }
        QCOMPARE(QString::number(map->scaleMax(), 'f', 4), QStringLiteral("15.9965")); // 0-7, LOCAL left out
        QVERIFY(map->colorOf(15.9965) != map->colorOf(7.0));
        const QString tip = map->toolTipAt(map->cellRect(0, 1).center());
        QCOMPARE(tip, QStringLiteral("rank 0 → rank 1\nHCCS: 61.21 MB in 3.884 ms = 15.76 GB/s"));
        QVERIFY(map->toolTipAt(QPoint(1, 1)).isEmpty());
        // Ranks given as reports carry the same links (trace.properties.rank_links).
        QTemporaryDir dir;
        std::vector<std::filesystem::path> reports;
        for (int r = 0; r < 2; ++r) {
            reports.push_back(dir.filePath(QStringLiteral("rank%1.report.json").arg(r)).toStdString());
            writeReport(base + std::to_string(r) + "_ascend_pt", reports.back());
        }
        const analysis::JobResult merged = jobOf(reports);
        QCOMPARE(merged.links.size(), window.overview()->job().links.size());
        for (std::size_t i = 0; i < merged.links.size(); ++i) {
            QCOMPARE(merged.links[i].bytes, window.overview()->job().links[i].bytes);
            QCOMPARE(merged.links[i].transitNs, window.overview()->job().links[i].transitNs);
        }
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
        QCOMPARE(window.overview()->ranksTable()->item(1, 8)->text(), QStringLiteral("/elsewhere/node7/rank-1.json"));
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

    // File → Compare With Job… (issue 33): this window's planted job (the default: 4 ranks, 3 steps of 54 ms, rank 2
    // computes 50 ms against 30 ms elsewhere, a 2 ms tail) against job B (50 ms steps, rank 1 computing 40 ms), the
    // pair of tests/job/tst_job.cpp compareTwoJobs. From the generator's formula (plantedjob.h), per step: every
    // rank's step is the step length; a normal rank waits straggler compute − 30 − 2 ms (A 18, B 8), the straggler
    // 0, and causes 3 ranks × 3 steps × that wait; exposed communication = step − 32 ms on a normal rank, step −
    // straggler compute − 2 ms on the straggler (A 3·22 + 2 = 68 ms a step, B 3·18 + 8 = 62 ms); the straggler
    // findings lose 3 × 3 × the wait (A 162 ms, B 72 ms).
    void compareWithAnotherJob()
    {
        QVERIFY(m_window->findChild<QAction*>(QStringLiteral("actionCompareWithJob")));
        m_window->setShowMessages(false);
        QTemporaryDir dir;
        timesink::testing::PlantedJob b;
        b.stepNs = 50 * kMs;
        b.straggler = 1;
        b.stragglerComputeNs = 40 * kMs;
        const QString jobB = dir.filePath(QStringLiteral("planted_b"));
        timesink::testing::writePlantedJob(jobB.toStdString(), b);
        QVERIFY(m_window->compareWithJob(jobB));
        QTRY_VERIFY_WITH_TIMEOUT(m_window->lastJobCompareView() != nullptr, 60'000);
        timesink::widgets::JobCompareView* view = m_window->lastJobCompareView();
        QVERIFY(view->windowTitle().contains(QStringLiteral("planted_b")));
        QVERIFY2(view->header()->text().contains(QStringLiteral("stragglers: 2")), qPrintable(view->header()->text()));
        QVERIFY(view->header()->text().contains(QStringLiteral("stragglers: 1")));

        using V = timesink::widgets::JobCompareView;
        auto value = [](QTableView* t, int row, int col) {
            return t->model()->index(row, col).data(V::kSortRole).toLongLong();
        };
        auto text = [](QTableView* t, int row, int col) { return t->model()->index(row, col).data().toString(); };
        QTableView* ranks = view->ranksTable();
        QCOMPARE(ranks->model()->rowCount(), 4);
        for (int row = 0; row < 4; ++row) {
            const int rank = int(value(ranks, row, V::Rank));
            QCOMPARE(rank, row);
            QCOMPARE(text(ranks, row, V::Steps), QStringLiteral("3 / 3"));
            QCOMPARE(value(ranks, row, V::BaselineStep), 54 * kMs);
            QCOMPARE(value(ranks, row, V::CandidateStep), 50 * kMs);
            QCOMPARE(value(ranks, row, V::StepDelta), -4 * kMs);
            QCOMPARE(value(ranks, row, V::BaselineWait), rank == 2 ? 0 : 18 * kMs);
            QCOMPARE(value(ranks, row, V::CandidateWait), rank == 1 ? 0 : 8 * kMs);
            QCOMPARE(value(ranks, row, V::BaselineCausedWait), rank == 2 ? 3 * 3 * 18 * kMs : 0);
            QCOMPARE(value(ranks, row, V::CandidateCausedWait), rank == 1 ? 3 * 3 * 8 * kMs : 0);
            QCOMPARE(value(ranks, row, V::BaselineCommunication), rank == 2 ? 2 * kMs : 22 * kMs);
            QCOMPARE(value(ranks, row, V::CandidateCommunication), rank == 1 ? 8 * kMs : 18 * kMs);
        }
        QCOMPARE(text(ranks, 1, V::Rank), QStringLiteral("1 ★ candidate"));
        QCOMPARE(text(ranks, 2, V::Rank), QStringLiteral("2 ★ baseline"));
        // Sorted by the candidate's waiting caused, the candidate's straggler comes first.
        ranks->sortByColumn(V::CandidateCausedWait, Qt::DescendingOrder);
        QCOMPARE(value(ranks, 0, V::Rank), 1);

        QTableView* figures = view->figuresTable();
        auto figure = [&](const QString& key) -> std::pair<std::int64_t, std::int64_t> {
            for (int row = 0; row < figures->model()->rowCount(); ++row) {
                if (figures->model()->index(row, V::FigureLabel).data(Qt::ToolTipRole).toString() == key)
                    return {value(figures, row, V::FigureBaseline), value(figures, row, V::FigureCandidate)};
            }
            return {-1, -1};
        };
        QCOMPARE(figure(QStringLiteral("mean_step_ns")), std::make_pair(54 * kMs, 50 * kMs));
        QCOMPARE(figure(QStringLiteral("mean_spread_ns")).second, std::int64_t(0));
        QCOMPARE(figure(QStringLiteral("mean_communication_wait_ns")), std::make_pair(3 * 18 * kMs, 3 * 8 * kMs));
        QCOMPARE(figure(QStringLiteral("straggler_lost_ns")), std::make_pair(162 * kMs, 72 * kMs));
        QCOMPARE(figure(QStringLiteral("exposed_communication_ns")), std::make_pair(3 * 68 * kMs, 3 * 62 * kMs));
        QCOMPARE(text(figures, 0, V::FigureDelta), QStringLiteral("-4.00 ms"));
        QVERIFY(TableCopy::text(ranks, TableCopy::Scope::Markdown).contains(QStringLiteral("| 1 ★ candidate |")));
        view->close();
    }

    // File → Export… of the job compare window (issue 33): the very documents `timesink-cli compare JOB_A JOB_B
    // -o FILE` writes, through the same writer (report::writeJobCompareReportFile), for the pair of
    // compareWithAnotherJob. The JSON is the CLI's byte for byte except the "generator" field (the GUI names itself
    // "Timesink VERSION", the CLI "timesink-cli VERSION"); the paths are the same because the window was opened on
    // the same folders the CLI is given. The per-rank figures pinned in the other formats come from the planted
    // job's formula (see compareWithAnotherJob), not from Timesink's output.
    void exportJobComparison()
    {
        m_window->setShowMessages(false);
        QTemporaryDir dir;
        timesink::testing::PlantedJob b;
        b.stepNs = 50 * kMs;
        b.straggler = 1;
        b.stragglerComputeNs = 40 * kMs;
        const QString jobB = dir.filePath(QStringLiteral("planted_b"));
        timesink::testing::writePlantedJob(jobB.toStdString(), b);
        QVERIFY(m_window->compareWithJob(jobB));
        QTRY_VERIFY_WITH_TIMEOUT(m_window->lastJobCompareView() != nullptr
                                     && m_window->lastJobCompareView()->candidatePath() == jobB,
                                 60'000);
        timesink::widgets::JobCompareView* view = m_window->lastJobCompareView();

        // The action sits first in the window's File menu, with the usual shortcut.
        auto* action = view->findChild<QAction*>(QStringLiteral("actionExportJobComparison"));
        QVERIFY(action);
        QCOMPARE(view->fileMenu()->actions().value(0), action);
        QCOMPARE(action->shortcut(), QKeySequence(QStringLiteral("Ctrl+E")));
        // Every rank file and both folders are inputs an export must not touch.
        QVERIFY(view->inputPaths().contains(m_dir.path()));
        QVERIFY(view->inputPaths().contains(jobB));
        QVERIFY(view->inputPaths().contains(jobB + QStringLiteral("/rank-0.json")));

        const QString out = dir.filePath(QStringLiteral("out"));
        QVERIFY(QDir().mkpath(out));
        auto read = [](const QString& path) {
            QFile f(path);
            return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
        };
        for (const char* ext : {"json", "md", "html", "csv"}) {
            const QString path = out + QStringLiteral("/a-vs-b.") + QLatin1String(ext);
            QCOMPARE(timesink::gui::exportJobComparisonTo(*view, path), QString());
            QVERIFY2(!read(path).isEmpty(), ext);
        }

        const auto cli = timesink::testing::runCli(
            {QStringLiteral("compare"), m_dir.path(), jobB, QStringLiteral("--format"), QStringLiteral("json")});
        QCOMPARE(cli.exitCode, 0);
        QByteArray mine = read(out + QStringLiteral("/a-vs-b.json"));
        QByteArray theirs = cli.out;
        const QRegularExpression generator(QStringLiteral("\n  \"generator\": \"([^\"]*)\",\n"));
        const QString mineText = QString::fromUtf8(mine);
        const QString theirsText = QString::fromUtf8(theirs);
        QVERIFY(generator.match(mineText).captured(1).startsWith(QStringLiteral("Timesink ")));
        QVERIFY(generator.match(theirsText).captured(1).startsWith(QStringLiteral("timesink-cli ")));
        QString a = mineText;
        QString c = theirsText;
        a.replace(generator, QStringLiteral("\n  \"generator\": \"\",\n"));
        c.replace(generator, QStringLiteral("\n  \"generator\": \"\",\n"));
        QCOMPARE(a.toUtf8(), c.toUtf8()); // byte for byte apart from the generator
        QVERIFY(a.contains(QStringLiteral("\"schema\": \"timesink.jobcompare/1\"")));

        // The rank table as CSV, every figure in ns from the planted formula: a normal rank waits 18 ms a step in
        // job A and 8 ms in job B, the straggler 0 and it causes 3 ranks × 3 steps × that wait.
        QString expectedCsv = QStringLiteral(
            "rank,baseline_steps,candidate_steps,baseline_step_ns,candidate_step_ns,delta_ns,baseline_wait_ns,"
            "candidate_wait_ns,baseline_caused_wait_ns,candidate_caused_wait_ns,baseline_straggler,"
            "candidate_straggler\r\n");
        for (int rank = 0; rank < 4; ++rank) {
            expectedCsv += QStringLiteral("%1,3,3,%2,%3,%4,%5,%6,%7,%8,%9,%10\r\n")
                               .arg(rank)
                               .arg(54 * kMs)
                               .arg(50 * kMs)
                               .arg(-4 * kMs)
                               .arg(rank == 2 ? 0 : 18 * kMs)
                               .arg(rank == 1 ? 0 : 8 * kMs)
                               .arg(rank == 2 ? 9 * 18 * kMs : 0)
                               .arg(rank == 1 ? 9 * 8 * kMs : 0)
                               .arg(rank == 2 ? QStringLiteral("true") : QStringLiteral("false"))
                               .arg(rank == 1 ? QStringLiteral("true") : QStringLiteral("false"));
        }
        QCOMPARE(QString::fromUtf8(read(out + QStringLiteral("/a-vs-b.csv"))), expectedCsv);
        // Markdown and HTML: the same per-rank figures, formatted.
        const QString md = QString::fromUtf8(read(out + QStringLiteral("/a-vs-b.md")));
        QVERIFY2(md.contains(QStringLiteral("| 2 (straggler) | 54.0 ms | 50.0 ms | -4.00 ms | 0 ns | 8.00 ms | 162 ms "
                                            "| 0 ns |")),
                 qPrintable(md));
        QVERIFY(md.contains(QStringLiteral("| 1 (straggler) | 54.0 ms | 50.0 ms | -4.00 ms | 18.0 ms | 0 ns | 0 ns "
                                           "| 72.0 ms |")));
        QVERIFY(md.contains(QStringLiteral("| 0 | 54.0 ms | 50.0 ms | -4.00 ms | 18.0 ms | 8.00 ms | 0 ns | 0 ns |")));
        const QString html = QString::fromUtf8(read(out + QStringLiteral("/a-vs-b.html")));
        QVERIFY(html.startsWith(QStringLiteral("<!DOCTYPE html>")));
        QVERIFY2(html.contains(QStringLiteral("<tr><td>2 (straggler)</td>")), qPrintable(html));
        QVERIFY(html.contains(QStringLiteral("162 ms")));
        QVERIFY(html.contains(QStringLiteral("72.0 ms")));

        // Never into an input folder, never over a rank, never in a format it cannot tell; the file stays as it was.
        const QString inside = jobB + QStringLiteral("/compare.md");
        QVERIFY(timesink::gui::exportJobComparisonTo(*view, inside).contains(QStringLiteral("input folder")));
        QVERIFY(!QFile::exists(inside));
        const QString rank = m_dir.filePath(QStringLiteral("rank-0.json"));
        const QByteArray rankBefore = read(rank);
        QVERIFY(!timesink::gui::exportJobComparisonTo(*view, rank).isEmpty());
        QCOMPARE(read(rank), rankBefore);
        const QString unknown = out + QStringLiteral("/a-vs-b.txt");
        QVERIFY(
            timesink::gui::exportJobComparisonTo(*view, unknown).contains(QStringLiteral("cannot tell the format")));
        QVERIFY(!QFile::exists(unknown));
        const QString noFolder = out + QStringLiteral("/no/such/folder/a.md");
        QVERIFY(timesink::gui::exportJobComparisonTo(*view, noFolder).contains(QStringLiteral("no/such/folder")));
        // An existing export is replaced whole (the dialog asked first), not appended to or left half-written.
        const QString again = out + QStringLiteral("/a-vs-b.md");
        QCOMPARE(timesink::gui::exportJobComparisonTo(*view, again), QString());
        QCOMPARE(QString::fromUtf8(read(again)), md);
        view->close();
    }

    // Issue 33: the job-figure and finding-kind tables of the job compare window are as tall as their rows — every
    // row shown, no blank block under them — and the rank table takes the rest; on a small window the rank table
    // still shows four rows and the upper tables three.
    void jobCompareLayout()
    {
        m_window->setShowMessages(false);
        QTemporaryDir dir;
        timesink::testing::PlantedJob b;
        b.stepNs = 50 * kMs;
        b.straggler = 1;
        b.stragglerComputeNs = 40 * kMs;
        const QString jobB = dir.filePath(QStringLiteral("planted_b"));
        timesink::testing::writePlantedJob(jobB.toStdString(), b);
        QVERIFY(m_window->compareWithJob(jobB));
        QTRY_VERIFY_WITH_TIMEOUT(m_window->lastJobCompareView() != nullptr
                                     && m_window->lastJobCompareView()->candidatePath() == jobB,
                                 60'000);
        timesink::widgets::JobCompareView* view = m_window->lastJobCompareView();
        QVERIFY(QTest::qWaitForWindowExposed(view));
        using timesink::widgets::tableHeightForRows;
        // As the window opens (the size of the job window), then resized.
        for (const QSize size : {view->size(), QSize(1600, 1000), QSize(1100, 800)}) {
            if (size != view->size())
                view->resize(size);
            QTest::qWait(50);
            QApplication::processEvents();
            const int rankRows = view->ranksTable()->model()->rowCount();
            QCOMPARE(rankRows, 4);
            for (QTableView* t : {view->figuresTable(), view->kindsTable()}) {
                QVERIFY(t->model()->rowCount() > 0);
                QCOMPARE(t->verticalScrollBar()->maximum(), 0); // every row shown
                QCOMPARE(t->height(), tableHeightForRows(t));   // and no blank block inside the table
            }
            QWidget* upper = view->splitter()->widget(0);
            int bottom = 0;
            for (QTableView* t : {view->figuresTable(), view->kindsTable()})
                bottom = std::max(bottom, t->mapTo(upper, QPoint(0, t->height())).y());
            qInfo("%dx%d: upper pane %d px, its tables end at %d px, rank table %d px", size.width(), size.height(),
                  upper->height(), bottom, view->ranksTable()->height());
            // The pane ends under its taller table (a pixel or two of frame and margin at most).
            QVERIFY2(upper->height() - bottom <= 4, qPrintable(QString::number(upper->height() - bottom)));
            QVERIFY(view->ranksTable()->height() > upper->height());
        }
        // A small screen: the splitter keeps three rows of the upper tables and four of the ranks.
        view->resize(900, 380);
        QTest::qWait(50);
        QApplication::processEvents();
        QVERIFY2(view->ranksTable()->height() >= tableHeightForRows(view->ranksTable(), 4),
                 qPrintable(QString::number(view->ranksTable()->height())));
        QVERIFY(view->figuresTable()->height() >= tableHeightForRows(view->figuresTable(), 3));
        view->close();
    }

    // What is no job, or a job with a rank that cannot be read, is named on the status line; nothing opens.
    void compareWithJobErrors()
    {
        m_window->setShowMessages(false);
        QTemporaryDir dir;
        const QString missing = dir.filePath(QStringLiteral("no_such_job"));
        QVERIFY(!m_window->compareWithJob(missing));
        QVERIFY2(m_window->statusLabel()->text().contains(missing), qPrintable(m_window->statusLabel()->text()));

        // One rank alone is a run, not a job.
        const QString single = dir.filePath(QStringLiteral("single"));
        timesink::testing::PlantedJob one;
        one.ranks = 1;
        one.straggler = 0;
        timesink::testing::writePlantedJob(single.toStdString(), one);
        QVERIFY(!m_window->compareWithJob(single));
        QVERIFY(m_window->statusLabel()->text().contains(single));
        QVERIFY(m_window->statusLabel()->text().contains(QStringLiteral("not a job")));

        // Four readable ranks and a rank report cut short: the analysis runs, then the broken rank is named.
        const QString broken = dir.filePath(QStringLiteral("broken"));
        timesink::testing::writePlantedJob(broken.toStdString(), {});
        const QString cut = broken + QStringLiteral("/rank-4.report.json");
        {
            QFile f(cut);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("{\"schema\": \"timesink.report/1\", \"generator\": \"timesink\", \"trace\": {\"path\": \"");
        }
        const auto before = m_window->lastJobCompareView();
        QVERIFY(m_window->compareWithJob(broken));
        QTRY_VERIFY_WITH_TIMEOUT(m_window->statusLabel()->text().contains(QStringLiteral("rank-4.report.json")),
                                 60'000);
        QVERIFY2(m_window->statusLabel()->text().startsWith(QStringLiteral("Cannot compare with ") + broken),
                 qPrintable(m_window->statusLabel()->text()));
        QVERIFY(!m_window->isComparing());
        QCOMPARE(m_window->lastJobCompareView(), before);
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
