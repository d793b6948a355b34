// SPDX-License-Identifier: MIT
// Issue #17: how long the window takes to show a trace's timeline, and its findings, through the same load job,
// window, event loop and painter the application uses. Prints one line: "timeline S findings S ui-stall MS" (seconds
// from openPath() to the first paint of the timeline's viewport once the trace is in it, and to the findings, for
// floor_bench.sh to set against `timesink-cli info`; the longest the window did not answer meanwhile, in ms).
//
// Usage: bench_gui_open TRACE   (QT_QPA_PLATFORM=offscreen; XDG_CONFIG_HOME and XDG_CACHE_HOME pointing to scratch
// folders: the snapshot cache is switched off in the settings there, so every run imports the source)
//        bench_gui_open TRACE --frames
//   also times, at full zoom-out, one paint of the timeline after each interaction (issue 35: ≤ 50 ms a frame at
//   10 GB): 8 zoom steps in and 8 out (the W/S keys' factor), 8 pans (A/D) at 2× zoom, and a search ("aten::mul", a
//   name on one operator in ten) with the paint of its highlighted matches; appends "frames N median MS max MS
//   search MS matches K search-frame MS" to the line (ms; "search" is the query itself, once per Enter).
//        bench_gui_open TRACE --scroll-end [SHOT.png]
//   also shows the Tracks list, scrolls it and the timeline to their last rows and times one paint of each
//   (issue 35: a trace of 100,000s of tracks); appends "tracks-end MS timeline-end MS" to the line and, given a
//   file name, saves the window as it is then.

#include "app/gui/mainwindow.h"
#include "app/gui/snapshotcacheui.h"
#include "widgets/timelineview.h"
#include "widgets/trackspanel.h"

#include <QApplication>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QEvent>
#include <QScrollBar>
#include <QTimer>
#include <QTreeView>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <vector>

using namespace timesink;

namespace {

/// Notes the time of the viewport's first paint after arm() (the paint the user sees).
class PaintWatch : public QObject
{
public:
    PaintWatch(const QElapsedTimer& clock, double& at)
        : m_clock(clock)
        , m_at(at)
    {
    }
    void arm() { m_armed = true; }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override
    {
        if (m_armed && m_at < 0 && event->type() == QEvent::Paint)
            m_at = static_cast<double>(m_clock.nsecsElapsed()) / 1e9;
        return QObject::eventFilter(watched, event);
    }

private:
    const QElapsedTimer& m_clock;
    double& m_at;
    bool m_armed = false;
};

} // namespace

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("Timesink"));
    QApplication::setApplicationName(QStringLiteral("TimesinkBench"));
    const bool scrollEnd = argc >= 3 && QByteArray(argv[2]) == "--scroll-end";
    const bool frames = argc == 3 && QByteArray(argv[2]) == "--frames";
    if (argc != 2 && !(scrollEnd && argc <= 4) && !frames) {
        std::fprintf(stderr, "usage: bench_gui_open TRACE [--frames | --scroll-end [SHOT.png]]\n");
        return 2;
    }
    gui::setSnapshotCacheCapacityMB(0);
    gui::MainWindow window;
    window.resize(1600, 1000);
    window.show();
    QElapsedTimer clock;
    double timelineS = -1;
    double findingsS = -1;
    QString error;
    PaintWatch watch(clock, timelineS);
    window.timeline()->viewport()->installEventFilter(&watch);
    // The trace reaches the timeline (setTrace() says so before anything is painted); the first paint after that
    // is what the user sees, wherever the window triggers it.
    QObject::connect(window.timeline(), &widgets::TimelineView::traceChanged, &window, [&] { watch.arm(); });
    QObject::connect(&window.loadJob(), &gui::TraceLoadJob::finished, &window,
                     [&](const gui::TraceLoadJob::Outcome& outcome) {
                         findingsS = static_cast<double>(clock.nsecsElapsed()) / 1e9;
                         if (!outcome.loaded.trace)
                             error = outcome.cancelled ? QStringLiteral("cancelled") : outcome.error;
                         QApplication::quit();
                     });
    window.setErrorReporter([](const QString&, const QString&) {});
    // The longest the UI thread did not get to its event loop between openPath() and the findings: a 5 ms timer's
    // longest gap between two ticks, less the 5 ms (what a user feels as a frozen window).
    QTimer heartbeat;
    heartbeat.setInterval(5);
    double lastTickMs = 0;
    double stallMs = 0;
    QObject::connect(&heartbeat, &QTimer::timeout, &window, [&] {
        const double now = static_cast<double>(clock.nsecsElapsed()) / 1e6;
        stallMs = std::max(stallMs, now - lastTickMs - 5.0);
        lastTickMs = now;
    });
    clock.start();
    heartbeat.start();
    window.openPath(QString::fromLocal8Bit(argv[1]));
    QApplication::exec();
    heartbeat.stop();
    if (!error.isEmpty() || timelineS < 0) {
        std::fprintf(stderr, "bench_gui_open: %s\n",
                     qPrintable(error.isEmpty() ? QStringLiteral("no timeline") : error));
        return 1;
    }
    if (frames) {
        widgets::TimelineView* timeline = window.timeline();
        QElapsedTimer paint;
        // One interaction, then the paint it causes (grab() paints now); milliseconds of both together.
        const auto frame = [&](const std::function<void()>& interact) {
            paint.restart();
            interact();
            (void)timeline->viewport()->grab();
            return static_cast<double>(paint.nsecsElapsed()) / 1e6;
        };
        std::vector<double> ms;
        ms.push_back(frame([&] { timeline->fitAll(); }));
        for (int i = 0; i < 8; ++i)
            ms.push_back(frame([&] { timeline->zoomBy(1.5); }));
        for (int i = 0; i < 8; ++i)
            ms.push_back(frame([&] { timeline->zoomBy(1.0 / 1.5); }));
        timeline->fitAll();
        timeline->zoomBy(2.0);
        for (int i = 0; i < 8; ++i)
            ms.push_back(frame([&] { timeline->panBy(i < 4 ? 0.15 : -0.15); }));
        timeline->fitAll();
        (void)timeline->viewport()->grab();
        std::size_t matches = 0;
        paint.restart();
        matches = timeline->setSearchQuery(QStringLiteral("aten::mul"));
        const double searchMs = static_cast<double>(paint.nsecsElapsed()) / 1e6;
        const double searchFrameMs = frame([] {});
        std::vector<double> sorted = ms;
        std::sort(sorted.begin(), sorted.end());
        std::printf("timeline %.3f findings %.3f ui-stall %.0f frames %zu median %.1f max %.1f search %.1f matches %zu "
                    "search-frame %.1f\n",
                    timelineS, findingsS, stallMs, ms.size(), sorted[sorted.size() / 2], sorted.back(), searchMs,
                    matches, searchFrameMs);
        return 0;
    }
    if (!scrollEnd) {
        std::printf("timeline %.3f findings %.3f ui-stall %.0f\n", timelineS, findingsS, stallMs);
        return 0;
    }
    // The Tracks list brought to front, then each view scrolled to its end and painted once.
    if (auto* dock = qobject_cast<QDockWidget*>(window.tracksPanel()->parentWidget()))
        dock->raise();
    QApplication::processEvents();
    QTreeView* tree = window.tracksPanel()->tree();
    QElapsedTimer paint;
    paint.start();
    tree->scrollToBottom();
    // grab() paints now, whether or not the window system has exposed the window yet (repaint() may not).
    (void)tree->viewport()->grab();
    const double treeMs = static_cast<double>(paint.nsecsElapsed()) / 1e6;
    widgets::TimelineView* timeline = window.timeline();
    paint.restart();
    timeline->verticalScrollBar()->setValue(timeline->verticalScrollBar()->maximum());
    (void)timeline->viewport()->grab();
    const double timelineMs = static_cast<double>(paint.nsecsElapsed()) / 1e6;
    std::printf("timeline %.3f findings %.3f tracks-end %.1f timeline-end %.1f\n", timelineS, findingsS, treeMs,
                timelineMs);
    if (argc == 4 && !window.grab().save(QString::fromLocal8Bit(argv[3]))) {
        std::fprintf(stderr, "bench_gui_open: cannot write %s\n", argv[3]);
        return 1;
    }
    return 0;
}
