// SPDX-License-Identifier: MIT
// timesink-job-screenshots OUTDIR NAME PATH... [--compare-with JOB]: opens the ranks under PATH... in the job window
// and has ImageMagick's `import -window root` photograph the X screen: NAME-overview.png (heat map scrolled to the
// straggler, findings with the first one's details, ranks) and NAME-lanes.png (the rank lanes of the slowest step,
// sorted by the wait each rank caused); with --compare-with, NAME-compare.png (File → Compare With Job… on JOB). Run
// under Xvfb (scripts/screenshots does the other scenes of docs/gui.md). Not a test: the behaviour is tested in
// tests/job/tst_jobwindow.cpp. It prints how long the window took from start() to the job shown and painted.
#include "app/gui/jobwindow.h"
#include "widgets/jobcompareview.h"
#include "widgets/joblanes.h"
#include "widgets/joblinkmap.h"
#include "widgets/joboverview.h"

#include <QApplication>
#include <QComboBox>
#include <QElapsedTimer>
#include <QLabel>
#include <QProcess>
#include <QScreen>
#include <QScrollArea>
#include <QTabWidget>
#include <QTableWidget>
#include <QThread>

#include <cstdio>

using namespace timesink;

namespace {

void settle(int ms)
{
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < ms) {
        QApplication::processEvents(QEventLoop::AllEvents, 50);
        QThread::msleep(20);
    }
}

void shoot(const QString& path)
{
    settle(800);
    const int rc
        = QProcess::execute(QStringLiteral("import"), {QStringLiteral("-window"), QStringLiteral("root"), path});
    std::printf("%s %s\n", rc == 0 ? "wrote" : "FAILED", qPrintable(path));
}

} // namespace

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    if (argc < 4) {
        std::fprintf(stderr, "usage: timesink-job-screenshots OUTDIR NAME PATH... [--compare-with JOB]\n");
        return 1;
    }
    const QString out = QString::fromLocal8Bit(argv[1]);
    const QString name = QString::fromLocal8Bit(argv[2]);
    QStringList paths;
    QString compareWith;
    for (int i = 3; i < argc; ++i) {
        if (QString::fromLocal8Bit(argv[i]) == QStringLiteral("--compare-with") && i + 1 < argc)
            compareWith = QString::fromLocal8Bit(argv[++i]);
        else
            paths << QString::fromLocal8Bit(argv[i]);
    }
    gui::JobWindow window;
    window.setGeometry(QGuiApplication::primaryScreen()->geometry());
    QElapsedTimer clock;
    clock.start();
    bool ready = false;
    QObject::connect(&window, &gui::JobWindow::jobReady, &window, [&ready] { ready = true; });
    QString error;
    if (!window.start(paths, error)) {
        std::fprintf(stderr, "%s\n", qPrintable(error));
        return 2;
    }
    window.show();
    while (!ready && clock.elapsed() < 600'000)
        QApplication::processEvents(QEventLoop::AllEvents, 20);
    window.repaint();
    std::printf("%s: %zu ranks shown and painted %lld ms after start\n", qPrintable(name),
                window.overview()->job().ranks.size(), static_cast<long long>(clock.elapsed()));
    // The overview: the heat map scrolled to the first straggler's row when there is one.
    widgets::JobOverview* o = window.overview();
    o->tabs()->setCurrentIndex(0);
    settle(300);
    for (std::size_t r = 0; r < o->job().ranks.size(); ++r) {
        if (!o->heatMap()->isStraggler(r))
            continue;
        if (auto* scroll = qobject_cast<QScrollArea*>(o->heatMap()->parentWidget()->parentWidget())) {
            const QRect cell = o->heatMap()->cellRect(int(r), 0);
            scroll->ensureVisible(cell.center().x(), cell.center().y(), 20, 120);
        }
        break;
    }
    shoot(out + QLatin1Char('/') + name + QStringLiteral("-overview.png"));
    // The lanes of the slowest step, the ranks that cost the others most on top.
    o->tabs()->setCurrentIndex(2);
    o->lanes()->sortBox()->setCurrentIndex(3);
    shoot(out + QLatin1Char('/') + name + QStringLiteral("-lanes.png"));
    // The rank-pair link matrix, where the ranks' profiles have one (Ascend communication_matrix.json).
    if (o->linkMap()->hasLinks()) {
        o->tabs()->setCurrentIndex(3);
        shoot(out + QLatin1Char('/') + name + QStringLiteral("-links.png"));
    }
    if (compareWith.isEmpty())
        return 0;
    window.setShowMessages(false);
    if (!window.compareWithJob(compareWith)) {
        std::fprintf(stderr, "%s\n", qPrintable(window.statusLabel()->text()));
        return 2;
    }
    while (!window.lastJobCompareView() && clock.elapsed() < 600'000) {
        QApplication::processEvents(QEventLoop::AllEvents, 20);
        if (!window.isComparing() && !window.lastJobCompareView()
            && window.statusLabel()->text().startsWith(QStringLiteral("Cannot"))) {
            std::fprintf(stderr, "%s\n", qPrintable(window.statusLabel()->text()));
            return 2;
        }
    }
    if (widgets::JobCompareView* compare = window.lastJobCompareView()) {
        compare->setGeometry(QGuiApplication::primaryScreen()->geometry());
        compare->raise();
        compare->activateWindow();
        shoot(out + QLatin1Char('/') + name + QStringLiteral("-compare.png"));
    }
    return 0;
}
