// SPDX-License-Identifier: MIT
#include "widgets/tableheight.h"

#include "widgets/tablecopy.h"

#include <QHeaderView>
#include <QScrollBar>
#include <QSortFilterProxyModel>
#include <QStandardItemModel>
#include <QTableView>

namespace timesink::widgets {

int tableHeightForRows(const QTableView* table, int rows)
{
    const QHeaderView* vertical = table->verticalHeader();
    const int count = table->model() ? table->model()->rowCount() : 0;
    int height = 2 * table->frameWidth();
    if (rows < 0 || rows >= count) {
        height += vertical->length();
    } else {
        for (int row = 0; row < rows; ++row)
            height += vertical->sectionSize(vertical->logicalIndex(row));
    }
    if (!table->horizontalHeader()->isHidden())
        height += table->horizontalHeader()->sizeHint().height();
    if (table->horizontalScrollBar()->maximum() > 0)
        height += table->horizontalScrollBar()->sizeHint().height();
    return height;
}

QTableView* makeResultTable(QWidget* parent, QStandardItemModel* model, QSortFilterProxyModel* proxy, int sortRole)
{
    proxy->setSourceModel(model);
    proxy->setSortRole(sortRole);
    auto* table = new QTableView(parent);
    table->setModel(proxy);
    table->setSortingEnabled(true);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setAlternatingRowColors(true);
    table->verticalHeader()->hide();
    table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 6);
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    TableCopy::install(table);
    return table;
}

} // namespace timesink::widgets
