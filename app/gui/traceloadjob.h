// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/pass.h"
#include "analysis/efficiency/efficiency.h"
#include "parsers/common/importer.h"
#include "widgets/summarydata.h"

#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <QTimer>

#include <atomic>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace timesink::gui {

/// A trace with everything the window shows about it, ready to be swapped in on the UI thread. The analysis
/// result is kept whole (findings, analysed time, warm-up and start-up, kinds not assessed), so an exported report
/// says what the CLI's report of the same trace says.
struct LoadedTrace
{
    model::TracePtr trace;
    analysis::AnalysisResult analysis;
    std::optional<widgets::SummaryData> summary; // computed on the UI thread when absent
    QString path;
};

/// Loads and analyses one trace at a time on a worker thread (QtConcurrent), so the window never freezes.
///
/// Progress is published through atomics and polled by a timer on the UI thread (importers report every
/// few MB from worker threads; queued signals per report would flood the event loop). cancel() raises a
/// flag that the importer's ProgressSink::cancelled() and the analyses' CancelToken read.
///
/// Starting a load while one runs cancels the running one; only the newest load reports imported() and finished().
/// imported() comes as soon as the trace is read, before the analysis, so the window can show the timeline while
/// the analyses run (a 1 GB trace spends a tenth of its load in them).
class TraceLoadJob : public QObject
{
    Q_OBJECT
public:
    using LoadFunction = std::function<parsers::ImportResult(const std::filesystem::path&, parsers::ProgressSink&)>;
    using AnalyzeFunction = std::function<analysis::AnalysisResult(const model::Trace&, const analysis::CancelToken&)>;

    struct Outcome
    {
        LoadedTrace loaded; // trace is null unless the load succeeded
        QString error;      // the importer's message when it failed
        bool cancelled = false;
    };

    explicit TraceLoadJob(QObject* parent = nullptr);
    ~TraceLoadJob() override;

    /// Replaces the importer entry point (tests inject slow or failing loaders). Default: loadWithSnapshotCache
    /// (parsers::loadTrace behind the snapshot cache).
    void setLoadFunction(LoadFunction load) { m_load = std::move(load); }
    /// Replaces the analysis entry point. Default: analysis::analyze with default options.
    void setAnalyzeFunction(AnalyzeFunction analyze) { m_analyze = std::move(analyze); }

    void start(const QString& path);
    void cancel();
    [[nodiscard]] bool isRunning() const { return m_watcher.isRunning(); }
    /// Blocks until the running load has finished (used on shutdown and in tests).
    void waitForFinished() { m_watcher.waitForFinished(); }

signals:
    void progress(qint64 bytesDone, qint64 bytesTotal, const QString& phase);
    /// The trace is read; the analysis runs next. Not emitted when the load failed or was cancelled first.
    void imported(const timesink::model::TracePtr& trace, const QString& path);
    void finished(const timesink::gui::TraceLoadJob::Outcome& outcome);

private:
    struct State;
    void onFinished();
    void onImported(const std::shared_ptr<State>& state, const model::TracePtr& trace, const QString& path);
    void pollProgress();

    LoadFunction m_load;
    AnalyzeFunction m_analyze;
    std::shared_ptr<State> m_state;
    QFutureWatcher<Outcome> m_watcher;
    QTimer m_poll;
    std::optional<QString> m_queued;
};

} // namespace timesink::gui
