// SPDX-License-Identifier: MIT
// Issue 12: the GUI shows what the importer knows. A truncated Kineto capture opened in the main window shows a
// banner above the timeline naming the cut; View → Import Warnings lists every warning with its count.
#include "app/gui/mainwindow.h"
#include "parsers/registry/traceloader.h"
#include "widgets/importwarnings.h"

#include <QAction>
#include <QFile>
#include <QMenu>
#include <QMenuBar>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include <zlib.h>

using namespace timesink;

namespace {

QByteArray gunzip(const QString& path)
{
    gzFile f = gzopen(path.toLocal8Bit().constData(), "rb");
    QByteArray out;
    char buf[1 << 16];
    for (int n; f && (n = gzread(f, buf, sizeof buf)) > 0;)
        out.append(buf, n);
    if (f)
        gzclose(f);
    return out;
}

QAction* findAction(QMainWindow& w, const QString& objectName)
{
    for (QAction* a : w.findChildren<QAction*>()) {
        if (a->objectName() == objectName)
            return a;
    }
    return nullptr;
}

} // namespace

class TestImportWarnings : public QObject
{
    Q_OBJECT
private slots:
    void truncatedTraceShowsBannerAndList()
    {
        // The first 40% of a real Kineto trace: the importer keeps the events before the cut and says so.
        const QByteArray full
            = gunzip(QStringLiteral(TIMESINK_FIXTURES_DIR "/torch/hta_a100_cuda_event_sync_trace.json.gz"));
        QVERIFY(full.size() > 10000);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("cut.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(full.left(full.size() * 2 / 5));
        f.close();
        parsers::ProgressSink progress;
        const parsers::ImportResult r = parsers::loadTrace(path.toStdString(), {}, progress);
        QVERIFY2(r.ok(), r.status().message().c_str());

        gui::MainWindow w;
        w.resize(1400, 800);
        w.show();
        auto* banner = w.findChild<widgets::ImportWarningsBanner*>();
        QVERIFY(banner);
        QVERIFY(!banner->isVisible());
        w.showTrace(gui::LoadedTrace {r.value(), {}, std::nullopt, path});
        QVERIFY(banner->isVisible());
        QVERIFY2(banner->text().contains(QStringLiteral("Truncated")), qPrintable(banner->text()));
        QVERIFY(banner->text().contains(QStringLiteral("events")));

        std::uint64_t total = 0;
        for (const model::ImportWarning& warning : r.value()->warnings())
            total += warning.count;
        QAction* action = findAction(w, QStringLiteral("importWarningsAction"));
        QVERIFY(action);
        QVERIFY2(action->text().contains(QString::number(total)), qPrintable(action->text()));
        // It is in the View menu.
        bool inView = false;
        for (QAction* menu : w.menuBar()->actions()) {
            if (menu->menu() && menu->text().remove(QLatin1Char('&')) == QStringLiteral("View"))
                inView = menu->menu()->actions().contains(action);
        }
        QVERIFY(inView);

        action->trigger();
        auto* dialog = w.findChild<widgets::ImportWarningsDialog*>();
        QVERIFY(dialog);
        QTRY_VERIFY(dialog->isVisible());
        QTableWidget* table = dialog->table();
        QCOMPARE(table->rowCount(), static_cast<int>(r.value()->warnings().size()));
        QCOMPARE(table->item(0, 0)->text(), QStringLiteral("truncated")); // serious ones first
        std::uint64_t listed = 0;
        for (int row = 0; row < table->rowCount(); ++row)
            listed += table->item(row, 1)->text().toULongLong();
        QCOMPARE(listed, total);

        // A clean trace hides the banner again.
        const parsers::ImportResult clean
            = parsers::loadTrace(TIMESINK_FIXTURES_DIR "/torch/hta_triton_example.json.gz", {}, progress);
        QVERIFY(clean.ok());
        w.showTrace(gui::LoadedTrace {clean.value(), {}, std::nullopt, QString()});
        bool serious = false;
        for (const model::ImportWarning& warning : clean.value()->warnings())
            serious = serious || widgets::isSeriousImportWarning(warning.kind);
        QCOMPARE(banner->isVisible(), serious);
    }

    void seriousKinds()
    {
        for (const char* kind : {"truncated", "time_out_of_range", "disjoint_clocks", "decompressed_limit"})
            QVERIFY(widgets::isSeriousImportWarning(kind));
        QVERIFY(!widgets::isSeriousImportWarning("flow_unresolved"));
        QVERIFY(!widgets::isSeriousImportWarning("invalid_utf8"));
    }
};

QTEST_MAIN(TestImportWarnings)
#include "tst_importwarnings.moc"
