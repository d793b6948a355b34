// SPDX-License-Identifier: MIT
#include "analysis/compare/comparestepselection.h"
#include "model/tracebuilder.h"

#include <QTest>

using namespace timesink;
using analysis::CompareStepSelection;

Q_DECLARE_METATYPE(std::vector<std::size_t>)

namespace {
/// Five steps numbered #1009..#1013, 100 ns each.
model::TracePtr fiveSteps()
{
    model::TraceBuilder b;
    const auto host = b.hostThread();
    for (int i = 0; i < 5; ++i)
        b.step(host, 1009 + i, i * 100, 100);
    return b.finalize();
}
} // namespace

class TestCompareStepSelection : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void resolves_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<std::vector<std::size_t>>("indices");
        QTest::newRow("empty is all") << "" << std::vector<std::size_t> {0, 1, 2, 3, 4};
        QTest::newRow("all") << "all" << std::vector<std::size_t> {0, 1, 2, 3, 4};
        QTest::newRow("one index") << "2" << std::vector<std::size_t> {2};
        QTest::newRow("index range") << "1-3" << std::vector<std::size_t> {1, 2, 3};
        QTest::newRow("list keeps order") << "4,0" << std::vector<std::size_t> {4, 0};
        QTest::newRow("duplicates once") << "1-2,2,1" << std::vector<std::size_t> {1, 2};
        QTest::newRow("one number") << "#1010" << std::vector<std::size_t> {1};
        QTest::newRow("number range") << "#1010-#1012" << std::vector<std::size_t> {1, 2, 3};
        QTest::newRow("number range short") << "#1011-1013" << std::vector<std::size_t> {2, 3, 4};
        QTest::newRow("mixed with spaces") << " #1013 , 0 " << std::vector<std::size_t> {4, 0};
        QTest::newRow("number range wider than trace") << "#1000-#1010" << std::vector<std::size_t> {0, 1};
    }
    void resolves()
    {
        QFETCH(QString, text);
        QFETCH(std::vector<std::size_t>, indices);
        const model::TracePtr t = fiveSteps();
        CompareStepSelection sel;
        std::string error;
        QVERIFY2(CompareStepSelection::parse(text.toStdString(), sel, error), error.c_str());
        std::vector<std::size_t> got;
        QVERIFY2(sel.resolve(t->steps(), got, error), error.c_str());
        QCOMPARE(got, indices);
    }

    void badText_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("error");
        QTest::newRow("word") << "first"
                              << "bad step selection 'first' in 'first': expected an index (2), an index "
                                 "range (0-3), a step number (#1010) or a number range (#1010-#1012)";
        QTest::newRow("backwards") << "3-1"
                                   << "step range '3-1' runs backwards";
        QTest::newRow("empty item") << "1,,2"
                                    << "bad step selection '' in '1,,2': expected an index (2), an index "
                                       "range (0-3), a step number (#1010) or a number range (#1010-#1012)";
        QTest::newRow("negative index") << "-1"
                                        << "bad step selection '-1' in '-1': expected an index (2), an index "
                                           "range (0-3), a step number (#1010) or a number range "
                                           "(#1010-#1012)";
        QTest::newRow("open range") << "2-"
                                    << "bad step selection '2-' in '2-': expected an index (2), an index "
                                       "range (0-3), a step number (#1010) or a number range (#1010-#1012)";
    }
    void badText()
    {
        QFETCH(QString, text);
        QFETCH(QString, error);
        CompareStepSelection sel;
        std::string message;
        QVERIFY(!CompareStepSelection::parse(text.toStdString(), sel, message));
        QCOMPARE(QString::fromStdString(message), error);
    }

    void missingStepsNameWhatExists()
    {
        const model::TracePtr t = fiveSteps();
        CompareStepSelection sel;
        std::string error;
        std::vector<std::size_t> got;
        QVERIFY(CompareStepSelection::parse("5", sel, error));
        QVERIFY(!sel.resolve(t->steps(), got, error));
        QCOMPARE(error,
                 std::string("step index 5 does not exist: the trace has 5 steps: indices 0-4, numbers "
                             "#1009-#1013"));
        QVERIFY(CompareStepSelection::parse("#7", sel, error));
        QVERIFY(!sel.resolve(t->steps(), got, error));
        QCOMPARE(error, std::string("no step numbered #7: the trace has 5 steps: indices 0-4, numbers #1009-#1013"));
    }

    void syntheticStepHasNoNumber()
    {
        model::TraceBuilder b;
        b.slice(b.hostThread(), model::SliceCategory::HostOp, "aten::add", 0, 10);
        const model::TracePtr t = b.finalize();
        CompareStepSelection sel;
        std::string error;
        std::vector<std::size_t> got;
        QVERIFY(CompareStepSelection::parse("#0", sel, error));
        QVERIFY(!sel.resolve(t->steps(), got, error));
        QCOMPARE(error,
                 std::string("no step numbered #0: the trace has 1 step: indices 0-0 (one synthetic step: no "
                             "step markers)"));
        QVERIFY(CompareStepSelection::parse("0", sel, error));
        QVERIFY(sel.resolve(t->steps(), got, error));
        QCOMPARE(got, std::vector<std::size_t> {0});
    }

    void pairs()
    {
        CompareStepSelection base;
        CompareStepSelection cand;
        std::string error;
        QVERIFY(CompareStepSelection::parsePair("0-2:#1010-#1012", base, cand, error));
        QCOMPARE(base.text(), std::string("0-2"));
        QCOMPARE(cand.text(), std::string("#1010-#1012"));
        QVERIFY(CompareStepSelection::parsePair(":1", base, cand, error));
        QVERIFY(base.selectsAll());
        QCOMPARE(cand.text(), std::string("1"));
        QVERIFY(CompareStepSelection::parsePair("1-2", base, cand, error));
        QCOMPARE(base.text(), std::string("1-2"));
        QCOMPARE(cand.text(), std::string("1-2"));
        QVERIFY(!CompareStepSelection::parsePair("1:2:3", base, cand, error));
        QCOMPARE(error, std::string("bad --steps '1:2:3': expected BASELINE:CANDIDATE with one ':'"));
        QVERIFY(!CompareStepSelection::parsePair("1:x", base, cand, error));
        QVERIFY(error.starts_with("candidate bad step selection 'x'"));
    }
};

QTEST_APPLESS_MAIN(TestCompareStepSelection)
#include "tst_comparestepselection.moc"
