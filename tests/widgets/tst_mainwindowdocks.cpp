// SPDX-License-Identifier: MIT
// The main window's docks come from one list (app/gui/dockregistry.h) and talk to the window only through its
// ViewHub: a view registered by the test hears the trace, the analysis and the selections and is answered when it
// asks, without a line of the window naming it; the window's docks are exactly the registered ones; and a window
// built without any dock still shows and selects.
#include "app/gui/dockregistry.h"
#include "app/gui/mainwindow.h"
#include "app/gui/viewhub.h"
#include "testtraces.h"
#include "widgets/detailspanel.h"
#include "widgets/timelineview.h"

#include <QAction>
#include <QDockWidget>
#include <QMenu>
#include <QMenuBar>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

#include <map>
#include <memory>

using namespace timesink;
using gui::DockRegistration;
using gui::MainWindow;
using gui::ViewHub;

namespace {

gui::LoadedTrace loaded(model::TracePtr trace, std::vector<analysis::Finding> findings = {})
{
    gui::LoadedTrace l;
    l.trace = std::move(trace);
    l.analysis.findings = std::move(findings);
    return l;
}

/// What a registered view heard from the window, in order ("analysis", "trace", "shown", "range", "slice",
/// "finding").
struct Heard
{
    QStringList events;
    model::TracePtr trace;
    model::TracePtr shown;
    std::size_t findings = 0;
    bool analysing = false;
    std::optional<analysis::RangeSelection> range;
    model::SliceRef slice;
    std::string finding;
    ViewHub* hub = nullptr;
    QWidget* widget = nullptr;
};

/// A registration for a probe view that records what it hears in `heard`: the window knows nothing of it.
DockRegistration probeRegistration(const std::shared_ptr<Heard>& heard, Qt::DockWidgetArea area,
                                   bool raiseOnRangeSelection = false)
{
    DockRegistration r;
    r.objectName = QStringLiteral("ProbeDock");
    r.title = QStringLiteral("Probe");
    r.area = area;
    r.raiseOnRangeSelection = raiseOnRangeSelection;
    r.create = [heard](ViewHub& hub, QWidget* parent) {
        auto* widget = new QWidget(parent);
        widget->setObjectName(QStringLiteral("Probe"));
        widget->setMinimumSize(120, 100);
        heard->hub = &hub;
        heard->widget = widget;
        QObject::connect(&hub, &ViewHub::analysisChanged, widget,
                         [heard](const gui::LoadedTrace& current, bool analysing) {
                             heard->events << QStringLiteral("analysis");
                             heard->findings = current.analysis.findings.size();
                             heard->analysing = analysing;
                         });
        QObject::connect(&hub, &ViewHub::traceChanged, widget, [heard](const model::TracePtr& trace) {
            heard->events << QStringLiteral("trace");
            heard->trace = trace;
        });
        QObject::connect(&hub, &ViewHub::traceShown, widget, [heard](const model::TracePtr& trace) {
            heard->events << QStringLiteral("shown");
            heard->shown = trace;
        });
        QObject::connect(&hub, &ViewHub::rangeSelectionChanged, widget,
                         [heard](const std::optional<analysis::RangeSelection>& range) {
                             heard->events << QStringLiteral("range");
                             heard->range = range;
                         });
        QObject::connect(&hub, &ViewHub::sliceSelected, widget, [heard](const model::Trace&, model::SliceRef slice) {
            heard->events << QStringLiteral("slice");
            heard->slice = slice;
        });
        QObject::connect(&hub, &ViewHub::findingSelected, widget,
                         [heard](const model::Trace*, const analysis::Finding& finding) {
                             heard->events << QStringLiteral("finding");
                             heard->finding = finding.title;
                         });
        return widget;
    };
    return r;
}

QList<QDockWidget*> docksOf(const MainWindow& w)
{
    return w.findChildren<QDockWidget*>();
}

QMenu* viewMenu(const MainWindow& w)
{
    for (QAction* a : w.menuBar()->actions())
        if (a->menu() && a->text() == MainWindow::tr("&View"))
            return a->menu();
    return nullptr;
}

} // namespace

class TestMainWindowDocks : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_dir.path());
        QCoreApplication::setOrganizationName(QStringLiteral("TimesinkTests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_mainwindowdocks"));
    }

    void init() { QSettings().clear(); }

    // The window's docks are the registered ones, with their names, titles and areas; each area's later docks are
    // tabs beside its first; every dock is in the View menu.
    void everyDockComesFromTheRegistry()
    {
        const std::vector<DockRegistration> registry = gui::mainWindowDocks();
        QVERIFY(!registry.empty());
        MainWindow w;
        const QList<QDockWidget*> docks = docksOf(w);
        QCOMPARE(static_cast<std::size_t>(docks.size()), registry.size());
        QMenu* menu = viewMenu(w);
        QVERIFY(menu);
        std::map<Qt::DockWidgetArea, QDockWidget*> firstOfArea;
        for (const DockRegistration& r : registry) {
            auto* dock = w.findChild<QDockWidget*>(r.objectName);
            QVERIFY2(dock, qPrintable(r.objectName));
            QVERIFY(docks.contains(dock));
            QCOMPARE(dock->windowTitle(), r.title);
            QCOMPARE(w.dockWidgetArea(dock), r.area);
            QVERIFY(dock->widget());
            QVERIFY(menu->actions().contains(dock->toggleViewAction()));
            const auto [first, isFirst] = firstOfArea.emplace(r.area, dock);
            if (!isFirst)
                QVERIFY(w.tabifiedDockWidgets(first->second).contains(dock));
        }
        // The names saved layouts and the screenshot tool rely on.
        QStringList names;
        for (const DockRegistration& r : registry)
            names << r.objectName;
        QCOMPARE(names,
                 (QStringList {
                     QStringLiteral("FindingsDock"), QStringLiteral("LayersDock"), QStringLiteral("StatsDock"),
                     QStringLiteral("OperatorsDock"), QStringLiteral("RooflineDock"), QStringLiteral("FlameGraphDock"),
                     QStringLiteral("CriticalPathDock"), QStringLiteral("DetailsDock"), QStringLiteral("TracksDock")}));
    }

    // A window built without a single dock still shows a trace, selects a range and a finding: nothing in it
    // depends on a particular view.
    void windowWithoutDocks()
    {
        MainWindow w(std::vector<DockRegistration> {});
        w.resize(1000, 700);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(docksOf(w).isEmpty());
        QVERIFY(!w.details() && !w.findingsView() && !w.rangeStats() && !w.tracksPanel());
        const auto trace = testing::smallTrainingTrace();
        const auto findings = testing::smallFindings(*trace);
        w.showTrace(loaded(trace, findings));
        QCOMPARE(w.timeline()->trace(), trace);
        w.timeline()->selectTimeRange(std::pair<model::TimeNs, model::TimeNs>(100, 400));
        w.selectFinding(0);
        QCOMPARE(w.timeline()->highlighted(), findings[0].events);
        w.resetLayout();
        QVERIFY(!w.isLayoutDegenerate());
    }

    // A view registered beside the others hears the window and is answered, in the order the hub promises.
    void registeredViewFollowsTheWindow()
    {
        auto heard = std::make_shared<Heard>();
        std::vector<DockRegistration> registry = gui::mainWindowDocks();
        registry.push_back(probeRegistration(heard, Qt::BottomDockWidgetArea));
        MainWindow w(registry);
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));

        auto* probeDock = w.findChild<QDockWidget*>(QStringLiteral("ProbeDock"));
        QVERIFY(probeDock);
        QCOMPARE(probeDock->widget(), heard->widget);
        QCOMPARE(heard->hub, w.viewHub());
        QVERIFY(viewMenu(w)->actions().contains(probeDock->toggleViewAction()));
        // A later dock of the bottom area is a tab beside the findings, which stay on top.
        auto* findingsDock = w.findChild<QDockWidget*>(QStringLiteral("FindingsDock"));
        QVERIFY(w.tabifiedDockWidgets(findingsDock).contains(probeDock));
        QVERIFY(heard->widget->visibleRegion().isEmpty());

        // A new trace: its analysis, the trace, then (after the timeline is painted) the trace again.
        const auto trace = testing::smallTrainingTrace();
        const auto findings = testing::smallFindings(*trace);
        w.showTrace(loaded(trace, findings));
        QCOMPARE(heard->events,
                 (QStringList {QStringLiteral("analysis"), QStringLiteral("trace"), QStringLiteral("shown")}));
        QCOMPARE(heard->trace, trace);
        QCOMPARE(heard->shown, trace);
        QCOMPARE(heard->findings, findings.size());
        QVERIFY(!heard->analysing);

        // The same trace again (its analysis arriving): the analysis alone; the view keeps what it shows.
        heard->events.clear();
        w.showTrace(loaded(trace, {findings[1]}));
        QCOMPARE(heard->events, QStringList {QStringLiteral("analysis")});
        QCOMPARE(heard->findings, std::size_t {1});
        w.showTrace(loaded(trace, findings));

        // The explorer's range and the selected slice.
        heard->events.clear();
        w.timeline()->selectTimeRange(std::pair<model::TimeNs, model::TimeNs>(100, 400));
        QCOMPARE(heard->events, QStringList {QStringLiteral("range")});
        QVERIFY(heard->range);
        QCOMPARE(heard->range->start, model::TimeNs {100});
        QCOMPARE(heard->range->end, model::TimeNs {400});
        const model::SliceRef conv = testing::findSlice(*trace, "conv_fwd");
        w.timeline()->selectSlice(conv);
        QCOMPARE(heard->slice, conv);
        w.timeline()->selectTimeRange(std::nullopt);
        QVERIFY(!heard->range);

        // What the view asks for, the window does: go to a slice, outline slices, select a finding (which the
        // details panel, another registered view, then explains).
        const model::SliceRef relu = testing::findSlice(*trace, "relu_fwd");
        emit heard->hub->sliceRequested(relu);
        QCOMPARE(w.timeline()->selectedSlice(), relu);
        QCOMPARE(heard->slice, relu);
        emit heard->hub->highlightRequested({conv, relu});
        QCOMPARE(w.timeline()->highlighted(), (std::vector<model::SliceRef> {conv, relu}));
        heard->events.clear();
        emit heard->hub->findingRequested(1);
        QCOMPARE(heard->events, QStringList {QStringLiteral("finding")});
        QCOMPARE(heard->finding, findings[1].title);
        QCOMPARE(w.timeline()->highlighted(), findings[1].events);
        QVERIFY(w.details()->plainText().contains(QString::fromStdString(findings[1].title)));

        // Another trace: the view hears it too, and Reset Layout keeps its dock in the window.
        const auto other = testing::smallTrainingTrace();
        w.showTrace(loaded(other));
        QCOMPARE(heard->trace, other);
        QCOMPARE(heard->shown, other);
        QCOMPARE(heard->findings, std::size_t {0});
        probeDock->setFloating(true);
        w.resetLayout();
        QVERIFY(!probeDock->isFloating());
        QCOMPARE(w.dockWidgetArea(probeDock), Qt::BottomDockWidgetArea);
    }

    // A registration's placement is the window's whole knowledge of it: the first dock of an empty area is on top
    // there, and raiseOnRangeSelection brings it to the front when a range is selected.
    void registrationPlacesAndRaises()
    {
        auto heard = std::make_shared<Heard>();
        std::vector<DockRegistration> registry = gui::mainWindowDocks();
        registry.push_back(probeRegistration(heard, Qt::BottomDockWidgetArea, true));
        MainWindow w(registry);
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.showTrace(loaded(testing::smallTrainingTrace()));
        QVERIFY(heard->widget->visibleRegion().isEmpty());
        w.timeline()->selectTimeRange(std::pair<model::TimeNs, model::TimeNs>(100, 400));
        QTRY_VERIFY(!heard->widget->visibleRegion().isEmpty());

        auto left = std::make_shared<Heard>();
        MainWindow alone({probeRegistration(left, Qt::LeftDockWidgetArea)});
        alone.resize(1000, 700);
        alone.show();
        QVERIFY(QTest::qWaitForWindowExposed(&alone));
        auto* dock = alone.findChild<QDockWidget*>(QStringLiteral("ProbeDock"));
        QCOMPARE(alone.dockWidgetArea(dock), Qt::LeftDockWidgetArea);
        QVERIFY(!left->widget->visibleRegion().isEmpty());
        QCOMPARE(docksOf(alone).size(), 1);
    }

private:
    QTemporaryDir m_dir;
};

QTEST_MAIN(TestMainWindowDocks)
#include "tst_mainwindowdocks.moc"
