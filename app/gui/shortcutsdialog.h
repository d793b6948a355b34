// SPDX-License-Identifier: MIT
#pragma once

#include <QList>

class QAction;
class QDialog;
class QWidget;

namespace timesink::gui {

/// Help → Keyboard Shortcuts: a table of the keys of `actions` (read from the actions themselves, so the list
/// cannot drift from what the keys do) followed by the timeline's mouse and key gestures. The dialog deletes
/// itself when closed; it is returned open (window-modal) for tests.
QDialog* showShortcutsDialog(QWidget* parent, const QList<QAction*>& actions);

} // namespace timesink::gui
