// SPDX-License-Identifier: MIT
#include "app/gui/dockregistry.h"

#include "app/gui/findingspanel.h"
#include "app/gui/viewhub.h"
#include "widgets/criticalpathview.h"
#include "widgets/detailspanel.h"
#include "widgets/flamegraphview.h"
#include "widgets/layertableview.h"
#include "widgets/operatorview.h"
#include "widgets/rangestatsview.h"
#include "widgets/rooflineview.h"
#include "widgets/trackspanel.h"

#include <QCoreApplication>
#include <QScrollArea>

namespace timesink::gui {

namespace {

// The titles keep the translation context they had when the window built its docks itself.
QString title(const char* text)
{
    return QCoreApplication::translate("timesink::gui::MainWindow", text);
}

// The explorer's tables and charts at the bottom stay tall enough for a header and a few rows.
constexpr int kExplorerMinimumHeight = 140;
// The side panels stay wide enough for a slice's fields and a track's name.
constexpr int kSidePanelMinimumWidth = 220;

QWidget* findings(ViewHub& hub, QWidget* parent)
{
    auto* panel = new FindingsPanel(parent);
    QObject::connect(&hub, &ViewHub::analysisChanged, panel, &FindingsPanel::showAnalysis);
    QObject::connect(&hub, &ViewHub::findingPicked, panel, &FindingsPanel::selectFinding);
    QObject::connect(panel, &FindingsPanel::findingActivated, &hub, &ViewHub::findingRequested);
    return panel;
}

QWidget* selectionStatistics(ViewHub& hub, QWidget* parent)
{
    auto* view = new widgets::RangeStatsView(parent);
    view->setMinimumHeight(kExplorerMinimumHeight);
    QObject::connect(&hub, &ViewHub::traceChanged, view, &widgets::RangeStatsView::setTrace);
    QObject::connect(&hub, &ViewHub::rangeSelectionChanged, view, &widgets::RangeStatsView::setSelection);
    QObject::connect(view, &widgets::RangeStatsView::highlightRequested, &hub, &ViewHub::highlightRequested);
    QObject::connect(view, &widgets::RangeStatsView::sliceRequested, &hub, &ViewHub::sliceRequested);
    return view;
}

QWidget* operators(ViewHub& hub, QWidget* parent)
{
    auto* view = new widgets::OperatorView(parent);
    view->setMinimumHeight(kExplorerMinimumHeight);
    // The whole trace's operator table is aggregated once the new timeline is on screen.
    QObject::connect(&hub, &ViewHub::traceShown, view, &widgets::OperatorView::setTrace);
    QObject::connect(&hub, &ViewHub::analysisChanged, view,
                     [view](const LoadedTrace& current, bool) { view->setEfficiency(current.analysis.efficiency); });
    QObject::connect(&hub, &ViewHub::rangeSelectionChanged, view, &widgets::OperatorView::setTimeSelection);
    QObject::connect(view, &widgets::OperatorView::sliceRequested, &hub, &ViewHub::sliceRequested);
    return view;
}

QWidget* roofline(ViewHub& hub, QWidget* parent)
{
    auto* view = new widgets::RooflineView(parent);
    view->setMinimumHeight(kExplorerMinimumHeight);
    QObject::connect(&hub, &ViewHub::analysisChanged, view, [view](const LoadedTrace& current, bool) {
        view->setEfficiency(current.trace, current.analysis.efficiency);
    });
    QObject::connect(view, &widgets::RooflineView::sliceRequested, &hub, &ViewHub::sliceRequested);
    QObject::connect(view, &widgets::RooflineView::highlightRequested, &hub, &ViewHub::highlightRequested);
    return view;
}

QWidget* flameGraph(ViewHub& hub, QWidget* parent)
{
    auto* view = new widgets::FlameGraphView(parent);
    QObject::connect(&hub, &ViewHub::traceShown, view, &widgets::FlameGraphView::setTrace);
    QObject::connect(&hub, &ViewHub::rangeSelectionChanged, view, &widgets::FlameGraphView::setSelection);
    QObject::connect(view, &widgets::FlameGraphView::sliceRequested, &hub, &ViewHub::sliceRequested);
    auto* scroll = new QScrollArea(parent);
    scroll->setWidget(view);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setMinimumHeight(kExplorerMinimumHeight);
    return scroll;
}

QWidget* criticalPath(ViewHub& hub, QWidget* parent)
{
    auto* view = new widgets::CriticalPathView(parent);
    view->setMinimumHeight(kExplorerMinimumHeight);
    QObject::connect(&hub, &ViewHub::analysisChanged, view, [view](const LoadedTrace& current, bool analysing) {
        view->setAnalysis(current.trace, current.analysis, analysing);
    });
    QObject::connect(&hub, &ViewHub::sliceSelected, view, &widgets::CriticalPathView::showSlice);
    QObject::connect(view, &widgets::CriticalPathView::sliceRequested, &hub, &ViewHub::sliceRequested);
    QObject::connect(view, &widgets::CriticalPathView::rangeRequested, &hub, &ViewHub::rangeRequested);
    return view;
}

QWidget* layers(ViewHub& hub, QWidget* parent)
{
    auto* view = new widgets::LayerTableView(parent);
    view->setMinimumHeight(kExplorerMinimumHeight);
    QObject::connect(&hub, &ViewHub::traceChanged, view, &widgets::LayerTableView::setTrace);
    QObject::connect(&hub, &ViewHub::sliceSelected, view, &widgets::LayerTableView::showSlice);
    QObject::connect(view, &widgets::LayerTableView::sliceRequested, &hub, &ViewHub::sliceRequested);
    return view;
}

QWidget* details(ViewHub& hub, QWidget* parent)
{
    auto* panel = new widgets::DetailsPanel(parent);
    panel->setMinimumWidth(kSidePanelMinimumWidth);
    QObject::connect(&hub, &ViewHub::traceChanged, panel, [panel] { panel->showNothing(); });
    QObject::connect(&hub, &ViewHub::sliceSelected, panel, &widgets::DetailsPanel::showSlice);
    QObject::connect(&hub, &ViewHub::findingSelected, panel, &widgets::DetailsPanel::showFinding);
    QObject::connect(panel, &widgets::DetailsPanel::sliceActivated, &hub, &ViewHub::sliceRequested);
    QObject::connect(panel, &widgets::DetailsPanel::highlightRequested, &hub, &ViewHub::highlightRequested);
    QObject::connect(panel, &widgets::DetailsPanel::rangeActivated, &hub, &ViewHub::rangeRequested);
    return panel;
}

QWidget* tracks(ViewHub& hub, QWidget* parent)
{
    // The tracks panel arranges the timeline itself (pins, hidden tracks, depth limits): it follows no announcement.
    auto* panel = new widgets::TracksPanel(hub.timeline(), parent);
    panel->setMinimumWidth(kSidePanelMinimumWidth);
    return panel;
}

} // namespace

std::vector<DockRegistration> mainWindowDocks()
{
    return {
        {.objectName = QStringLiteral("FindingsDock"),
         .title = title("Findings (ranked by saving)"),
         .area = Qt::BottomDockWidgetArea,
         .defaultExtent = 240,
         .create = findings},
        {.objectName = QStringLiteral("LayersDock"),
         .title = title("Layers (RKNN)"),
         .area = Qt::BottomDockWidgetArea,
         .raiseFor = [](const model::Trace& trace) { return trace.metadata().format == "rknn"; },
         .create = layers},
        {.objectName = QStringLiteral("StatsDock"),
         .title = title("Selection Statistics"),
         .area = Qt::BottomDockWidgetArea,
         .raiseOnRangeSelection = true,
         .create = selectionStatistics},
        {.objectName = QStringLiteral("OperatorsDock"),
         .title = title("Operators"),
         .area = Qt::BottomDockWidgetArea,
         .create = operators},
        {.objectName = QStringLiteral("RooflineDock"),
         .title = title("Roofline"),
         .area = Qt::BottomDockWidgetArea,
         .create = roofline},
        {.objectName = QStringLiteral("FlameGraphDock"),
         .title = title("Flame Graph"),
         .area = Qt::BottomDockWidgetArea,
         .create = flameGraph},
        {.objectName = QStringLiteral("CriticalPathDock"),
         .title = title("Critical Path Breakdown"),
         .area = Qt::BottomDockWidgetArea,
         .create = criticalPath},
        {.objectName = QStringLiteral("DetailsDock"),
         .title = title("Details"),
         .area = Qt::RightDockWidgetArea,
         .defaultExtent = 360,
         .create = details},
        {.objectName = QStringLiteral("TracksDock"),
         .title = title("Tracks"),
         .area = Qt::RightDockWidgetArea,
         .create = tracks},
    };
}

} // namespace timesink::gui
