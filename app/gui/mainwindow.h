// SPDX-License-Identifier: MIT
#pragma once

#include "app/gui/dockregistry.h"
#include "app/gui/traceexportjob.h"
#include "app/gui/traceloadjob.h"
#include "exporters/traceexport.h"
#include "report/reportoutput.h"

#include <QElapsedTimer>
#include <QFutureWatcher>
#include <QMainWindow>

#include <filesystem>
#include <functional>
#include <vector>

class QAction;
class QLabel;
class QLineEdit;
class QTimer;
class QMenu;
class QDockWidget;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QTabWidget;
class QTableView;

namespace timesink::widgets {
class CompareView;
class DetailsPanel;
class FindingsModel;
class ImportWarningsBanner;
class ImportWarningsDialog;
class FlameGraphView;
class OperatorView;
class RangeStatsView;
class SummaryView;
class TimelineView;
class TracksPanel;
} // namespace timesink::widgets

namespace timesink::gui {

class JobWindow;
class ViewHub;

/// The Timesink main window: timeline (with summary charts in a second tab) and the docks around it (findings,
/// explorer, details, tracks). Traces are opened from the menu, the command line, recent files or drag and drop;
/// loading runs in a TraceLoadJob and the current trace stays on screen until the new one is ready.
///
/// The docks come from a list of DockRegistration (mainWindowDocks(), dockregistry.h) and talk to the window only
/// through its ViewHub (viewhub.h): the window announces the trace, its analysis and the selections there and
/// answers the views' requests, without naming any view.
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    /// Shows an error to the user. Default: a window-modal, non-blocking message box. Tests inject a recorder.
    using ErrorReporter = std::function<void(const QString& title, const QString& message)>;
    /// Writes one trace export; returns an empty string on success, else the message for the user. Called on
    /// a worker thread by startTraceExport(). Default: runTraceExport (exporters::exportTrace).
    using TraceExportFunction = TraceExportJob::ExportFunction;

    /// A window with the docks of mainWindowDocks().
    explicit MainWindow(QWidget* parent = nullptr);
    /// A window with exactly the docks of `docks`, in that order (tests add a view of their own, or leave all out).
    explicit MainWindow(std::vector<DockRegistration> docks, QWidget* parent = nullptr);
    ~MainWindow() override;

    /// Starts loading `path` (a file or a bundle folder) in the background.
    void openPath(const QString& path);
    /// Shows an already loaded trace (the entry point the loader uses; tests hand in built traces).
    void showTrace(LoadedTrace loaded);
    /// View → Import Warnings: every warning of the current trace with its count.
    void showImportWarnings();
    /// Loads `path` in the background and opens a compare window with the shown trace as the baseline and
    /// `path` as the candidate (File → Compare With…, docs/compare.md).
    void compareWith(const QString& path);
    [[nodiscard]] TraceLoadJob* compareJob() const { return m_compareJob; }
    /// Opens a job overview of the ranks under `paths` (File → Open Job…, or openPath() on a folder with several
    /// ranks; docs/gui.md). Returns the window, or nullptr after reporting why no rank was found.
    JobWindow* openJob(const QStringList& paths);

    void setErrorReporter(ErrorReporter reporter) { m_reportError = std::move(reporter); }
    /// After the next successful load, show [startMs, endMs] (ms from the trace start) instead of everything,
    /// and/or select finding `row` (command line `--view`, `--finding`: links from reports into the GUI).
    void setInitialView(double startMs, double endMs) { m_initialView = std::pair(startMs, endMs); }
    void setInitialFinding(int row) { m_initialFinding = row; }
    /// Switches between the dark palette and the style's light one (not saved in the settings).
    void setDarkPalette(bool dark);
    [[nodiscard]] TraceLoadJob& loadJob() { return *m_job; }
    [[nodiscard]] widgets::TimelineView* timeline() const { return m_timeline; }
    /// What the window and its docked views say to each other.
    [[nodiscard]] ViewHub* viewHub() const { return m_hub; }
    // The docked views, looked up among the window's children for tests and the screenshot tool (nullptr when the
    // window was built without that dock); the window itself reaches them only through the ViewHub.
    [[nodiscard]] widgets::FindingsModel* findingsModel() const;
    [[nodiscard]] QTableView* findingsView() const;
    /// The sorting proxy between the findings model and its view (view rows are proxy rows).
    [[nodiscard]] QSortFilterProxyModel* findingsProxy() const;
    [[nodiscard]] widgets::RangeStatsView* rangeStats() const;
    [[nodiscard]] widgets::OperatorView* operators() const;
    [[nodiscard]] widgets::FlameGraphView* flameGraph() const;
    [[nodiscard]] widgets::TracksPanel* tracksPanel() const;
    [[nodiscard]] QLabel* statusLabel() const { return m_status; }
    [[nodiscard]] QProgressBar* progressBar() const { return m_progress; }
    /// Puts every dock back where a fresh install has it (View → Reset Layout).
    void resetLayout();
    /// True when the timeline or a docked panel has been squeezed below a usable size; such a layout is
    /// never saved (and a saved one is replaced by the default on start).
    [[nodiscard]] bool isLayoutDegenerate() const;
    /// The progress bar's text for `done` of `total` bytes in `phase` after `elapsedMs`:
    /// "reading 44 / 954 MB · 1 min 2 s left" (the estimate once a second has passed and bytes moved).
    static QString progressText(const QString& phase, qint64 done, qint64 total, qint64 elapsedMs);
    /// The open dialogs' filter, "Traces (*.json *.json.gz …);;All files (*)", from the importers' descriptions.
    static QString traceFileFilter();
    [[nodiscard]] widgets::DetailsPanel* details() const;
    [[nodiscard]] widgets::SummaryView* summary() const { return m_summary; }
    [[nodiscard]] QLineEdit* searchField() const { return m_searchEdit; }
    [[nodiscard]] const LoadedTrace& current() const { return m_current; }
    [[nodiscard]] QStringList recentFiles() const;

    /// Writes the bottleneck report of the shown trace to `path`; the format comes from the extension (.html,
    /// .md, .json, .csv). Atomic, never over the trace's own file. Returns an empty string on success, else the
    /// message for the user (File → Export Report… shows it).
    QString exportReportTo(const QString& path);
    /// Writes the shown trace with its findings as an annotation track to `path` (.pftrace or .json, for
    /// ui.perfetto.dev), blocking until done. Returns an empty string on success, else the message for the
    /// user. (File → Export Trace… uses startTraceExport(), which does the same off the UI thread.)
    QString exportTraceTo(const QString& path);
    /// Starts writing the shown trace to `path` on a worker thread (about 1.4 s per 2 M slices) and returns at
    /// once: an empty string when the export started, else why it cannot (no trace, unknown extension, an
    /// export already running). The status bar says when it finished or why it failed (failures also go to
    /// the error reporter); traceExportFinished() is emitted either way.
    QString startTraceExport(const QString& path);
    /// True from startTraceExport() until its outcome has been delivered (traceExportFinished), not only while
    /// the worker runs: a finished worker whose notification is still queued has not reported yet.
    [[nodiscard]] bool isExportingTrace() const { return m_traceExportJob.isRunning(); }
    /// Blocks until a running trace export has finished and reported (shutdown, tests).
    void waitForTraceExport();
    /// Replaces the export that startTraceExport() runs (tests inject a slow or failing one).
    void setTraceExportFunction(TraceExportFunction exportFunction)
    {
        m_traceExportJob.setExportFunction(std::move(exportFunction));
    }
    /// The line under the findings table that names the kinds that could not be assessed (hidden when none).
    [[nodiscard]] QLabel* notAssessedLabel() const;

signals:
    /// A startTraceExport() finished: `error` is empty on success.
    void traceExportFinished(const QString& path, const QString& error);

public:
    /// Selects finding `row` of the current analysis: zooms the timeline to its evidence, outlines its events,
    /// explains it (ViewHub::findingSelected). Out of range: clears the outline.
    void selectFinding(int row);

protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void updateImportWarnings();
    void createActions();
    void createMenus();
    void createDocks(std::vector<DockRegistration> docks);
    /// Gives the first dock of each area its default extent (a fresh layout, Reset Layout).
    void resizeAreaDocks();
    void onLoadFinished(const TraceLoadJob::Outcome& outcome);
    void onTraceImported(const model::TracePtr& trace, const QString& path);
    void onProgress(qint64 done, qint64 total, const QString& phase);
    void setLoading(bool loading);
    void addRecentFile(const QString& path);
    void updateRecentMenu();
    void runSearch();
    /// Runs the search the search field's delay still holds back, if any.
    void flushSearch();
    void updateMatchLabel();
    void showShortcuts();
    void showAbout();
    void onTraceExportFinished(const QString& path, const QString& error, qint64 elapsedMs);
    void updateExportActions();
    void addCompareExport(widgets::CompareView* view);
    void onTimeSelectionChanged();
    void updateExplorerSelection();
    void goToSlice(model::SliceRef slice);
    void saveTrackState();
    [[nodiscard]] QString traceSummaryText() const;

    TraceLoadJob* m_job = nullptr;
    TraceLoadJob* m_compareJob = nullptr; // loads the candidate of File → Compare With…
    LoadedTrace m_current;
    std::optional<std::pair<double, double>> m_initialView;
    std::optional<int> m_initialFinding;
    ErrorReporter m_reportError;
    TraceExportJob m_traceExportJob;

    widgets::TimelineView* m_timeline = nullptr;
    ViewHub* m_hub = nullptr;
    widgets::SummaryView* m_summary = nullptr;
    widgets::ImportWarningsBanner* m_warningsBanner = nullptr;
    widgets::ImportWarningsDialog* m_importWarnings = nullptr; // View → Import Warnings, made on first use
    QAction* m_importWarningsAction = nullptr;
    QTabWidget* m_tabs = nullptr;
    /// The first dock of each area with its default extent (what a fresh layout and Reset Layout size and raise).
    struct AreaDock
    {
        QDockWidget* dock = nullptr;
        Qt::DockWidgetArea area = Qt::NoDockWidgetArea;
        int defaultExtent = 0;
    };
    std::vector<AreaDock> m_areaDocks;
    std::vector<QDockWidget*> m_raiseOnRangeSelection;
    struct TraceDock
    {
        QDockWidget* dock = nullptr;
        QDockWidget* firstOfArea = nullptr; // takes the front back for other traces
        std::function<bool(const model::Trace&)> raiseFor;
        bool raised = false; // brought forward for the trace on screen
    };
    std::vector<TraceDock> m_raiseForTrace;
    QByteArray m_defaultState;
    QElapsedTimer m_loadClock;
    bool m_applyingTrackState = false;
    bool m_analysing = false; // the timeline shows a trace whose analysis still runs
    std::optional<std::pair<model::TimeNs, model::TimeNs>> m_statsRange; // what the explorer docks aggregate
    QLineEdit* m_searchEdit = nullptr;
    QTimer* m_searchDelay = nullptr;
    static constexpr int kSearchDelayMs = 150;
    QLabel* m_matchLabel = nullptr;
    QProgressBar* m_progress = nullptr;
    QPushButton* m_cancel = nullptr;
    QLabel* m_status = nullptr;
    QLabel* m_notAssessedLabel = nullptr;
    QMenu* m_recentMenu = nullptr;
    QMenu* m_viewMenu = nullptr;

    QAction* m_openAction = nullptr;
    QAction* m_openFolderAction = nullptr;
    QAction* m_openJobAction = nullptr;
    QAction* m_compareAction = nullptr;
    QAction* m_compareFolderAction = nullptr;
    QAction* m_exportReportAction = nullptr;
    QAction* m_exportTraceAction = nullptr;
    QAction* m_quitAction = nullptr;
    QAction* m_fitAction = nullptr;
    QAction* m_zoomInAction = nullptr;
    QAction* m_zoomOutAction = nullptr;
    QAction* m_panLeftAction = nullptr;
    QAction* m_panRightAction = nullptr;
    QAction* m_zoomSelectionAction = nullptr;
    QAction* m_findAction = nullptr;
    QAction* m_findNextAction = nullptr;
    QAction* m_findPreviousAction = nullptr;
    QAction* m_darkAction = nullptr;
    QAction* m_resetLayoutAction = nullptr;
    QAction* m_criticalPathAction = nullptr; // View → Critical Path: the steps' critical paths on the timeline
    void updateCriticalPath();
    QAction* m_shortcutsAction = nullptr;
    QAction* m_aboutAction = nullptr;
};

} // namespace timesink::gui
