// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/finding.h"
#include "exporters/traceexport.h"
#include "model/trace.h"

#include <QElapsedTimer>
#include <QFutureWatcher>
#include <QObject>
#include <QString>

#include <filesystem>
#include <functional>
#include <vector>

namespace timesink::gui {

/// One File → Export Trace…, self-contained so that it can run on a worker thread: the trace is frozen and
/// shared (TracePtr), the findings are a copy, so loading another trace meanwhile changes nothing.
struct TraceExportRequest
{
    model::TracePtr trace;
    std::vector<analysis::Finding> findings;
    exporters::TraceFormat format = exporters::TraceFormat::Perfetto;
    std::filesystem::path output;
    std::filesystem::path input; // the trace's own file, never overwritten
};

/// Writes one trace export (exporters::exportTrace); returns an empty string on success, else the message for the
/// user. Touches nothing but the request, so it may run on any thread.
QString runTraceExport(const TraceExportRequest& request);

/// Runs one trace export at a time on a worker thread (QtConcurrent), beside TraceLoadJob: the window stays
/// responsive while a large trace is written, and finished() reports the outcome on the UI thread.
///
/// Example:
///   connect(&job, &TraceExportJob::finished, this, [](const QString& path, const QString& error, qint64 ms) {…});
///   if (const QString why = job.start(request); !why.isEmpty()) showError(why); // e.g. one is still running
class TraceExportJob : public QObject
{
    Q_OBJECT
public:
    using ExportFunction = std::function<QString(const TraceExportRequest&)>;

    explicit TraceExportJob(QObject* parent = nullptr);
    ~TraceExportJob() override;

    /// Replaces the export (tests inject a slow or failing one). Default: runTraceExport.
    void setExportFunction(ExportFunction exportFunction) { m_export = std::move(exportFunction); }
    [[nodiscard]] const ExportFunction& exportFunction() const { return m_export; }

    /// Starts the export; an empty string when it started, else why not (one is still running).
    QString start(TraceExportRequest request);
    /// True from start() until finished() has been emitted, not only while the worker runs.
    [[nodiscard]] bool isRunning() const { return m_pending; }
    /// The output of the running (or last) export.
    [[nodiscard]] const QString& path() const { return m_path; }
    /// Blocks until a running export has finished and finished() has been emitted (shutdown, tests).
    void waitForFinished();

signals:
    /// `error` is empty on success; `elapsedMs` is the wall time from start().
    void finished(const QString& path, const QString& error, qint64 elapsedMs);

private:
    void onFinished();

    ExportFunction m_export;
    QFutureWatcher<QString> m_watcher;
    QString m_path;
    bool m_pending = false;
    QElapsedTimer m_clock;
};

} // namespace timesink::gui
