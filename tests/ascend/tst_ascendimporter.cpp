// SPDX-License-Identifier: MIT
// The Ascend importer on tiny hand-written bundles: a dump test of the whole mapping (timeline + CSV join +
// flows + steps + counters), the export choice between text and database, sliced msprof timelines, and the bad
// inputs of issue #3 (partial bundles, bad CSV columns, non-databases, locked/corrupt databases, truncated JSON,
// JSON and CSV that disagree).
#include "ascendtesthelpers.h"
#include "model/trace.h"

#include <QCryptographicHash>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <sqlite3.h>

using namespace timesink;
using namespace timesink::model;
using namespace ascendtest;

namespace {

// A Level1-like torch_npu timeline: process names come last, as the real writer emits them.
const QByteArray kTraceView = R"([
{"ph":"X","name":"ProfilerStep#7","cat":"cpu_op","pid":100,"tid":100,"ts":"1000.000","dur":100},
{"ph":"X","name":"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__","cat":"cpu_op","pid":100,"tid":100,"ts":"1001.000","dur":4},
{"ph":"X","name":"train.py(12): forward","cat":"python_function","pid":100,"tid":100,"ts":"1006.000","dur":40},
{"ph":"X","name":"acl_memcpy_host_to_device","cat":"cpu_op","pid":100,"tid":100,"ts":"1010.000","dur":5},
{"ph":"s","name":"torch_to_npu","cat":"async_npu","id":1000020500,"pid":100,"tid":100,"ts":"1010.500","bp":"e"},
{"ph":"X","name":"aten::add","cat":"cpu_op","pid":100,"tid":100,"ts":"1020.000","dur":5},
{"ph":"s","name":"fwdbwd","cat":"fwdbwd","id":9,"pid":100,"tid":100,"ts":"1020.000"},
{"ph":"X","name":"AddBackward0","cat":"cpu_op","pid":100,"tid":101,"ts":"1070.000","dur":2},
{"ph":"f","name":"fwdbwd","cat":"fwdbwd","id":9,"pid":100,"tid":101,"ts":"1070.000","bp":"e"},
{"ph":"X","name":"AscendCL@aclrtMemcpyAsync","pid":200,"tid":100,"ts":"1011.000","dur":2,"args":{"Mode":"ACL_RTS","level":"acl","connection_id":5}},
{"ph":"s","name":"HostToDevice40004631069296951295","cat":"HostToDevice","id":"40004631069296951295","pid":200,"tid":100,"ts":"1011.000"},
{"ph":"f","name":"HostToDevice40004631069296951295","cat":"HostToDevice","id":"40004631069296951295","pid":300,"tid":2,"ts":"1020.500","bp":"e"},
{"ph":"f","name":"torch_to_npu","cat":"async_npu","id":1000020500,"pid":300,"tid":2,"ts":"1020.500","bp":"e"},
{"ph":"X","name":"MEMCPY_ASYNC","pid":300,"tid":2,"ts":"1020.500","dur":3.0004,"args":{"Model Id":4294967295,"Task Type":"PCIE_DMA_SQE","Physic Stream Id":2,"Task Id":1,"connection_id":5}},
{"ph":"X","name":"Conv2D1","pid":300,"tid":2,"ts":"1030.123","dur":10,"args":{"Task Type":"AI_CORE","Physic Stream Id":2,"Task Id":2}},
{"ph":"X","name":"aclnnCast_CastAiCpu_Cast","pid":300,"tid":2,"ts":"1045.000","dur":7,"args":{"Task Type":"AI_CPU","Physic Stream Id":2,"Task Id":3}},
{"ph":"X","name":"MEMCPY_ASYNC","pid":300,"tid":3,"ts":"1050.000","dur":1,"args":{"Task Type":"SDMA_SQE","Physic Stream Id":3,"Task Id":4}},
{"ph":"X","name":"EVENT_WAIT","pid":300,"tid":3,"ts":"1055.000","dur":1,"args":{"Task Type":"EVENT_WAIT_SQE","Physic Stream Id":3,"Task Id":5}},
{"ph":"X","name":"hcom_allReduce__1_0_1","pid":400,"tid":0,"ts":"1060.000","dur":20,"args":{"alg_type":"MESH-RING","count":16}},
{"ph":"X","name":"Notify_Wait","pid":400,"tid":1,"ts":"1061.000","dur":2,"args":{"task type":"Notify_Wait","transport type":"SDMA"}},
{"ph":"X","name":"Computing","pid":500,"tid":0,"ts":"1030.123","dur":10,"args":{}},
{"ph":"C","name":"AI Core Freq","pid":600,"tid":0,"ts":"1000.000","args":{"MHz":1800}},
{"ph":"C","name":"AI Core Freq","pid":600,"tid":0,"ts":"1090.000","args":{"MHz":1650}},
{"ph":"M","name":"process_name","pid":100,"tid":0,"args":{"name":"Python"}},
{"ph":"M","name":"process_name","pid":200,"tid":0,"args":{"name":"CANN"}},
{"ph":"M","name":"process_name","pid":300,"tid":0,"args":{"name":"Ascend Hardware"}},
{"ph":"M","name":"process_name","pid":400,"tid":0,"args":{"name":"HCCL"}},
{"ph":"M","name":"process_name","pid":500,"tid":0,"args":{"name":"Overlap Analysis"}},
{"ph":"M","name":"process_name","pid":600,"tid":0,"args":{"name":"AI Core Freq"}},
{"ph":"M","name":"thread_name","pid":400,"tid":0,"args":{"name":"Group 0 Communication"}},
{"ph":"M","name":"thread_name","pid":400,"tid":1,"args":{"name":"Plane 0"}},
{"ph":"M","name":"thread_name","pid":500,"tid":0,"args":{"name":"Computing"}}
])";

// kernel_details.csv with the real traps: CRLF, trailing TABs (quoted and not), twice-quoted shapes, N/A.
const QByteArray kKernelDetails
    = "Step Id,Model ID,Task ID,Stream ID,Name,Type,OP State,Accelerator Core,Start Time(us),Duration(us),"
      "Wait Time(us),Block Dim,Input Shapes,Input Data Types\r\n"
      "7,4294967295,2,2,Conv2D1,Conv2D,dynamic,AI_CORE,1030.123\t,10,0,16,\"\"\"32,3,224,224;64\"\"\",FLOAT;FLOAT\r\n"
      "7,4294967295,3,2,aclnnCast_CastAiCpu_Cast,Cast,dynamic,AI_CPU,\"1045.000\t\",7,0,1,\"\"\"8\"\"\",INT64\r\n"
      "7,4294967295,N/A,N/A,hcom_allReduce__1_0_1,hcom_allReduce_,N/A,HCCL,1060.000\t,20,0,0,N/A,N/A\r\n";

const QByteArray kOpStatistic
    = "OP Type,Core Type,Count,Total Time(us),Min Time(us),Avg Time(us),Max Time(us),Ratio(%)\n"
      "Conv2D,AI_CORE,1,10,10,10,10,58.8\n"
      "Cast,AI_CPU,1,7,7,7,7,41.2\n";

const QByteArray kStepTrace = "Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,Stage,Bubble,"
                              "Communication(Not Overlapped and Exclude Receive),Preparing\r\n"
                              "7,27.0,20,0,20,53,100,0,20,1.0\r\n";

const QByteArray kProfilerInfo = R"({"config": {"experimental_config": {"_profiler_level": "Level1",
  "_aic_metrics": "ACL_AICORE_PIPE_UTILIZATION", "_export_type": "text"}}, "rank_id": 3})";

void writeBundle(const QTemporaryDir& dir, bool trace = true, bool kernels = true)
{
    writeFile(dir, "r_ascend_pt/profiler_info_3.json", kProfilerInfo);
    if (trace)
        writeFile(dir, "r_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json", kTraceView);
    if (kernels)
        writeFile(dir, "r_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv", kKernelDetails);
    writeFile(dir, "r_ascend_pt/ASCEND_PROFILER_OUTPUT/op_statistic.csv", kOpStatistic);
    writeFile(dir, "r_ascend_pt/ASCEND_PROFILER_OUTPUT/step_trace_time.csv", kStepTrace);
}

std::filesystem::path bundlePath(const QTemporaryDir& dir)
{
    return std::filesystem::path(dir.filePath(QStringLiteral("r_ascend_pt")).toStdString());
}

/// A minimal msprof-schema database (rollback journal, so another connection can hold a real lock).
void writeTinyDb(const std::filesystem::path& path)
{
    sqlite3* db = nullptr;
    QCOMPARE(sqlite3_open(path.string().c_str(), &db), SQLITE_OK);
    const char* sql = R"(
        CREATE TABLE STRING_IDS (id INTEGER PRIMARY KEY, value TEXT);
        INSERT INTO STRING_IDS VALUES (1,'KERNEL_AICORE'),(2,'Conv2D1'),(3,'AI_CORE'),(4,'Conv2D'),
                                      (5,'AI_CPU'),(6,'Cast1'),(7,'Cast'),(8,'KERNEL_AICPU'),(9,'aclnnConv'),
                                      (10,'MEMCPY_ASYNC'),(11,'aclrtMemcpy');
        CREATE TABLE ENUM_API_TYPE (id INTEGER PRIMARY KEY, name TEXT);
        INSERT INTO ENUM_API_TYPE VALUES (20000,'acl');
        CREATE TABLE NPU_INFO (id INTEGER, name TEXT);
        INSERT INTO NPU_INFO VALUES (0,'Ascend910B');
        CREATE TABLE TASK (startNs INTEGER, endNs INTEGER, deviceId INTEGER, connectionId INTEGER,
                           globalTaskId INTEGER, globalPid INTEGER, taskType INTEGER, contextId INTEGER,
                           streamId INTEGER, taskId INTEGER, modelId INTEGER);
        INSERT INTO TASK VALUES (1000, 1100, 0, 1, 0, 7, 1, 0, 2, 10, 4294967295),
                                (1200, 1300, 0, 2, 1, 7, 8, 0, 2, 11, 4294967295),
                                (1400, 1450, 0, 3, 2, 7, 10, 0, 2, 12, 4294967295);
        CREATE TABLE COMPUTE_TASK_INFO (name INTEGER, globalTaskId INTEGER, block_dim INTEGER, taskType INTEGER,
                                        opType INTEGER);
        INSERT INTO COMPUTE_TASK_INFO VALUES (2, 0, 16, 3, 4), (6, 1, 1, 5, 7);
        CREATE TABLE CANN_API (startNs INTEGER, endNs INTEGER, type INTEGER, globalTid INTEGER,
                               connectionId INTEGER, name INTEGER);
        INSERT INTO CANN_API VALUES (900, 950, 20000, 30064771079, 1, 9), (1350, 1460, 20000, 30064771079, 3, 11);
        CREATE TABLE STEP_TIME (id INTEGER, startNs INTEGER, endNs INTEGER);
        INSERT INTO STEP_TIME VALUES (4, 800, 1500);
    )";
    char* err = nullptr;
    QCOMPARE(sqlite3_exec(db, sql, nullptr, nullptr, &err), SQLITE_OK);
    sqlite3_close(db);
}

QByteArray fileDigest(const std::filesystem::path& path)
{
    QFile f(QString::fromStdString(path.string()));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256);
}

} // namespace

class TestAscendImporter : public QObject
{
    Q_OBJECT
private slots:
    void dumpTorchNpuBundle();
    void metadataAndCounts();
    void singleTraceViewFile();
    void csvOnlyBundle();
    void jsonOnlyBundle();
    void csvWithMissingColumns();
    void csvWithExtraColumns();
    void jsonAndCsvDisagree();
    void truncatedTraceView();
    void processNamesFirstOrLast();
    void processNameContradictsGuess();
    void processRenamedAfterUse();
    void garbageAfterEventsKeepsThem();
    void beginEndPairsAreSlices();
    void beginEndUnmatched();
    void emptyAndGarbageFiles_data();
    void emptyAndGarbageFiles();
    void slicedMsprofTimeline();
    void severalRanksInOneFolder();
    void databaseMapping();
    void databasePreferredOverText();
    void notADatabase();
    void lockedDatabase();
    void walDatabaseWithPendingChanges();
    void corruptDatabase();
};

void TestAscendImporter::dumpTorchNpuBundle()
{
    QTemporaryDir dir;
    writeBundle(dir);
    const auto r = importAscend(bundlePath(dir));
    QVERIFY2(r.ok(), r.status().message().c_str());
    // Times are relative to the trace start (the first counter sample at 1000 µs).
    const std::string expected = R"(track AI Core Freq / AI Core Freq (MHz) role=counter kind=npu device=0 samples=2
track Ascend Hardware / Stream 2 role=device_compute kind=npu device=0
  20500 +3000 d0 memcpy MEMCPY_ASYNC dir=htod [Task Type=PCIE_DMA_SQE] [launched by=acl_memcpy_host_to_device]
  30123 +10000 d0 kernel Conv2D1 [Task Type=AI_CORE] [OP Type=Conv2D] [Accelerator Core=AI_CORE] [Input Shapes=32,3,224,224;64]
  45000 +7000 d0 fallback_op aclnnCast_CastAiCpu_Cast [Task Type=AI_CPU] [OP Type=Cast] [Accelerator Core=AI_CPU] [Input Shapes=8]
track Ascend Hardware / Stream 3 role=device_compute kind=npu device=0
  50000 +1000 d0 memcpy MEMCPY_ASYNC dir=dtod [Task Type=SDMA_SQE]
  55000 +1000 d0 sync EVENT_WAIT [Task Type=EVENT_WAIT_SQE]
track CANN / Thread 100 role=host_thread kind=cpu device=-1
  11000 +2000 d0 runtime AscendCL@aclrtMemcpyAsync [level=acl]
track HCCL / Group 0 Communication role=communication kind=npu device=0
  60000 +20000 d0 communication hcom_allReduce__1_0_1 [OP Type=hcom_allReduce_]
track HCCL / Plane 0 role=communication kind=npu device=0
  61000 +2000 d0 communication Notify_Wait
track Overlap Analysis / Computing role=synthetic kind=npu device=0
  30123 +10000 d0 other Computing
track Python / Thread 100 role=host_thread kind=cpu device=-1
  0 +100000 d0 step ProfilerStep#7
  1000 +4000 d1 dataloader enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__
  6000 +40000 d1 python train.py(12): forward
  10000 +5000 d2 host_op acl_memcpy_host_to_device
  20000 +5000 d2 host_op aten::add
track Python / Thread 101 role=host_thread kind=cpu device=-1
  70000 +2000 d0 host_op AddBackward0
flow Thread 100:AscendCL@aclrtMemcpyAsync -> Stream 2:MEMCPY_ASYNC launch
flow Thread 100:acl_memcpy_host_to_device -> Stream 2:MEMCPY_ASYNC launch
flow Thread 100:aten::add -> Thread 101:AddBackward0 fwdbwd
step 7 ProfilerStep#7 0 +100000 marker
)";
    const std::string actual = dumpTrace(*r.value());
    if (actual != expected)
        qWarning("actual dump:\n%s", actual.c_str());
    QCOMPARE(actual, expected);
}

void TestAscendImporter::metadataAndCounts()
{
    QTemporaryDir dir;
    writeBundle(dir);
    const auto r = loadAny(bundlePath(dir));
    QVERIFY2(r.ok(), r.status().message().c_str());
    const Trace& t = *r.value();
    QCOMPARE(t.metadata().format, std::string("torch_npu"));
    QCOMPARE(t.metadata().rank, 3);
    QCOMPARE(t.metadata().profilerLevel, std::string("Level1"));
    QCOMPARE(metaProperty(t, "timeline_source"), std::string("trace_view.json"));
    QCOMPARE(metaProperty(t, "kernel_rows_joined"), std::string("3/3"));
    QCOMPARE(metaProperty(t, "op_statistic.AI_CPU"), std::string("count=1 total_ns=7000"));
    QCOMPARE(t.categoryCount(SliceCategory::FallbackOp), std::uint64_t(1));
    QCOMPARE(t.steps().size(), std::size_t(1));
    QCOMPARE(t.steps()[0].number, std::int64_t(7));
    QVERIFY(t.steps()[0].marker.isValid());
    QCOMPARE(t.flows().size(), std::size_t(3));
    QCOMPARE(t.metadata().devices.size(), std::size_t(1));
    QCOMPARE(t.metadata().devices[0].kind, DeviceKind::Npu);
    QVERIFY(t.warnings().empty());
}

void TestAscendImporter::singleTraceViewFile()
{
    QTemporaryDir dir;
    const auto path = writeFile(dir, "trace_view.json", kTraceView);
    const auto r = loadAny(path); // through the loader: must not be taken for Kineto
    QVERIFY2(r.ok(), r.status().message().c_str());
    QCOMPARE(r.value()->metadata().format, std::string("torch_npu"));
    QCOMPARE(deviceTaskCount(*r.value()), std::size_t(5));
    QCOMPARE(r.value()->categoryCount(SliceCategory::FallbackOp), std::uint64_t(1));
}

void TestAscendImporter::csvOnlyBundle()
{
    QTemporaryDir dir;
    writeBundle(dir, /*trace=*/false);
    const auto r = importAscend(bundlePath(dir));
    QVERIFY2(r.ok(), r.status().message().c_str());
    const Trace& t = *r.value();
    QCOMPARE(warningCount(t, "no_timeline"), std::uint64_t(1));
    QVERIFY(warningMentions(t, "kernel_details.csv"));
    QCOMPARE(deviceTaskCount(t), std::size_t(2)); // the HCCL row goes to a communication track
    QCOMPARE(t.categoryCount(SliceCategory::FallbackOp), std::uint64_t(1));
    QCOMPARE(t.categoryCount(SliceCategory::Communication), std::uint64_t(1));
    QCOMPARE(t.steps().size(), std::size_t(1));
    QCOMPARE(t.steps()[0].number, std::int64_t(7));
    QCOMPARE(metaProperty(t, "timeline_source"), std::string("kernel_details.csv"));
}

void TestAscendImporter::jsonOnlyBundle()
{
    QTemporaryDir dir;
    writeFile(dir, "r_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json", kTraceView);
    const auto r = importAscend(bundlePath(dir));
    QVERIFY2(r.ok(), r.status().message().c_str());
    QCOMPARE(r.value()->categoryCount(SliceCategory::FallbackOp), std::uint64_t(1)); // from Task Type alone
    QCOMPARE(r.value()->categoryCount(SliceCategory::Kernel), std::uint64_t(1));
    QVERIFY(r.value()->warnings().empty());
    QCOMPARE(r.value()->metadata().rank, -1);
}

void TestAscendImporter::csvWithMissingColumns()
{
    QTemporaryDir dir;
    writeBundle(dir, true, false);
    writeFile(dir, "r_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv", "Step Id,Name,Type\n7,Conv2D1,Conv2D\n");
    const auto r = importAscend(bundlePath(dir));
    QVERIFY2(r.ok(), r.status().message().c_str());
    QCOMPARE(warningCount(*r.value(), "csv_unreadable"), std::uint64_t(1));
    QVERIFY(warningMentions(*r.value(), "kernel_details.csv: missing required columns \"Start Time(us)\""));
    QCOMPARE(deviceTaskCount(*r.value()), std::size_t(5)); // the timeline still loads
}

void TestAscendImporter::csvWithExtraColumns()
{
    QTemporaryDir dir;
    writeBundle(dir, true, false);
    QByteArray csv = kKernelDetails;
    csv.replace("Input Data Types\r\n", "Input Data Types,aic_new_metric(us)\r\n");
    csv.replace("FLOAT;FLOAT\r\n", "FLOAT;FLOAT,1.5,surplus\r\n"); // one row with a cell too many
    writeFile(dir, "r_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv", csv);
    const auto r = importAscend(bundlePath(dir));
    QVERIFY2(r.ok(), r.status().message().c_str());
    QCOMPARE(metaProperty(*r.value(), "kernel_rows_joined"), std::string("3/3"));
    QCOMPARE(warningCount(*r.value(), "csv_extra_cells"), std::uint64_t(1));
    QCOMPARE(warningCount(*r.value(), "csv_short_row"), std::uint64_t(2)); // rows without the new metric
}

void TestAscendImporter::jsonAndCsvDisagree()
{
    QTemporaryDir dir;
    writeBundle(dir);
    QByteArray csv = kKernelDetails;
    csv.append("7,4294967295,9,2,Ghost,Cast,dynamic,AI_CPU,2000.000\t,1,0,1,N/A,N/A\r\n");
    writeFile(dir, "r_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv", csv);
    writeFile(dir, "r_ascend_pt/ASCEND_PROFILER_OUTPUT/step_trace_time.csv",
              QByteArray(kStepTrace).append("8,1,1,0,1,1,1,0,1,1\r\n"));
    const auto r = importAscend(bundlePath(dir));
    QVERIFY2(r.ok(), r.status().message().c_str());
    const Trace& t = *r.value();
    QCOMPARE(warningCount(t, "csv_timeline_mismatch"), std::uint64_t(1));
    QVERIFY(warningMentions(t, "kernel_details.csv: 1 of 4 rows have no device task"));
    // op_statistic (1 AI_CPU) vs kernel_details (2 AI_CPU rows), and step 8 missing from the timeline.
    QCOMPARE(warningCount(t, "op_statistic_mismatch"), std::uint64_t(1));
    QCOMPARE(warningCount(t, "step_trace_mismatch"), std::uint64_t(1));
    QVERIFY(warningMentions(t, "op_statistic.csv counts 1 AI_CPU tasks but kernel_details.csv has 2"));
    QVERIFY(warningMentions(t, "step_trace_time.csv lists step 8 but trace_view.json has no ProfilerStep#8"));
}

void TestAscendImporter::truncatedTraceView()
{
    QTemporaryDir dir;
    writeBundle(dir, false);
    const int cut = kTraceView.indexOf("\"name\":\"EVENT_WAIT\"");
    writeFile(dir, "r_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json", kTraceView.left(cut));
    const auto r = importAscend(bundlePath(dir));
    QVERIFY2(r.ok(), r.status().message().c_str());
    QVERIFY(warningCount(*r.value(), "truncated") >= 1);
    QVERIFY(warningMentions(*r.value(), "trace_view.json"));
    // Everything before the cut is there: 4 device tasks; process names were after the cut, so lanes come from
    // the events themselves (Task Type → device, AscendCL@ → CANN, cpu_op → Python).
    QCOMPARE(deviceTaskCount(*r.value()), std::size_t(4));
    QCOMPARE(r.value()->categoryCount(SliceCategory::RuntimeApi), std::uint64_t(1));
    QCOMPARE(r.value()->steps().size(), std::size_t(1));
}

namespace {

/// kTraceView with its M events moved to the front (the order an msprof or a hand-edited file may have).
QByteArray namesFirst(const QByteArray& trace)
{
    QList<QByteArray> meta;
    QList<QByteArray> rest;
    for (const QByteArray& line : trace.split('\n')) {
        if (line.startsWith("{\"ph\":\"M\""))
            meta.push_back(line.endsWith(',') ? line : line + ',');
        else if (line.startsWith('{'))
            rest.push_back(line.endsWith(',') ? line.chopped(1) : line);
    }
    return "[\n" + meta.join('\n') + '\n' + rest.join(",\n") + "\n]";
}

} // namespace

void TestAscendImporter::processNamesFirstOrLast()
{
    // Events stream into the model before their process is named (placed by what they say) or after (placed by
    // the name): both orders must give the same model, with no second read.
    QTemporaryDir last;
    writeBundle(last);
    QTemporaryDir first;
    writeBundle(first);
    writeFile(first, "r_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json", namesFirst(kTraceView));
    const auto a = importAscend(bundlePath(last));
    const auto b = importAscend(bundlePath(first));
    QVERIFY2(a.ok(), a.status().message().c_str());
    QVERIFY2(b.ok(), b.status().message().c_str());
    QCOMPARE(dumpTrace(*b.value()), dumpTrace(*a.value()));
    QCOMPARE(metaProperty(*a.value(), "timeline_passes"), std::string());
    QCOMPARE(metaProperty(*b.value(), "timeline_passes"), std::string());
}

void TestAscendImporter::processNameContradictsGuess()
{
    // pid 100's first event looks like an AscendCL call (no cat, an '@' in its name) and streams onto a CANN
    // track; the late process_name says pid 100 is Python. The importer must notice and read the file again with
    // the names known, giving exactly what the names-first file gives.
    const QByteArray trace = R"([
{"ph":"X","name":"aclopCompile@graph","pid":100,"tid":100,"ts":"1000.000","dur":10},
{"ph":"X","name":"aten::add","cat":"cpu_op","pid":100,"tid":100,"ts":"1002.000","dur":5},
{"ph":"X","name":"Conv2D1","pid":300,"tid":2,"ts":"1010.000","dur":10,"args":{"Task Type":"AI_CORE"}},
{"ph":"M","name":"process_name","pid":100,"tid":0,"args":{"name":"Python"}},
{"ph":"M","name":"process_name","pid":300,"tid":0,"args":{"name":"Ascend Hardware"}}
])";
    QTemporaryDir late;
    const auto lateFile = writeFile(late, "trace_view.json", trace);
    QTemporaryDir early;
    const auto earlyFile = writeFile(early, "trace_view.json", namesFirst(trace));
    const auto a = importAscend(lateFile);
    const auto b = importAscend(earlyFile);
    QVERIFY2(a.ok(), a.status().message().c_str());
    QVERIFY2(b.ok(), b.status().message().c_str());
    QCOMPARE(dumpTrace(*a.value()), dumpTrace(*b.value()));
    QCOMPARE(a.value()->categoryCount(SliceCategory::RuntimeApi), std::uint64_t(0));
    QCOMPARE(a.value()->categoryCount(SliceCategory::HostOp), std::uint64_t(2));
    QVERIFY(dumpTrace(*a.value()).find("track Python / Thread 100") != std::string::npos);
    QVERIFY(metaProperty(*a.value(), "timeline_passes").starts_with("2 "));
    QCOMPARE(metaProperty(*b.value(), "timeline_passes"), std::string());
}

void TestAscendImporter::processRenamedAfterUse()
{
    // A counter process named, used, then renamed: the last name wins (as when everything was kept to the end),
    // which needs a second read because the first name already named a track.
    const QByteArray trace = R"([
{"ph":"M","name":"process_name","pid":600,"tid":0,"args":{"name":"AI Core Freq"}},
{"ph":"C","name":"AI Core Freq","pid":600,"tid":0,"ts":"1000.000","args":{"MHz":1800}},
{"ph":"X","name":"Conv2D1","pid":300,"tid":2,"ts":"1010.000","dur":10,"args":{"Task Type":"AI_CORE"}},
{"ph":"M","name":"process_name","pid":600,"tid":0,"args":{"name":"Freq"}}
])";
    QTemporaryDir dir;
    const auto r = importAscend(writeFile(dir, "trace_view.json", trace));
    QVERIFY2(r.ok(), r.status().message().c_str());
    const std::string dump = dumpTrace(*r.value());
    QVERIFY2(dump.find("track Freq / ") != std::string::npos, dump.c_str());
    QVERIFY2(dump.find("track AI Core Freq") == std::string::npos, dump.c_str());
    QCOMPARE(counterSampleCount(*r.value()), std::size_t(1));
    QVERIFY(metaProperty(*r.value(), "timeline_passes").starts_with("2 "));
}

namespace {

// B/E pairs on two Python threads (nested, interleaved) and a CANN call, with a flow from a B/E op to a device task;
// kBeginEndAsComplete is the same timeline written as X events.
const QByteArray kBeginEnd = R"([
{"ph":"B","name":"ProfilerStep#3","cat":"cpu_op","pid":100,"tid":100,"ts":"1000.000"},
{"ph":"B","name":"aten::linear","cat":"cpu_op","pid":100,"tid":100,"ts":"1010.000"},
{"ph":"B","name":"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__","cat":"cpu_op","pid":100,"tid":101,"ts":"1012.000"},
{"ph":"B","name":"aten::matmul","cat":"cpu_op","pid":100,"tid":100,"ts":"1015.000"},
{"ph":"s","name":"torch_to_npu","cat":"async_npu","id":77,"pid":100,"tid":100,"ts":"1016.000","bp":"e"},
{"ph":"B","name":"AscendCL@aclnnMatmul","pid":200,"tid":100,"ts":"1016.500","args":{"level":"acl"}},
{"ph":"E","pid":100,"tid":100,"ts":"1025.000"},
{"ph":"E","pid":200,"tid":100,"ts":"1018.000"},
{"ph":"E","pid":100,"tid":101,"ts":"1030.000"},
{"ph":"E","pid":100,"tid":100,"ts":"1040.000"},
{"ph":"X","name":"aten::add","cat":"cpu_op","pid":100,"tid":100,"ts":"1045.000","dur":5},
{"ph":"E","pid":100,"tid":100,"ts":"1100.000"},
{"ph":"f","name":"torch_to_npu","cat":"async_npu","id":77,"pid":300,"tid":2,"ts":"1030.000","bp":"e"},
{"ph":"X","name":"MatMul1","pid":300,"tid":2,"ts":"1030.000","dur":8,"args":{"Task Type":"AI_CORE"}},
{"ph":"M","name":"process_name","pid":100,"tid":0,"args":{"name":"Python"}},
{"ph":"M","name":"process_name","pid":200,"tid":0,"args":{"name":"CANN"}},
{"ph":"M","name":"process_name","pid":300,"tid":0,"args":{"name":"Ascend Hardware"}}
])";
const QByteArray kBeginEndAsComplete = R"([
{"ph":"X","name":"ProfilerStep#3","cat":"cpu_op","pid":100,"tid":100,"ts":"1000.000","dur":100},
{"ph":"X","name":"aten::linear","cat":"cpu_op","pid":100,"tid":100,"ts":"1010.000","dur":30},
{"ph":"X","name":"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__","cat":"cpu_op","pid":100,"tid":101,"ts":"1012.000","dur":18},
{"ph":"X","name":"aten::matmul","cat":"cpu_op","pid":100,"tid":100,"ts":"1015.000","dur":10},
{"ph":"s","name":"torch_to_npu","cat":"async_npu","id":77,"pid":100,"tid":100,"ts":"1016.000","bp":"e"},
{"ph":"X","name":"AscendCL@aclnnMatmul","pid":200,"tid":100,"ts":"1016.500","dur":1.5,"args":{"level":"acl"}},
{"ph":"X","name":"aten::add","cat":"cpu_op","pid":100,"tid":100,"ts":"1045.000","dur":5},
{"ph":"f","name":"torch_to_npu","cat":"async_npu","id":77,"pid":300,"tid":2,"ts":"1030.000","bp":"e"},
{"ph":"X","name":"MatMul1","pid":300,"tid":2,"ts":"1030.000","dur":8,"args":{"Task Type":"AI_CORE"}},
{"ph":"M","name":"process_name","pid":100,"tid":0,"args":{"name":"Python"}},
{"ph":"M","name":"process_name","pid":200,"tid":0,"args":{"name":"CANN"}},
{"ph":"M","name":"process_name","pid":300,"tid":0,"args":{"name":"Ascend Hardware"}}
])";

} // namespace

void TestAscendImporter::beginEndPairsAreSlices()
{
    // Each B/E pair becomes the slice its X twin would: same track, lane, category, depth, step and flow.
    QTemporaryDir dir;
    const auto r = importAscend(writeFile(dir, "be/trace_view.json", kBeginEnd));
    QVERIFY2(r.ok(), r.status().message().c_str());
    const auto x = importAscend(writeFile(dir, "x/trace_view.json", kBeginEndAsComplete));
    QVERIFY2(x.ok(), x.status().message().c_str());
    const std::string dump = dumpTrace(*r.value());
    QCOMPARE(dump, dumpTrace(*x.value()));
    QVERIFY2(r.value()->warnings().empty(), dump.c_str());
    // The pairs closed as nested: matmul in linear in the step, the DataLoader slice on its own thread.
    QVERIFY2(dump.find("  15000 +10000 d2 host_op aten::matmul\n") != std::string::npos, dump.c_str());
    QVERIFY2(dump.find("  10000 +30000 d1 host_op aten::linear\n") != std::string::npos, dump.c_str());
    QVERIFY2(dump.find("  0 +100000 d0 step ProfilerStep#3\n") != std::string::npos, dump.c_str());
    QVERIFY2(dump.find("  12000 +18000 d0 dataloader enumerate(DataLoader)") != std::string::npos, dump.c_str());
    QVERIFY2(dump.find("  16500 +1500 d0 runtime AscendCL@aclnnMatmul [level=acl]\n") != std::string::npos,
             dump.c_str());
    QVERIFY2(dump.find("step 3 ProfilerStep#3 0 +100000 marker\n") != std::string::npos, dump.c_str());
    QCOMPARE(r.value()->flows().size(), std::size_t(1));
    QCOMPARE(deviceTaskCount(*r.value()), std::size_t(1));
}

void TestAscendImporter::beginEndUnmatched()
{
    // An E with nothing open on its thread is skipped (the B of another thread stays open); a B never closed ends
    // at the last timestamp of the timeline, flagged, and both are counted.
    const QByteArray trace = R"([
{"ph":"B","name":"aten::copy_","cat":"cpu_op","pid":100,"tid":100,"ts":"1000.000"},
{"ph":"E","pid":100,"tid":101,"ts":"1005.000"},
{"ph":"X","name":"aten::add","cat":"cpu_op","pid":100,"tid":100,"ts":"1010.000","dur":5},
{"ph":"B","name":"aten::mul","cat":"cpu_op","pid":100,"tid":100,"ts":"1020.000"},
{"ph":"E","pid":100,"tid":100,"ts":"1030.000"},
{"ph":"X","name":"aten::sub","cat":"cpu_op","pid":100,"tid":101,"ts":"1040.000","dur":20},
{"ph":"M","name":"process_name","pid":100,"tid":0,"args":{"name":"Python"}}
])";
    QTemporaryDir dir;
    const auto r = importAscend(writeFile(dir, "trace_view.json", trace));
    QVERIFY2(r.ok(), r.status().message().c_str());
    const Trace& t = *r.value();
    const std::string dump = dumpTrace(t);
    QCOMPARE(warningCount(t, "unmatched_end"), std::uint64_t(1));
    QCOMPARE(warningCount(t, "unmatched_begin"), std::uint64_t(1));
    QVERIFY2(dump.find("  0 +60000 d0 host_op aten::copy_\n") != std::string::npos, dump.c_str());
    QVERIFY2(dump.find("  20000 +10000 d1 host_op aten::mul\n") != std::string::npos, dump.c_str());
    std::size_t unmatched = 0;
    std::size_t slices = 0;
    for (const Track& tr : t.tracks()) {
        for (std::uint32_t i = 0; i < tr.size(); ++i) {
            ++slices;
            if (tr.flags(i) & SliceFlags::kUnmatched) {
                ++unmatched;
                QCOMPARE(std::string(t.str(tr.sliceName(i))), std::string("aten::copy_"));
            }
        }
    }
    QCOMPARE(slices, std::size_t(4));
    QCOMPARE(unmatched, std::size_t(1));
}

void TestAscendImporter::garbageAfterEventsKeepsThem()
{
    // The scanner gives up at the ':' (not an event, not the end of the array) after two good events: they are
    // already in the model, so the file loads partly, with a warning naming it, instead of failing as a whole.
    const QByteArray trace
        = "[\n"
          R"({"ph":"X","name":"Conv2D1","pid":300,"tid":2,"ts":"1010.000","dur":10,"args":{"Task Type":"AI_CORE"}},)"
          "\n"
          R"({"ph":"X","name":"Conv2D2","pid":300,"tid":2,"ts":"1030.000","dur":10,"args":{"Task Type":"AI_CORE"}},)"
          "\n: nonsense";
    QTemporaryDir dir;
    writeFile(dir, "r_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json", trace);
    const auto r = importAscend(bundlePath(dir));
    QVERIFY2(r.ok(), r.status().message().c_str());
    QCOMPARE(deviceTaskCount(*r.value()), std::size_t(2));
    QCOMPARE(warningCount(*r.value(), "timeline_unreadable"), std::uint64_t(1));
    QVERIFY(warningMentions(*r.value(), "trace_view.json: not a trace"));
}

void TestAscendImporter::emptyAndGarbageFiles_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("mention");
    QTest::newRow("empty trace_view") << "trace_view.json" << QByteArray() << "trace_view.json";
    QTest::newRow("garbage trace_view") << "trace_view.json" << QByteArray("\x01\x02 not json at all")
                                        << "trace_view.json";
    QTest::newRow("object not array") << "trace_view.json" << QByteArray("{\"a\": 1}") << "trace_view.json";
    QTest::newRow("garbage db") << "msprof_1.db" << QByteArray("this is not an sqlite file, just text")
                                << "msprof_1.db";
    QTest::newRow("header-only csv") << "kernel_details.csv"
                                     << QByteArray("Step Id,Name,Accelerator Core,Start Time(us),Duration(us)\n")
                                     << "kernel_details.csv";
}

void TestAscendImporter::emptyAndGarbageFiles()
{
    QFETCH(QString, name);
    QFETCH(QByteArray, content);
    QFETCH(QString, mention);
    QTemporaryDir dir;
    const auto path = writeFile(dir, name.toStdString(), content);
    const auto r = importAscend(path);
    if (r.ok()) {
        QVERIFY(!r.value()->warnings().empty());
    } else {
        QVERIFY2(r.status().message().find(mention.toStdString()) != std::string::npos, r.status().message().c_str());
    }
}

void TestAscendImporter::slicedMsprofTimeline()
{
    QTemporaryDir dir;
    const char* base = "PROF_000001_20260306150848328_ABC/mindstudio_profiler_output/";
    writeFile(
        dir, std::string(base) + "msprof_slice_1_20260306.json",
        R"([{"name":"k2","pid":1000,"tid":7,"ts":"2000.000","dur":5,"ph":"X","args":{"Task Type":"AI_CPU","Physic Stream Id":7}}])");
    writeFile(
        dir, std::string(base) + "msprof_slice_0_20260306.json",
        R"([{"name":"k1","pid":1000,"tid":7,"ts":"1000.000","dur":5,"ph":"X","args":{"Task Type":"MIX_AIC","Physic Stream Id":7}},
{"name":"Runtime@DeviceSynchronize","pid":1001,"tid":20,"ts":"999.000","dur":2,"ph":"X","args":{"Mode":"DeviceSynchronize","level":"runtime"}},
{"name":"process_name","ph":"M","pid":1000,"tid":0,"args":{"name":"Ascend Hardware"}}])");
    writeFile(dir, std::string(base) + "op_summary_slice_0_20260306.csv",
              "Device_id,Model ID,Task ID,Stream ID,Op Name,OP Type,OP State,Task Type,Task Start Time(us),"
              "Task Duration(us),Task Wait Time(us),Block Dim\n"
              "1,4294967295,0,7,k1,MatMul,dynamic,MIX_AIC,1000.000,5,0,24\n");
    const auto r = loadAny(std::filesystem::path(dir.path().toStdString()));
    QVERIFY2(r.ok(), r.status().message().c_str());
    const Trace& t = *r.value();
    QCOMPARE(t.metadata().format, std::string("msprof"));
    QCOMPARE(metaProperty(t, "timeline_slices"), std::string("2"));
    QCOMPARE(metaProperty(t, "timeline_source"),
             std::string("msprof_slice_0_20260306.json, msprof_slice_1_20260306.json"));
    QCOMPARE(deviceTaskCount(t), std::size_t(2));
    QCOMPARE(t.categoryCount(SliceCategory::FallbackOp), std::uint64_t(1));
    QCOMPARE(t.categoryCount(SliceCategory::Kernel), std::uint64_t(1));
    QCOMPARE(t.categoryCount(SliceCategory::RuntimeApi), std::uint64_t(1));
    QCOMPARE(t.metadata().devices.at(0).index, 1); // Device_id of op_summary
}

void TestAscendImporter::severalRanksInOneFolder()
{
    QTemporaryDir dir;
    writeFile(dir, "job/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json", kTraceView);
    writeFile(dir, "job/rank1_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv", kKernelDetails);
    const auto r = importAscend(std::filesystem::path(dir.filePath(QStringLiteral("job")).toStdString()));
    QVERIFY2(r.ok(), r.status().message().c_str());
    QCOMPARE(warningCount(*r.value(), "multiple_runs"), std::uint64_t(1));
    QVERIFY(warningMentions(*r.value(), "2 profiler runs found"));
    QVERIFY(warningMentions(*r.value(), "imported rank0_ascend_pt"));
    QCOMPARE(metaProperty(*r.value(), "timeline_source"), std::string("trace_view.json"));
    QCOMPARE(metaProperty(*r.value(), "kernel_table"), std::string()); // rank1's CSV is not mixed in
}

void TestAscendImporter::databaseMapping()
{
    QTemporaryDir dir;
    const std::filesystem::path db = std::filesystem::path(dir.path().toStdString()) / "msprof_20260101.db";
    writeTinyDb(db);
    const auto r = loadAny(db);
    QVERIFY2(r.ok(), r.status().message().c_str());
    // Relative to the first slice (900 ns); STEP_TIME starts before it. The MEMCPY_ASYNC was launched by the
    // synchronous aclrtMemcpy, which does not say the direction.
    const std::string expected = R"(track Ascend Hardware / Stream 2 role=device_compute kind=npu device=0
  100 +100 d0 kernel Conv2D1 [Task Type=KERNEL_AICORE] [Accelerator Core=AI_CORE] [OP Type=Conv2D]
  300 +100 d0 fallback_op Cast1 [Task Type=KERNEL_AICPU] [Accelerator Core=AI_CPU] [OP Type=Cast]
  500 +50 d0 memcpy MEMCPY_ASYNC sync [Task Type=MEMCPY_ASYNC]
track CANN / Thread 7 role=host_thread kind=cpu device=-1
  0 +50 d0 runtime AscendCL@aclnnConv [level=acl]
  450 +110 d0 runtime AscendCL@aclrtMemcpy [level=acl]
flow Thread 7:AscendCL@aclnnConv -> Stream 2:Conv2D1 launch
flow Thread 7:AscendCL@aclrtMemcpy -> Stream 2:MEMCPY_ASYNC launch
step 4 ProfilerStep#4 -100 +700
)";
    const std::string actual = dumpTrace(*r.value());
    if (actual != expected)
        qWarning("actual dump:\n%s", actual.c_str());
    QCOMPARE(actual, expected);
    QCOMPARE(r.value()->metadata().format, std::string("msprof-db"));
    QCOMPARE(r.value()->metadata().devices.at(0).name, std::string("Ascend910B"));
}

void TestAscendImporter::databasePreferredOverText()
{
    QTemporaryDir dir;
    writeBundle(dir);
    writeTinyDb(bundlePath(dir) / "ASCEND_PROFILER_OUTPUT" / "ascend_pytorch_profiler_3.db");
    const auto r = importAscend(bundlePath(dir));
    QVERIFY2(r.ok(), r.status().message().c_str());
    QCOMPARE(r.value()->metadata().format, std::string("torch_npu-db"));
    QCOMPARE(metaProperty(*r.value(), "timeline_source"), std::string("ascend_pytorch_profiler_3.db"));
    QCOMPARE(warningCount(*r.value(), "export_choice"), std::uint64_t(1));
    QVERIFY(warningMentions(*r.value(), "imported the database only"));
    QCOMPARE(deviceTaskCount(*r.value()), std::size_t(3)); // the database's tasks, not the JSON's five
}

void TestAscendImporter::notADatabase()
{
    QTemporaryDir dir;
    writeBundle(dir);
    writeFile(dir, "r_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_3.db", "definitely not sqlite\n");
    const auto r = importAscend(bundlePath(dir));
    QVERIFY2(r.ok(), r.status().message().c_str());
    QCOMPARE(warningCount(*r.value(), "db_unreadable"), std::uint64_t(1));
    QVERIFY(warningMentions(*r.value(), "ascend_pytorch_profiler_3.db"));
    QCOMPARE(r.value()->metadata().format, std::string("torch_npu"));
    QCOMPARE(deviceTaskCount(*r.value()), std::size_t(5));

    // A real SQLite file without msprof tables, alone: an error naming it.
    const std::filesystem::path other = std::filesystem::path(dir.path().toStdString()) / "msprof_9.db";
    sqlite3* db = nullptr;
    QCOMPARE(sqlite3_open(other.string().c_str(), &db), SQLITE_OK);
    QCOMPARE(sqlite3_exec(db, "CREATE TABLE t(a); INSERT INTO t VALUES (1);", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
    const auto r2 = importAscend(other);
    QVERIFY(!r2.ok());
    QVERIFY2(r2.status().message().find("msprof_9.db") != std::string::npos, r2.status().message().c_str());
    QVERIFY2(r2.status().message().find("without msprof tables") != std::string::npos, r2.status().message().c_str());
}

void TestAscendImporter::lockedDatabase()
{
    QTemporaryDir dir;
    const std::filesystem::path path = std::filesystem::path(dir.path().toStdString()) / "msprof_1.db";
    writeTinyDb(path);
    sqlite3* writer = nullptr;
    QCOMPARE(sqlite3_open(path.string().c_str(), &writer), SQLITE_OK);
    QCOMPARE(
        sqlite3_exec(writer, "BEGIN EXCLUSIVE; INSERT INTO STRING_IDS VALUES (99, 'x');", nullptr, nullptr, nullptr),
        SQLITE_OK);
    const QByteArray before = fileDigest(path);
    const auto r = importAscend(path); // immutable=1 takes no lock, so an exclusive writer does not block us
    QVERIFY2(r.ok(), r.status().message().c_str());
    QCOMPARE(deviceTaskCount(*r.value()), std::size_t(3));
    QCOMPARE(fileDigest(path), before);
    sqlite3_exec(writer, "ROLLBACK;", nullptr, nullptr, nullptr);
    sqlite3_close(writer);
}

void TestAscendImporter::walDatabaseWithPendingChanges()
{
    QTemporaryDir dir;
    const std::filesystem::path path = std::filesystem::path(dir.path().toStdString()) / "msprof_1.db";
    writeTinyDb(path);
    sqlite3* writer = nullptr;
    QCOMPARE(sqlite3_open(path.string().c_str(), &writer), SQLITE_OK);
    QCOMPARE(sqlite3_exec(writer,
                          "PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0;"
                          "INSERT INTO TASK VALUES (1500, 1600, 0, 9, 9, 7, 1, 0, 2, 13, 4294967295);",
                          nullptr, nullptr, nullptr),
             SQLITE_OK);
    const QByteArray before = fileDigest(path);
    const auto r = importAscend(path);
    QVERIFY2(r.ok(), r.status().message().c_str());
    QCOMPARE(warningCount(*r.value(), "db_wal_ignored"), std::uint64_t(1));
    QVERIFY(warningMentions(*r.value(), "msprof_1.db-wal"));
    QCOMPARE(deviceTaskCount(*r.value()), std::size_t(3)); // the row still in the WAL is not read
    QCOMPARE(fileDigest(path), before);
    sqlite3_close(writer);
}

void TestAscendImporter::corruptDatabase()
{
    QTemporaryDir dir;
    const std::filesystem::path path = std::filesystem::path(dir.path().toStdString()) / "msprof_1.db";
    writeTinyDb(path);
    // Overwrite the pages after the header: the schema page survives, table pages are garbage.
    QFile f(QString::fromStdString(path.string()));
    QVERIFY(f.open(QIODevice::ReadWrite));
    const qint64 size = f.size();
    QVERIFY(size > 4096);
    f.seek(4096);
    f.write(QByteArray(static_cast<int>(size - 4096), '\xA5'));
    f.close();
    const auto r = importAscend(path);
    if (r.ok()) {
        QVERIFY(!r.value()->warnings().empty());
        QVERIFY(warningMentions(*r.value(), "msprof_1.db"));
    } else {
        QVERIFY2(r.status().message().find("msprof_1.db") != std::string::npos, r.status().message().c_str());
    }
}

QTEST_GUILESS_MAIN(TestAscendImporter)
#include "tst_ascendimporter.moc"
