// SPDX-License-Identifier: MIT
#include "app/gui/mainwindow.h"

#include "analysis/core/findingextent.h"
#include "app/gui/backgroundtask.h"
#include "app/gui/compareexport.h"
#include "app/gui/findingspanel.h"
#include "app/gui/jobwindow.h"
#include "app/gui/shortcutsdialog.h"
#include "app/gui/snapshotcacheui.h"
#include "app/gui/theme.h"
#include "app/gui/viewhub.h"
#include "parsers/registry/traceloader.h"
#include "report/reportoutput.h"
#include "widgets/compareview.h"
#include "widgets/detailspanel.h"
#include "widgets/flamegraphview.h"
#include "widgets/importwarnings.h"
#include "widgets/operatorview.h"
#include "widgets/rangestatsview.h"
#include "widgets/summaryview.h"
#include "widgets/timelineview.h"
#include "widgets/trackspanel.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDialog>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QGuiApplication>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QScreen>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>
#include <QToolBar>
#include <QVBoxLayout>

#include <algorithm>
#include <filesystem>

#ifndef TIMESINK_VERSION
#define TIMESINK_VERSION "unknown"
#endif

namespace timesink::gui {

namespace {

constexpr int kMaxRecentFiles = 10;
const QString kRecentKey = QStringLiteral("recentFiles");
const QString kGeometryKey = QStringLiteral("window/geometry");
const QString kStateKey = QStringLiteral("window/state");
const QString kDarkKey = QStringLiteral("view/dark");
const QString kTabKey = QStringLiteral("view/tab");
const QString kTrackStatePrefix = QStringLiteral("tracks/"); // + trace format: the track arrangement per kind

/// QFileDialog filters ("HTML report (*.html);;…") from the report layer's list.
QString dialogFilters(const std::vector<std::string>& filters)
{
    QStringList list;
    for (const std::string& f : filters)
        list << QString::fromStdString(f);
    return list.join(QStringLiteral(";;"));
}

std::filesystem::path localPath(const QString& path)
{
    return std::filesystem::path(QFile::encodeName(path).toStdString());
}

/// Whole megabytes once there are ten of them ("44", "954"), one decimal below ("3.2").
QString megabytes(qint64 bytes)
{
    const double mb = static_cast<double>(bytes) / (1024.0 * 1024.0);
    return QString::number(mb, 'f', mb >= 10 ? 0 : 1);
}

/// "45 s", "1 min 2 s", "1 h 5 min": a time left, as precise as it can be.
QString timeLeft(qint64 seconds)
{
    if (seconds < 60)
        return QObject::tr("%1 s").arg(std::max<qint64>(1, seconds));
    if (seconds < 3600)
        return QObject::tr("%1 min %2 s").arg(seconds / 60).arg(seconds % 60);
    return QObject::tr("%1 h %2 min").arg(seconds / 3600).arg((seconds % 3600) / 60);
}

} // namespace

MainWindow::MainWindow(QWidget* parent)
    : MainWindow(mainWindowDocks(), parent)
{
}

MainWindow::MainWindow(std::vector<DockRegistration> docks, QWidget* parent)
    : QMainWindow(parent)
    , m_job(new TraceLoadJob(this))
    , m_timeline(new widgets::TimelineView(this))
    , m_hub(new ViewHub(m_timeline, this))
{
    installWidgetBackgroundRunner();
    connect(&m_traceExportJob, &TraceExportJob::finished, this, &MainWindow::onTraceExportFinished);
    setObjectName(QStringLiteral("MainWindow"));
    setWindowTitle(QStringLiteral("Timesink"));
    setAcceptDrops(true);
    m_reportError = [this](const QString& title, const QString& message) {
        // open(), not exec(): a window-modal box that does not block the event loop.
        auto* box = new QMessageBox(QMessageBox::Warning, title, message, QMessageBox::Ok, this);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
    };

    m_summary = new widgets::SummaryView(this);
    m_tabs = new QTabWidget(this);
    m_tabs->setDocumentMode(true);
    // Serious import warnings (a cut capture, times out of range …) sit above the timeline (issue 12).
    auto* timelinePage = new QWidget(this);
    auto* timelineLayout = new QVBoxLayout(timelinePage);
    timelineLayout->setContentsMargins(0, 0, 0, 0);
    timelineLayout->setSpacing(0);
    m_warningsBanner = new widgets::ImportWarningsBanner(timelinePage);
    timelineLayout->addWidget(m_warningsBanner);
    timelineLayout->addWidget(m_timeline, 1);
    m_tabs->addTab(timelinePage, tr("Timeline"));
    m_tabs->addTab(m_summary, tr("Summary"));
    setCentralWidget(m_tabs);

    createActions();
    createMenus();
    createDocks(std::move(docks));

    m_status = new QLabel(tr("Ready"), this);
    m_progress = new QProgressBar(this);
    // Wide enough for "reading 44 / 954 MB · 1 min 2 s left" on one line.
    m_progress->setMinimumWidth(
        m_progress->fontMetrics().horizontalAdvance(QStringLiteral("converting 9999 / 9999 MB · 59 min 59 s left"))
        + 24);
    m_progress->setTextVisible(true);
    m_cancel = new QPushButton(tr("Cancel"), this);
    statusBar()->addWidget(m_status, 1);
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_cancel);
    setLoading(false);

    connect(m_cancel, &QPushButton::clicked, m_job, &TraceLoadJob::cancel);
    connect(m_job, &TraceLoadJob::progress, this, &MainWindow::onProgress);
    connect(m_job, &TraceLoadJob::finished, this, &MainWindow::onLoadFinished);
    connect(m_job, &TraceLoadJob::imported, this, &MainWindow::onTraceImported);
    connect(m_timeline, &widgets::TimelineView::sliceSelected, this, [this](model::SliceRef slice) {
        if (m_current.trace && slice.isValid())
            emit m_hub->sliceSelected(*m_current.trace, slice);
    });
    // The explorer: a Shift+drag (or the tracks picked with Ctrl+click) feeds the docked views' range selection
    // (statistics, flame graph, the operator table's "Time selection" scope); every "go there" lands on the timeline.
    connect(m_timeline, &widgets::TimelineView::timeSelectionChanged, this, &MainWindow::onTimeSelectionChanged);
    connect(m_timeline, &widgets::TimelineView::selectedTracksChanged, this, &MainWindow::updateExplorerSelection);
    connect(m_timeline, &widgets::TimelineView::trackLayoutChanged, this, &MainWindow::saveTrackState);
    connect(m_hub, &ViewHub::highlightRequested, m_timeline, &widgets::TimelineView::setHighlighted);
    connect(m_hub, &ViewHub::sliceRequested, this, &MainWindow::goToSlice);
    connect(m_hub, &ViewHub::rangeRequested, this,
            [this](model::TrackId track, model::TimeNs start, model::TimeNs end) {
                m_timeline->showRange(start, end);
                m_timeline->revealTrack(track);
            });
    connect(m_hub, &ViewHub::findingRequested, this, &MainWindow::selectFinding);

    // The layout a fresh install has, for View → Reset Layout and for replacing a degenerate saved one.
    m_defaultState = saveState();
    QSettings settings;
    restoreGeometry(settings.value(kGeometryKey).toByteArray());
    restoreState(settings.value(kStateKey).toByteArray());
    // Once the window has its real size: a saved layout that squeezes a panel to nothing is not kept.
    QTimer::singleShot(0, this, [this] {
        if (isVisible() && isLayoutDegenerate())
            resetLayout();
    });
    m_tabs->setCurrentIndex(settings.value(kTabKey, 0).toInt());
    if (settings.value(kDarkKey, false).toBool()) {
        m_darkAction->setChecked(true);
        applyTheme(true);
    }
    updateRecentMenu();
    if (!settings.contains(kGeometryKey)) {
        const QRect screen = QGuiApplication::primaryScreen() ? QGuiApplication::primaryScreen()->availableGeometry()
                                                              : QRect(0, 0, 1400, 900);
        resize(screen.size() * 0.9);
    }
}

MainWindow::~MainWindow()
{
    // A running export holds its own copy of what it writes; let it finish so the file is complete rather
    // than a removed temporary. Its outcome is not reported: the window is going away (no status bar message, no
    // error box during destruction).
    disconnect(&m_traceExportJob, nullptr, this, nullptr);
    m_traceExportJob.waitForFinished();
    m_job->cancel();
    m_job->waitForFinished();
    if (m_compareJob) {
        m_compareJob->cancel();
        m_compareJob->waitForFinished();
    }
}

widgets::FindingsModel* MainWindow::findingsModel() const
{
    const auto* panel = findChild<FindingsPanel*>();
    return panel ? panel->model() : nullptr;
}

QTableView* MainWindow::findingsView() const
{
    const auto* panel = findChild<FindingsPanel*>();
    return panel ? panel->view() : nullptr;
}

QSortFilterProxyModel* MainWindow::findingsProxy() const
{
    const auto* panel = findChild<FindingsPanel*>();
    return panel ? panel->proxy() : nullptr;
}

QLabel* MainWindow::notAssessedLabel() const
{
    const auto* panel = findChild<FindingsPanel*>();
    return panel ? panel->notAssessedLabel() : nullptr;
}

widgets::RangeStatsView* MainWindow::rangeStats() const
{
    return findChild<widgets::RangeStatsView*>();
}

widgets::OperatorView* MainWindow::operators() const
{
    return findChild<widgets::OperatorView*>();
}

widgets::FlameGraphView* MainWindow::flameGraph() const
{
    return findChild<widgets::FlameGraphView*>();
}

widgets::TracksPanel* MainWindow::tracksPanel() const
{
    return findChild<widgets::TracksPanel*>();
}

widgets::DetailsPanel* MainWindow::details() const
{
    return findChild<widgets::DetailsPanel*>();
}

void MainWindow::createActions()
{
    auto make = [this](const QString& text, const QKeySequence& key, auto slot) {
        auto* action = new QAction(text, this);
        if (!key.isEmpty())
            action->setShortcut(key);
        connect(action, &QAction::triggered, this, slot);
        // Object names let tests (and people scripting the UI) find actions without matching on text.
        action->setObjectName(QStringLiteral("action")
                              + QString(text).remove(QLatin1Char('&')).remove(QChar(0x2026)).remove(QLatin1Char(' ')));
        addAction(action);
        return action;
    };
    m_openAction = make(tr("&Open…"), QKeySequence::Open, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open trace"), {}, traceFileFilter());
        if (!path.isEmpty())
            openPath(path);
    });
    m_openFolderAction = make(tr("Open &Folder…"), QKeySequence(tr("Ctrl+Shift+O")), [this] {
        // Profiler bundles (`*_ascend_pt/`, `PROF_*/`) are folders that make one trace.
        const QString path = QFileDialog::getExistingDirectory(this, tr("Open trace folder"));
        if (!path.isEmpty())
            openPath(path);
    });
    m_openJobAction = make(tr("Open &Job…"), QKeySequence(tr("Ctrl+J")), [this] {
        // A folder with the ranks of a distributed job (rank-N traces, *_ascend_pt/ or PROF_* runs, or reports).
        const QString path = QFileDialog::getExistingDirectory(this, tr("Open job folder"));
        if (!path.isEmpty())
            openJob({path});
    });
    m_compareAction = make(tr("&Compare With…"), QKeySequence(), [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Compare with trace"), {}, traceFileFilter());
        if (!path.isEmpty())
            compareWith(path);
    });
    m_compareFolderAction = make(tr("Compare With Fo&lder…"), QKeySequence(), [this] {
        const QString path = QFileDialog::getExistingDirectory(this, tr("Compare with trace folder"));
        if (!path.isEmpty())
            compareWith(path);
    });
    m_exportReportAction = make(tr("&Export Report…"), QKeySequence(tr("Ctrl+E")), [this] {
        QString filter;
        const QString base = QFileInfo(m_current.path).completeBaseName();
        const QString path
            = QFileDialog::getSaveFileName(this, tr("Export report"), base + QStringLiteral("-report.html"),
                                           dialogFilters(report::reportFileFilters()), &filter);
        if (path.isEmpty())
            return;
        const QString error = exportReportTo(withFilterExtension(path, filter));
        if (!error.isEmpty())
            m_reportError(tr("Export report"), error);
    });
    m_exportTraceAction = make(tr("Export &Trace…"), QKeySequence(tr("Ctrl+Shift+E")), [this] {
        QString filter;
        const QString base = QFileInfo(m_current.path).completeBaseName();
        const QString path = QFileDialog::getSaveFileName(this, tr("Export trace"), base + QStringLiteral(".pftrace"),
                                                          dialogFilters(exporters::traceFileFilters()), &filter);
        if (path.isEmpty())
            return;
        const QString error = startTraceExport(withFilterExtension(path, filter));
        if (!error.isEmpty())
            m_reportError(tr("Export trace"), error);
    });
    // Nothing to export until a trace is shown.
    m_exportReportAction->setEnabled(false);
    m_exportTraceAction->setEnabled(false);
    m_quitAction = make(tr("&Quit"), QKeySequence::Quit, [this] { close(); });
    m_fitAction = make(tr("&Fit All"), QKeySequence(Qt::Key_F), [this] { m_timeline->fitAll(); });
    m_zoomInAction = make(tr("Zoom &In"), QKeySequence(Qt::Key_W), [this] { m_timeline->zoomBy(1.5); });
    m_zoomOutAction = make(tr("Zoom &Out"), QKeySequence(Qt::Key_S), [this] { m_timeline->zoomBy(1 / 1.5); });
    m_panLeftAction = make(tr("Pan &Left"), QKeySequence(Qt::Key_A), [this] { m_timeline->panBy(-0.15); });
    m_panRightAction = make(tr("Pan &Right"), QKeySequence(Qt::Key_D), [this] { m_timeline->panBy(0.15); });
    m_zoomSelectionAction
        = make(tr("&Zoom to Selection"), QKeySequence(Qt::Key_Z), [this] { m_timeline->zoomToSelection(); });
    m_findAction = make(tr("&Find…"), QKeySequence::Find, [this] {
        m_searchEdit->setFocus();
        m_searchEdit->selectAll();
    });
    m_findNextAction = make(tr("Find &Next"), QKeySequence::FindNext, [this] {
        flushSearch();
        m_timeline->nextMatch();
        updateMatchLabel();
    });
    m_findPreviousAction = make(tr("Find &Previous"), QKeySequence::FindPrevious, [this] {
        flushSearch();
        m_timeline->previousMatch();
        updateMatchLabel();
    });
    m_darkAction = make(tr("&Dark Palette"), QKeySequence(), [this] {
        applyTheme(m_darkAction->isChecked());
        QSettings().setValue(kDarkKey, m_darkAction->isChecked());
    });
    m_darkAction->setCheckable(true);
    m_criticalPathAction = make(tr("&Critical Path"), QKeySequence(), [this] { updateCriticalPath(); });
    m_criticalPathAction->setCheckable(true);
    m_criticalPathAction->setObjectName(QStringLiteral("criticalPathAction"));
    m_criticalPathAction->setToolTip(tr("Draw each step's critical path (what sets the step time) under its tracks"));
    m_resetLayoutAction = make(tr("Reset &Layout"), QKeySequence(), [this] { resetLayout(); });
    m_shortcutsAction = make(tr("&Keyboard Shortcuts"), QKeySequence::HelpContents, [this] { showShortcuts(); });
    m_aboutAction = make(tr("&About Timesink"), QKeySequence(), [this] { showAbout(); });

    // The single-letter navigation keys act on the timeline from anywhere in the window (a focused table must not
    // take "F" for its type-ahead search), but never while typing: text fields (the search field, spin boxes,
    // editable combo boxes) accept the ShortcutOverride of a printable key, so Qt gives them the key instead.
    for (QAction* a :
         {m_fitAction, m_zoomInAction, m_zoomOutAction, m_panLeftAction, m_panRightAction, m_zoomSelectionAction})
        a->setShortcutContext(Qt::WindowShortcut);
}

void MainWindow::createMenus()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(m_openAction);
    file->addAction(m_openFolderAction);
    file->addAction(m_openJobAction);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    file->addSeparator();
    file->addAction(m_compareAction);
    file->addAction(m_compareFolderAction);
    file->addSeparator();
    file->addAction(m_exportReportAction);
    file->addAction(m_exportTraceAction);
    file->addSeparator();
    addSnapshotCacheActions(file, this);
    file->addSeparator();
    file->addAction(m_quitAction);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    for (QAction* a :
         {m_fitAction, m_zoomInAction, m_zoomOutAction, m_panLeftAction, m_panRightAction, m_zoomSelectionAction})
        view->addAction(a);
    view->addSeparator();
    view->addAction(m_findAction);
    view->addAction(m_findNextAction);
    view->addAction(m_findPreviousAction);
    view->addSeparator();
    m_importWarningsAction = view->addAction(tr("Import &Warnings…"), this, &MainWindow::showImportWarnings);
    m_importWarningsAction->setObjectName(QStringLiteral("importWarningsAction"));
    connect(m_warningsBanner, &widgets::ImportWarningsBanner::detailsRequested, this, &MainWindow::showImportWarnings);
    view->addAction(m_criticalPathAction);
    view->addAction(m_darkAction);
    view->addAction(m_resetLayoutAction);
    m_viewMenu = view;

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(m_shortcutsAction);
    help->addAction(m_aboutAction);

    QToolBar* bar = addToolBar(tr("Main"));
    bar->setObjectName(QStringLiteral("MainToolBar"));
    bar->addAction(m_openAction);
    bar->addAction(m_openFolderAction);
    bar->addSeparator();
    bar->addAction(m_fitAction);
    bar->addAction(m_zoomSelectionAction);
    bar->addSeparator();
    m_searchEdit = new QLineEdit(this);
    m_searchEdit->setPlaceholderText(tr("Search events by name (Ctrl+F)"));
    m_searchEdit->setClearButtonEnabled(true);
    m_searchEdit->setMaximumWidth(320);
    bar->addWidget(m_searchEdit);
    bar->addAction(m_findPreviousAction);
    bar->addAction(m_findNextAction);
    m_matchLabel = new QLabel(this);
    m_matchLabel->setMinimumWidth(120);
    bar->addWidget(m_matchLabel);
    // Typing runs the search once the keys pause (a search visits every slice: ~0.1 s at 10 GB, too long for each
    // keystroke); Enter and Find Next/Previous run a pending one at once.
    m_searchDelay = new QTimer(this);
    m_searchDelay->setSingleShot(true);
    m_searchDelay->setInterval(kSearchDelayMs);
    connect(m_searchDelay, &QTimer::timeout, this, &MainWindow::runSearch);
    connect(m_searchEdit, &QLineEdit::textChanged, m_searchDelay, qOverload<>(&QTimer::start));
    connect(m_searchEdit, &QLineEdit::returnPressed, m_findNextAction, &QAction::trigger);
}

void MainWindow::createDocks(std::vector<DockRegistration> docks)
{
    // The first dock of an area is on top there; the later ones of the same area are tabs beside it that do not take
    // the top from it. (raise() also moves a dock to the end of the window's children, which is the View menu's
    // order below.)
    for (DockRegistration& registration : docks) {
        auto* dock = new QDockWidget(registration.title, this);
        dock->setObjectName(registration.objectName);
        dock->setWidget(registration.create(*m_hub, this));
        addDockWidget(registration.area, dock);
        const auto first = std::find_if(m_areaDocks.begin(), m_areaDocks.end(),
                                        [&](const AreaDock& a) { return a.area == registration.area; });
        if (first == m_areaDocks.end())
            m_areaDocks.push_back({dock, registration.area, registration.defaultExtent});
        else {
            tabifyDockWidget(first->dock, dock);
            first->dock->raise();
        }
        if (registration.raiseOnRangeSelection)
            m_raiseOnRangeSelection.push_back(dock);
        if (registration.raiseFor) {
            const auto area = std::find_if(m_areaDocks.begin(), m_areaDocks.end(),
                                           [&](const AreaDock& a) { return a.area == registration.area; });
            m_raiseForTrace.push_back({dock, area->dock, std::move(registration.raiseFor)});
        }
    }
    resizeAreaDocks();

    if (m_viewMenu) {
        m_viewMenu->addSeparator();
        for (QDockWidget* dock : findChildren<QDockWidget*>())
            m_viewMenu->addAction(dock->toggleViewAction());
    }
}

void MainWindow::resizeAreaDocks()
{
    // Widths first, then heights, as the window has always done it.
    for (const Qt::Orientation orientation : {Qt::Horizontal, Qt::Vertical}) {
        for (const AreaDock& a : m_areaDocks) {
            const bool side = a.area == Qt::LeftDockWidgetArea || a.area == Qt::RightDockWidgetArea;
            if (a.defaultExtent > 0 && (orientation == Qt::Horizontal) == side)
                resizeDocks({a.dock}, {a.defaultExtent}, orientation);
        }
    }
}

void MainWindow::resetLayout()
{
    restoreState(m_defaultState);
    for (QDockWidget* dock : findChildren<QDockWidget*>())
        dock->setFloating(false);
    resizeAreaDocks();
    for (const AreaDock& a : m_areaDocks)
        a.dock->raise();
}

bool MainWindow::isLayoutDegenerate() const
{
    // The timeline needs room for the ruler and a few rows; a docked panel must show more than its title.
    if (m_tabs->isVisible() && (m_tabs->height() < 160 || m_tabs->width() < 300))
        return true;
    for (const QDockWidget* dock : findChildren<QDockWidget*>()) {
        if (!dock->isVisible() || dock->isFloating() || !dock->widget() || dock->widget()->visibleRegion().isEmpty())
            continue;
        const QSize minimum = dock->widget()->minimumSizeHint().expandedTo(dock->widget()->minimumSize());
        if (dock->widget()->height() < std::min(minimum.height(), 100) || dock->widget()->width() < 120)
            return true;
    }
    return false;
}

void MainWindow::onTimeSelectionChanged()
{
    // A zoom to the range hides its tint but keeps its statistics; Esc or a plain click clears both.
    const auto& range = m_timeline->timeSelection();
    if (range && range->first != range->second)
        m_statsRange = range;
    else if (!range)
        m_statsRange.reset();
    updateExplorerSelection();
}

void MainWindow::updateExplorerSelection()
{
    std::optional<analysis::RangeSelection> selection;
    if (m_statsRange)
        selection = analysis::RangeSelection {m_statsRange->first, m_statsRange->second, m_timeline->selectedTracks()};
    emit m_hub->rangeSelectionChanged(selection);
    if (selection) {
        for (QDockWidget* dock : m_raiseOnRangeSelection)
            dock->raise();
    }
}

void MainWindow::goToSlice(model::SliceRef slice)
{
    if (!m_current.trace || !slice.isValid())
        return;
    // Select, scroll and zoom: the slice fills the middle fifth of the view, whatever the zoom was.
    const model::Track& track = m_current.trace->track(slice.track);
    const model::TimeNs ts = track.ts(slice.index.value);
    const model::TimeNs dur = std::max<model::TimeNs>(track.dur(slice.index.value), 1);
    m_timeline->showRange(ts - 2 * dur, ts + 3 * dur);
    m_timeline->selectSlice(slice, true);
}

void MainWindow::saveTrackState()
{
    if (!m_current.trace || m_applyingTrackState)
        return;
    QSettings().setValue(kTrackStatePrefix + QString::fromStdString(m_current.trace->metadata().format),
                         m_timeline->layout().state().toVariant());
}

QString MainWindow::traceSummaryText() const
{
    if (!m_current.trace)
        return tr("Ready");
    const model::Trace& t = *m_current.trace;
    const QString name = m_current.path.isEmpty() ? tr("untitled") : QFileInfo(m_current.path).fileName();
    const auto plural = [](std::size_t n, const QString& one, const QString& many) {
        return QStringLiteral("%1 %2").arg(n).arg(n == 1 ? one : many);
    };
    return tr("%1: %2 on %3, %4, %5")
        .arg(name, plural(t.sliceCount(), tr("event"), tr("events")),
             plural(t.tracks().size(), tr("track"), tr("tracks")), plural(t.steps().size(), tr("step"), tr("steps")),
             plural(m_current.analysis.findings.size(), tr("finding"), tr("findings")));
}

void MainWindow::openPath(const QString& path)
{
    if (path.isEmpty())
        return;
    if (app::isJobFolder(path.toStdString())) {
        openJob({path});
        return;
    }
    m_status->setText(tr("Loading %1…").arg(QFileInfo(path).fileName()));
    setLoading(true);
    m_loadClock.start();
    m_job->start(path);
}

void MainWindow::updateImportWarnings()
{
    const std::span<const model::ImportWarning> warnings
        = m_current.trace ? m_current.trace->warnings() : std::span<const model::ImportWarning> {};
    m_warningsBanner->setWarnings(warnings);
    std::uint64_t total = 0;
    for (const model::ImportWarning& w : warnings)
        total += w.count;
    m_importWarningsAction->setText(total > 0 ? tr("Import &Warnings (%1)…").arg(total) : tr("Import &Warnings…"));
    m_importWarningsAction->setEnabled(m_current.trace != nullptr);
    if (m_importWarnings)
        m_importWarnings->setWarnings(warnings);
}

void MainWindow::showImportWarnings()
{
    if (!m_importWarnings)
        m_importWarnings = new widgets::ImportWarningsDialog(this);
    m_importWarnings->setWarnings(m_current.trace ? m_current.trace->warnings()
                                                  : std::span<const model::ImportWarning> {});
    m_importWarnings->show();
    m_importWarnings->raise();
}

void MainWindow::showTrace(LoadedTrace loaded)
{
    if (!loaded.summary && loaded.trace)
        loaded.summary = widgets::SummaryData::compute(*loaded.trace, loaded.analysis);
    // The analysis made the efficiency report (AnalysisResult::efficiency, with each operator's device work for the
    // Roofline view's click); a trace handed in with a result made otherwise (a test, a preview's final state) gets
    // it here. The preview shown while the analyses run waits for the job's; a cancelled analysis gets none.
    if (!loaded.analysis.efficiency && loaded.trace && !m_analysing && !loaded.analysis.cancelled)
        loaded.analysis.efficiency
            = std::make_shared<const analysis::efficiency::EfficiencyReport>(analysis::efficiency::computeEfficiency(
                *loaded.trace, analysis::efficiency::builtinPeakTable(), nullptr, true));
    // The analysis of the trace on screen arrived: the views keep their zoom, scroll and selection.
    const bool sameTrace = loaded.trace != nullptr && loaded.trace == m_current.trace;
    m_current = std::move(loaded);
    updateExportActions();
    updateImportWarnings();
    emit m_hub->analysisChanged(m_current, m_analysing);
    updateCriticalPath();
    m_summary->setData(m_current.summary.value_or(widgets::SummaryData {}));
    const QString name = m_current.path.isEmpty() ? tr("untitled") : QFileInfo(m_current.path).fileName();
    setWindowTitle(name + QStringLiteral(" — Timesink"));
    if (m_current.trace)
        m_status->setText(m_analysing ? tr("Analysing %1…").arg(name) : traceSummaryText());
    if (!sameTrace) {
        m_timeline->setTrace(m_current.trace);
        m_statsRange.reset();
        emit m_hub->traceChanged(m_current.trace);
        if (m_current.trace) {
            // The docks made for this kind of trace come forward; one left in front from another kind steps back.
            for (TraceDock& d : m_raiseForTrace) {
                const bool wasRaised = std::exchange(d.raised, d.raiseFor(*m_current.trace));
                if (d.raised)
                    d.dock->raise();
                else if (wasRaised && d.dock != d.firstOfArea)
                    d.firstOfArea->raise();
            }
            // The tracks as they were arranged last time for a trace of this kind.
            const QVariant saved
                = QSettings().value(kTrackStatePrefix + QString::fromStdString(m_current.trace->metadata().format));
            if (saved.isValid()) {
                m_applyingTrackState = true;
                const auto state = widgets::TrackLayout::State::fromVariant(saved.toMap());
                m_timeline->changeLayout([&state](widgets::TrackLayout& l) { l.applyState(state); });
                m_applyingTrackState = false;
            }
        }
        // Views that aggregate the whole trace (the operator table and the flame graph: 0.9 s for 3 M slices when
        // visible) hear of it in traceShown: the window, with the new timeline, is painted first, now, rather than
        // after them (a queued update would wait).
        if (isVisible())
            repaint();
        emit m_hub->traceShown(m_current.trace);
        if (!m_searchEdit->text().isEmpty())
            runSearch();
    }
}

void MainWindow::onTraceImported(const model::TracePtr& trace, const QString& path)
{
    // The timeline first: on a big trace the analyses take a tenth of the load, and the user can look around
    // meanwhile. The findings, the summary and the report export follow in onLoadFinished().
    LoadedTrace preview;
    preview.trace = trace;
    preview.path = path;
    preview.summary = widgets::SummaryData {};
    m_analysing = true;
    showTrace(std::move(preview));
}

QString MainWindow::exportReportTo(const QString& path)
{
    if (!m_current.trace)
        return tr("No trace is open.");
    if (m_analysing)
        return tr("The trace is still being analysed; export the report when the findings are shown.");
    report::ReportOptions options;
    options.generator = "Timesink " TIMESINK_VERSION;
    const std::filesystem::path inputs[] = {localPath(m_current.path)};
    std::string error;
    QApplication::setOverrideCursor(Qt::WaitCursor);
    const bool ok = report::exportReport(*m_current.trace, m_current.analysis, localPath(path), inputs, error, options);
    QApplication::restoreOverrideCursor();
    if (!ok)
        return QString::fromStdString(error);
    statusBar()->showMessage(tr("Report written to %1").arg(QDir::toNativeSeparators(path)), 5000);
    return {};
}

QString MainWindow::exportTraceTo(const QString& path)
{
    if (!m_current.trace)
        return tr("No trace is open.");
    const std::optional<exporters::TraceFormat> format = exporters::traceFormatFromPath(localPath(path));
    if (!format)
        return tr("Cannot tell the trace format from %1; name it .pftrace or .json.").arg(path);
    QApplication::setOverrideCursor(Qt::WaitCursor);
    const QString error = m_traceExportJob.exportFunction()(
        {m_current.trace, m_current.analysis.findings, *format, localPath(path), localPath(m_current.path)});
    QApplication::restoreOverrideCursor();
    if (!error.isEmpty())
        return error;
    statusBar()->showMessage(tr("Trace written to %1").arg(QDir::toNativeSeparators(path)), 5000);
    return {};
}

QString MainWindow::startTraceExport(const QString& path)
{
    if (!m_current.trace)
        return tr("No trace is open.");
    const std::optional<exporters::TraceFormat> format = exporters::traceFormatFromPath(localPath(path));
    if (!format)
        return tr("Cannot tell the trace format from %1; name it .pftrace or .json.").arg(path);
    if (QString why = m_traceExportJob.start(
            {m_current.trace, m_current.analysis.findings, *format, localPath(path), localPath(m_current.path)});
        !why.isEmpty())
        return why;
    updateExportActions();
    statusBar()->showMessage(tr("Exporting trace to %1…").arg(QDir::toNativeSeparators(path)));
    return {};
}

void MainWindow::waitForTraceExport()
{
    m_traceExportJob.waitForFinished();
}

void MainWindow::onTraceExportFinished(const QString& path, const QString& error, qint64 elapsedMs)
{
    updateExportActions();
    if (error.isEmpty()) {
        statusBar()->showMessage(tr("Trace written to %1 in %2 s")
                                     .arg(QDir::toNativeSeparators(path))
                                     .arg(static_cast<double>(elapsedMs) / 1000.0, 0, 'f', 1),
                                 10000);
    } else {
        statusBar()->showMessage(tr("Trace export failed: %1").arg(error), 10000);
        m_reportError(tr("Export trace"), error);
    }
    emit traceExportFinished(path, error);
}

void MainWindow::updateExportActions()
{
    m_exportReportAction->setEnabled(m_current.trace != nullptr && !m_analysing);
    // One trace export at a time; the action comes back when the running one has finished.
    m_exportTraceAction->setEnabled(m_current.trace != nullptr && !isExportingTrace());
}

QStringList MainWindow::recentFiles() const
{
    return QSettings().value(kRecentKey).toStringList();
}

void MainWindow::updateCriticalPath()
{
    std::vector<analysis::PathSegment> segments;
    if (m_criticalPathAction && m_criticalPathAction->isChecked()) {
        for (const analysis::StepCriticalPath& p : m_current.analysis.criticalPaths)
            segments.insert(segments.end(), p.segments.begin(), p.segments.end());
    }
    m_timeline->setCriticalPath(std::move(segments));
}

void MainWindow::selectFinding(int row)
{
    const std::vector<analysis::Finding>& findings = m_current.analysis.findings;
    if (row < 0 || static_cast<std::size_t>(row) >= findings.size()) {
        m_timeline->setHighlighted({});
        return;
    }
    const analysis::Finding* f = &findings[static_cast<std::size_t>(row)];
    emit m_hub->findingSelected(m_current.trace.get(), *f);
    m_timeline->setHighlighted(f->events);
    if (const analysis::FindingExtent extent = analysis::findingExtent(*f, m_current.trace.get()); extent.valid) {
        m_timeline->showRange(extent.start, extent.end);
        m_timeline->revealTrack(extent.firstTrack);
    }
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    QSettings settings;
    settings.setValue(kGeometryKey, saveGeometry());
    // A squeezed layout would come back squeezed on the next start: keep the last good one instead.
    if (!isLayoutDegenerate())
        settings.setValue(kStateKey, saveState());
    settings.setValue(kTabKey, m_tabs->currentIndex());
    m_job->cancel();
    QMainWindow::closeEvent(event);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    if (event->mimeData()->hasUrls()) {
        const auto urls = event->mimeData()->urls();
        if (std::any_of(urls.begin(), urls.end(), [](const QUrl& u) { return u.isLocalFile(); }))
            event->acceptProposedAction();
    }
}

void MainWindow::dropEvent(QDropEvent* event)
{
    for (const QUrl& url : event->mimeData()->urls()) {
        if (url.isLocalFile()) {
            openPath(url.toLocalFile());
            event->acceptProposedAction();
            return;
        }
    }
}

JobWindow* MainWindow::openJob(const QStringList& paths)
{
    auto* window = new JobWindow;
    window->setAttribute(Qt::WA_DeleteOnClose);
    QString error;
    if (!window->start(paths, error)) {
        delete window;
        m_reportError(tr("Open job"), error);
        return nullptr;
    }
    window->show();
    m_status->setText(tr("Opened job %1").arg(QFileInfo(paths.value(0)).fileName()));
    return window;
}

void MainWindow::compareWith(const QString& path)
{
    if (!m_current.trace) {
        m_reportError(tr("Compare runs"),
                      tr("Open the baseline run first; the run you choose then is compared with it."));
        return;
    }
    if (!m_compareJob) {
        m_compareJob = new TraceLoadJob(this);
        connect(m_compareJob, &TraceLoadJob::finished, this, [this](const TraceLoadJob::Outcome& outcome) {
            if (outcome.cancelled)
                return;
            if (!outcome.loaded.trace) {
                m_status->setText(tr("Could not open %1").arg(QFileInfo(outcome.loaded.path).fileName()));
                m_reportError(tr("Cannot compare"), outcome.error);
                return;
            }
            // A window of its own, so the two runs can sit beside the main window on a second screen.
            auto* view = new widgets::CompareView;
            view->setAttribute(Qt::WA_DeleteOnClose);
            view->setSourcePaths(m_current.path, outcome.loaded.path);
            addCompareExport(view);
            QString error;
            if (!view->setRuns(m_current.trace, m_current.analysis.findings, outcome.loaded.trace,
                               outcome.loaded.analysis.findings, {}, error)) {
                delete view;
                m_reportError(tr("Cannot compare"), error);
                return;
            }
            view->setWindowTitle(
                tr("Compare %1 ↔ %2 — Timesink")
                    .arg(QFileInfo(m_current.path).fileName(), QFileInfo(outcome.loaded.path).fileName()));
            view->resize(size());
            view->show();
            m_status->setText(tr("Comparing with %1").arg(QFileInfo(outcome.loaded.path).fileName()));
            // Once the compare window is gone, the status bar speaks of the trace again.
            const QString comparing = m_status->text();
            connect(view, &QObject::destroyed, this, [this, comparing] {
                if (m_status->text() == comparing)
                    m_status->setText(traceSummaryText());
            });
        });
    }
    m_status->setText(tr("Loading %1 to compare…").arg(QFileInfo(path).fileName()));
    m_compareJob->start(path);
}

void MainWindow::addCompareExport(widgets::CompareView* view)
{
    auto* action = new QAction(tr("&Export Comparison…"), view);
    action->setObjectName(QStringLiteral("actionExportComparison"));
    action->setShortcut(QKeySequence(tr("Ctrl+E")));
    view->fileMenu()->insertAction(view->fileMenu()->actions().value(0), action);
    view->fileMenu()->insertSeparator(view->fileMenu()->actions().value(1));
    connect(action, &QAction::triggered, view, [view] {
        QString filter;
        const QString suggested = QFileInfo(view->baselinePath()).completeBaseName() + QStringLiteral("-vs-")
            + QFileInfo(view->candidatePath()).completeBaseName() + QStringLiteral(".html");
        const QString path
            = QFileDialog::getSaveFileName(view, tr("Export comparison"), suggested, comparisonFileFilters(), &filter);
        if (path.isEmpty())
            return;
        const QString error = exportComparisonTo(*view, withFilterExtension(path, filter));
        // The compare window outlives nothing it needs, but the main window may be gone: report on the view.
        auto* box = error.isEmpty()
            ? new QMessageBox(QMessageBox::Information, tr("Export comparison"),
                              tr("Comparison written to %1").arg(QDir::toNativeSeparators(path)), QMessageBox::Ok, view)
            : new QMessageBox(QMessageBox::Warning, tr("Export comparison"), error, QMessageBox::Ok, view);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
    });
}

void MainWindow::onLoadFinished(const TraceLoadJob::Outcome& outcome)
{
    setLoading(false);
    const bool previewShown = std::exchange(m_analysing, false);
    if (previewShown && (outcome.cancelled || !outcome.loaded.trace)) {
        // The trace on screen lost its analysis (cancelled, or stopped for a load that then failed): say so, here
        // and in an exported report.
        m_current.analysis.cancelled = true;
        showTrace(m_current);
    }
    if (outcome.cancelled) {
        m_status->setText(previewShown ? tr("Analysis cancelled") : tr("Loading cancelled"));
        return;
    }
    if (!outcome.loaded.trace) {
        // The previous trace stays; the importer's message says what was wrong.
        m_status->setText(tr("Could not open %1").arg(QFileInfo(outcome.loaded.path).fileName()));
        m_reportError(tr("Cannot open trace"), outcome.error);
        return;
    }
    addRecentFile(outcome.loaded.path);
    showTrace(outcome.loaded);
    if (m_initialFinding && static_cast<std::size_t>(*m_initialFinding) < m_current.analysis.findings.size())
        emit m_hub->findingPicked(*m_initialFinding);
    if (m_initialView && m_current.trace) {
        const model::TimeNs origin = m_current.trace->startNs();
        m_timeline->showRange(origin + static_cast<model::TimeNs>(m_initialView->first * 1e6),
                              origin + static_cast<model::TimeNs>(m_initialView->second * 1e6));
    }
    m_initialFinding.reset();
    m_initialView.reset();
}

void MainWindow::onProgress(qint64 done, qint64 total, const QString& phase)
{
    if (total > 0) {
        m_progress->setRange(0, 1000);
        m_progress->setValue(static_cast<int>(std::min<qint64>(1000, done * 1000 / total)));
        m_progress->setFormat(progressText(phase, done, total, m_loadClock.isValid() ? m_loadClock.elapsed() : 0));
    } else {
        m_progress->setRange(0, 0); // busy indicator: the phase has no byte count
        m_progress->setFormat(phase);
    }
    if (!phase.isEmpty())
        m_progress->setToolTip(phase);
}

QString MainWindow::traceFileFilter()
{
    QStringList patterns;
    for (const std::string& p : parsers::supportedFilePatterns())
        patterns << QString::fromStdString(p);
    return tr("Traces (%1);;All files (*)").arg(patterns.join(QLatin1Char(' ')));
}

QString MainWindow::progressText(const QString& phase, qint64 done, qint64 total, qint64 elapsedMs)
{
    QString text = (phase.isEmpty() ? QString() : phase + QLatin1Char(' '))
        + tr("%1 / %2 MB").arg(megabytes(done), megabytes(total));
    // An estimate only once it means something: a second in, with bytes read.
    if (elapsedMs >= 1000 && done > 0 && done < total) {
        const double rate = static_cast<double>(done) / static_cast<double>(elapsedMs); // bytes per ms
        text += tr(" · %1 left").arg(timeLeft(static_cast<qint64>(static_cast<double>(total - done) / rate / 1000.0)));
    }
    return text;
}

void MainWindow::setLoading(bool loading)
{
    m_progress->setVisible(loading);
    m_cancel->setVisible(loading);
    if (loading) {
        m_progress->setRange(0, 0);
        m_progress->setFormat(tr("starting"));
    }
}

void MainWindow::addRecentFile(const QString& path)
{
    QSettings settings;
    QStringList files = settings.value(kRecentKey).toStringList();
    const QString absolute = QFileInfo(path).absoluteFilePath();
    files.removeAll(absolute);
    files.prepend(absolute);
    while (files.size() > kMaxRecentFiles)
        files.removeLast();
    settings.setValue(kRecentKey, files);
    updateRecentMenu();
}

void MainWindow::updateRecentMenu()
{
    m_recentMenu->clear();
    const QStringList files = recentFiles();
    for (const QString& file : files) {
        QAction* a = m_recentMenu->addAction(QFileInfo(file).fileName());
        a->setToolTip(file);
        connect(a, &QAction::triggered, this, [this, file] { openPath(file); });
    }
    m_recentMenu->setEnabled(!files.isEmpty());
}

void MainWindow::flushSearch()
{
    if (m_searchDelay && m_searchDelay->isActive()) {
        m_searchDelay->stop();
        runSearch();
    }
}

void MainWindow::runSearch()
{
    m_timeline->setSearchQuery(m_searchEdit->text());
    updateMatchLabel();
}

void MainWindow::updateMatchLabel()
{
    const widgets::TimelineSearch& s = m_timeline->search();
    if (s.query().isEmpty())
        m_matchLabel->clear();
    else if (s.count() == 0)
        m_matchLabel->setText(tr("no matches"));
    else if (s.currentIndex() < 0)
        m_matchLabel->setText(tr("%n match(es)", nullptr, static_cast<int>(s.count())));
    else
        m_matchLabel->setText(tr("%1 of %2").arg(s.currentIndex() + 1).arg(s.count()));
}

void MainWindow::showShortcuts()
{
    showShortcutsDialog(this,
                        {m_openAction, m_openFolderAction, m_exportReportAction, m_exportTraceAction, m_quitAction,
                         m_zoomInAction, m_zoomOutAction, m_panLeftAction, m_panRightAction, m_fitAction,
                         m_zoomSelectionAction, m_findAction, m_findNextAction, m_findPreviousAction,
                         m_shortcutsAction});
}

void MainWindow::showAbout()
{
    QMessageBox::about(
        this, tr("About Timesink"),
        tr("<h3>Timesink %1</h3><p>Finds where ML training and inference time is lost on GPUs and "
           "NPUs.</p><p>Built with Qt %2, running on Qt %3.</p>")
            .arg(QStringLiteral(TIMESINK_VERSION), QStringLiteral(QT_VERSION_STR), QString::fromLatin1(qVersion())));
}

void MainWindow::setDarkPalette(bool dark)
{
    m_darkAction->setChecked(dark);
    applyTheme(dark);
}

} // namespace timesink::gui
