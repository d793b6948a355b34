// SPDX-License-Identifier: MIT
#include "widgets/tablecopy.h"

#include <QAbstractItemView>
#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QHeaderView>
#include <QMenu>
#include <QTableView>
#include <QTreeView>

#include <algorithm>

namespace timesink::widgets {

namespace {

/// Visible columns in the order the header shows them.
QList<int> columns(const QAbstractItemView* view)
{
    const QAbstractItemModel* model = view->model();
    QList<int> out;
    if (!model)
        return out;
    const QHeaderView* header = nullptr;
    if (const auto* table = qobject_cast<const QTableView*>(view))
        header = table->horizontalHeader();
    else if (const auto* tree = qobject_cast<const QTreeView*>(view))
        header = tree->header();
    const int n = model->columnCount();
    for (int visual = 0; visual < n; ++visual) {
        const int logical = header ? header->logicalIndex(visual) : visual;
        if (logical >= 0 && !(header && header->isSectionHidden(logical)))
            out << logical;
    }
    return out;
}

QString cell(const QModelIndex& index)
{
    return index.data(Qt::DisplayRole).toString();
}

QString escapeMarkdown(QString s)
{
    return s.replace(QLatin1Char('|'), QStringLiteral("\\|")).replace(QLatin1Char('\n'), QLatin1Char(' '));
}

/// Rows in display order: top-level rows and, for expanded tree items, their children after them.
void collectRows(const QAbstractItemView* view, const QModelIndex& parent, int depth,
                 QList<QPair<QModelIndex, int>>& out)
{
    const QAbstractItemModel* model = view->model();
    const auto* tree = qobject_cast<const QTreeView*>(view);
    for (int r = 0; r < model->rowCount(parent); ++r) {
        const QModelIndex index = model->index(r, 0, parent);
        out.append({index, depth});
        if (tree && tree->isExpanded(index))
            collectRows(view, index, depth + 1, out);
    }
}

QString rowText(const QAbstractItemView* view, const QModelIndex& first, const QList<int>& cols, QChar sep, int depth,
                bool markdown)
{
    QStringList cells;
    for (int c : cols) {
        QString text = cell(first.sibling(first.row(), c));
        if (c == cols.front() && depth > 0)
            text = QString(QStringLiteral("· ")).repeated(depth) + text;
        cells << (markdown ? escapeMarkdown(text) : text);
    }
    Q_UNUSED(view);
    return markdown ? QStringLiteral("| ") + cells.join(QStringLiteral(" | ")) + QStringLiteral(" |") : cells.join(sep);
}

QStringList headerCells(const QAbstractItemView* view, const QList<int>& cols)
{
    QStringList out;
    for (int c : cols)
        out << view->model()->headerData(c, Qt::Horizontal, Qt::DisplayRole).toString();
    return out;
}

} // namespace

QString TableCopy::text(const QAbstractItemView* view, Scope scope)
{
    if (!view || !view->model())
        return {};
    const QList<int> cols = columns(view);
    if (cols.isEmpty())
        return {};
    switch (scope) {
    case Scope::Cell:
        return cell(view->currentIndex());
    case Scope::Rows: {
        QModelIndexList rows = view->selectionModel() ? view->selectionModel()->selectedRows() : QModelIndexList {};
        if (rows.isEmpty() && view->currentIndex().isValid())
            rows << view->currentIndex().sibling(view->currentIndex().row(), 0);
        if (rows.isEmpty())
            return {};
        // In the order the view shows them, not the order they were selected in.
        QList<QPair<QModelIndex, int>> shown;
        collectRows(view, {}, 0, shown);
        QStringList lines {headerCells(view, cols).join(QLatin1Char('\t'))};
        for (const auto& [index, depth] : shown) {
            if (rows.contains(index))
                lines << rowText(view, index, cols, QLatin1Char('\t'), depth, false);
        }
        return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
    }
    case Scope::Markdown: {
        QStringList header = headerCells(view, cols);
        for (QString& h : header)
            h = escapeMarkdown(h);
        QStringList lines {QStringLiteral("| ") + header.join(QStringLiteral(" | ")) + QStringLiteral(" |"),
                           QStringLiteral("|") + QStringList(cols.size(), QStringLiteral("---")).join(QLatin1Char('|'))
                               + QStringLiteral("|")};
        QList<QPair<QModelIndex, int>> shown;
        collectRows(view, {}, 0, shown);
        for (const auto& [index, depth] : shown)
            lines << rowText(view, index, cols, QLatin1Char('\t'), depth, true);
        return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
    }
    }
    return {};
}

void TableCopy::addActions(QMenu* menu, QAbstractItemView* view)
{
    const auto put = [view](Scope scope) { QApplication::clipboard()->setText(text(view, scope)); };
    QAction* cellAction = menu->addAction(QObject::tr("Copy Cell"), view, [put] { put(Scope::Cell); });
    cellAction->setEnabled(view->currentIndex().isValid());
    QAction* rowsAction = menu->addAction(QObject::tr("Copy Row"), view, [put] { put(Scope::Rows); });
    rowsAction->setShortcut(QKeySequence::Copy);
    rowsAction->setEnabled(view->currentIndex().isValid());
    menu->addAction(QObject::tr("Copy Table as Markdown"), view, [put] { put(Scope::Markdown); });
}

void TableCopy::install(QAbstractItemView* view)
{
    view->setContextMenuPolicy(Qt::CustomContextMenu);
    QObject::connect(view, &QWidget::customContextMenuRequested, view, [view](const QPoint& pos) {
        QMenu menu(view);
        addActions(&menu, view);
        menu.exec(view->viewport()->mapToGlobal(pos));
    });
    auto* copy = new QAction(QObject::tr("Copy"), view);
    copy->setShortcut(QKeySequence::Copy);
    copy->setShortcutContext(Qt::WidgetShortcut);
    QObject::connect(copy, &QAction::triggered, view,
                     [view] { QApplication::clipboard()->setText(text(view, Scope::Rows)); });
    view->addAction(copy);
}

} // namespace timesink::widgets
