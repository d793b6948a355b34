// SPDX-License-Identifier: MIT
#pragma once

#include <QString>
#include <QStringList>

namespace timesink::widgets {
class CompareView;
class JobCompareView;
} // namespace timesink::widgets

namespace timesink::gui {

/// Writes the comparison shown in `view` to `path` through the report layer's compare writers, in the format
/// the extension names (.html, .md, .json, .csv — the same documents as `timesink-cli compare -o`), atomically,
/// never over the runs' own files (view.baselinePath(), view.candidatePath()). Returns an empty string on
/// success, else the message for the user.
/// Example: exportComparisonTo(*view, "/tmp/a-vs-b.md") → "" and a Markdown comparison in /tmp/a-vs-b.md;
///          exportComparisonTo(*view, view->baselinePath()) → "refusing to overwrite the input '…' …".
QString exportComparisonTo(const widgets::CompareView& view, const QString& path);

/// Save-dialog filters for exportComparisonTo, HTML first, joined with ";;" for QFileDialog.
QString comparisonFileFilters();

/// Writes the job comparison shown in `view` to `path` through report::writeJobCompareReportFile, in the format
/// the extension names (.html, .md, .json, .csv — the same documents as `timesink-cli compare JOB_A JOB_B -o`,
/// timesink.jobcompare/1, with "Timesink VERSION" as the generator), atomically, never over or inside one of
/// view.inputPaths(). Returns an empty string on success, else the message for the user.
/// Example: exportJobComparisonTo(*view, "/tmp/a-vs-b.json") → "" and the JSON comparison in /tmp/a-vs-b.json;
///          exportJobComparisonTo(*view, view->candidatePath() + "/x.md") → "refusing to write inside the input
///          folder …".
QString exportJobComparisonTo(const widgets::JobCompareView& view, const QString& path);

/// Save-dialog filters for exportJobComparisonTo, HTML first, joined with ";;" for QFileDialog.
QString jobComparisonFileFilters();

/// Adds File → Export… (Ctrl+E, object name "actionExportJobComparison") to the job compare window: a save
/// dialog (which asks before replacing a file), then exportJobComparisonTo; a failure is shown in a message box
/// that names the file.
void addJobCompareExport(widgets::JobCompareView* view);

/// Non-native save dialogs do not add the extension of the chosen filter; the writers need it to pick the
/// format. Example: withFilterExtension("/tmp/a", "Markdown (*.md)") → "/tmp/a.md"; a path with any extension
/// stays as it is.
QString withFilterExtension(const QString& path, const QString& filter);

} // namespace timesink::gui
