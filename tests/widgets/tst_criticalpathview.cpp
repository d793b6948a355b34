// SPDX-License-Identifier: MIT
// The critical path can be read (issue #47 item 5): the Critical Path Breakdown dock shows a step's composition as a
// bar and a table whose rows add up to the path, lists the path's events, each selecting its slice on the timeline,
// says why a step has no path; and View → Critical Path draws the path's slices on their own rows, kernel rows
// included.
//
// On the A100 trace of HTA's trace-diff example (tests/data/torch, SOURCES.md): six ProfilerSteps, all with a path
// (tests/golden: steps[].critical_path.assessed); step 1010's path begins at its host step, 140 µs before the step's
// analysis window (steps[1].host_start_ns and start_ns). The host-only ResNet-18 trace has no device work, so neither
// of its two steps has a path.
#include "analysis/core/pass.h"
#include "app/gui/mainwindow.h"
#include "tests/common/fixtures.h"
#include "widgets/categorypalette.h"
#include "widgets/criticalpathview.h"
#include "widgets/timeformat.h"
#include "widgets/timelinepainter.h"
#include "widgets/timelineview.h"

#include <QAction>
#include <QComboBox>
#include <QDockWidget>
#include <QLabel>
#include <QScrollBar>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QStandardItemModel>
#include <QTableView>
#include <QTest>

#include <algorithm>

using namespace timesink;

namespace {

const char* const kA100 = "torch/hta_a100_trace_diff_control.json.gz";
const char* const kHostOnly = "torch/torch_cpu_legacy_resnet18_train_2steps.json";

gui::LoadedTrace analysed(const model::TracePtr& trace)
{
    gui::LoadedTrace loaded;
    loaded.trace = trace;
    loaded.analysis = analysis::analyze(*trace, analysis::AnalysisOptions {}, analysis::CancelToken {});
    return loaded;
}

widgets::CriticalPathView* viewOf(gui::MainWindow& w)
{
    auto* dock = w.findChild<QDockWidget*>(QStringLiteral("CriticalPathDock"));
    return dock ? qobject_cast<widgets::CriticalPathView*>(dock->widget()) : nullptr;
}

model::TimeNs nsAt(const QStandardItemModel* m, int row, int column)
{
    return m->item(row, column)->data(widgets::CriticalPathView::kSortRole).toLongLong();
}

/// The proxy row of the event model's source row `row`.
int proxyRow(const widgets::CriticalPathView* view, int row)
{
    return view->eventProxy()->mapFromSource(view->eventModel()->index(row, 0)).row();
}

/// The position of a class label in analysis::PathClass (the bar's order), or -1.
int classOrder(const QString& label)
{
    for (std::size_t c = 0; c < analysis::kPathClassCount; ++c)
        if (widgets::CriticalPathView::classLabel(static_cast<analysis::PathClass>(c)) == label)
            return static_cast<int>(c);
    return -1;
}

} // namespace

class TestCriticalPathView : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName(QStringLiteral("TimesinkTests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_criticalpathview"));
    }

    void init() { QSettings().clear(); }

    // Every step: the table's class rows add up to its total row, which is the path's length (end − start), as do
    // the bar's parts; the summary sets the path against the step.
    void compositionAddsUpToTheStep()
    {
        LOAD_FIXTURE(trace, std::string(kA100));
        gui::MainWindow w;
        const gui::LoadedTrace loaded = analysed(trace);
        const std::vector<analysis::StepCriticalPath> paths = loaded.analysis.criticalPaths;
        w.showTrace(loaded);
        widgets::CriticalPathView* view = viewOf(w);
        QVERIFY(view);
        QCOMPARE(trace->steps().size(), std::size_t {6});
        QCOMPARE(paths.size(), std::size_t {6});
        QCOMPARE(view->stepSelector()->count(), 6);
        QCOMPARE(view->step(), std::optional<std::size_t>(0)); // the first step with a path
        for (std::size_t s = 0; s < paths.size(); ++s) {
            view->setStep(s);
            const analysis::StepCriticalPath& p = paths[s];
            QVERIFY2(p.assessed, p.reason.c_str());
            const QStandardItemModel* m = view->compositionModel();
            QVERIFY(m->rowCount() >= 2);
            const int totalRow = m->rowCount() - 1;
            QCOMPARE(m->item(totalRow, 0)->text(), QStringLiteral("Total"));
            // As shown: the classes in the bar's order, the total last.
            const QAbstractItemModel* shown = view->compositionTable()->model();
            QCOMPARE(shown->index(totalRow, 0).data().toString(), QStringLiteral("Total"));
            QVERIFY(classOrder(shown->index(0, 0).data().toString()) >= 0);
            for (int r = 1; r < totalRow; ++r)
                QVERIFY(classOrder(shown->index(r - 1, 0).data().toString())
                        < classOrder(shown->index(r, 0).data().toString()));
            model::TimeNs sum = 0;
            for (int r = 0; r < totalRow; ++r) {
                sum += nsAt(m, r, widgets::CriticalPathView::TimeColumn);
                QVERIFY(!m->item(r, 0)->text().contains(QLatin1Char('_'))); // labels for people, not keys
            }
            QCOMPARE(nsAt(m, totalRow, widgets::CriticalPathView::TimeColumn), p.lengthNs());
            QCOMPARE(sum, p.endNs - p.startNs);
            QVERIFY(p.lengthNs() > 0);
            model::TimeNs bar = 0;
            for (const auto& [cls, ns] : view->barParts())
                bar += ns;
            QCOMPARE(bar, p.lengthNs());
            // The path against the step's analysis window (the step time of the findings and the Summary).
            const analysis::StepBreakdown& st = loaded.analysis.stepBreakdown[s];
            QVERIFY2(view->summary()->text().contains(widgets::TimeFormat::formatDuration(p.lengthNs())),
                     qPrintable(view->summary()->text()));
            QVERIFY2(view->summary()->text().contains(widgets::TimeFormat::formatDuration(st.durationNs)),
                     qPrintable(view->summary()->text()));
            // Every event of the path is listed.
            QCOMPARE(static_cast<std::size_t>(view->eventModel()->rowCount()), p.segments.size());
            QCOMPARE(p.segmentsOmitted, std::uint64_t {0});
            QVERIFY(view->note()->isHidden());
        }
        // One window: step 1010's host step begins 140 µs before its analysis window, and its path begins with the
        // window, as long as the step.
        QCOMPARE(trace->steps()[1].number, std::int64_t {1010});
        QCOMPARE(loaded.analysis.stepBreakdown[1].startNs - trace->steps()[1].start, model::TimeNs {140'000});
        for (std::size_t s = 0; s < paths.size(); ++s) {
            QCOMPARE(paths[s].startNs, loaded.analysis.stepBreakdown[s].startNs);
            QCOMPARE(paths[s].lengthNs(), loaded.analysis.stepBreakdown[s].durationNs);
        }
    }

    // Selecting an event selects its slice on the timeline (through the window's ViewHub); host time between calls
    // shows its range. Selecting a path slice on the timeline selects its row.
    void selectingAnEventSelectsItsSlice()
    {
        LOAD_FIXTURE(trace, std::string(kA100));
        gui::MainWindow w;
        w.showTrace(analysed(trace));
        widgets::CriticalPathView* view = viewOf(w);
        QVERIFY(view);
        view->setStep(0);
        int kernelRow = -1;
        int gapRow = -1;
        int otherKernelRow = -1;
        for (int r = 0; r < view->eventModel()->rowCount(); ++r) {
            const analysis::PathSegment* seg = view->segmentOfRow(r);
            QVERIFY(seg);
            if (seg->cls == analysis::PathClass::DeviceCompute && seg->slice.isValid()) {
                if (kernelRow < 0)
                    kernelRow = r;
                else if (otherKernelRow < 0)
                    otherKernelRow = r;
            }
            if (!seg->slice.isValid() && gapRow < 0)
                gapRow = r;
        }
        QVERIFY(kernelRow >= 0 && otherKernelRow >= 0 && gapRow >= 0);

        const analysis::PathSegment kernel = *view->segmentOfRow(kernelRow);
        view->eventTable()->selectRow(proxyRow(view, kernelRow));
        QCOMPARE(w.timeline()->selectedSlice(), kernel.slice);
        const model::Track& stream = trace->track(kernel.track);
        QCOMPARE(stream.category(kernel.slice.index.value), model::SliceCategory::Kernel);
        QVERIFY(w.timeline()->zoom().start() <= stream.ts(kernel.slice.index.value));
        QVERIFY(w.timeline()->zoom().end() >= stream.end(kernel.slice.index.value));
        QCOMPARE(view->eventModel()->item(kernelRow, widgets::CriticalPathView::NameColumn)->text(),
                 QString::fromUtf8(trace->str(stream.sliceName(kernel.slice.index.value))));

        const analysis::PathSegment gap = *view->segmentOfRow(gapRow);
        view->eventTable()->selectRow(proxyRow(view, gapRow));
        QVERIFY(w.timeline()->zoom().start() <= gap.start);
        QVERIFY(w.timeline()->zoom().end() >= gap.end);
        QCOMPARE(w.timeline()->selectedSlice(), kernel.slice); // host time has no slice to select

        // From the timeline: another kernel of the path selects its row.
        const model::SliceRef other = view->segmentOfRow(otherKernelRow)->slice;
        w.timeline()->selectSlice(other);
        const QModelIndex current = view->eventTable()->currentIndex();
        QVERIFY(current.isValid());
        QCOMPARE(view->eventProxy()->mapToSource(current).row(), otherKernelRow);
        QCOMPARE(w.timeline()->selectedSlice(), other);

        // Sorting by duration puts the longest event first.
        view->eventTable()->sortByColumn(widgets::CriticalPathView::DurationColumn, Qt::DescendingOrder);
        model::TimeNs longest = 0;
        for (int r = 0; r < view->eventModel()->rowCount(); ++r)
            longest = std::max(longest, view->segmentOfRow(r)->end - view->segmentOfRow(r)->start);
        const int top = view->eventProxy()->mapToSource(view->eventProxy()->index(0, 0)).row();
        QCOMPARE(view->segmentOfRow(top)->end - view->segmentOfRow(top)->start, longest);
    }

    // A host-only trace: no step has a path, and the view says why instead of an empty table.
    void stepWithoutAPathSaysWhy()
    {
        LOAD_FIXTURE(trace, std::string(kHostOnly));
        gui::MainWindow w;
        const gui::LoadedTrace loaded = analysed(trace);
        QCOMPARE(loaded.analysis.criticalPaths.size(), trace->steps().size());
        QVERIFY(!loaded.analysis.criticalPaths.empty());
        const analysis::StepCriticalPath& p = loaded.analysis.criticalPaths[0];
        QVERIFY(!p.assessed);
        QVERIFY(!p.reason.empty());
        w.showTrace(loaded);
        widgets::CriticalPathView* view = viewOf(w);
        QVERIFY(view);
        QCOMPARE(view->step(), std::optional<std::size_t>(0));
        QVERIFY2(view->summary()->text().contains(QString::fromStdString(p.reason)),
                 qPrintable(view->summary()->text()));
        QVERIFY(view->summary()->text().contains(QStringLiteral("has no critical path")));
        QCOMPARE(view->compositionModel()->rowCount(), 0);
        QCOMPARE(view->eventModel()->rowCount(), 0);
        QVERIFY(view->barParts().empty());
        QVERIFY(view->stepSelector()->itemText(0).contains(QStringLiteral("no path")));

        // While the analysis runs there is nothing yet, and it says so.
        view->setAnalysis(trace, analysis::AnalysisResult {}, true);
        QVERIFY(view->summary()->text().contains(QStringLiteral("analysis is running")));
    }

    // View → Critical Path: a kernel on the path is outlined on its own row in the path colour, over the kernel's
    // whole height (the band under the first row drew a kernel narrower than a pixel as one magenta pixel).
    void pathSlicesAreDrawnOnKernelRows()
    {
        LOAD_FIXTURE(trace, std::string(kA100));
        gui::MainWindow w;
        w.resize(1600, 1000);
        const gui::LoadedTrace loaded = analysed(trace);
        w.showTrace(loaded);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        auto* action = w.findChild<QAction*>(QStringLiteral("criticalPathAction"));
        QVERIFY(action);
        action->trigger();
        QVERIFY(action->isChecked());
        QVERIFY(!w.timeline()->criticalPath().empty());

        // The longest kernel on step 1009's path, shown across a fifth of the view.
        const analysis::PathSegment* kernel = nullptr;
        for (const analysis::PathSegment& s : loaded.analysis.criticalPaths[0].segments)
            if (s.cls == analysis::PathClass::DeviceCompute && s.slice.isValid()
                && (!kernel || s.end - s.start > kernel->end - kernel->start))
                kernel = &s;
        QVERIFY(kernel);
        const model::TimeNs dur = kernel->end - kernel->start;
        w.timeline()->showRange(kernel->start - 2 * dur, kernel->end + 2 * dur);
        w.timeline()->revealTrack(kernel->track);
        const QImage image = w.timeline()->renderImage();
        const auto rect
            = widgets::TimelinePainter::sliceRect(*trace, w.timeline()->zoom(), w.timeline()->layout(),
                                                  w.timeline()->verticalScrollBar()->value(), kernel->slice);
        QVERIFY(rect);
        const QColor path = widgets::CategoryPalette::criticalPath(widgets::CategoryPalette::isDark(w.palette()));
        const auto isPath = [&](int x, int y) { return image.pixelColor(x, y).rgb() == path.rgb(); };
        const int cx = static_cast<int>(rect->center().x());
        const int top = static_cast<int>(rect->top());
        const int bottom = static_cast<int>(rect->bottom());
        // The outline's top and bottom edges (2 px pens) and the kernel's own fill inside.
        QVERIFY2(isPath(cx, top) || isPath(cx, top + 1), qPrintable(image.pixelColor(cx, top).name()));
        QVERIFY2(isPath(cx, bottom) || isPath(cx, bottom - 1), qPrintable(image.pixelColor(cx, bottom).name()));
        QVERIFY(!isPath(cx, static_cast<int>(rect->center().y())));

        // Off: nothing in the path colour where the kernel is.
        action->trigger();
        QVERIFY(w.timeline()->criticalPath().empty());
        const QImage plain = w.timeline()->renderImage();
        QVERIFY(plain.pixelColor(cx, top).rgb() != path.rgb() && plain.pixelColor(cx, top + 1).rgb() != path.rgb());
    }
};

QTEST_MAIN(TestCriticalPathView)
#include "tst_criticalpathview.moc"
