// SPDX-License-Identifier: MIT
#pragma once

#include <QString>

class QAbstractItemView;
class QMenu;

namespace timesink::widgets {

/// Copy out of any table or tree view, so numbers go into tickets as they are shown:
/// a right-click menu with Copy Cell, Copy Row(s) (tab-separated, with the header line) and Copy Table as
/// Markdown, plus Ctrl+C for the selected rows. Works on what the view shows (through any proxy, in its order).
class TableCopy
{
public:
    enum class Scope { Cell, Rows, Markdown };

    /// Adds the context menu and the Ctrl+C shortcut to `view` (its context menu policy becomes custom).
    static void install(QAbstractItemView* view);
    /// The text each menu entry puts on the clipboard. Rows: the selected rows (or the current one); Markdown:
    /// every top-level row (a tree's expanded children follow their parent, indented with "· ").
    ///   a 2-column table [["aten::mm", "1.20 ms"]] as Markdown:
    ///   "| Name | Time |\n|---|---|\n| aten::mm | 1.20 ms |\n"
    static QString text(const QAbstractItemView* view, Scope scope);
    /// Fills `menu` with the three copy actions for `view`.
    static void addActions(QMenu* menu, QAbstractItemView* view);
};

} // namespace timesink::widgets
