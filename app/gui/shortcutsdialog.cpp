// SPDX-License-Identifier: MIT
#include "shortcutsdialog.h"

#include <QAction>
#include <QDialog>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QTableWidget>
#include <QVBoxLayout>

namespace timesink::gui {

QDialog* showShortcutsDialog(QWidget* parent, const QList<QAction*>& actions)
{
    auto* dialog = new QDialog(parent);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(QObject::tr("Keyboard Shortcuts"));
    auto* table = new QTableWidget(dialog);
    table->setColumnCount(2);
    table->setHorizontalHeaderLabels({QObject::tr("Keys"), QObject::tr("Action")});
    // From the actions themselves, so the list cannot drift from what the keys do.
    QList<QPair<QString, QString>> rows;
    for (QAction* a : actions)
        rows.append({a->shortcut().toString(QKeySequence::NativeText), a->text().remove(QLatin1Char('&'))});
    rows.append({QObject::tr("Mouse wheel"), QObject::tr("Zoom around the cursor (over track labels: scroll)")});
    rows.append({QObject::tr("Shift+wheel"), QObject::tr("Scroll tracks")});
    rows.append({QObject::tr("Drag"), QObject::tr("Pan")});
    rows.append({QObject::tr("Shift+drag"), QObject::tr("Select a time range (then Z zooms to it)")});
    rows.append({QObject::tr("Click"), QObject::tr("Select an event / collapse a group")});
    rows.append({QObject::tr("Esc"), QObject::tr("Clear the selection")});
    table->setRowCount(static_cast<int>(rows.size()));
    for (int r = 0; r < rows.size(); ++r) {
        table->setItem(r, 0, new QTableWidgetItem(rows[r].first));
        table->setItem(r, 1, new QTableWidgetItem(rows[r].second));
    }
    table->horizontalHeader()->setStretchLastSection(true);
    table->verticalHeader()->hide();
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->resizeColumnToContents(0);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
    QObject::connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::reject);
    auto* layout = new QVBoxLayout(dialog);
    layout->addWidget(table);
    layout->addWidget(buttons);
    dialog->resize(520, 520);
    dialog->open();
    return dialog;
}

} // namespace timesink::gui
