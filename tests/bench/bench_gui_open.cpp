// SPDX-License-Identifier: MIT
// Issue #17: how long the window takes to show a trace's timeline, and its findings, through the same load job,
// window and painter the application uses. Prints one line: "timeline S findings S" (seconds from openPath() to the
// first paint of the timeline, and to the findings), for floor_bench.sh to set against `timesink-cli info`.
//
// Usage: bench_gui_open TRACE   (QT_QPA_PLATFORM=offscreen; XDG_CONFIG_HOME and XDG_CACHE_HOME pointing to scratch
// folders: the snapshot cache is switched off in the settings there, so every run imports the source)

#include "app/gui/mainwindow.h"
#include "app/gui/snapshotcacheui.h"
#include "widgets/timelineview.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QPixmap>

#include <cstdio>

using namespace timesink;

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("Timesink"));
    QApplication::setApplicationName(QStringLiteral("TimesinkBench"));
    if (argc != 2) {
        std::fprintf(stderr, "usage: bench_gui_open TRACE\n");
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
    // Connected after the window's own slots, so these run once the window has taken the trace.
    QObject::connect(&window.loadJob(), &gui::TraceLoadJob::imported, &window, [&] {
        (void)window.timeline()->viewport()->grab(); // paints the timeline now, as the next frame would
        timelineS = static_cast<double>(clock.nsecsElapsed()) / 1e9;
    });
    QObject::connect(&window.loadJob(), &gui::TraceLoadJob::finished, &window,
                     [&](const gui::TraceLoadJob::Outcome& outcome) {
                         findingsS = static_cast<double>(clock.nsecsElapsed()) / 1e9;
                         if (!outcome.loaded.trace)
                             error = outcome.cancelled ? QStringLiteral("cancelled") : outcome.error;
                         QApplication::quit();
                     });
    window.setErrorReporter([](const QString&, const QString&) {});
    clock.start();
    window.openPath(QString::fromLocal8Bit(argv[1]));
    QApplication::exec();
    if (!error.isEmpty() || timelineS < 0) {
        std::fprintf(stderr, "bench_gui_open: %s\n",
                     qPrintable(error.isEmpty() ? QStringLiteral("no timeline") : error));
        return 1;
    }
    std::printf("timeline %.3f findings %.3f\n", timelineS, findingsS);
    return 0;
}
