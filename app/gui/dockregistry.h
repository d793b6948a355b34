// SPDX-License-Identifier: MIT
#pragma once

#include "model/trace.h"

#include <QString>
#include <Qt>

#include <functional>
#include <vector>

class QWidget;

namespace timesink::gui {

class ViewHub;

/// One dock of the main window: its names, where it sits in a fresh layout, and how its view is made and wired to
/// the window. The window builds every dock from these and names none of them; adding a dock is one registration
/// in mainWindowDocks().
struct DockRegistration
{
    /// The dock's object name: saved layouts (QMainWindow::saveState) and tests find the dock by it, so it never
    /// changes once released ("FindingsDock").
    QString objectName;
    /// The dock's title, also its View menu entry ("Findings (ranked by saving)").
    QString title;
    /// Where it sits in a fresh layout. The first dock registered for an area is the one on top there; the docks
    /// registered after it for the same area are tabs beside it.
    Qt::DockWidgetArea area = Qt::BottomDockWidgetArea;
    /// For the first dock of an area: its size across the area in a fresh layout (width at a side, height at the
    /// top or bottom); 0 leaves it to the layout.
    int defaultExtent = 0;
    /// Brought to the front whenever the explorer's range selection is set (Shift+drag).
    bool raiseOnRangeSelection = false;
    /// Brought to the front when a trace it is made for is opened (the layer table for an RKNN run); when another
    /// trace is opened while it is in front, the first dock of its area takes the front back. Empty: never.
    std::function<bool(const model::Trace&)> raiseFor {};
    /// Makes the view (parented to `parent`, the window; the dock then takes it) and connects it to `hub`: which of
    /// the window's announcements it follows, and which of its own signals become requests.
    std::function<QWidget*(ViewHub& hub, QWidget* parent)> create;
};

/// The docks of the main window, in the order they are created and listed in the View menu: findings, the layers of
/// an RKNN run, selection statistics, operators and flame graph at the bottom; details and tracks at the right.
std::vector<DockRegistration> mainWindowDocks();

} // namespace timesink::gui
