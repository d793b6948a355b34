// SPDX-License-Identifier: MIT
// Unit tests of the CSV layer: the RFC 4180 reader, exact µs → ns text parsing, and the Ascend table readers
// on tiny hand-written files (including the torch_npu traps: trailing TABs, twice-quoted shapes, N/A).
#include "parsers/ascend/ascendcommunication.h"
#include "parsers/ascendcsv/ascendcsvtables.h"
#include "parsers/ascendcsv/csvreader.h"
#include "parsers/common/decimaltime.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace timesink::parsers;

namespace {
std::vector<std::vector<std::string>> readAll(const std::string& text)
{
    auto r = CsvReader::fromString(text);
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> row;
    while (r->readRow(row))
        rows.push_back(row);
    return rows;
}

// JSON written with ' for " (test inputs stay readable without escapes).
QByteArray quoted(const char* json)
{
    return QByteArray(json).replace('\'', '"');
}

std::filesystem::path writeFile(const QTemporaryDir& dir, const char* name, const QByteArray& content)
{
    const QString path = dir.filePath(QString::fromLatin1(name));
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        qFatal("cannot write test file");
    f.write(content);
    return std::filesystem::path(path.toStdString());
}
} // namespace

class TestAscendCsv : public QObject
{
    Q_OBJECT
private slots:
    // communication_matrix.json: a group's "-total" operation stands for its others; a group without one sums them;
    // bad entries are skipped and counted; garbage and non-objects are an error, never a crash.
    void communicationMatrix_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("links");
        QTest::addColumn<int>("skipped");
        QTest::addColumn<bool>("error");
        QTest::newRow("total stands for its group")
            << quoted("{'step1': {'collective': { 'allreduce-top1@7': {'0-1': {'Transport Type': 'HCCS', 'Transit "
                      "Size(MB)': 1.5, 'Transit Time(ms)': 0.5}}, 'allreduce-total@7': {'0-1': {'Transport Type': "
                      "'HCCS', 'Transit Size(MB)': 2.0, 'Transit Time(ms)': 1.0}, '0-0': {'Transport Type': 'LOCAL', "
                      "'Transit Size(MB)': 2.0, 'Transit Time(ms)': 0.01}}}}}")
            << QStringLiteral("0-0 LOCAL 2000000 10000; 0-1 HCCS 2000000 1000000") << 0 << false;
        QTest::newRow("no total: summed over operations and steps")
            << quoted("{ 's1': {'p2p': {'send@1': {'2-3': {'Transport Type': 'RDMA', 'Transit Size(MB)': 1, 'Transit "
                      "Time(ms)': 0.25}}, 'send2@1': {'2-3': {'Transport Type': 'RDMA', 'Transit Size(MB)': 3, "
                      "'Transit Time(ms)': 0.75}}}}, 's2': {'p2p': {'send@1': {'2-3': {'Transport Type': 'RDMA', "
                      "'Transit Size(MB)': 1, 'Transit Time(ms)': 1}}}}}")
            << QStringLiteral("2-3 RDMA 5000000 2000000") << 0 << false;
        QTest::newRow("wrong types and keys skipped") << quoted(
            "{'s': {'collective': {'op@1': { '0-1': {'Transport Type': 5, 'Transit Size(MB)': 1, 'Transit Time(ms)': "
            "1}, 'x-1': {'Transport Type': 'HCCS', 'Transit Size(MB)': 1, 'Transit Time(ms)': 1}, '0-2': {'Transport "
            "Type': 'HCCS', 'Transit Size(MB)': '1', 'Transit Time(ms)': 1}, '0-3': {'Transport Type': 'HCCS', "
            "'Transit Size(MB)': -1, 'Transit Time(ms)': 1}, '0-4': 'HCCS', '0-5': {'Transport Type': 'HCCS', 'Transit "
            "Size(MB)': 1, 'Transit Time(ms)': 2}}, 'bad@2': [1, 2]}, 'p2p': 7}, 't': null}")
                                                      << QStringLiteral("0-5 HCCS 1000000 2000000") << 5 << false;
        QTest::newRow("garbage") << QByteArray("\x01\x02 not json {") << QString() << 0 << true;
        QTest::newRow("array") << QByteArray("[1, 2]") << QString() << 0 << true;
        QTest::newRow("truncated") << quoted("{'s': {'collective': {'op@1': {'0-1': {'Transport") << QString() << 0
                                   << true;
        QTest::newRow("empty") << QByteArray() << QString() << 0 << true;
    }
    void communicationMatrix()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, links);
        QFETCH(int, skipped);
        QFETCH(bool, error);
        QTemporaryDir dir;
        const RankLinkTable t = readCommunicationMatrixJson(writeFile(dir, "communication_matrix.json", json));
        QCOMPARE(!t.error.empty(), error);
        QString text;
        for (const auto& l : t.rows) {
            text += (text.isEmpty() ? "" : "; ")
                + QStringLiteral("%1-%2 %3 %4 %5")
                      .arg(l.src)
                      .arg(l.dst)
                      .arg(QString::fromStdString(l.transport))
                      .arg(l.bytes)
                      .arg(l.transitNs);
        }
        QCOMPARE(text, links);
        QCOMPARE(int(t.skipped), skipped);
    }

    void decimal_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("scale");
        QTest::addColumn<bool>("ok");
        QTest::addColumn<qlonglong>("value");
        QTest::newRow("epoch us 3 decimals") << "1736408883700059.821" << 3 << true << 1736408883700059821LL;
        QTest::newRow("trailing tab") << "1736408883704643.212\t" << 3 << true << 1736408883704643212LL;
        QTest::newRow("one decimal") << "1699529622790614.8" << 3 << true << 1699529622790614800LL;
        QTest::newRow("rounding up") << "840.07675" << 3 << true << 840077LL;
        QTest::newRow("rounding down") << "0.0004" << 3 << true << 0LL;
        QTest::newRow("long float tail") << "8873.756000000001" << 3 << true << 8873756LL;
        QTest::newRow("negative") << "-1.5" << 3 << true << -1500LL;
        QTest::newRow("exponent") << "1.5e3" << 3 << true << 1500000LL;
        QTest::newRow("small exponent") << "2E-3" << 3 << true << 2LL;
        QTest::newRow("integer ns text") << "1736410576395167660" << 0 << true << 1736410576395167660LL;
        QTest::newRow("ms to ns") << "12" << 6 << true << 12000000LL;
        QTest::newRow("leading zeros") << "0000.001" << 3 << true << 1LL;
        QTest::newRow("N/A") << "N/A" << 3 << false << 0LL;
        QTest::newRow("empty") << "  " << 3 << false << 0LL;
        QTest::newRow("two points") << "1.2.3" << 3 << false << 0LL;
        QTest::newRow("garbage after") << "12abc" << 3 << false << 0LL;
        QTest::newRow("overflow") << "99999999999999999999" << 3 << false << 0LL;
        QTest::newRow("bare exponent") << "1e" << 3 << false << 0LL;
    }
    void decimal()
    {
        QFETCH(QString, text);
        QFETCH(int, scale);
        QFETCH(bool, ok);
        QFETCH(qlonglong, value);
        const auto r = parseScaledDecimal(text.toStdString(), scale);
        QCOMPARE(r.has_value(), ok);
        if (ok)
            QCOMPARE(static_cast<qlonglong>(*r), value);
    }

    void csvQuoting()
    {
        const auto rows = readAll("\xEF\xBB\xBF"
                                  "a,\"b,c\",\"say \"\"hi\"\"\",d\r\n"
                                  "\"\"\"32,3,224,224\"\"\",x\n"
                                  "\n"
                                  "\"multi\nline\",1736408883704643.212\t,\"\"\"\"\"\"\n"
                                  "last,no-newline");
        QCOMPARE(rows.size(), std::size_t(4));
        QCOMPARE(rows[0], (std::vector<std::string> {"a", "b,c", "say \"hi\"", "d"}));
        QCOMPARE(rows[1], (std::vector<std::string> {"\"32,3,224,224\"", "x"}));
        QCOMPARE(rows[2], (std::vector<std::string> {"multi\nline", "1736408883704643.212\t", "\"\""}));
        QCOMPARE(rows[3], (std::vector<std::string> {"last", "no-newline"}));
    }

    void csvTruncatedQuote()
    {
        auto r = CsvReader::fromString("a,b\n\"open,field");
        std::vector<std::string> row;
        QVERIFY(r->readRow(row));
        QVERIFY(r->readRow(row));
        QCOMPARE(row.size(), std::size_t(1));
        QVERIFY(r->endedInsideQuotes());
        QVERIFY(!r->readRow(row));
    }

    void csvHeaderAliases()
    {
        CsvHeader h({" Task Start Time(us) ", "OP Type"});
        QCOMPARE(h.find({"Start Time(us)", "task start time(us)"}), 0);
        QCOMPARE(h.find({"Type", "OP Type"}), 1);
        QCOMPARE(h.find({"Block Dim"}), -1);
    }

    void kernelDetailsLevel1()
    {
        QTemporaryDir dir;
        const auto p = writeFile(
            dir, "kernel_details.csv",
            "Step Id,Model ID,Task ID,Stream ID,Name,Type,OP State,Accelerator Core,Start Time(us),Duration(us),"
            "Wait Time(us),Block Dim,Mix Block Dim,HF32 Eligible,Input Shapes,Input Data Types,Extra\r\n"
            "50,4294967295,11053,2,Conv2D1,Conv2D,dynamic,AI_CORE,1736408883704903.918\t,313.886,96.222,16,0,YES,"
            "\"\"\"32,1,224,224,8;121,4,16,8;64\"\"\",FLOAT;FLOAT;FLOAT,x\r\n"
            "50,4294967295,N/A,N/A,hcom_allReduce__586_0_1,hcom_allReduce_,N/A,HCCL,\"1736408883732241.564\t\","
            "79089.52,0,0,N/A,N/A,N/A,N/A,x\r\n"
            "50,1,2,3,bad,Cast,dynamic,AI_CPU,not-a-time,1,0,0,0,NO,\"\"\"\"\"\",FLOAT,x\r\n"
            "50,1,2,3,short\r\n");
        const KernelTable t = readKernelTable(p);
        QVERIFY2(t.error.empty(), t.error.c_str());
        QVERIFY(t.hasTaskIds);
        QCOMPARE(t.rows.size(), std::size_t(2));
        QCOMPARE(t.rows[0].start, 1736408883704903918LL);
        QCOMPARE(t.rows[0].duration, 313886LL);
        QCOMPARE(t.rows[0].opType, std::string("Conv2D"));
        QCOMPARE(t.rows[0].coreType, std::string("AI_CORE"));
        QCOMPARE(t.rows[0].inputShapes, std::string("32,1,224,224,8;121,4,16,8;64"));
        QCOMPARE(t.rows[0].taskId, 11053LL);
        QCOMPARE(t.rows[1].taskId, -1LL);
        QCOMPARE(t.rows[1].streamId, -1LL);
        QCOMPARE(t.rows[1].start, 1736408883732241564LL);
        QCOMPARE(t.issues.count(timesink::model::ImportWarningKind::BadTs),
                 std::uint64_t(2)); // the bad row and the short row (no start cell)
        QCOMPARE(t.issues.count(timesink::model::ImportWarningKind::CsvShortRow), std::uint64_t(1));
    }

    void opSummaryAliases()
    {
        QTemporaryDir dir;
        const auto p
            = writeFile(dir, "op_summary_1.csv",
                        "Device_id,Model ID,Task ID,Stream ID,Op Name,OP Type,OP State,Task Type,Task Start Time(us),"
                        "Task Duration(us),Task Wait Time(us),Block Dim\n"
                        "0,4294967295,0,1716,k,k,dynamic,MIX_AIC,1000000.000,42399.120,0,256\n");
        const KernelTable t = readKernelTable(p);
        QVERIFY2(t.error.empty(), t.error.c_str());
        QCOMPARE(t.rows.size(), std::size_t(1));
        QCOMPARE(t.rows[0].deviceId, 0);
        QCOMPARE(t.rows[0].coreType, std::string("MIX_AIC"));
        QCOMPARE(t.rows[0].streamId, 1716LL);
        QCOMPARE(t.rows[0].start, 1000000000LL);
        QCOMPARE(t.rows[0].duration, 42399120LL);
        QCOMPARE(t.rows[0].blockDim, 256LL);
    }

    void missingColumnsAreAnError()
    {
        QTemporaryDir dir;
        const auto p = writeFile(dir, "kernel_details.csv", "Step Id,Name,Type\n1,a,b\n");
        const KernelTable t = readKernelTable(p);
        QVERIFY(!t.error.empty());
        QVERIFY(t.error.find("kernel_details.csv") != std::string::npos);
        QVERIFY(t.error.find("Start Time(us)") != std::string::npos);
        const auto empty = writeFile(dir, "op_statistic.csv", "");
        QVERIFY(readOpStatistic(empty).error.find("empty") != std::string::npos);
        QVERIFY(!readTaskTime(dir.filePath(QStringLiteral("nope.csv")).toStdString()).error.empty());
    }

    void otherTables()
    {
        QTemporaryDir dir;
        const auto st = readStepTraceTime(writeFile(
            dir, "step_trace_time.csv",
            "Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,Stage,Bubble,"
            "Communication(Not Overlapped and Exclude Receive)\r\n"
            "50,8873.756000000001,101963.203,4028.6750000000175,105991.87800000001,25744.050000000003,136581.0,0,"
            "101963.203\r\n"));
        QVERIFY2(st.error.empty(), st.error.c_str());
        QCOMPARE(st.rows.size(), std::size_t(1));
        QCOMPARE(st.rows[0].step, std::string("50"));
        QCOMPARE(st.rows[0].computing, 8873756LL);
        QCOMPARE(st.rows[0].free, 25744050LL);
        QCOMPARE(st.rows[0].preparing, -1LL); // older files have no Preparing column

        const auto os = readOpStatistic(
            writeFile(dir, "op_statistic.csv",
                      "OP Type,Core Type,Count,Total Time(us),Min Time(us),Avg Time(us),Max Time(us),Ratio(%)\n"
                      "Cast,AI_CPU,7,70.5,1,10.07,20,1.5\n"));
        QCOMPARE(os.rows.size(), std::size_t(1));
        QCOMPARE(os.rows[0].coreType, std::string("AI_CPU"));
        QCOMPARE(os.rows[0].count, 7LL);
        QCOMPARE(os.rows[0].total, 70500LL);

        const auto tt = readTaskTime(
            writeFile(dir, "task_time_1.csv",
                      "Device_id,kernel_name,kernel_type,stream_id,task_id,task_time(us),task_start(us),task_stop(us)\n"
                      "0,N/A,PROFILING_ENABLE,1714,4,0.020,900000.000,900000.020\n"));
        QCOMPARE(tt.rows.size(), std::size_t(1));
        QCOMPARE(tt.rows[0].name, std::string());
        QCOMPARE(tt.rows[0].duration, 20LL);

        const auto api
            = readApiStatistic(writeFile(dir, "api_statistic.csv",
                                         "Device_id,Level,API Name,Time(us),Count,Avg(us),Min(us),Max(us),Variance\n"
                                         "host,runtime,DevMalloc,475.8,27,17.622,8.86,147.25,731.247\n"));
        QCOMPARE(api.rows.size(), std::size_t(1));
        QCOMPARE(api.rows[0].device, std::string("host"));
        QCOMPARE(api.rows[0].total, 475800LL);
        QCOMPARE(api.rows[0].count, 27LL);
    }
};

QTEST_APPLESS_MAIN(TestAscendCsv)
#include "tst_ascendcsv.moc"
