// SPDX-License-Identifier: MIT
#pragma once

#include "app/job/jobrunner.h"

#include <QFutureWatcher>
#include <QMainWindow>
#include <QStringList>

#include <atomic>
#include <functional>
#include <memory>

class QLabel;

namespace timesink::widgets {
class CompareView;
class JobCompareView;
class JobOverview;
} // namespace timesink::widgets

namespace timesink::gui {

class TraceLoadJob;

/// File → Open Job…: analyses every rank of a distributed job on worker threads (app::runJob, one trace per
/// thread at a time) and shows the job overview. Double-clicking a rank (heat-map cell, lane, table row) opens its
/// trace in a main window, zoomed to that step, with the rank's findings — for a rank merged from a report, the
/// trace the report names (trace.path), or a message saying where it was when it is not on this machine;
/// "Compare Ranks" opens two ranks in a compare window; File → Compare With Job… analyses another job folder in the
/// background and shows the two jobs side by side (widgets::JobCompareView, the result of `timesink-cli compare
/// JOB_A JOB_B`).
class JobWindow : public QMainWindow
{
    Q_OBJECT
public:
    /// Opens a rank's trace for the timeline, showing [startMs, endMs] (ms from the trace start; both −1: all of
    /// it). Default: a new MainWindow showing it.
    using TimelineOpener = std::function<void(const QString& path, double startMs, double endMs)>;

    explicit JobWindow(QWidget* parent = nullptr);
    ~JobWindow() override;

    /// Collects the ranks under `paths` (app::collectJobInputs) and analyses them in the background.
    /// False with `error` when no rank could be found (nothing started).
    bool start(const QStringList& paths, QString& error);
    [[nodiscard]] bool isRunning() const { return m_watcher.isRunning(); }
    void waitForFinished() { m_watcher.waitForFinished(); }
    [[nodiscard]] widgets::JobOverview* overview() const { return m_overview; }
    /// The status line (progress, then a summary or the ranks that failed).
    [[nodiscard]] QLabel* statusLabel() const { return m_status; }
    void setTimelineOpener(TimelineOpener opener) { m_openTimeline = std::move(opener); }
    /// Whether a rank that cannot be opened is explained in a message box too (always on the status line).
    void setShowMessages(bool show) { m_showMessages = show; }
    /// Loads two ranks' traces and opens them in a compare window (the first as the baseline).
    void compareRanks(int firstRankIndex, int secondRankIndex);
    /// Opens rank `rankIndex` (into the overview's job) at step `step` (−1: the whole trace).
    void openRank(int rankIndex, qint64 step);
    /// The compare window opened last (tests).
    [[nodiscard]] widgets::CompareView* lastCompareView() const { return m_lastCompare; }
    /// File → Compare With Job…: this job is the baseline, the ranks under `path` (a folder that
    /// app::isJobFolder() accepts, as `timesink-cli compare JOB_A JOB_B` requires) the candidate. The candidate is
    /// analysed on a worker thread (app::runJob); when it is done, analysis::compareJobs() of the two opens a
    /// job compare window. False, with the reason on the status line (and in a message box when messages are
    /// shown), when this job is not ready, `path` is no job folder, or a comparison is already running; a rank of
    /// the candidate that cannot be read is reported the same way when the analysis ends, and nothing opens.
    bool compareWithJob(const QString& path);
    [[nodiscard]] bool isComparing() const { return m_compareWatcher.isRunning(); }
    /// The job compare window opened last (tests, screenshots).
    [[nodiscard]] widgets::JobCompareView* lastJobCompareView() const { return m_lastJobCompare; }

signals:
    /// The job finished analysing (`errors` lists ranks that could not be read).
    void jobReady(const QStringList& errors);

private:
    void onFinished();
    void onCompareFinished();
    void reportCompareError(const QString& text);

    widgets::JobOverview* m_overview = nullptr;
    QLabel* m_status = nullptr;
    QFutureWatcher<app::JobRun> m_watcher;
    std::shared_ptr<std::atomic<bool>> m_cancel;
    std::shared_ptr<std::atomic<std::size_t>> m_done;
    QFutureWatcher<app::JobRun> m_compareWatcher;
    std::shared_ptr<std::atomic<bool>> m_compareCancel;
    QStringList m_paths;   // this job's inputs (the baseline of a job compare)
    QString m_comparePath; // the candidate job being analysed
    widgets::JobCompareView* m_lastJobCompare = nullptr;
    std::size_t m_total = 0;
    QTimer* m_progressTimer = nullptr;
    TimelineOpener m_openTimeline;
    TraceLoadJob* m_first = nullptr;
    TraceLoadJob* m_second = nullptr;
    widgets::CompareView* m_lastCompare = nullptr;
    bool m_showMessages = true;
};

} // namespace timesink::gui
