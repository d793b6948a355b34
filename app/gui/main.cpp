// SPDX-License-Identifier: MIT
#include "app/gui/mainwindow.h"

#include <QApplication>
#include <QCommandLineParser>

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("Timesink"));
    QApplication::setApplicationName(QStringLiteral("Timesink"));
    QApplication::setApplicationVersion(QStringLiteral(TIMESINK_VERSION));
    QApplication::setDesktopFileName(QStringLiteral("timesink"));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Find where ML training and inference time is lost."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("trace"),
                                 QStringLiteral("Trace file or bundle folder to open (Kineto JSON, Ascend "
                                                "*_ascend_pt/ or PROF_*/ folder, RKNN perf table)."));
    parser.process(app);

    timesink::gui::MainWindow window;
    window.show();
    const QStringList files = parser.positionalArguments();
    if (!files.isEmpty())
        window.openPath(files.first());
    return QApplication::exec();
}
