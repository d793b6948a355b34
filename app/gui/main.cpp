// SPDX-License-Identifier: MIT
#include "app/gui/mainwindow.h"
#include "parsers/registry/traceloader.h"

#include <QApplication>
#include <QCommandLineParser>

#include <cstdio>

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
                                 QStringLiteral("Trace file or profiler output folder to open: %1.")
                                     .arg(QString::fromStdString(timesink::parsers::supportedFormatsSentence())));
    const QCommandLineOption view(QStringLiteral("view"),
                                  QStringLiteral("Show this time range after loading, in ms from the trace start."),
                                  QStringLiteral("START:END"));
    const QCommandLineOption finding(QStringLiteral("finding"),
                                     QStringLiteral("Select the finding ranked N (from 1) after loading."),
                                     QStringLiteral("N"));
    const QCommandLineOption dark(QStringLiteral("dark"), QStringLiteral("Use the dark palette."));
    parser.addOption(view);
    parser.addOption(finding);
    parser.addOption(dark);
    parser.process(app);

    timesink::gui::MainWindow window;
    if (parser.isSet(dark))
        window.setDarkPalette(true);
    if (parser.isSet(view)) {
        const QStringList parts = parser.value(view).split(QLatin1Char(':'));
        bool okStart = false;
        bool okEnd = false;
        const double start = parts.value(0).toDouble(&okStart);
        const double end = parts.value(1).toDouble(&okEnd);
        if (parts.size() != 2 || !okStart || !okEnd || end <= start) {
            std::fprintf(stderr, "timesink: --view expects START:END in ms, e.g. --view 120:135\n");
            return 2;
        }
        window.setInitialView(start, end);
    }
    if (parser.isSet(finding)) {
        bool ok = false;
        const int n = parser.value(finding).toInt(&ok);
        if (!ok || n < 1) {
            std::fprintf(stderr, "timesink: --finding expects a rank from 1\n");
            return 2;
        }
        window.setInitialFinding(n - 1);
    }
    window.show();
    const QStringList files = parser.positionalArguments();
    if (!files.isEmpty())
        window.openPath(files.first());
    return QApplication::exec();
}
