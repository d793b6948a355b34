// SPDX-License-Identifier: MIT
// Every torch_npu / msprof fixture folder, file and database imports with counts established independently of
// this code, by these Python snippets over the fixtures (run from fixtures/):
//
// Text timelines (trace_view.json / msprof_*.json):
//   ev = json.load(open(path))
//   pn = {e['pid']: e['args']['name'] for e in ev if e.get('ph') == 'M' and e['name'] == 'process_name'}
//   X = [e for e in ev if e.get('ph') == 'X']
//   hw = [e for e in X if pn.get(e['pid']) == 'Ascend Hardware' or ('Task Type' in e.get('args', {}) and e['pid'] not
//   in pn)] threads = {(e['pid'], e['tid']) for e in X} s = {(e['cat'], str(e['id'])): e for e in ev if e.get('ph') ==
//   's'} flows = sum(1 for e in ev if e.get('ph') == 'f' and (e['cat'], str(e['id'])) in s and (e['pid'], e['tid']) in
//   threads
//               and (s[(e['cat'], str(e['id']))]['pid'], s[(e['cat'], str(e['id']))]['tid']) in threads)
//   tt = collections.Counter(e['args'].get('Task Type') for e in hw)
//   device_tasks=len(hw), ai_cpu=tt['AI_CPU'], steps=sum(e['name'].startswith('ProfilerStep#') for e in X),
//   cann=sum(pn.get(e['pid']) == 'CANN' or (e['pid'] not in pn and '@' in e['name']) for e in X),
//   python_function=sum(e.get('cat') == 'python_function' for e in X), hccl=sum(pn.get(e['pid']) == 'HCCL' for e in X),
//   copies=sum(e['args'].get('Task Type') in ('PCIE_DMA_SQE', 'SDMA_SQE', 'SDMA') or e['name'] == 'MEMCPY_ASYNC' for e
//   in hw), counter_samples=sum(sum(isinstance(v, (int, float)) for v in e['args'].values()) for e in ev if e.get('ph')
//   == 'C')
//
// kernel_details.csv alone:
//   rows = list(csv.DictReader(open(path, newline=''))); core = Counter(r['Accelerator Core'] for r in rows)
//   device_tasks=len(rows) - core['HCCL'], ai_cpu=core['AI_CPU'], hccl=core['HCCL'], steps=len({r['Step Id'] for r in
//   rows})
//
// SQLite exports (sqlite3, 'file:PATH?immutable=1'):
//   device_tasks = count(TASK); ai_cpu = TASK ⟕ COMPUTE_TASK_INFO where TASK.taskType ∈ {AI_CPU, KERNEL_AICPU} or
//   COMPUTE_TASK_INFO.taskType = AI_CPU; steps = count(STEP_TIME); cann = count(CANN_API);
//   python_function = count(PYTORCH_API where type = 50003);
//   communication = count(COMMUNICATION_OP) + count(TASK ⋈ COMMUNICATION_TASK_INFO on globalTaskId);
//   mstx = count(MSTX_EVENTS); flows = Σ over TASK/COMMUNICATION_OP connectionIds c of: [c in CANN_API and
//   'HostToDevice' ∈ cats(c)] + [some PYTORCH_API row reaches c through CONNECTION_IDS and 'async_npu' ∈ cats(c)],
//   plus (n − 1) per connection id shared by n PYTORCH_API rows under async_task_queue (type 50002) or fwdbwd.
//
// A trace without step markers has one synthetic step, hence steps = max(1, markers).
#include "ascendtesthelpers.h"
#include "model/trace.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QTest>

#include <filesystem>

using namespace timesink;
using namespace timesink::model;
using namespace ascendtest;

namespace {
std::filesystem::path fixture(const QString& relative)
{
    return std::filesystem::path(TIMESINK_FIXTURES_DIR) / relative.toStdString();
}

QByteArray digest(const std::filesystem::path& path)
{
    QFile f(QString::fromStdString(path.string()));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256);
}
} // namespace

class TestAscendFixtures : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase()
    {
        if (!std::filesystem::exists(std::filesystem::path(TIMESINK_FIXTURES_DIR) / "SOURCES.md"))
            QFAIL("fixtures not found in tests/data");
    }

    void importsWithIndependentCounts_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("format");
        QTest::addColumn<int>("deviceTasks");
        QTest::addColumn<int>("fallback");
        QTest::addColumn<int>("steps");
        QTest::addColumn<int>("flows");
        QTest::addColumn<int>("runtime");
        QTest::addColumn<int>("python");
        QTest::addColumn<int>("communication");
        QTest::addColumn<int>("memcpy"); // -1: not asserted
        QTest::addColumn<int>("counterSamples");
        // clang-format off
        //                                                                                                        dev  cpu st flows rt   py   comm copy counters
        // Bundles add memory_record.csv's PTA rows as two counters (allocated, reserved): 381 rows → 762 samples.
        QTest::newRow("text level0 bundle") << "torch_npu/msinsight_text_level0_rank0_ascend_pt" << "torch_npu"      << 533 << 0 << 1 << 396 << 0   << 1282 << 4   << 96 << 5952 + 762;
        QTest::newRow("text level1 bundle") << "torch_npu/msinsight_text_level1_rank0_ascend_pt" << "torch_npu"      << 535 << 0 << 1 << 611 << 707 << 1282 << 300 << 96 << 7183 + 762;
        QTest::newRow("level1 output dir") << "torch_npu/msinsight_text_level1_rank0_ascend_pt/ASCEND_PROFILER_OUTPUT" << "torch_npu" << 535 << 0 << 1 << 611 << 707 << 1282 << 300 << 96 << 7183 + 762;
        QTest::newRow("level1 trace_view") << "torch_npu/msinsight_text_level1_rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json" << "torch_npu" << 535 << 0 << 1 << 611 << 707 << 1282 << 300 << 96 << 7183;
        QTest::newRow("2023 advisor folder") << "torch_npu/mstt_advisor_ut_2023" << "torch_npu"                  << 276 << 2 << 1 << 713 << 382 << 0    << 0   << 2  << 0;
        QTest::newRow("2023 trace_view") << "torch_npu/mstt_advisor_ut_2023/trace_view.json" << "torch_npu"        << 276 << 2 << 1 << 713 << 382 << 0    << 0   << 2  << 0;
        QTest::newRow("2023 kernel_details") << "torch_npu/mstt_advisor_ut_2023/kernel_details.csv" << "torch_npu" << 572 << 7 << 1 << 0   << 0   << 0    << 19  << -1 << 0;
        QTest::newRow("2025 kernel_details") << "torch_npu/mstt_advisor_ut_2025_kernel_details.csv" << "torch_npu" << 29  << 0 << 1 << 0   << 0   << 0    << 0   << -1 << 0;
        QTest::newRow("msprof sanitized") << "msprof/neo-pan_real_cann_minimal_sanitized" << "msprof"              << 1   << 0 << 1 << 0   << 1   << 0    << 0   << 0  << 0;
        QTest::newRow("msprof sanitized json") << "msprof/neo-pan_real_cann_minimal_sanitized/PROF_001/mindstudio_profiler_output/msprof_001.json" << "msprof" << 1 << 0 << 1 << 0 << 1 << 0 << 0 << 0 << 0;
        // DB communication: 4 COMMUNICATION_OP rows + 296 plane copies of COMMUNICATION_TASK_INFO tasks + the 4 TASK rows
        // (taskType AI_CORE, no compute info) that carry a COMMUNICATION_OP's connectionId: the collectives' own tasks.
        QTest::newRow("torch_npu db bundle") << "msprof/msinsight_db_level1_rank0_ascend_pt" << "torch_npu-db"    << 552 << 0 << 1 << 1194 << 710 << 1282 << 304 << -1 << -1;
        QTest::newRow("torch_npu db file") << "msprof/msinsight_db_level1_rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db" << "torch_npu-db" << 552 << 0 << 1 << 1194 << 710 << 1282 << 304 << -1 << -1;
        QTest::newRow("insight msprof db") << "msprof/msinsight_test_full_db_msprof_0.db" << "msprof-db"            << 24  << 0 << 1 << 1   << 4   << 0    << 8   << -1 << -1;
        // clang-format on
    }

    void importsWithIndependentCounts()
    {
        QFETCH(QString, path);
        QFETCH(QString, format);
        QFETCH(int, deviceTasks);
        QFETCH(int, fallback);
        QFETCH(int, steps);
        QFETCH(int, flows);
        QFETCH(int, runtime);
        QFETCH(int, python);
        QFETCH(int, communication);
        QFETCH(int, memcpy);
        QFETCH(int, counterSamples);
        const auto r = loadAny(fixture(path)); // the loader, as `timesink-cli info` does
        QVERIFY2(r.ok(), r.status().message().c_str());
        const Trace& t = *r.value();
        QCOMPARE(QString::fromStdString(t.metadata().format), format);
        QCOMPARE(deviceTaskCount(t), std::size_t(deviceTasks));
        QCOMPARE(t.categoryCount(SliceCategory::FallbackOp), std::uint64_t(fallback));
        QCOMPARE(t.steps().size(), std::size_t(steps));
        QCOMPARE(t.flows().size(), std::size_t(flows));
        QCOMPARE(t.categoryCount(SliceCategory::RuntimeApi), std::uint64_t(runtime));
        QCOMPARE(t.categoryCount(SliceCategory::PythonFrame), std::uint64_t(python));
        QCOMPARE(t.categoryCount(SliceCategory::Communication), std::uint64_t(communication));
        if (memcpy >= 0)
            QCOMPARE(t.categoryCount(SliceCategory::Memcpy), std::uint64_t(memcpy));
        if (counterSamples >= 0)
            QCOMPARE(counterSampleCount(t), std::size_t(counterSamples));
        QVERIFY(!t.metadata().devices.empty());
        QCOMPARE(t.metadata().devices[0].kind, DeviceKind::Npu);
        QVERIFY(!metaProperty(t, "timeline_source").empty());
    }

    void level1Details()
    {
        const auto r = loadAny(fixture(QStringLiteral("torch_npu/msinsight_text_level1_rank0_ascend_pt")));
        QVERIFY2(r.ok(), r.status().message().c_str());
        const Trace& t = *r.value();
        QCOMPARE(t.metadata().rank, 0);
        QCOMPARE(t.metadata().profilerLevel, std::string("Level1"));
        // Every kernel_details row (including the 4 HCCL rows, whose start differs by 1 ns) joins a task.
        QCOMPARE(metaProperty(t, "kernel_rows_joined"), std::string("191/191"));
        QVERIFY(t.warnings().empty());
        // Of the 14 PCIE_DMA_SQE copies, 2 were launched by acl_memcpy_host_to_device (async_npu flow start
        // enclosed by that cpu_op; established with the enclosure snippet in the format notes); 10 SDMA_SQE
        // MEMCPY_ASYNC + 72 SDMA tasks are on-device copies.
        QCOMPARE(memcpyCount(t, MemcpyDirection::HostToDevice), std::size_t(2));
        QCOMPARE(memcpyCount(t, MemcpyDirection::DeviceToDevice), std::size_t(82));
        QCOMPARE(t.steps()[0].number, std::int64_t(50));
        QVERIFY(t.steps()[0].marker.isValid());
    }

    void level0ReportsMissingCann()
    {
        const auto r = loadAny(fixture(QStringLiteral("torch_npu/msinsight_text_level0_rank0_ascend_pt")));
        QVERIFY2(r.ok(), r.status().message().c_str());
        // Level0 has HostToDevice starts on a pid with no events (no CANN process): 210 s + 5 extra f ends.
        QCOMPARE(warningCount(*r.value(), "flow_unresolved"), std::uint64_t(215));
        QCOMPARE(r.value()->metadata().profilerLevel, std::string("Level0"));
    }

    void differentRunsDisagree()
    {
        // The 2023 kernel_details comes from another run than its trace_view: every row is reported unjoined.
        const auto r = loadAny(fixture(QStringLiteral("torch_npu/mstt_advisor_ut_2023")));
        QVERIFY2(r.ok(), r.status().message().c_str());
        QCOMPARE(warningCount(*r.value(), "csv_timeline_mismatch"), std::uint64_t(591));
        QVERIFY(warningMentions(*r.value(), "kernel_details.csv: 591 of 591 rows"));
    }

    void databaseMetadata()
    {
        const auto r = loadAny(fixture(QStringLiteral("msprof/msinsight_db_level1_rank0_ascend_pt")));
        QVERIFY2(r.ok(), r.status().message().c_str());
        const Trace& t = *r.value();
        QCOMPARE(t.metadata().devices.size(), std::size_t(1));
        QCOMPARE(t.metadata().devices[0].name, std::string("Ascend910B"));
        QCOMPARE(t.metadata().formatVersion, std::string("1.0.0"));
        QCOMPARE(t.metadata().rank, 0);
        QCOMPARE(t.steps()[0].number, std::int64_t(50));
        QVERIFY(t.steps()[0].marker.isValid()); // STEP_TIME joined to the ProfilerStep#50 PYTORCH_API row

        const auto r2 = loadAny(fixture(QStringLiteral("msprof/msinsight_test_full_db_msprof_0.db")));
        QVERIFY2(r2.ok(), r2.status().message().c_str());
        QCOMPARE(r2.value()->metadata().devices.size(), std::size_t(8));                   // NPU_INFO has 8 Ascend910B
        QCOMPARE(r2.value()->categoryCount(SliceCategory::Annotation), std::uint64_t(13)); // MSTX_EVENTS
    }

    void databasesAreNotModified_data()
    {
        QTest::addColumn<QString>("path");
        QTest::newRow("torch_npu db")
            << "msprof/msinsight_db_level1_rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db";
        QTest::newRow("msprof db") << "msprof/msinsight_test_full_db_msprof_0.db";
    }

    void databasesAreNotModified()
    {
        QFETCH(QString, path);
        // Import a copy in a private folder, so side files (-wal, -shm, -journal) would be visible.
        QTemporaryDir dir;
        const std::filesystem::path copy = std::filesystem::path(dir.path().toStdString()) / fixture(path).filename();
        std::filesystem::copy_file(fixture(path), copy);
        const auto mtime = std::filesystem::last_write_time(copy);
        const QByteArray before = digest(copy);
        const auto r = loadAny(copy);
        QVERIFY2(r.ok(), r.status().message().c_str());
        QCOMPARE(digest(copy), before);
        QVERIFY(std::filesystem::last_write_time(copy) == mtime);
        const QStringList entries = QDir(dir.path()).entryList(QDir::Files | QDir::Hidden);
        QCOMPARE(entries, QStringList {QString::fromStdString(copy.filename().string())});
    }
};

QTEST_GUILESS_MAIN(TestAscendFixtures)
#include "tst_ascendfixtures.moc"
