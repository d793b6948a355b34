// SPDX-License-Identifier: MIT
#include "app/gui/jobwindow.h"

#include "analysis/job/jobcompare.h"
#include "app/gui/backgroundtask.h"
#include "app/gui/compareexport.h"
#include "app/gui/mainwindow.h"
#include "app/gui/traceloadjob.h"
#include "report/job/rankreportreader.h"
#include "report/reportoutput.h"
#include "widgets/compareview.h"
#include "widgets/jobcompareview.h"
#include "widgets/joboverview.h"

#include <QAction>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>
#include <QTimer>

namespace timesink::gui {

JobWindow::JobWindow(QWidget* parent)
    : QMainWindow(parent)
    , m_cancel(std::make_shared<std::atomic<bool>>(false))
    , m_done(std::make_shared<std::atomic<std::size_t>>(0))
    , m_compareCancel(std::make_shared<std::atomic<bool>>(false))
{
    setWindowTitle(tr("Job — Timesink"));
    m_overview = new widgets::JobOverview(this);
    setCentralWidget(m_overview);
    m_status = new QLabel(this);
    statusBar()->addWidget(m_status, 1);
    m_progressTimer = new QTimer(this);
    m_progressTimer->setInterval(200);
    connect(m_progressTimer, &QTimer::timeout, this,
            [this] { m_status->setText(tr("Analysing ranks: %1 of %2 done…").arg(m_done->load()).arg(m_total)); });
    connect(&m_watcher, &QFutureWatcher<app::JobRun>::finished, this, &JobWindow::onFinished);
    connect(&m_compareWatcher, &QFutureWatcher<app::JobRun>::finished, this, &JobWindow::onCompareFinished);
    QMenu* file = menuBar()->addMenu(tr("&File"));
    auto* compareJob = file->addAction(tr("Compare With &Job…"));
    compareJob->setObjectName(QStringLiteral("actionCompareWithJob"));
    compareJob->setToolTip(tr("This job as the baseline against another folder of ranks or rank reports"));
    connect(compareJob, &QAction::triggered, this, [this] {
        const QString path = QFileDialog::getExistingDirectory(this, tr("Compare With Job"));
        if (!path.isEmpty())
            compareWithJob(path);
    });
    file->addSeparator();
    auto* close = file->addAction(tr("&Close"));
    close->setShortcut(QKeySequence::Close);
    connect(close, &QAction::triggered, this, &QWidget::close);
    connect(m_overview, &widgets::JobOverview::rankActivated, this, &JobWindow::openRank);
    connect(m_overview, &widgets::JobOverview::compareRequested, this, &JobWindow::compareRanks);
    m_openTimeline = [this](const QString& path, double startMs, double endMs) {
        auto* window = new MainWindow;
        window->setAttribute(Qt::WA_DeleteOnClose);
        window->resize(size());
        window->show();
        if (startMs >= 0 && endMs > startMs)
            window->setInitialView(startMs, endMs);
        window->openPath(path);
    };
    resize(1100, 800);
}

JobWindow::~JobWindow()
{
    m_cancel->store(true);
    m_compareCancel->store(true);
    m_watcher.waitForFinished();
    m_compareWatcher.waitForFinished();
}

bool JobWindow::start(const QStringList& paths, QString& error)
{
    std::vector<std::filesystem::path> fsPaths;
    for (const QString& p : paths)
        fsPaths.emplace_back(p.toStdString());
    std::vector<app::JobInput> inputs;
    std::string message;
    app::JobRunOptions options;
    // What a folder held besides the ranks is named in the job's warnings (the overview's banner).
    if (!app::collectJobInputs(fsPaths, inputs, message, &options.inputWarnings)) {
        error = QString::fromStdString(message);
        return false;
    }
    m_paths = paths;
    m_total = inputs.size();
    m_done->store(0);
    m_cancel->store(false);
    setWindowTitle(tr("Job %1 — Timesink").arg(QFileInfo(paths.value(0)).fileName()));
    options.generator = "timesink " TIMESINK_VERSION;
    auto cancel = m_cancel;
    auto done = m_done;
    app::tuneAllocatorForJobs();
    m_watcher.setFuture(runInBackground(
        [inputs = std::move(inputs), options, cancel, done] {
            return app::runJob(inputs, options, cancel.get(), [done](std::size_t n, std::size_t) { done->store(n); });
        },
        [](const QString& message) {
            app::JobRun failed; // out of memory in a rank's analysis: the job stops and says why
            failed.errors.push_back(message.toStdString());
            return failed;
        }));
    m_progressTimer->start();
    m_status->setText(tr("Analysing %1 ranks…").arg(m_total));
    return true;
}

void JobWindow::onFinished()
{
    m_progressTimer->stop();
    const app::JobRun run = m_watcher.result();
    if (run.cancelled)
        return;
    QStringList errors;
    for (const std::string& e : run.errors)
        errors << QString::fromStdString(e);
    m_overview->setJob(run.result);
    m_status->setText(
        errors.isEmpty()
            ? tr("%1 ranks analysed").arg(run.result.ranks.size())
            : tr("%1 of the ranks could not be read: %2").arg(errors.size()).arg(errors.join(QStringLiteral("; "))));
    emit jobReady(errors);
}

void JobWindow::openRank(int rankIndex, qint64 step)
{
    const auto& ranks = m_overview->job().ranks;
    if (rankIndex < 0 || rankIndex >= int(ranks.size()))
        return;
    const analysis::JobRank& rank = ranks[std::size_t(rankIndex)];
    const QString source = QString::fromStdString(rank.source);
    // The trace: the input itself, or for a rank merged from a report the trace that report was written from.
    QString trace = QString::fromStdString(rank.tracePath);
    if (trace.isEmpty() && !report::looksLikeReportJson(rank.source))
        trace = source;
    if (trace.isEmpty() || !QFileInfo::exists(trace)) {
        const QString text = trace.isEmpty()
            ? tr("Rank %1 came from the report %2, which does not say where its trace is.").arg(rank.rank).arg(source)
            : tr("Rank %1 came from the report %2; its trace was %3, which is not on this machine. Copy it here "
                 "and open it with File → Open.")
                  .arg(rank.rank)
                  .arg(source, trace);
        m_status->setText(text);
        if (m_showMessages)
            QMessageBox::information(this, tr("Open rank"), text);
        return;
    }
    double startMs = -1;
    double endMs = -1;
    for (const analysis::JobRankStep& s : rank.steps) {
        if (s.number == step) {
            startMs = double(s.startNs - rank.traceStartNs) / 1e6;
            endMs = startMs + double(s.durationNs) / 1e6;
        }
    }
    m_status->setText(step >= 0 && startMs >= 0
                          ? tr("Opening rank %1 at step %2: %3").arg(rank.rank).arg(step).arg(trace)
                          : tr("Opening rank %1: %2").arg(rank.rank).arg(trace));
    m_openTimeline(trace, startMs, endMs);
}

void JobWindow::compareRanks(int firstRankIndex, int secondRankIndex)
{
    const auto& ranks = m_overview->job().ranks;
    if (firstRankIndex < 0 || secondRankIndex < 0 || firstRankIndex >= int(ranks.size())
        || secondRankIndex >= int(ranks.size()))
        return;
    const QString first = QString::fromStdString(ranks[std::size_t(firstRankIndex)].source);
    const QString second = QString::fromStdString(ranks[std::size_t(secondRankIndex)].source);
    delete m_first;
    delete m_second;
    m_first = new TraceLoadJob(this);
    m_second = new TraceLoadJob(this);
    auto outcomes
        = std::make_shared<std::pair<std::optional<TraceLoadJob::Outcome>, std::optional<TraceLoadJob::Outcome>>>();
    auto tryOpen = [this, outcomes] {
        if (!outcomes->first || !outcomes->second)
            return;
        const TraceLoadJob::Outcome& a = *outcomes->first;
        const TraceLoadJob::Outcome& b = *outcomes->second;
        if (!a.loaded.trace || !b.loaded.trace) {
            m_status->setText(tr("Cannot compare: %1").arg(a.loaded.trace ? b.error : a.error));
            return;
        }
        auto* view = new widgets::CompareView;
        view->setAttribute(Qt::WA_DeleteOnClose);
        view->setSourcePaths(a.loaded.path, b.loaded.path);
        QString error;
        if (!view->setRuns(a.loaded.trace, a.loaded.analysis.findings, b.loaded.trace, b.loaded.analysis.findings, {},
                           error)) {
            delete view;
            m_status->setText(tr("Cannot compare: %1").arg(error));
            return;
        }
        view->setWindowTitle(tr("Compare %1 ↔ %2 — Timesink")
                                 .arg(QFileInfo(a.loaded.path).fileName(), QFileInfo(b.loaded.path).fileName()));
        view->resize(size());
        view->show();
        m_lastCompare = view;
        connect(view, &QObject::destroyed, this, [this, view] {
            if (m_lastCompare == view)
                m_lastCompare = nullptr;
        });
        m_status->setText(tr("Comparing two ranks"));
    };
    connect(m_first, &TraceLoadJob::finished, this, [outcomes, tryOpen](const TraceLoadJob::Outcome& o) {
        outcomes->first = o;
        tryOpen();
    });
    connect(m_second, &TraceLoadJob::finished, this, [outcomes, tryOpen](const TraceLoadJob::Outcome& o) {
        outcomes->second = o;
        tryOpen();
    });
    m_status->setText(tr("Loading two ranks to compare…"));
    m_first->start(first);
    m_second->start(second);
}

void JobWindow::reportCompareError(const QString& text)
{
    m_status->setText(text);
    if (m_showMessages)
        QMessageBox::warning(this, tr("Compare jobs"), text);
}

bool JobWindow::compareWithJob(const QString& path)
{
    if (m_watcher.isRunning() || m_overview->job().ranks.empty()) {
        reportCompareError(tr("Cannot compare with %1: this job has no ranks analysed yet.").arg(path));
        return false;
    }
    if (m_compareWatcher.isRunning()) {
        reportCompareError(
            tr("Cannot compare with %1: the comparison with %2 is still running.").arg(path, m_comparePath));
        return false;
    }
    const std::filesystem::path fsPath(QFile::encodeName(path).toStdString());
    std::vector<app::JobInput> inputs;
    std::string message;
    app::JobRunOptions options;
    // What the folder held besides the ranks: as `timesink-cli compare` does, named but not fatal.
    if (!app::collectJobInputs({fsPath}, inputs, message, &options.inputWarnings)) {
        reportCompareError(tr("Cannot compare with %1: %2").arg(path, QString::fromStdString(message)));
        return false;
    }
    if (!app::isJobFolder(fsPath)) {
        reportCompareError(tr("Cannot compare with %1: it is not a job (a folder with two or more ranks or rank "
                              "reports); compare one run with another from the viewer's File → Compare With…")
                               .arg(path));
        return false;
    }
    m_comparePath = path;
    const std::size_t ranks = inputs.size();
    m_compareCancel->store(false);
    options.generator = "timesink " TIMESINK_VERSION;
    auto cancel = m_compareCancel;
    app::tuneAllocatorForJobs();
    m_compareWatcher.setFuture(runInBackground(
        [inputs = std::move(inputs), options, cancel] { return app::runJob(inputs, options, cancel.get()); },
        [](const QString& failure) {
            app::JobRun failed;
            failed.errors.push_back(failure.toStdString());
            return failed;
        }));
    m_status->setText(tr("Analysing %1 ranks of %2 to compare…").arg(ranks).arg(path));
    return true;
}

void JobWindow::onCompareFinished()
{
    const app::JobRun run = m_compareWatcher.result();
    if (run.cancelled)
        return;
    if (!run.errors.empty() || run.result.ranks.empty()) {
        QStringList errors;
        for (const std::string& e : run.errors)
            errors << QString::fromStdString(e);
        reportCompareError(
            errors.isEmpty()
                ? tr("Cannot compare with %1: no rank of it could be analysed.").arg(m_comparePath)
                : tr("Cannot compare with %1: %n rank(s) could not be read: %2", nullptr, int(errors.size()))
                      .arg(m_comparePath, errors.join(QStringLiteral("; "))));
        return;
    }
    auto* view = new widgets::JobCompareView;
    view->setAttribute(Qt::WA_DeleteOnClose);
    view->setResult(analysis::compareJobs(m_overview->job(), run.result), m_paths.join(QStringLiteral(", ")),
                    m_comparePath);
    // File → Export… must write over none of what the two jobs were read from: their folders and rank files.
    QStringList inputs = m_paths;
    inputs << m_comparePath;
    for (const analysis::JobResult* job : {&m_overview->job(), &run.result}) {
        for (const auto& rank : job->ranks)
            inputs << QString::fromStdString(rank.source);
    }
    view->setInputPaths(inputs);
    addJobCompareExport(view);
    view->setWindowTitle(tr("Compare jobs %1 ↔ %2 — Timesink")
                             .arg(QFileInfo(m_paths.value(0)).fileName(), QFileInfo(m_comparePath).fileName()));
    view->resize(size());
    view->show();
    m_lastJobCompare = view;
    connect(view, &QObject::destroyed, this, [this, view] {
        if (m_lastJobCompare == view)
            m_lastJobCompare = nullptr;
    });
    m_status->setText(tr("Compared with %1 (%2 ranks)").arg(m_comparePath).arg(run.result.ranks.size()));
}

} // namespace timesink::gui
