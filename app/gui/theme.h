// SPDX-License-Identifier: MIT
#pragma once

namespace timesink::gui {

/// Puts the application in the Fusion style with the dark palette, or with the style's own light palette.
/// Fusion draws palettes faithfully on every platform, so the dark choice looks the same everywhere.
void applyTheme(bool dark);

} // namespace timesink::gui
