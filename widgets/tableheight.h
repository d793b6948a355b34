// SPDX-License-Identifier: MIT
#pragma once

class QTableView;

namespace timesink::widgets {

/// The height at which `table` shows its first `rows` rows (every row when `rows` is negative or more than the
/// model has) without scrolling: the rows, the column header when shown, the frame and, when the columns are wider
/// than the view, the horizontal scroll bar. For sizing a short table to its rows instead of leaving a blank block
/// under them. Example: table->setMaximumHeight(tableHeightForRows(table)); — no empty space under the last row.
int tableHeightForRows(const QTableView* table, int rows = -1);

} // namespace timesink::widgets
