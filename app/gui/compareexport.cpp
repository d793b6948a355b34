// SPDX-License-Identifier: MIT
#include "app/gui/compareexport.h"

#include "report/comparereport.h"
#include "widgets/compareview.h"

#include <QApplication>
#include <QFile>

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
    const std::optional<report::ReportFormat> format = report::reportFormatFromPath(localPath(path));
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

} // namespace timesink::gui
