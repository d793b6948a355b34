// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/criticalpath.h"
#include "model/types.h"

#include <QColor>
#include <QPalette>

namespace timesink::widgets {

/// Colours of slice categories. Fixed hues (stable across traces and runs, so people learn them) picked to
/// stay apart from each other; lighter fills on light palettes, deeper ones on dark palettes so labels
/// stay readable on both.
///
/// Example: fill(Kernel, light) is a mid green; fill(Kernel, dark) the same hue, darker; text() of either is
/// black or white, whichever contrasts more.
class CategoryPalette
{
public:
    /// True when `palette` has a dark window background.
    static bool isDark(const QPalette& palette);
    static QColor fill(model::SliceCategory category, bool dark);
    /// Label colour for text drawn on top of `background`.
    static QColor text(const QColor& background);
    /// Outline of selected / highlighted slices: visible on every category fill.
    static QColor selection(bool dark);
    static QColor searchMatch(bool dark);
    static QColor findingHighlight(bool dark);
    /// The critical path on the timeline (View → Critical Path): a deep magenta that stays apart from the selection,
    /// search and finding outlines and contrasts with every category fill, communication's included (darker on a light
    /// palette, lighter on a dark one).
    static QColor criticalPath(bool dark);
    /// A class of a critical path's composition in the colour of the slices it stands for: host compute as host ops,
    /// Python as Python frames, launch as runtime calls, device compute as kernels, copies as memcpys, and so on;
    /// latency (time between work, no slice) grey.
    static QColor pathClass(analysis::PathClass cls, bool dark);
};

} // namespace timesink::widgets
