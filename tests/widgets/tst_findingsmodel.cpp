// SPDX-License-Identifier: MIT
#include "testtraces.h"
#include "widgets/findingsmodel.h"

#include <QAbstractItemModelTester>
#include <QTest>

using namespace timesink;

class TestFindingsModel : public QObject
{
    Q_OBJECT
private slots:
    void cells_data();
    void cells();
    void resetAndEmpty();
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

QTEST_MAIN(TestFindingsModel)
#include "tst_findingsmodel.moc"
