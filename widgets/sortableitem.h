// SPDX-License-Identifier: MIT
#pragma once

#include <QStandardItem>
#include <QString>
#include <QVariant>

namespace timesink::widgets {

/// A read-only table cell of text that sorts by that text under `sortRole` (the view's kSortRole).
inline QStandardItem* sortableTextItem(const QString& text, int sortRole)
{
    auto* item = new QStandardItem(text);
    item->setData(text, sortRole);
    item->setEditable(false);
    return item;
}

/// A read-only, right-aligned table cell showing `text` and sorting by `sortKey` (a number) under `sortRole`.
inline QStandardItem* sortableNumberItem(const QString& text, const QVariant& sortKey, int sortRole)
{
    auto* item = new QStandardItem(text);
    item->setData(sortKey, sortRole);
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    item->setEditable(false);
    return item;
}

} // namespace timesink::widgets
