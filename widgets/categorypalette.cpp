// SPDX-License-Identifier: MIT
#include "widgets/categorypalette.h"

#include <array>

namespace timesink::widgets {

namespace {

struct Hue
{
    int h; // 0..359, -1 = grey
    int s;
};

// One hue per category, spread around the wheel; related kinds (copies, memsets) sit near each other.
constexpr std::array<Hue, model::kSliceCategoryCount> kHues {{
    {215, 120}, // HostOp: blue
    {260, 90},  // PythonFrame: violet
    {190, 110}, // RuntimeApi: cyan
    {130, 140}, // Kernel: green
    {30, 200},  // Memcpy: orange
    {45, 170},  // Memset: amber
    {0, 170},   // Sync: red
    {300, 120}, // Communication: magenta
    {80, 150},  // Dataloader: olive
    {-1, 0},    // Step: grey
    {170, 60},  // Annotation: muted teal
    {350, 220}, // FallbackOp: crimson, loud on purpose
    {-1, 0},    // Other: grey
}};

} // namespace

bool CategoryPalette::isDark(const QPalette& palette)
{
    return palette.color(QPalette::Window).lightness() < 128;
}

QColor CategoryPalette::fill(model::SliceCategory category, bool dark)
{
    const Hue hue = kHues[static_cast<std::size_t>(category)];
    if (hue.h < 0)
        return dark ? QColor(110, 110, 118) : QColor(190, 190, 196);
    return QColor::fromHsl(hue.h, hue.s, dark ? 95 : 175);
}

QColor CategoryPalette::text(const QColor& background)
{
    // Relative luminance threshold: black text on light fills, white on dark ones.
    const double l = 0.2126 * background.redF() + 0.7152 * background.greenF() + 0.0722 * background.blueF();
    return l > 0.5 ? QColor(Qt::black) : QColor(Qt::white);
}

QColor CategoryPalette::selection(bool dark)
{
    return dark ? QColor(255, 255, 255) : QColor(0, 0, 0);
}

QColor CategoryPalette::searchMatch(bool dark)
{
    return dark ? QColor(255, 230, 0) : QColor(230, 160, 0);
}

QColor CategoryPalette::findingHighlight(bool dark)
{
    return dark ? QColor(255, 80, 80) : QColor(220, 0, 0);
}

QColor CategoryPalette::criticalPath(bool dark)
{
    return dark ? QColor(255, 120, 200) : QColor(200, 20, 130);
}

QColor CategoryPalette::pathClass(analysis::PathClass cls, bool dark)
{
    using analysis::PathClass;
    using model::SliceCategory;
    switch (cls) {
    case PathClass::HostCompute:
        return fill(SliceCategory::HostOp, dark);
    case PathClass::Python:
        return fill(SliceCategory::PythonFrame, dark);
    case PathClass::Dataloader:
        return fill(SliceCategory::Dataloader, dark);
    case PathClass::Launch:
        return fill(SliceCategory::RuntimeApi, dark);
    case PathClass::Sync:
        return fill(SliceCategory::Sync, dark);
    case PathClass::DeviceCompute:
        return fill(SliceCategory::Kernel, dark);
    case PathClass::Copy:
        return fill(SliceCategory::Memcpy, dark);
    case PathClass::Communication:
        return fill(SliceCategory::Communication, dark);
    case PathClass::Fallback:
        return fill(SliceCategory::FallbackOp, dark);
    case PathClass::Unrecorded:
    case PathClass::ExternalWait:
        return dark ? QColor(110, 90, 140) : QColor(190, 175, 215);
    case PathClass::Latency:
        break;
    }
    return dark ? QColor(80, 80, 88) : QColor(212, 212, 218);
}

} // namespace timesink::widgets
