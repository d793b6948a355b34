// SPDX-License-Identifier: MIT
#include "app/gui/compareexport.h"

#include "report/reportoutput.h"
#include "widgets/compareview.h"
#include "widgets/jobcompareview.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>

#include <filesystem>
#include <optional>
#include <vector>

#ifndef TIMESINK_VERSION
#define TIMESINK_VERSION "unknown"
#endif

namespace timesink::gui {

namespace {

std::filesystem::path localPath(const QString& path)
{
    return std::filesystem::path(QFile::encodeName(path).toStdString());
}

} // namespace

QString exportComparisonTo(const widgets::CompareView& view, const QString& path)
{
    if (!view.baseline() || !view.candidate())
        return QObject::tr("There is no comparison to export.");
    const std::optional<report::ReportFormat> format = report::reportFileFormatFromPath(localPath(path));
    if (!format)
        return QObject::tr("Cannot tell the format from %1; name it .html, .md, .json or .csv.").arg(path);
    std::vector<std::filesystem::path> inputs;
    for (const QString& input : {view.baselinePath(), view.candidatePath()}) {
        if (!input.isEmpty())
            inputs.push_back(localPath(input));
    }
    report::CompareReportOptions options;
    options.generator = "Timesink " TIMESINK_VERSION;
    std::string error;
    QApplication::setOverrideCursor(Qt::WaitCursor);
    // The comparison itself is already computed (view.result()); writing it is quick, so it stays on this thread.
    const bool ok = report::writeCompareReportFile({*view.baseline(), view.baselineFindingList()},
                                                   {*view.candidate(), view.candidateFindingList()}, view.result(),
                                                   *format, localPath(path), inputs, error, options);
    QApplication::restoreOverrideCursor();
    return ok ? QString() : QString::fromStdString(error);
}

QString comparisonFileFilters()
{
    return QObject::tr("HTML comparison (*.html);;Markdown comparison (*.md);;JSON comparison (*.json);;"
                       "CSV of operators (*.csv)");
}

QString exportJobComparisonTo(const widgets::JobCompareView& view, const QString& path)
{
    if (view.baselinePath().isEmpty() && view.candidatePath().isEmpty())
        return QObject::tr("There is no comparison to export.");
    std::vector<std::filesystem::path> inputs;
    for (const QString& input : view.inputPaths()) {
        if (!input.isEmpty())
            inputs.push_back(localPath(input));
    }
    const report::JobCompareInput in {view.baselinePath().toStdString(), view.candidatePath().toStdString(),
                                      view.result(), "Timesink " TIMESINK_VERSION};
    std::string error;
    QApplication::setOverrideCursor(Qt::WaitCursor);
    // The comparison is already computed (view.result()); writing it is quick, so it stays on this thread.
    const bool ok = report::writeJobCompareReportFile(in, localPath(path), inputs, error);
    QApplication::restoreOverrideCursor();
    return ok ? QString() : QString::fromStdString(error);
}

QString jobComparisonFileFilters()
{
    return QObject::tr("HTML comparison (*.html);;Markdown comparison (*.md);;JSON comparison (*.json);;"
                       "CSV of ranks (*.csv)");
}

void addJobCompareExport(widgets::JobCompareView* view)
{
    auto* action = new QAction(QObject::tr("&Export…"), view);
    action->setObjectName(QStringLiteral("actionExportJobComparison"));
    action->setShortcut(QKeySequence(QObject::tr("Ctrl+E")));
    action->setToolTip(QObject::tr("Write this comparison as HTML, Markdown, JSON or CSV (the documents of "
                                   "timesink-cli compare JOB_A JOB_B -o FILE)"));
    view->fileMenu()->insertAction(view->fileMenu()->actions().value(0), action);
    view->fileMenu()->insertSeparator(view->fileMenu()->actions().value(1));
    QObject::connect(action, &QAction::triggered, view, [view] {
        QString filter;
        const QString suggested = QFileInfo(view->baselinePath()).fileName() + QStringLiteral("-vs-")
            + QFileInfo(view->candidatePath()).fileName() + QStringLiteral(".html");
        // QFileDialog asks before it returns the name of a file that exists.
        const QString chosen = QFileDialog::getSaveFileName(view, QObject::tr("Export job comparison"), suggested,
                                                            jobComparisonFileFilters(), &filter);
        if (chosen.isEmpty())
            return;
        const QString path = withFilterExtension(chosen, filter);
        const QString error = exportJobComparisonTo(*view, path);
        auto* box = error.isEmpty()
            ? new QMessageBox(QMessageBox::Information, QObject::tr("Export job comparison"),
                              QObject::tr("Job comparison written to %1").arg(QDir::toNativeSeparators(path)),
                              QMessageBox::Ok, view)
            : new QMessageBox(QMessageBox::Warning, QObject::tr("Export job comparison"),
                              QObject::tr("Could not write %1:\n%2").arg(QDir::toNativeSeparators(path), error),
                              QMessageBox::Ok, view);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
    });
}

QString withFilterExtension(const QString& path, const QString& filter)
{
    const qsizetype star = filter.indexOf(QStringLiteral("*."));
    if (star < 0)
        return path;
    const QString extension = filter.mid(star + 1, filter.indexOf(QLatin1Char(')'), star) - star - 1);
    return path.endsWith(extension, Qt::CaseInsensitive) || QFileInfo(path).suffix().size() > 0 ? path
                                                                                                : path + extension;
}

} // namespace timesink::gui
