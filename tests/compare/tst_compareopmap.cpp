// SPDX-License-Identifier: MIT
#include "analysis/compare/compareopmap.h"

#include <QTest>

#include <fstream>
#include <sstream>

using timesink::analysis::CompareOpMap;

class TestCompareOpMap : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void shippedTableParses()
    {
        // The file users read and copy must be exactly what is embedded, and it must parse.
        std::ifstream in(TIMESINK_SOURCE_DIR "/resources/opmap/default.tsv", std::ios::binary);
        QVERIFY(in.good());
        std::stringstream text;
        text << in.rdbuf();
        CompareOpMap map;
        std::string error;
        QVERIFY2(map.addTsv(text.str(), "default.tsv", error), error.c_str());
        QCOMPARE(map.size(), CompareOpMap::builtIn().size());
        QVERIFY(map.size() > 100);
    }

    void builtInLookups_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("canonical");
        QTest::newRow("canonical maps to itself") << "aten::conv2d"
                                                  << "aten::conv2d";
        QTest::newRow("inner aten op") << "aten::cudnn_convolution"
                                       << "aten::conv2d";
        QTest::newRow("ascend type") << "Conv2D"
                                     << "aten::conv2d";
        QTest::newRow("ascend task instance number") << "Conv2D1"
                                                     << "aten::conv2d";
        QTest::newRow("onnx / rknn source type") << "Conv"
                                                 << "aten::conv2d";
        QTest::newRow("rknn fused conv") << "ConvExSwish"
                                         << "aten::conv2d";
        QTest::newRow("toolkit v1 driver op") << "CONVOLUTION"
                                              << "aten::conv2d";
        QTest::newRow("inplace relu") << "aten::relu_"
                                      << "aten::relu";
        QTest::newRow("relu any case") << "RELU"
                                       << "aten::relu";
        QTest::newRow("bn reduce") << "BNTrainingReduce"
                                   << "aten::batch_norm";
        QTest::newRow("bn update") << "BNTrainingUpdate"
                                   << "aten::batch_norm";
        QTest::newRow("onnx bn") << "BatchNormalization"
                                 << "aten::batch_norm";
        QTest::newRow("addmm") << "aten::addmm"
                               << "aten::linear";
        QTest::newRow("matmul v2") << "MatMulV2"
                                   << "aten::linear";
        QTest::newRow("add") << "Add"
                             << "aten::add";
        QTest::newRow("softmax rknn") << "exSoftmax13"
                                      << "aten::softmax";
        QTest::newRow("cast") << "Cast"
                              << "aten::to";
        QTest::newRow("reduce sum instance") << "ReduceSum7"
                                             << "aten::sum";
        QTest::newRow("unknown stays") << "my_custom_op"
                                       << "my_custom_op";
        QTest::newRow("unknown with number stays") << "Foo12"
                                                   << "Foo12";
        QTest::newRow("pure number stays") << "1234"
                                           << "1234";
    }
    void builtInLookups()
    {
        QFETCH(QString, name);
        QFETCH(QString, canonical);
        QCOMPARE(QString::fromStdString(CompareOpMap::builtIn().canonical(name.toStdString())), canonical);
    }

    void userFileOverridesAndExtends()
    {
        CompareOpMap map = CompareOpMap::builtIn();
        std::string error;
        const std::string user = "# my vendor\n"
                                 "\n"
                                 "aten::relu\tMyRelu\n"
                                 "my::fused_conv_bn\tConv2D\tFusedConvBn  \r\n";
        QVERIFY2(map.addTsv(user, "mine.tsv", error), error.c_str());
        QCOMPARE(map.canonical("MyRelu"), std::string("aten::relu"));
        QCOMPARE(map.canonical("Conv2D"), std::string("my::fused_conv_bn")); // the user's row wins
        QCOMPARE(map.canonical("conv2d"), std::string("my::fused_conv_bn"));
        QCOMPARE(map.canonical("FusedConvBn"), std::string("my::fused_conv_bn")); // spaces and CR trimmed
        QCOMPARE(map.canonical("Conv"), std::string("aten::conv2d"));             // the rest of the row stays
    }

    // A map saved with a UTF-8 byte-order mark (Notepad's "UTF-8 with BOM"): the mark is not part of the first name.
    void byteOrderMark()
    {
        constexpr const char* kBom = "\xEF\xBB\xBF";
        CompareOpMap map;
        std::string error;
        QVERIFY2(map.addTsv(std::string(kBom) + "aten::add\tAdd\n# c\n" + kBom + "x\ty\n", "bom.tsv", error),
                 error.c_str());
        QCOMPARE(map.canonical("Add"), std::string("aten::add"));
        QCOMPARE(map.canonical("aten::add"), std::string("aten::add"));
        QCOMPARE(map.canonical(std::string(kBom) + "aten::add"), std::string(kBom) + "aten::add"); // no such name
        // Only the file's first bytes are a mark; one inside the text is part of a name.
        QCOMPARE(map.canonical("y"), std::string(kBom) + "x");
    }

    void malformedRows_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("error");
        QTest::newRow("one field") << "a\tb\nlonely\n"
                                   << "x.tsv:2: expected a canonical name and at least one "
                                      "other name, separated by tabs";
        QTest::newRow("spaces instead of tabs") << "aten::add Add\n"
                                                << "x.tsv:1: expected a canonical name and at "
                                                   "least one other name, separated by tabs";
        QTest::newRow("empty field") << "a\t\tb\n"
                                     << "x.tsv:1: empty name in field 2";
        QTest::newRow("alias claimed twice") << "a\tx\n# c\nb\tx\n"
                                             << "x.tsv:3: 'x' already maps to 'a' on line 1";
    }
    void malformedRows()
    {
        QFETCH(QString, text);
        QFETCH(QString, error);
        CompareOpMap map;
        std::string message;
        QVERIFY(!map.addTsv(text.toStdString(), "x.tsv", message));
        QCOMPARE(QString::fromStdString(message), error);
        QCOMPARE(map.size(), std::size_t(0)); // nothing half-added
    }
};

QTEST_APPLESS_MAIN(TestCompareOpMap)
#include "tst_compareopmap.moc"
