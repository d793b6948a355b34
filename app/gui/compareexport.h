// SPDX-License-Identifier: MIT
#pragma once

#include <QString>
#include <QStringList>

namespace timesink::widgets {
class CompareView;
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

} // namespace timesink::gui
