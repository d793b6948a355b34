// SPDX-License-Identifier: MIT
#include "traceexportjob.h"

#include "backgroundtask.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QThread>

namespace timesink::gui {

QString runTraceExport(const TraceExportRequest& request)
{
    const std::filesystem::path inputs[] = {request.input};
    std::string error;
    if (!exporters::exportTrace(*request.trace, request.findings, request.format, request.output, inputs, error))
        return QString::fromStdString(error);
    return {};
}

TraceExportJob::TraceExportJob(QObject* parent)
    : QObject(parent)
    , m_export(runTraceExport)
{
    connect(&m_watcher, &QFutureWatcher<QString>::finished, this, &TraceExportJob::onFinished);
}

TraceExportJob::~TraceExportJob()
{
    // The worker holds only its request, but the watcher must not outlive a future that still reports to it.
    m_watcher.waitForFinished();
}

QString TraceExportJob::start(TraceExportRequest request)
{
    if (m_pending)
        return tr("A trace export to %1 is still running.").arg(QDir::toNativeSeparators(m_path));
    m_path = QFile::decodeName(QByteArray::fromStdString(request.output.string()));
    m_pending = true;
    m_clock.start();
    // The request is moved into the task: the worker shares nothing mutable with the UI thread.
    m_watcher.setFuture(
        runInBackground([exportFunction = m_export, request = std::move(request)] { return exportFunction(request); },
                        [](const QString& message) { return message; }));
    return {};
}

void TraceExportJob::waitForFinished()
{
    if (!m_pending)
        return;
    m_watcher.waitForFinished();
    // The watcher reports through the event loop, and the worker posts that report just after the future turns
    // finished; deliver it now (pumping until it has arrived) so the caller sees the outcome.
    while (m_pending) {
        QCoreApplication::sendPostedEvents(&m_watcher);
        if (m_pending)
            QThread::yieldCurrentThread();
    }
}

void TraceExportJob::onFinished()
{
    const QString error = m_watcher.future().isValid() && m_watcher.future().resultCount() > 0
        ? m_watcher.result()
        : tr("the export stopped without a result");
    m_pending = false;
    emit finished(m_path, error, m_clock.elapsed());
}

} // namespace timesink::gui
