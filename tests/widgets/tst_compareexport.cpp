// SPDX-License-Identifier: MIT
// Compare window → File → Export Comparison…: the same documents as `timesink-cli compare -o`, written
// atomically and never over either run's file.
#include "app/gui/compareexport.h"
#include "app/gui/mainwindow.h"
#include "report/reportoutput.h"
#include "report/writers/csv/csvwriter.h"
#include "testtraces.h"
#include "widgets/compareview.h"

#include <QAction>
#include <QApplication>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMenu>
#include <QRegularExpression>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

#include <sstream>

using namespace timesink;

namespace {

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

bool writeFile(const QString& path, const QByteArray& content)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(content) == content.size();
}

widgets::CompareView* openCompareView()
{
    for (QWidget* w : QApplication::topLevelWidgets()) {
        if (auto* view = qobject_cast<widgets::CompareView*>(w); view && view->isVisible())
            return view;
    }
    return nullptr;
}

} // namespace

class TestCompareExport : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void writesEachFormat_data();
    void writesEachFormat();
    void refusesBadDestinations();
    void compareWindowHasTheAction();

private:
    /// A view comparing smallTrainingTrace() with itself, loaded "from" base.json and cand.json in m_dir.
    void fillView(widgets::CompareView& view);

    QTemporaryDir m_dir;
};

void TestCompareExport::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_dir.path());
    QCoreApplication::setOrganizationName(QStringLiteral("TimesinkTests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_compareexport"));
    QVERIFY(writeFile(m_dir.filePath(QStringLiteral("base.json")), "{}"));
    QVERIFY(writeFile(m_dir.filePath(QStringLiteral("cand.json")), "{}"));
}

void TestCompareExport::fillView(widgets::CompareView& view)
{
    const auto base = testing::smallTrainingTrace();
    const auto cand = testing::smallTrainingTrace();
    QString error;
    QVERIFY2(view.setRuns(base, testing::smallFindings(*base), cand, testing::smallFindings(*cand), {}, error),
             qPrintable(error));
    view.setSourcePaths(m_dir.filePath(QStringLiteral("base.json")), m_dir.filePath(QStringLiteral("cand.json")));
}

void TestCompareExport::writesEachFormat_data()
{
    QTest::addColumn<QString>("fileName");
    QTest::addColumn<int>("format");
    QTest::newRow("markdown") << QStringLiteral("c.md") << int(report::ReportFormat::Markdown);
    QTest::newRow("html") << QStringLiteral("c.html") << int(report::ReportFormat::Html);
    QTest::newRow("json") << QStringLiteral("c.json") << int(report::ReportFormat::Json);
    QTest::newRow("csv") << QStringLiteral("c.csv") << int(report::ReportFormat::Csv);
    QTest::newRow("upper-case extension") << QStringLiteral("C.MD") << int(report::ReportFormat::Markdown);
}

void TestCompareExport::writesEachFormat()
{
    QFETCH(QString, fileName);
    QFETCH(int, format);
    widgets::CompareView view;
    fillView(view);
    const QString out = m_dir.filePath(fileName);
    QCOMPARE(gui::exportComparisonTo(view, out), QString());
    const QByteArray written = readAll(out);
    QVERIFY(!written.isEmpty());

    // The report layer's own writer, over the comparison the view shows, gives the same document; only the
    // generator line may differ (the GUI names itself).
    std::ostringstream expected;
    report::CompareReportOptions options;
    options.generator = "GENERATOR";
    report::writeCompareReport({*view.baseline(), view.baselineFindingList()},
                               {*view.candidate(), view.candidateFindingList()}, view.result(),
                               static_cast<report::ReportFormat>(format), expected, options);
    QString mine = QString::fromUtf8(written);
    QString theirs = QString::fromStdString(expected.str());
    const qsizetype at = theirs.indexOf(QStringLiteral("GENERATOR"));
    if (at >= 0) {
        QVERIFY(mine.contains(QStringLiteral("Timesink ")));
        mine.replace(QRegularExpression(QStringLiteral("Timesink [0-9][0-9.]*[0-9]")), QStringLiteral("GENERATOR"));
    }
    QCOMPARE(mine, theirs);

    // Both traces have the operators aten::conv2d and aten::relu (testtraces.h), with no delta.
    if (format == int(report::ReportFormat::Json)) {
        const QJsonObject doc = QJsonDocument::fromJson(written).object();
        QCOMPARE(doc.value(QStringLiteral("schema")).toString(), QStringLiteral("timesink.compare/1"));
        QCOMPARE(doc.value(QStringLiteral("totals")).toObject().value(QStringLiteral("delta_ns")).toInt(), 0);
    } else if (format == int(report::ReportFormat::Csv)) {
        QVERIFY(written.startsWith(
            QByteArray(report::kCompareCsvHeader.data(), static_cast<qsizetype>(report::kCompareCsvHeader.size()))));
        QVERIFY(written.contains("aten::conv2d"));
    }
}

void TestCompareExport::refusesBadDestinations()
{
    widgets::CompareView empty;
    QVERIFY(!gui::exportComparisonTo(empty, m_dir.filePath(QStringLiteral("x.md"))).isEmpty());

    widgets::CompareView view;
    fillView(view);
    for (const QString& input : {view.baselinePath(), view.candidatePath()}) {
        const QString error = gui::exportComparisonTo(view, input);
        QVERIFY2(error.contains(QStringLiteral("refusing to overwrite the input")), qPrintable(error));
        QCOMPARE(readAll(input), QByteArray("{}"));
    }
    const QString unknown = gui::exportComparisonTo(view, m_dir.filePath(QStringLiteral("c.txt")));
    QVERIFY2(unknown.contains(QStringLiteral(".md")), qPrintable(unknown));
    QVERIFY(!QFile::exists(m_dir.filePath(QStringLiteral("c.txt"))));
    const QString noDir = gui::exportComparisonTo(view, m_dir.filePath(QStringLiteral("no/dir/c.md")));
    QVERIFY2(noDir.contains(QStringLiteral("no/dir")), qPrintable(noDir));
    // A folder is no destination either.
    QVERIFY(!gui::exportComparisonTo(view, m_dir.path() + QStringLiteral("/")).isEmpty());
}

void TestCompareExport::compareWindowHasTheAction()
{
    // Through File → Compare With…: the window knows both runs' files and offers the export in its File menu.
    gui::MainWindow w;
    QStringList errors;
    w.setErrorReporter([&errors](const QString& title, const QString& message) { errors << title + message; });
    const QString base = m_dir.filePath(QStringLiteral("base.json"));
    w.showTrace(gui::LoadedTrace {testing::smallTrainingTrace(), {}, std::nullopt, base});
    const QString sample = QStringLiteral(TIMESINK_SOURCE_DIR "/resources/samples/resnet18_cpu_legacy_2steps.json");
    w.compareWith(sample);
    widgets::CompareView* view = nullptr;
    QTRY_VERIFY_WITH_TIMEOUT((view = openCompareView()) != nullptr, 60000);
    QVERIFY2(errors.isEmpty(), qPrintable(errors.join(QLatin1Char('\n'))));
    QCOMPARE(view->baselinePath(), base);
    QCOMPARE(view->candidatePath(), sample);
    auto* action = view->findChild<QAction*>(QStringLiteral("actionExportComparison"));
    QVERIFY(action);
    QVERIFY(view->fileMenu()->actions().contains(action));
    QCOMPARE(action->shortcut(), QKeySequence(QStringLiteral("Ctrl+E")));
    // The candidate's file (the repository's sample) is never overwritten.
    QVERIFY(gui::exportComparisonTo(*view, sample).contains(QStringLiteral("refusing to overwrite the input")));
    const QString out = m_dir.filePath(QStringLiteral("window.json"));
    QCOMPARE(gui::exportComparisonTo(*view, out), QString());
    QCOMPARE(QJsonDocument::fromJson(readAll(out)).object().value(QStringLiteral("schema")).toString(),
             QStringLiteral("timesink.compare/1"));
    view->close(); // WA_DeleteOnClose
}

QTEST_MAIN(TestCompareExport)
#include "tst_compareexport.moc"
