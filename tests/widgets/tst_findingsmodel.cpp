// SPDX-License-Identifier: MIT
#include "testtraces.h"
#include "widgets/findingsmodel.h"

#include <QAbstractItemModelTester>
#include <QSortFilterProxyModel>
#include <QTest>

using namespace timesink;

class TestFindingsModel : public QObject
{
    Q_OBJECT
private slots:
    void cells_data();
    void cells();
    void resetAndEmpty();
    void savingColumnSortsFirst();
};

void TestFindingsModel::cells_data()
{
    QTest::addColumn<int>("row");
    QTest::addColumn<int>("column");
    QTest::addColumn<QString>("text");
    // smallFindings(): dataloader 400 ns, 20 %; copy 200 ns, 10 %.
    // Kinds as people read them, lost time in a unit that shows it (400 ns was "0.00" ms).
    QTest::newRow("kind") << 0 << int(widgets::FindingsModel::Kind) << QStringLiteral("Dataloader starvation");
    QTest::newRow("kind 2") << 1 << int(widgets::FindingsModel::Kind) << QStringLiteral("Copy hotspot");
    QTest::newRow("lost") << 0 << int(widgets::FindingsModel::LostMs) << QStringLiteral("400 ns");
    QTest::newRow("lost 2") << 1 << int(widgets::FindingsModel::LostMs) << QStringLiteral("200 ns");
    QTest::newRow("percent") << 0 << int(widgets::FindingsModel::Percent) << QStringLiteral("20.0%");
    QTest::newRow("occurrences") << 1 << int(widgets::FindingsModel::Occurrences) << QStringLiteral("1");
    QTest::newRow("title") << 1 << int(widgets::FindingsModel::Title)
                           << QStringLiteral("Pageable host-to-device copy: 200 ns");
}

void TestFindingsModel::cells()
{
    QFETCH(int, row);
    QFETCH(int, column);
    QFETCH(QString, text);
    const auto trace = testing::smallTrainingTrace();
    widgets::FindingsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setFindings(testing::smallFindings(*trace));
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.columnCount(), int(widgets::FindingsModel::ColumnCount));
    QCOMPARE(model.index(row, column).data().toString(), text);
    // The sort role carries raw numbers so a proxy sorts lost time numerically.
    QCOMPARE(model.index(0, widgets::FindingsModel::LostMs).data(widgets::FindingsModel::kSortRole).toLongLong(),
             400LL);
    // The kind's id stays at hand in the tooltip.
    QCOMPARE(model.index(0, widgets::FindingsModel::Kind).data(Qt::ToolTipRole).toString(),
             QStringLiteral("dataloader_starvation"));
}

void TestFindingsModel::resetAndEmpty()
{
    widgets::FindingsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    const auto trace = testing::smallTrainingTrace();
    model.setFindings(testing::smallFindings(*trace));
    model.setFindings({});
    QCOMPARE(model.rowCount(), 0);
    QVERIFY(model.finding(0) == nullptr);
    QVERIFY(!model.index(0, 0).data().isValid());
    QCOMPARE(model.headerData(widgets::FindingsModel::LostMs, Qt::Horizontal).toString(), QStringLiteral("Lost"));
}

// The saving column (issue 32): shown with its unit, sorted numerically, its tooltip says how it was estimated; a
// view sorted by it (as the main window is) puts the finding that saves most first, whatever it lost.
void TestFindingsModel::savingColumnSortsFirst()
{
    const auto trace = testing::smallTrainingTrace();
    auto findings = testing::smallFindings(*trace);
    QCOMPARE(findings.size(), std::size_t(2));
    findings[0].savingNs = 100;   // dataloader: lost 400 ns
    findings[1].savingNs = 2'000; // copy: lost 200 ns
    findings[1].savingMethod = "retimed";
    findings[1].savingRule = "These copies become asynchronous.";
    widgets::FindingsModel model;
    model.setFindings(std::move(findings));
    QCOMPARE(model.index(1, widgets::FindingsModel::Saving).data().toString(), QStringLiteral("2.00 µs"));
    QCOMPARE(model.index(1, widgets::FindingsModel::Saving).data(widgets::FindingsModel::kSortRole).toLongLong(),
             2000LL);
    QCOMPARE(model.index(1, widgets::FindingsModel::Saving).data(Qt::ToolTipRole).toString(),
             QStringLiteral("retimed: These copies become asynchronous."));
    QCOMPARE(model.headerData(widgets::FindingsModel::Saving, Qt::Horizontal).toString(), QStringLiteral("Saving"));
    QSortFilterProxyModel proxy;
    proxy.setSourceModel(&model);
    proxy.setSortRole(widgets::FindingsModel::kSortRole);
    proxy.sort(widgets::FindingsModel::Saving, Qt::DescendingOrder);
    QCOMPARE(proxy.index(0, widgets::FindingsModel::Kind).data().toString(), QStringLiteral("Copy hotspot"));
}

QTEST_MAIN(TestFindingsModel)
#include "tst_findingsmodel.moc"
