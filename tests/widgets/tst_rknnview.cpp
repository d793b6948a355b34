// SPDX-License-Identifier: MIT
// An RKNN run can be seen (issue #47 item 2): on the real three-core YOLOv8n table the timeline has one lane per NPU
// core, a layer split 33.3%/33.3%/33.3% on all three and a single-core layer on core 0 only; the Layers dock lists
// every layer, sorts on the numbers and selects the layer on the timeline; Details reads the cells as people do.
//
// The numbers come from the fixture's text, not from Timesink (tests/data/rknn/, SOURCES.md):
//   python3 - <<'EOF'
//   import re
//   rows = [m.groups() for m in (re.match(r'^(\d+)\s+(\S+)\s+\S+\s+(NPU|CPU)\s+\S+\s+\S+\s+\d+/\d+/\d+\s+(\d+)\s+(\S+)'
//           r'\s+(\S+%)', l) for l in open('rknpu2_2.0.0b0_rk3588_perf_detail_yolov8n_1920x1088_multicore.txt')) if m]
//   len(rows)                                                    # 108 layers
//   sum(r[2] == 'NPU' for r in rows)                             # 98 on the NPU: core 0's lane
//   [r[0] for r in rows if r[5].startswith('33.3')][:3], sum(r[5].startswith('33.3') for r in rows)
//                                                                # ['8', '9', '16'], 25: cores 1 and 2
//   max(rows, key=lambda r: int(r[3]))[:4]                       # ('4', 'ConvExSwish', 'NPU', '12009'): slowest
//   max((r for r in rows if r[4] != '\\'), key=lambda r: float(r[4].split('/')[0]))[:2]  # ('84', ...): top MAC
//   EOF
// Layer 2 prints Cycles 1222645/4700160/4700160, MacUsage 0.77/0.77/0.77, RW 6122 KB; layer 5 (Split) MacUsage "\".
#include "analysis/core/rknnlayers.h"
#include "app/gui/mainwindow.h"
#include "tests/common/fixtures.h"
#include "widgets/detailspanel.h"
#include "widgets/layertableview.h"
#include "widgets/operatorview.h"
#include "widgets/timelineview.h"
#include "widgets/tracklayout.h"

#include <QDockWidget>
#include <QLabel>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QStandardItemModel>
#include <QTableView>
#include <QTest>

#include <algorithm>
#include <map>

using namespace timesink;

namespace {

const char* const kMulticore = "rknn/rknpu2_2.0.0b0_rk3588_perf_detail_yolov8n_1920x1088_multicore.txt";
const char* const kSingleCore = "rknn/rknpu2_1.6.0_rk3588_perf_detail_yolov8n_1920_singlecore.txt";

std::string trackName(const model::Trace& trace, model::TrackId id)
{
    return std::string(trace.str(trace.track(id).name));
}

/// The slice of layer `id` on `track`, or an invalid ref.
model::SliceRef layerOn(const model::Trace& trace, const model::Track& track, std::int64_t id)
{
    for (std::uint32_t i = 0; i < track.size(); ++i) {
        const model::SliceRef ref {track.id, model::SliceIndex(i)};
        const auto v = trace.arg(ref, "layer_id");
        if (v && v->type == model::ArgValue::Type::Int && v->i == id)
            return ref;
    }
    return {};
}

/// The rows of the window's Layers dock, sorted by `column` in `order`; the first row's ID.
std::int64_t firstIdSortedBy(widgets::LayerTableView* view, const QString& column, Qt::SortOrder order)
{
    const int c = view->column(column);
    if (c < 0)
        return -1;
    view->table()->sortByColumn(c, order);
    return view->proxy()->index(0, view->column(QStringLiteral("ID"))).data().toLongLong();
}

} // namespace

class TestRknnView : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName(QStringLiteral("TimesinkTests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_rknnview"));
    }

    void init() { QSettings().clear(); }

    // Three lanes, one per core, in the NPU's group of the timeline: all 98 NPU layers on core 0, the 25 split layers
    // on cores 1 and 2 too; the "NPU" track keeps the one sequence of layers.
    void coreLanesOnTheMulticoreRun()
    {
        LOAD_FIXTURE(trace, std::string(kMulticore));
        gui::MainWindow w;
        gui::LoadedTrace loaded;
        loaded.trace = trace;
        w.showTrace(loaded);
        const widgets::TrackLayout& layout = w.timeline()->layout();
        std::map<std::string, model::TrackId> byName;
        for (const widgets::TrackLayout::Group& g : layout.groups())
            for (model::TrackId id : g.tracks)
                byName[trackName(*trace, id)] = id;
        for (const char* name : {"NPU", "CPU", "NPU core 0", "NPU core 1", "NPU core 2"}) {
            QVERIFY2(byName.count(name), name);
            QVERIFY2(layout.rowOfTrack(byName[name]) >= 0, name); // drawn: a row of the timeline
        }
        QCOMPARE(byName.count("NPU core 3"), std::size_t {0});
        const model::Track& npu = trace->track(byName["NPU"]);
        const model::Track& core0 = trace->track(byName["NPU core 0"]);
        const model::Track& core1 = trace->track(byName["NPU core 1"]);
        const model::Track& core2 = trace->track(byName["NPU core 2"]);
        QCOMPARE(npu.size(), std::size_t {98});
        QCOMPARE(core0.size(), std::size_t {98});
        QCOMPARE(core1.size(), std::size_t {25});
        QCOMPARE(core2.size(), std::size_t {25});
        // Same group as the NPU: the lanes sit with the device's rows.
        QCOMPARE(layout.groupOfTrack(byName["NPU core 1"]), layout.groupOfTrack(byName["NPU"]));

        // Layer 8 (Add, 33.3%/33.3%/33.3%) lies on all three lanes, where and as long as on the NPU track.
        const model::SliceRef add = layerOn(*trace, npu, 8);
        QVERIFY(add.isValid());
        for (const model::Track* lane : {&core0, &core1, &core2}) {
            const model::SliceRef onLane = layerOn(*trace, *lane, 8);
            QVERIFY2(onLane.isValid(), trackName(*trace, lane->id).c_str());
            QCOMPARE(lane->ts(onLane.index.value), npu.ts(add.index.value));
            QCOMPARE(lane->dur(onLane.index.value), npu.dur(add.index.value));
            QCOMPARE(trace->str(lane->sliceName(onLane.index.value)), std::string_view("Add"));
        }
        // Layer 2 (ConvExSwish, 100.0%/0.0%/0.0%) only on core 0.
        QVERIFY(layerOn(*trace, core0, 2).isValid());
        QVERIFY(!layerOn(*trace, core1, 2).isValid());
        QVERIFY(!layerOn(*trace, core2, 2).isValid());

        // The lanes repeat layers: the advisor still reads each layer once.
        QCOMPARE(analysis::readRknnLayers(*trace).layers.size(), std::size_t {108});
    }

    // The Operators tab of an edge run (issue #47 item 2): the NPU's layers by op type, each with its layers' count
    // and NPU time (no host launches the layers), the CPU's Input/OutputOperators with their host time; the core
    // lanes repeat layers and add nothing. From the fixture's text (the script above, grouped by op type and
    // target): ConvExSwish 57 layers 69,273 us on the NPU, Concat 13 / 8,512 us, OutputOperator 9 / 536 us on the
    // CPU, InputOperator 1 / 9 us; 98 NPU layers in all, 95,641 us.
    void operatorsByOpType()
    {
        LOAD_FIXTURE(trace, std::string(kMulticore));
        widgets::OperatorView view;
        view.resize(1200, 400);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setTrace(trace);
        QTRY_VERIFY(!view.computing());
        std::map<QString, std::pair<std::uint64_t, model::TimeNs>> device; // name → calls, device ns
        std::map<QString, std::pair<std::uint64_t, model::TimeNs>> host;
        model::TimeNs npuTotal = 0;
        for (const analysis::OperatorRow& row : view.model()->operators()) {
            const QString name = QString::fromUtf8(trace->str(row.name));
            device[name] = {row.calls, row.deviceNs};
            host[name] = {row.calls, row.hostNs};
            npuTotal += row.deviceNs;
        }
        QCOMPARE(device.size(), std::size_t {11});
        QCOMPARE(device[QStringLiteral("ConvExSwish")], std::make_pair(std::uint64_t {57}, model::TimeNs {69'273'000}));
        QCOMPARE(device[QStringLiteral("Concat")], std::make_pair(std::uint64_t {13}, model::TimeNs {8'512'000}));
        QCOMPARE(host[QStringLiteral("ConvExSwish")].second, model::TimeNs {0});
        QCOMPARE(host[QStringLiteral("OutputOperator")], std::make_pair(std::uint64_t {9}, model::TimeNs {536'000}));
        QCOMPARE(host[QStringLiteral("InputOperator")], std::make_pair(std::uint64_t {1}, model::TimeNs {9'000}));
        QCOMPARE(npuTotal, model::TimeNs {95'641'000});
        // Sorted by device time, the slowest op type first; its row jumps to its slowest layer (layer 4, 12,009 us).
        view.proxy()->sort(widgets::CallTreeModel::Device, Qt::DescendingOrder);
        QCOMPARE(view.proxy()->index(0, widgets::CallTreeModel::Name).data().toString(), QStringLiteral("ConvExSwish"));
        const model::SliceRef slowest = view.jumpToSlowest(view.proxy()->index(0, 0));
        QVERIFY(slowest.isValid());
        QCOMPARE(trace->track(slowest.track).dur(slowest.index.value), model::TimeNs {12'009'000});
        QVERIFY(trace->track(slowest.track).role != model::TrackRole::Synthetic);
        QVERIFY(view.findChild<QLabel*>() != nullptr);
        bool said = false;
        for (const QLabel* label : view.findChildren<QLabel*>())
            said = said || label->text().contains(QStringLiteral("records no launches from the host"));
        QVERIFY(said);
    }

    // A run on one core has nothing for lanes to show beyond the NPU track.
    void noLanesOnTheSingleCoreRun()
    {
        LOAD_FIXTURE(trace, std::string(kSingleCore));
        for (const model::Track& t : trace->tracks())
            QVERIFY2(trackName(*trace, t.id).find("core") == std::string::npos, trackName(*trace, t.id).c_str());
    }

    // The Layers dock: every layer, numeric sorts, and a row selects its layer on the timeline and in Details.
    // Opening an RKNN run brings the Layers tab forward; opening another kind of trace gives the front back to the
    // findings.
    void layersComeForwardForRknnRuns()
    {
        gui::MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        auto* layers = w.findChild<QDockWidget*>(QStringLiteral("LayersDock"));
        auto* findings = w.findChild<QDockWidget*>(QStringLiteral("FindingsDock"));
        QVERIFY(layers && findings);
        QTRY_VERIFY(!findings->visibleRegion().isEmpty());
        QVERIFY(layers->visibleRegion().isEmpty());

        LOAD_FIXTURE(rknn, std::string(kMulticore));
        gui::LoadedTrace edge;
        edge.trace = rknn;
        w.showTrace(edge);
        QTRY_VERIFY(!layers->visibleRegion().isEmpty());
        QVERIFY(findings->visibleRegion().isEmpty());

        LOAD_FIXTURE(kineto, std::string("torch/torch_cpu_legacy_resnet18_train_2steps.json"));
        gui::LoadedTrace other;
        other.trace = kineto;
        w.showTrace(other);
        QTRY_VERIFY(!findings->visibleRegion().isEmpty());
        QVERIFY(layers->visibleRegion().isEmpty());
    }

    void layerTableSelectsTheLayer()
    {
        LOAD_FIXTURE(trace, std::string(kMulticore));
        gui::MainWindow w;
        gui::LoadedTrace loaded;
        loaded.trace = trace;
        w.showTrace(loaded);
        auto* dock = w.findChild<QDockWidget*>(QStringLiteral("LayersDock"));
        QVERIFY(dock);
        auto* view = qobject_cast<widgets::LayerTableView*>(dock->widget());
        QVERIFY(view);
        QCOMPARE(view->model()->rowCount(), 108);
        for (const char* title :
             {"ID", "Op type", "Target", "Input shape", "Output shape", "Time", "Cores", "MAC core 0", "MAC core 1",
              "MAC core 2", "DDR cycles", "NPU cycles", "RW (KB)", "Full name"})
            QVERIFY2(view->column(QString::fromLatin1(title)) >= 0, title);
        QVERIFY(view->summary()->text().contains(QStringLiteral("108 layers")));
        QVERIFY(view->summary()->text().contains(QStringLiteral("25 split over 3 cores")));

        // Numbers sort as numbers ("12.0 ms" above "9.52 ms", 28.06 above 6.95).
        QCOMPARE(firstIdSortedBy(view, QStringLiteral("Time"), Qt::DescendingOrder), std::int64_t {4});
        QCOMPARE(firstIdSortedBy(view, QStringLiteral("MAC core 0"), Qt::DescendingOrder), std::int64_t {84});
        QCOMPARE(firstIdSortedBy(view, QStringLiteral("ID"), Qt::DescendingOrder), std::int64_t {108});
        QCOMPARE(firstIdSortedBy(view, QStringLiteral("ID"), Qt::AscendingOrder), std::int64_t {1});

        // Selecting layer 2's row (ID order) selects its slice on the NPU track, and Details reads its cells.
        view->table()->selectRow(1);
        const model::SliceRef selected = w.timeline()->selectedSlice();
        QVERIFY(selected.isValid());
        QCOMPARE(trackName(*trace, selected.track), std::string("NPU"));
        QCOMPARE(trace->arg(selected, "layer_id")->i, std::int64_t {2});
        const QString details = w.details()->plainText();
        QVERIFY2(details.contains(QStringLiteral("core 0: 0.77%, core 1: 0.77%, core 2: 0.77%")), qPrintable(details));
        QVERIFY2(details.contains(QStringLiteral("1,222,645")), qPrintable(details));
        QVERIFY2(details.contains(QStringLiteral("6,122 KB (5.98 MiB)")), qPrintable(details));
        QVERIFY2(details.contains(QStringLiteral("core 0 only")), qPrintable(details));

        // A split layer picked on core 2's lane selects its row.
        model::TrackId core2;
        for (const model::Track& t : trace->tracks())
            if (trackName(*trace, t.id) == "NPU core 2")
                core2 = t.id;
        QVERIFY(core2.isValid());
        w.timeline()->selectSlice(layerOn(*trace, trace->track(core2), 9));
        const QModelIndex current = view->table()->currentIndex();
        QVERIFY(current.isValid());
        QCOMPARE(
            static_cast<std::int64_t>(current.siblingAtColumn(view->column(QStringLiteral("ID"))).data().toLongLong()),
            std::int64_t {9});
        QVERIFY(w.details()->plainText().contains(QStringLiteral("cores 0, 1, 2: 33.3% each")));

        // Split (layer 5) has no MAC work: no "mac_usage \" placeholder in Details.
        view->table()->sortByColumn(view->column(QStringLiteral("ID")), Qt::AscendingOrder);
        view->table()->selectRow(4);
        QCOMPARE(trace->arg(w.timeline()->selectedSlice(), "layer_id")->i, std::int64_t {5});
        QVERIFY(!w.details()->plainText().contains(QStringLiteral("mac_usage")));
    }

    // A trace without a layer table says so instead of showing an empty table without a word.
    void otherTracesSayWhy()
    {
        widgets::LayerTableView view;
        LOAD_FIXTURE(trace, std::string("rknn/toolkit2_2.3.2_rk3588_eval_perf_summary.txt"));
        view.setTrace(trace);
        QCOMPARE(view.model()->rowCount(), 0);
        QVERIFY(view.summary()->text().contains(QStringLiteral("No RKNN layer table")));
    }
};

QTEST_MAIN(TestRknnView)
#include "tst_rknnview.moc"
