// SPDX-License-Identifier: MIT
#pragma once

class QSortFilterProxyModel;
class QStandardItemModel;
class QTableView;
class QWidget;

namespace timesink::widgets {

/// The height at which `table` shows its first `rows` rows (every row when `rows` is negative or more than the
/// model has) without scrolling: the rows, the column header when shown, the frame and, when the columns are wider
/// than the view, the horizontal scroll bar. For sizing a short table to its rows instead of leaving a blank block
/// under them. Example: table->setMaximumHeight(tableHeightForRows(table)); — no empty space under the last row.
int tableHeightForRows(const QTableView* table, int rows = -1);

/// A read-only results table as the compare views show them: `model` behind `proxy` sorted on `sortRole` (the raw
/// numbers), whole-row selection, alternating rows, no row numbers, compact rows, columns sized to their contents,
/// copy through TableCopy. The caller says which column stretches.
QTableView* makeResultTable(QWidget* parent, QStandardItemModel* model, QSortFilterProxyModel* proxy, int sortRole);

} // namespace timesink::widgets
