// SPDX-License-Identifier: MIT
// File → Export Report… and Export Trace… in the main window: enabled only with a trace, writing the formats
// the report layer writes, and telling the user when a file cannot be written.
#include "app/gui/mainwindow.h"
#include "reportfixture.h"
#include "tests/exporters/perfettodecoder.h"

#include <QAction>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace timesink;

namespace {

QByteArray readFile(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class TestGuiExport : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName(QStringLiteral("timesink-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_guiexport"));
    }

    void actionsFollowTheShownTrace()
    {
        gui::MainWindow window;
        auto* report = window.findChild<QAction*>(QStringLiteral("actionExportReport"));
        auto* trace = window.findChild<QAction*>(QStringLiteral("actionExportTrace"));
        QVERIFY(report);
        QVERIFY(trace);
        QVERIFY(!report->isEnabled());
        QVERIFY(!trace->isEnabled());
        QVERIFY(!window.exportReportTo(QStringLiteral("/tmp/never.html")).isEmpty());

        const auto a = testing::makeAnalysedTrace();
        gui::LoadedTrace loaded;
        loaded.trace = a.trace;
        loaded.analysis = a.result;
        loaded.path = QStringLiteral("/data/run1/trace.json");
        window.showTrace(std::move(loaded));
        QVERIFY(report->isEnabled());
        QVERIFY(trace->isEnabled());
    }

    void exportsReportAndTrace()
    {
        gui::MainWindow window;
        const auto a = testing::makeAnalysedTrace();
        QTemporaryDir dir;
        const QString input = dir.filePath(QStringLiteral("trace.json"));
        {
            QFile f(input);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("{}");
        }
        gui::LoadedTrace loaded;
        loaded.trace = a.trace;
        loaded.analysis = a.result;
        loaded.path = input;
        window.showTrace(std::move(loaded));

        QCOMPARE(window.exportReportTo(dir.filePath(QStringLiteral("r.html"))), QString());
        QVERIFY(readFile(dir.filePath(QStringLiteral("r.html"))).startsWith("<!DOCTYPE html>"));
        QCOMPARE(window.exportReportTo(dir.filePath(QStringLiteral("r.md"))), QString());
        QVERIFY(readFile(dir.filePath(QStringLiteral("r.md"))).contains("| 1 | dataloader\\_starvation |"));

        QCOMPARE(window.exportTraceTo(dir.filePath(QStringLiteral("t.pftrace"))), QString());
        const testing::Decoded d = testing::decode(readFile(dir.filePath(QStringLiteral("t.pftrace"))).toStdString());
        QVERIFY2(d.error.empty(), d.error.c_str());
        QCOMPARE(d.slices.size(), a.trace->sliceCount() + 4); // + the findings' evidence ranges

        // Refusals come back as messages for the user; the trace's own file is never replaced.
        QVERIFY(window.exportReportTo(input).contains(QStringLiteral("refusing to overwrite the input")));
        QVERIFY(window.exportTraceTo(dir.filePath(QStringLiteral("t.txt"))).contains(QStringLiteral(".pftrace")));
        QVERIFY(window.exportReportTo(dir.filePath(QStringLiteral("no/dir/r.html")))
                    .contains(QStringLiteral("cannot create")));
        QCOMPARE(readFile(input), QByteArray("{}"));
    }
};

QTEST_MAIN(TestGuiExport)
#include "tst_guiexport.moc"
