// SPDX-License-Identifier: MIT
#include "app/gui/traceloadjob.h"

#include "app/gui/backgroundtask.h"
#include "app/gui/snapshotcacheui.h"
#include "parsers/registry/traceloader.h"

namespace timesink::gui {

/// Shared between the UI thread and the worker; outlives both through shared_ptr.
struct TraceLoadJob::State : parsers::ProgressSink
{
    std::atomic<bool> cancelFlag {false};
    std::atomic<std::uint64_t> done {0};
    std::atomic<std::uint64_t> total {0};
    analysis::CancelToken token;
    mutable std::mutex phaseMutex;
    std::string phase;

    void report(std::uint64_t bytesDone, std::uint64_t bytesTotal, std::string_view what) override
    {
        done.store(bytesDone, std::memory_order_relaxed);
        total.store(bytesTotal, std::memory_order_relaxed);
        std::lock_guard lock(phaseMutex);
        phase.assign(what);
    }
    [[nodiscard]] bool cancelled() const override { return cancelFlag.load(std::memory_order_relaxed); }
    void setPhase(std::string_view what)
    {
        std::lock_guard lock(phaseMutex);
        phase.assign(what);
    }
    [[nodiscard]] std::string currentPhase() const
    {
        std::lock_guard lock(phaseMutex);
        return phase;
    }
};

TraceLoadJob::TraceLoadJob(QObject* parent)
    : QObject(parent)
    , m_load(&loadWithSnapshotCache)
    , m_analyze([](const model::Trace& trace, const analysis::CancelToken& token) {
        return analysis::analyze(trace, analysis::AnalysisOptions {}, token);
    })
{
    connect(&m_watcher, &QFutureWatcher<Outcome>::finished, this, &TraceLoadJob::onFinished);
    m_poll.setInterval(100);
    connect(&m_poll, &QTimer::timeout, this, &TraceLoadJob::pollProgress);
}

TraceLoadJob::~TraceLoadJob()
{
    cancel();
    m_watcher.waitForFinished();
}

void TraceLoadJob::start(const QString& path)
{
    if (isRunning()) {
        // One load at a time: stop the running one, start this one when it has returned.
        m_queued = path;
        cancel();
        return;
    }
    m_state = std::make_shared<State>();
    auto state = m_state;
    auto load = m_load;
    auto analyze = m_analyze;
    const std::filesystem::path fsPath = path.toStdString();
    m_watcher.setFuture(runInBackground(
        [this, state, load, analyze, fsPath, path]() {
            Outcome out;
            out.loaded.path = path;
            parsers::ImportResult result = load(fsPath, *state);
            if (state->cancelled() || result.status().cancelled()) {
                out.cancelled = true;
                return out;
            }
            if (!result.ok()) {
                const std::string& message = result.status().message();
                out.error
                    = message.empty() ? QStringLiteral("cannot open %1").arg(path) : QString::fromStdString(message);
                return out;
            }
            state->setPhase("analysing");
            // To the UI thread; dropped there if this load was superseded or cancelled meanwhile. (`this` outlives the
            // worker: the destructor waits for it, and a queued call to a destroyed context object is not delivered.)
            QMetaObject::invokeMethod(
                this, [this, state, trace = result.value(), path] { onImported(state, trace, path); },
                Qt::QueuedConnection);
            analysis::AnalysisResult analysed = analyze(*result.value(), state->token);
            if (analysed.cancelled || state->cancelled()) {
                out.cancelled = true;
                return out;
            }
            state->setPhase("summarising");
            out.loaded.summary = widgets::SummaryData::compute(*result.value(), analysed);
            out.loaded.trace = std::move(result).value();
            out.loaded.analysis = std::move(analysed);
            return out;
        },
        [path](const QString& message) {
            // Out of memory (or another exception) on the worker: the window says so, as for any failed load.
            Outcome failed;
            failed.loaded.path = path;
            failed.error = QStringLiteral("%1: %2").arg(path, message);
            return failed;
        }));
    m_poll.start();
    pollProgress();
}

void TraceLoadJob::cancel()
{
    if (m_state) {
        m_state->cancelFlag.store(true, std::memory_order_relaxed);
        m_state->token.cancel();
    }
}

void TraceLoadJob::pollProgress()
{
    if (!m_state)
        return;
    emit progress(static_cast<qint64>(m_state->done.load(std::memory_order_relaxed)),
                  static_cast<qint64>(m_state->total.load(std::memory_order_relaxed)),
                  QString::fromStdString(m_state->currentPhase()));
}

void TraceLoadJob::onImported(const std::shared_ptr<State>& state, const model::TracePtr& trace, const QString& path)
{
    if (state != m_state || m_queued || state->cancelled())
        return;
    emit imported(trace, path);
}

void TraceLoadJob::onFinished()
{
    m_poll.stop();
    Outcome out = m_watcher.result();
    m_state.reset();
    if (m_queued) {
        // The finished load was superseded: it reports nothing, the queued one starts.
        const QString next = *m_queued;
        m_queued.reset();
        start(next);
        return;
    }
    emit finished(out);
}

} // namespace timesink::gui
