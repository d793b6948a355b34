// SPDX-License-Identifier: MIT
// timesink-screenshots OUTDIR FIXTURES: drives the real window through the scenes of docs/gui.md and has ImageMagick's
// `import -window root` photograph the X screen after each (run under Xvfb: scripts/screenshots). Not a test: the
// pictures are for people, the behaviour behind them is tested in tests/widgets.
#include "app/gui/mainwindow.h"
#include "widgets/compareview.h"
#include "widgets/criticalpathview.h"
#include "widgets/flamegraphview.h"
#include "widgets/layercompareview.h"
#include "widgets/layertableview.h"
#include "widgets/operatorview.h"
#include "widgets/rangestatsview.h"
#include "widgets/rooflineview.h"
#include "widgets/timelineview.h"
#include "widgets/trackspanel.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QLineEdit>
#include <QProcess>
#include <QScreen>
#include <QScrollBar>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QTabWidget>
#include <QTableView>
#include <QThread>
#include <QTreeWidget>

#include <cstdio>

using namespace timesink;

namespace {

QString g_out;

void settle(int ms = 800)
{
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < ms) {
        QApplication::processEvents(QEventLoop::AllEvents, 50);
        QThread::msleep(20);
    }
}

/// Processes events until `done` (the call-tree views build in the background), at most 30 s.
template <typename Done> void settleUntil(Done done)
{
    QElapsedTimer t;
    t.start();
    while (!done() && t.elapsed() < 30000)
        settle(50);
}

void shoot(const QString& name)
{
    settle();
    const QString path = g_out + QLatin1Char('/') + name + QStringLiteral(".png");
    const int rc
        = QProcess::execute(QStringLiteral("import"), {QStringLiteral("-window"), QStringLiteral("root"), path});
    std::printf("%s %s\n", rc == 0 ? "wrote" : "FAILED", qPrintable(path));
}

bool open(gui::MainWindow& w, const QString& path)
{
    w.openPath(path);
    QElapsedTimer t;
    t.start();
    while (w.current().path != path && t.elapsed() < 120000)
        settle(100);
    return w.current().path == path;
}

QDockWidget* dock(gui::MainWindow& w, const char* name)
{
    return w.findChild<QDockWidget*>(QString::fromLatin1(name));
}

/// Selects the first finding whose Kind column reads `label` ("Cpu fallback"); false when none does.
bool selectFinding(gui::MainWindow& w, const QString& label)
{
    QSortFilterProxyModel* proxy = w.findingsProxy();
    for (int row = 0; row < proxy->rowCount(); ++row) {
        const QModelIndex index = proxy->index(row, 0);
        if (index.data().toString() == label) {
            w.findingsView()->setCurrentIndex(index);
            return true;
        }
    }
    return false;
}

/// The first slice named `name` at or after `from` that launched device work.
model::SliceRef firstLaunch(const model::Trace& trace, std::string_view name, model::TimeNs from = 0)
{
    for (const model::Track& t : trace.tracks())
        for (std::uint32_t i = 0; i < t.size(); ++i)
            if (t.ts(i) >= from && trace.str(t.sliceName(i)) == name
                && !trace.flowsFrom({t.id, model::SliceIndex(i)}).empty())
                return {t.id, model::SliceIndex(i)};
    return {};
}

/// The compare window compareWith() opens (it loads in the background), full screen and in front; null after 2 min.
widgets::CompareView* awaitCompareWindow(const QRect& screen)
{
    widgets::CompareView* compare = nullptr;
    QElapsedTimer t;
    t.start();
    while (!compare && t.elapsed() < 120000) {
        settle(200);
        for (QWidget* top : QApplication::topLevelWidgets())
            if (auto* c = qobject_cast<widgets::CompareView*>(top))
                compare = c;
    }
    if (compare) {
        compare->setGeometry(screen);
        compare->raise();
        compare->activateWindow();
        settle();
    }
    return compare;
}

} // namespace

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QCoreApplication::setOrganizationName(QStringLiteral("TimesinkScreenshots"));
    QCoreApplication::setApplicationName(QStringLiteral("timesink-screenshots"));
    if (argc < 3) {
        std::fprintf(stderr, "usage: timesink-screenshots OUTDIR FIXTURES_DIR\n");
        return 1;
    }
    g_out = QString::fromLocal8Bit(argv[1]);
    const QString fx = QString::fromLocal8Bit(argv[2]);
    QSettings().clear();
    const QRect screen = QGuiApplication::primaryScreen()->geometry();

    gui::MainWindow w;
    w.setErrorReporter([](const QString& title, const QString& message) {
        std::fprintf(stderr, "%s: %s\n", qPrintable(title), qPrintable(message));
    });
    w.setGeometry(screen);
    w.show();
    settle();

    const QString a100 = fx + QStringLiteral("/torch/hta_a100_trace_diff_control.json.gz");
    if (!open(w, a100))
        return 2;
    const model::Trace& trace = *w.current().trace;
    shoot(QStringLiteral("a100_full"));

    // A finding: evidence links with durations, numbers with units, kind labels in the table.
    w.findingsView()->setCurrentIndex(w.findingsProxy()->index(0, 0));
    shoot(QStringLiteral("a100_finding"));

    // What sets the step time: View → Critical Path over step 1009, whose path runs through the host threads and
    // the device (docs/analysis.md "Critical path and projected saving"); the table ranked by saving.
    if (auto* critical = w.findChild<QAction*>(QStringLiteral("criticalPathAction"))) {
        critical->trigger(); // checks it, as the menu does
        const model::Step& first = trace.steps()[0];
        w.timeline()->showRange(first.start - first.duration() / 50, first.end + first.duration() / 50);
        shoot(QStringLiteral("a100_critical_path"));

        // The Critical Path Breakdown dock on the same step: its composition, and the path's longest kernel selected
        // from the event list (outlined on the timeline, which shows the whole step again).
        QDockWidget* breakdown = dock(w, "CriticalPathDock");
        breakdown->raise();
        const int height = breakdown->height();
        w.resizeDocks({breakdown}, {360}, Qt::Vertical); // room for the composition's rows
        if (auto* path = w.findChild<widgets::CriticalPathView*>()) {
            path->setStep(0);
            int longest = -1;
            model::TimeNs longestNs = 0;
            for (int r = 0; r < path->eventModel()->rowCount(); ++r) {
                const analysis::PathSegment* seg = path->segmentOfRow(r);
                if (seg && seg->cls == analysis::PathClass::DeviceCompute && seg->end - seg->start > longestNs) {
                    longest = r;
                    longestNs = seg->end - seg->start;
                }
            }
            if (longest >= 0)
                path->eventTable()->selectRow(
                    path->eventProxy()->mapFromSource(path->eventModel()->index(longest, 0)).row());
            w.timeline()->showRange(first.start - first.duration() / 50, first.end + first.duration() / 50);
            shoot(QStringLiteral("a100_critical_path_breakdown"));
            w.timeline()->selectSlice({});
        }
        w.resizeDocks({breakdown}, {height}, Qt::Vertical);
        dock(w, "FindingsDock")->raise();
        critical->trigger();
    }

    // Follow the work: a launch selected, its kernel a link in Details; then the framework op's launched work.
    const model::SliceRef launch = firstLaunch(trace, "cudaLaunchKernel");
    w.timeline()->fitAll();
    const model::Track& lt = trace.track(launch.track);
    w.timeline()->showRange(lt.ts(launch.index.value) - 40'000, lt.end(launch.index.value) + 120'000);
    w.timeline()->selectSlice(launch, true);
    shoot(QStringLiteral("a100_flow"));

    // A range: the statistics of step 1010.
    const model::Step& step = trace.steps()[1];
    w.timeline()->showRange(step.start, step.end);
    w.timeline()->selectTimeRange(std::pair(step.start + step.duration() / 4, step.start + step.duration() * 3 / 4));
    shoot(QStringLiteral("a100_range_stats"));

    // The flame graph of that range, zoomed into its widest stack.
    dock(w, "FlameGraphDock")->raise();
    settle();
    settleUntil([&] { return !w.flameGraph()->computing(); });
    const analysis::CallTree& tree = w.flameGraph()->tree();
    int widest = -1;
    for (int c : tree.root().children)
        if (widest < 0
            || tree.nodes[static_cast<std::size_t>(c)].totalNs > tree.nodes[static_cast<std::size_t>(widest)].totalNs)
            widest = c;
    if (widest > 0)
        w.flameGraph()->zoomTo(widest);
    shoot(QStringLiteral("a100_flamegraph"));

    // The operator table of the whole trace.
    w.timeline()->selectTimeRange(std::nullopt);
    w.timeline()->fitAll();
    dock(w, "OperatorsDock")->raise();
    w.operators()->setScope(-1);
    settleUntil([&] { return !w.operators()->computing(); });
    shoot(QStringLiteral("a100_operators"));

    // Tracks: a GPU stream pinned over a deep host stack, host depth limited, the Tracks panel filtered.
    dock(w, "FindingsDock")->raise();
    dock(w, "TracksDock")->raise();
    const auto& groups = w.timeline()->layout().groups();
    if (!groups.empty() && !groups.front().tracks.empty()) {
        const model::TrackId stream = groups.front().tracks.front();
        w.timeline()->changeLayout([stream](widgets::TrackLayout& l) { l.setPinned(stream, true); });
    }
    w.tracksPanel()->depthLimit()->setValue(6);
    w.tracksPanel()->filter()->setText(QStringLiteral("thread"));
    w.timeline()->showRange(step.start, step.end);
    w.timeline()->verticalScrollBar()->setValue(w.timeline()->verticalScrollBar()->maximum());
    shoot(QStringLiteral("a100_tracks"));
    w.tracksPanel()->filter()->clear();
    w.timeline()->changeLayout([](widgets::TrackLayout& l) {
        while (!l.pinnedTracks().empty())
            l.setPinned(l.pinnedTracks().front(), false);
        l.setHostDepthLimit(0);
    });
    dock(w, "DetailsDock")->raise();

    // Deep zoom, dark: the ruler counts from a base time.
    w.setDarkPalette(true);
    w.timeline()->verticalScrollBar()->setValue(0);
    const model::SliceRef late = firstLaunch(trace, "cudaLaunchKernel", trace.steps()[3].start);
    const model::SliceRef kernel = trace.flowsFrom(late).empty() ? late : trace.flowsFrom(late).front().to;
    const model::Track& kt = trace.track(kernel.track);
    w.timeline()->showRange(kt.ts(kernel.index.value) - 10'000, kt.ts(kernel.index.value) + 30'000);
    w.timeline()->selectSlice(kernel);
    shoot(QStringLiteral("a100_zoom_dark"));
    w.setDarkPalette(false);

    // Summary charts.
    w.findChild<QTabWidget*>()->setCurrentIndex(1);
    shoot(QStringLiteral("a100_summary"));
    w.findChild<QTabWidget*>()->setCurrentIndex(0);

    // Compare two ranks of an Ascend run.
    const QString rank0 = fx + QStringLiteral("/torch_npu/msinsight_text_level1_rank0_ascend_pt");
    const QString rank1 = fx + QStringLiteral("/torch_npu/msinsight_text_level1_rank1_ascend_pt");
    if (open(w, rank0)) {
        shoot(QStringLiteral("ascend_full"));
        w.compareWith(rank1);
        if (widgets::CompareView* compare = awaitCompareWindow(screen)) {
            if (compare->operatorTable()->model()->rowCount() > 0)
                compare->operatorTable()->selectRow(0);
            if (compare->baselineFindings()->topLevelItemCount() > 0)
                compare->baselineFindings()->setCurrentItem(compare->baselineFindings()->topLevelItem(0));
            shoot(QStringLiteral("compare"));
            compare->close();
            settle();
        }
    }
    // The same model on an H100 and an MI300X (TraceLens's sample pair): the waterfall, the kernel classes and the
    // efficiency of each against its own chip.
    if (open(w, fx + QStringLiteral("/torch/tracelens_h100_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"))) {
        w.compareWith(fx + QStringLiteral("/torch/tracelens_mi300_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"));
        if (widgets::CompareView* compare = awaitCompareWindow(screen)) {
            compare->bottomTabs()->setCurrentIndex(1);
            shoot(QStringLiteral("compare_waterfall"));
            compare->bottomTabs()->setCurrentIndex(2);
            shoot(QStringLiteral("compare_classes"));
            compare->bottomTabs()->setCurrentIndex(3);
            shoot(QStringLiteral("compare_efficiency"));
            compare->close();
            settle();
        }
    }
    // The MI300X run alone: its GPU on top and its Python thread opened at the framework ops, with the 20-odd levels of
    // Python frames above them folded.
    if (open(w, fx + QStringLiteral("/torch/tracelens_mi300_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"))) {
        w.timeline()->fitAll();
        shoot(QStringLiteral("mi300_full"));
    }
    // Two edge runs: the single-core YOLOv8n against RKNN_NPU_CORE_0_1_2, the Layers tab of the compare window.
    if (open(w, fx + QStringLiteral("/rknn/rknpu2_1.6.0_rk3588_perf_detail_yolov8n_1920_singlecore.txt"))) {
        w.compareWith(fx + QStringLiteral("/rknn/rknpu2_2.0.0b0_rk3588_perf_detail_yolov8n_1920x1088_multicore.txt"));
        if (widgets::CompareView* compare = awaitCompareWindow(screen)) {
            compare->bottomTabs()->setCurrentWidget(compare->layerCompare());
            shoot(QStringLiteral("compare_layers"));
            compare->close();
            settle();
        }
    }
    // The three-core run itself: a lane per NPU core under the NPU track, the Layers dock sorted by time, a layer
    // split over the three cores selected in it (Details reads its cells), the whole frame in view.
    if (open(w, fx + QStringLiteral("/rknn/rknpu2_2.0.0b0_rk3588_perf_detail_yolov8n_1920x1088_multicore.txt"))) {
        dock(w, "LayersDock")->raise();
        dock(w, "DetailsDock")->raise();
        if (auto* layers = w.findChild<widgets::LayerTableView*>()) {
            layers->table()->sortByColumn(layers->column(QStringLiteral("Time")), Qt::DescendingOrder);
            // The slowest layer split over the cores.
            for (int row = 0; row < layers->proxy()->rowCount(); ++row) {
                const QModelIndex cores = layers->proxy()->index(row, layers->column(QStringLiteral("Cores")));
                if (cores.data().toString().startsWith(QStringLiteral("cores "))) {
                    layers->table()->selectRow(row);
                    break;
                }
            }
        }
        w.timeline()->fitAll();
        shoot(QStringLiteral("rknn_cores"));
        dock(w, "FindingsDock")->raise();
    }
    if (open(w, fx + QStringLiteral("/rknn/toolkit2_2.3.2_rk3588_eval_perf_layers_yolov8n_640.txt"))) {
        if (selectFinding(w, QStringLiteral("Cpu fallback")))
            shoot(QStringLiteral("rknn"));
    }
    // The edge NPU advisor on the real single-core YOLOv8n run, and on the three-core table of the advisor's tests
    // (tests/analysis/rknn/, next to the fixtures folder), each with a finding selected and its layers highlighted.
    if (open(w, fx + QStringLiteral("/rknn/rknpu2_1.6.0_rk3588_perf_detail_yolov8n_1920_singlecore.txt"))) {
        if (selectFinding(w, QStringLiteral("Memory-bound layers")))
            shoot(QStringLiteral("rknn_advisor"));
    }
    if (open(w, QDir::cleanPath(fx + QStringLiteral("/../analysis/rknn/rknpu2_rk3588_multicore.txt")))) {
        if (selectFinding(w, QStringLiteral("NPU core imbalance")))
            shoot(QStringLiteral("rknn_multicore"));
    }
    if (open(w, fx + QStringLiteral("/torch/hta_cpu_only_rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz")))
        shoot(QStringLiteral("cpu_not_assessed"));
    // The roofline of an H100 inference run: the dock made tall, the longest operator clicked (its kernels outlined
    // on the timeline, the longest one selected).
    if (open(w, fx + QStringLiteral("/torch/tracelens_h100_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"))) {
        QDockWidget* roofline = dock(w, "RooflineDock");
        roofline->raise();
        w.resizeDocks({roofline}, {560}, Qt::Vertical);
        settle();
        if (auto* view = w.findChild<widgets::RooflineView*>())
            view->activateOperator(0);
        shoot(QStringLiteral("roofline"));
        dock(w, "OperatorsDock")->raise();
        w.operators()->setScope(-1);
        settleUntil([&] { return !w.operators()->computing(); });
        shoot(QStringLiteral("h100_operators"));
        w.resizeDocks({roofline}, {240}, Qt::Vertical);
        dock(w, "FindingsDock")->raise();
    }
    return 0;
}
