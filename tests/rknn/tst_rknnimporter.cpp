// SPDX-License-Identifier: MIT
#include "parsers/registry/traceloader.h"
#include "parsers/rknn/rknncolumnlayout.h"
#include "parsers/rknn/rknnimporter.h"
#include "parsers/rknn/rknnperfparser.h"
#include "parsers/rknn/rknntext.h"
#include "tests/common/status.h"

#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
#include <zlib.h>

using namespace timesink;
using namespace timesink::parsers;
using model::SliceCategory;
using model::TimeNs;

namespace {

const std::string kFixtures = std::string(TIMESINK_FIXTURES_DIR) + "/rknn/";

/// Fixed-width row as the RKNN runtime prints it: each cell padded to its width, and a value that does not
/// fit followed by one space (it then pushes the rest of the row to the right).
std::string aligned(const std::vector<std::string>& cells, const std::vector<int>& widths)
{
    std::string out;
    for (std::size_t i = 0; i < cells.size(); ++i) {
        out += cells[i];
        const auto w = static_cast<std::size_t>(widths[i]);
        if (i + 1 < cells.size())
            out += cells[i].size() < w ? std::string(w - cells[i].size(), ' ') : std::string(" ");
    }
    return out;
}

// Column widths of the 2.3.2 fixture (ID 5, OpType 19, …).
const std::vector<int> k2xWidths = {5, 19, 9, 7, 41, 23, 25, 13, 21, 21, 13, 16};
const std::vector<std::string> k2xHeader
    = {"ID",       "OpType",      "DataType",        "Target", "InputShape", "OutputShape", "Cycles(DDR/NPU/Total)",
       "Time(us)", "MacUsage(%)", "WorkLoad(0/1/2)", "RW(KB)", "FullName"};

std::string row2x(const std::string& id, const std::string& op, const std::string& target, const std::string& in,
                  const std::string& time, const std::string& mac, const std::string& workload,
                  const std::string& fullName)
{
    return aligned({id, op, "INT8", target, in, "(1,16,160,160)", "100/200/200", time, mac, workload, "800", fullName},
                   k2xWidths);
}

std::string rule(char c = '-')
{
    return std::string(120, c);
}

std::string join(const std::vector<std::string>& lines)
{
    std::string s;
    for (const auto& l : lines)
        s += l + "\n";
    return s;
}

RknnPerfReport parse(const std::string& text)
{
    RknnPerfParser p;
    std::size_t pos = 0;
    while (pos <= text.size()) {
        const std::size_t nl = text.find('\n', pos);
        if (nl == std::string::npos) {
            if (pos < text.size())
                p.addLine(std::string_view(text).substr(pos));
            break;
        }
        p.addLine(std::string_view(text).substr(pos, nl - pos));
        pos = nl + 1;
    }
    return p.finish();
}

std::uint64_t warningCount(const RknnPerfReport& r, const std::string& kind)
{
    for (const auto& w : r.warnings) {
        if (timesink::model::key(w.kind) == kind)
            return w.count;
    }
    return 0;
}

std::uint64_t warningCount(const model::Trace& t, const std::string& kind)
{
    for (const auto& w : t.warnings()) {
        if (w.kind == kind)
            return w.count;
    }
    return 0;
}

std::string metaProperty(const model::Trace& t, const std::string& key)
{
    for (const auto& [k, v] : t.metadata().properties) {
        if (k == key)
            return v;
    }
    return "<none>";
}

class NullProgress : public ProgressSink
{
};

ImportResult load(const std::string& path)
{
    NullProgress progress;
    return loadTrace(path, ImportOptions {}, progress);
}

struct TempFile
{
    QTemporaryDir dir;
    std::string path;
    explicit TempFile(const std::string& content, const std::string& name = "perf.txt")
    {
        path = dir.path().toStdString() + "/" + name;
        std::ofstream(path, std::ios::binary) << content;
    }
};

/// All slices of the trace in time order, with their track's device kind.
struct FlatSlice
{
    TimeNs ts;
    TimeNs dur;
    std::string name;
    SliceCategory category;
    model::DeviceKind device;
    std::uint16_t depth;
    model::SliceRef ref;
};
std::vector<FlatSlice> flatten(const model::Trace& t)
{
    std::vector<FlatSlice> out;
    for (const model::Track& tr : t.tracks()) {
        for (std::uint32_t i = 0; i < tr.size(); ++i) {
            out.push_back({tr.ts(i), tr.dur(i), std::string(t.str(tr.sliceName(i))), tr.category(i), tr.deviceKind,
                           tr.depth(i), model::SliceRef {tr.id, model::SliceIndex(i)}});
        }
    }
    std::stable_sort(out.begin(), out.end(), [](const FlatSlice& a, const FlatSlice& b) { return a.ts < b.ts; });
    return out;
}

std::string argString(const model::Trace& t, model::SliceRef s, std::string_view key)
{
    const std::optional<model::ArgValue> v = t.arg(s, key);
    if (!v)
        return "<none>";
    switch (v->type) {
    case model::ArgValue::Type::String:
        return std::string(t.str(model::StringId(v->s)));
    case model::ArgValue::Type::Int:
        return std::to_string(v->i);
    case model::ArgValue::Type::Double:
        return std::to_string(v->d);
    case model::ArgValue::Type::Bool:
        return v->i ? "true" : "false";
    }
    return {};
}

} // namespace

class TestRknnImporter : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // ---- Real fixtures -------------------------------------------------------------------------------
    //
    // Expected figures were counted outside this code with Python over the fixture text:
    //   rows = [l.split() for l in open(f)
    //           if re.match(r'^\s*\d+\s+[A-Za-z]\w*\s+(U?INT\d+|FLOAT\d+)\s+(NPU|CPU|GPU)\s', l)]
    //   time = r[7] when r[6] is "a/b/c" cycles (2.x layout) else r[9] (1.x: separate cycle columns)
    //   cpu = rows with r[3] == 'CPU'; fallback = cpu minus InputOperator/OutputOperator
    // giving: rknpu2 1.6.0 — 108 rows, sum 128441 us (= printed total), 10 CPU (1 Input + 9 Output), 0 fallback;
    //         toolkit2 2.3.2 — 119 rows, sum 20663 us (= printed total), 3 CPU, 1 fallback (ID 104 Transpose);
    //         toolkit2 1.5.1 README — 2 rows (the rest elided with "..."), sum 396 us, printed total 20274 us.
    // The v1 excerpt has 5 rows (IDs 0,2,3,4,5; `grep -cE '^[0-9]+ ' file` = 5), 361+920+896+1106+430 = 3713 us,
    // no footer. The summary file prints only Total Time(us): 17219 and FPS: 58.08.
    void fixtures_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("version");
        QTest::addColumn<qulonglong>("layers");
        QTest::addColumn<qint64>("spanNs");
        QTest::addColumn<qulonglong>("cpuLayers");
        QTest::addColumn<qulonglong>("fallback");
        QTest::addColumn<qulonglong>("tracks");
        QTest::addColumn<QString>("expectedWarning");
        QTest::newRow("rknpu2 1.6.0 runtime")
            << "rknpu2_1.6.0_rk3588_perf_detail_yolov8n_1920_singlecore.txt"
            << "rknpu2-runtime" << 108ULL << qint64(128441000) << 10ULL << 0ULL << 2ULL << "";
        QTest::newRow("toolkit2 2.3.2 layers")
            << "toolkit2_2.3.2_rk3588_eval_perf_layers_yolov8n_640.txt"
            << "toolkit2-2.x" << 119ULL << qint64(20663000) << 3ULL << 1ULL << 2ULL << "";
        // NPU + CPU + the Frame counter that carries the printed total past the two listed layers.
        QTest::newRow("toolkit2 1.5.1 README")
            << "toolkit2_1.5.1_rk3588_board_test_readme_perf_excerpt.txt"
            << "toolkit2-1.x" << 2ULL << qint64(20274000) << 1ULL << 0ULL << 3ULL << "rows_elided";
        QTest::newRow("toolkit1 v1 excerpt")
            << "toolkit1_rv1126_eval_perf_issue388_excerpt.txt"
            << "toolkit1" << 5ULL << qint64(3713000) << 0ULL << 0ULL << 1ULL << "table_unterminated";
        QTest::newRow("summary only") << "toolkit2_2.3.2_rk3588_eval_perf_summary.txt"
                                      << "summary-only" << 0ULL << qint64(17219000) << 0ULL << 0ULL << 1ULL << "";
    }
    void fixtures()
    {
        QFETCH(QString, file);
        QFETCH(QString, version);
        QFETCH(qulonglong, layers);
        QFETCH(qint64, spanNs);
        QFETCH(qulonglong, cpuLayers);
        QFETCH(qulonglong, fallback);
        QFETCH(qulonglong, tracks);
        QFETCH(QString, expectedWarning);
        const ImportResult r = load(kFixtures + file.toStdString());
        QVERIFY2(r.ok(), r.status().message().c_str());
        const model::Trace& t = *r.value();
        QCOMPARE(t.metadata().format, std::string("rknn"));
        QCOMPARE(QString::fromStdString(t.metadata().formatVersion), version);
        QVERIFY(t.metadata().syntheticTimestamps);
        QCOMPARE(t.metadata().devices.size(), std::size_t(1));
        QCOMPARE(t.metadata().devices[0].kind, model::DeviceKind::EdgeNpu);
        // No fixture names its chip. The RK3588 ones print three NPU cores in WorkLoad(0/1/2): the only three-core
        // RKNPU, inferred and said so; the RV1126 table has no WorkLoad column and stays unknown.
        const auto inferred = std::find_if(t.metadata().properties.begin(), t.metadata().properties.end(),
                                           [](const auto& p) { return p.first == "device_inferred"; });
        if (file.contains(QStringLiteral("rk3588")) && !file.contains(QStringLiteral("summary"))) {
            QCOMPARE(t.metadata().devices[0].name, std::string("RK3588"));
            QVERIFY(inferred != t.metadata().properties.end());
            QVERIFY(inferred->second.find("three NPU cores") != std::string::npos);
        } else {
            QCOMPARE(t.metadata().devices[0].name, std::string("RKNN NPU"));
            QVERIFY(inferred == t.metadata().properties.end());
        }
        QCOMPARE(qulonglong(t.sliceCount()), layers);
        QCOMPARE(t.spanNs(), spanNs);
        QCOMPARE(t.startNs(), TimeNs(0));
        QCOMPARE(qulonglong(t.tracks().size()), tracks);
        QCOMPARE(t.steps().size(), std::size_t(1));
        QCOMPARE(t.steps()[0].start, TimeNs(0));
        QCOMPARE(t.steps()[0].end, spanNs);
        QCOMPARE(qulonglong(t.categoryCount(SliceCategory::FallbackOp)), fallback);
        QCOMPARE(qulonglong(t.categoryCount(SliceCategory::FallbackOp) + t.categoryCount(SliceCategory::HostOp)),
                 cpuLayers);
        QCOMPARE(qulonglong(t.categoryCount(SliceCategory::Kernel)), layers - cpuLayers);
        QCOMPARE(metaProperty(t, "layers"), std::to_string(layers));
        if (expectedWarning.isEmpty()) {
            if (!t.warnings().empty())
                QFAIL(("unexpected warning: " + t.warnings()[0].kind + ": " + t.warnings()[0].message).c_str());
        } else {
            QCOMPARE(warningCount(t, expectedWarning.toStdString()), std::uint64_t(1));
        }
        // Layers are laid end to end: every slice starts where the previous one ended, all at depth 0.
        const auto slices = flatten(t);
        TimeNs cursor = 0;
        for (const FlatSlice& s : slices) {
            QCOMPARE(s.ts, cursor);
            QCOMPARE(s.depth, std::uint16_t(0));
            cursor += s.dur;
        }
    }

    void fixtureDetails2x()
    {
        const ImportResult r = load(kFixtures + "toolkit2_2.3.2_rk3588_eval_perf_layers_yolov8n_640.txt");
        QVERIFY2(r.ok(), r.status().message().c_str());
        const model::Trace& t = *r.value();
        const auto slices = flatten(t);
        QCOMPARE(slices.size(), std::size_t(119));
        // ID 2: ConvExSwish on the NPU, 1861 us, MAC usage per core.
        const FlatSlice& conv = slices[1];
        QCOMPARE(conv.name, std::string("ConvExSwish"));
        QCOMPARE(conv.category, SliceCategory::Kernel);
        QCOMPARE(conv.device, model::DeviceKind::EdgeNpu);
        QCOMPARE(conv.ts, TimeNs(4000));
        QCOMPARE(conv.dur, TimeNs(1861000));
        QCOMPARE(argString(t, conv.ref, "full_name"), std::string("Conv:/model/model.0/conv/Conv"));
        QCOMPARE(argString(t, conv.ref, "source_op"), std::string("Conv"));
        QCOMPARE(argString(t, conv.ref, "mac_usage"), std::string("2.32/0.00/0.00"));
        QCOMPARE(argString(t, conv.ref, "ddr_cycles"), std::string("121323"));
        QCOMPARE(argString(t, conv.ref, "total_cycles"), std::string("921600"));
        QCOMPARE(argString(t, conv.ref, "input_shape"), std::string("(1,3,640,640),(16,3,3,3),(16)"));
        QCOMPARE(argString(t, conv.ref, "workload"), std::string("100.0%/0.0%/0.0%"));
        QCOMPARE(argString(t, conv.ref, "cores_used"), std::string("1"));
        QCOMPARE(argString(t, conv.ref, "data_type"), std::string("UINT8"));
        // ID 5: Split, blank MacUsage cell → no arg, and the following cells are still in place.
        QCOMPARE(slices[4].name, std::string("Split"));
        QCOMPARE(argString(t, slices[4].ref, "mac_usage"), std::string("<none>"));
        QCOMPARE(argString(t, slices[4].ref, "output_shape"), std::string("(1,16,160,160),..."));
        QCOMPARE(argString(t, slices[4].ref, "rw_kb"), std::to_string(800.0));
        // ID 104: the real CPU fallback.
        const FlatSlice& transpose = slices[103];
        QCOMPARE(transpose.name, std::string("Transpose"));
        QCOMPARE(transpose.category, SliceCategory::FallbackOp);
        QCOMPARE(transpose.device, model::DeviceKind::Cpu);
        QCOMPARE(transpose.dur, TimeNs(590000));
        QCOMPARE(argString(t, transpose.ref, "target"), std::string("CPU"));
        QCOMPARE(argString(t, transpose.ref, "layer_id"), std::string("104"));
        // ID 1 / 119 are the graph-edge operators: host ops, not fallbacks.
        QCOMPARE(slices[0].category, SliceCategory::HostOp);
        QCOMPARE(slices[118].name, std::string("OutputOperator"));
        QCOMPARE(slices[118].category, SliceCategory::HostOp);
        // ID 101 Reshape prints 0 us: it lasts 1 ns borrowed from ID 102, keeps its place and depth 0.
        QCOMPARE(argString(t, slices[100].ref, "time_us"), std::string("0"));
        QCOMPARE(slices[100].dur, TimeNs(1));
        QCOMPARE(slices[101].dur, TimeNs(2093000 - 1));
        QCOMPARE(metaProperty(t, "total_time_us"), std::string("20663"));
        QCOMPARE(metaProperty(t, "memory_rw_per_frame"), std::string("39024.07 KB"));
        QCOMPARE(metaProperty(t, "cpu_frequencies_hz"), std::string("1800000,2256000,2304000"));
        QCOMPARE(metaProperty(t, "npu_frequencies_hz"), std::string("1000000000"));
        QVERIFY(metaProperty(t, "perf_debug_note") != "<none>");
        QVERIFY(metaProperty(t, "perf_warning") != "<none>");
        QVERIFY(metaProperty(t, "timestamps").find("synthetic") != std::string::npos);
    }

    void fixtureDetailsRankingParsed()
    {
        // The ranking tables of both full fixtures agree with the layers (no ranking_mismatch above);
        // here: they were read at all (15 and 11 op types; 2.x has the Total row).
        RknnPerfParser p;
        std::ifstream in(kFixtures + "toolkit2_2.3.2_rk3588_eval_perf_layers_yolov8n_640.txt");
        for (std::string line; std::getline(in, line);)
            p.addLine(line);
        const RknnPerfReport r = p.finish();
        QCOMPARE(r.frames.size(), std::size_t(1));
        QCOMPARE(r.frames[0].ranking.size(), std::size_t(15));
        QVERIFY(r.frames[0].rankingTotal.has_value());
        QCOMPARE(r.frames[0].rankingTotal->cpuNs, TimeNs(600000));
        QCOMPARE(r.frames[0].rankingTotal->npuNs, TimeNs(20063000));

        RknnPerfParser p2;
        std::ifstream in2(kFixtures + "rknpu2_1.6.0_rk3588_perf_detail_yolov8n_1920_singlecore.txt");
        for (std::string line; std::getline(in2, line);)
            p2.addLine(line);
        const RknnPerfReport r2 = p2.finish();
        QCOMPARE(r2.frames.size(), std::size_t(1));
        QCOMPARE(r2.frames[0].ranking.size(), std::size_t(11));
        QVERIFY(!r2.frames[0].rankingTotal.has_value());
        QCOMPARE(r2.frames[0].layers.front().macUsage, std::string("\\"));
    }

    void fixtureDetailsV1AndLegacy()
    {
        const ImportResult r = load(kFixtures + "toolkit1_rv1126_eval_perf_issue388_excerpt.txt");
        QVERIFY2(r.ok(), r.status().message().c_str());
        const auto slices = flatten(*r.value());
        QCOMPARE(slices.size(), std::size_t(5));
        QCOMPARE(slices[0].name, std::string("TENSOR_TRANS"));
        QCOMPARE(argString(*r.value(), slices[0].ref, "full_name"),
                 std::string("MobilenetV1/MobilenetV1/Conv2d_0/Relu6_1_RKNN_mark_perm_60_0"));
        QCOMPARE(argString(*r.value(), slices[0].ref, "uid"), std::string("60"));
        QCOMPARE(argString(*r.value(), slices[2].ref, "full_name"),
                 std::string("MobilenetV1/MobilenetV1/Conv2d_1_depthwise/Relu6_3_2"));
        QCOMPARE(argString(*r.value(), slices[2].ref, "layer_id"), std::string("3"));
        QCOMPARE(slices[2].name, std::string("DEPTH_WISE_CONV"));
        // The excerpt stops after layer 5 without its continuation line: the name is what was printed.
        QCOMPARE(argString(*r.value(), slices[4].ref, "full_name"),
                 std::string("MobilenetV1/MobilenetV1/Conv2d_2_depthwi"));

        const ImportResult r15 = load(kFixtures + "toolkit2_1.5.1_rk3588_board_test_readme_perf_excerpt.txt");
        QVERIFY2(r15.ok(), r15.status().message().c_str());
        const auto s15 = flatten(*r15.value());
        QCOMPARE(s15.size(), std::size_t(2));
        QCOMPARE(s15[1].name, std::string("ConvRelu"));
        QCOMPARE(argString(*r15.value(), s15[1].ref, "workload"), std::string("0.0%/0.0%/0.0%"));
        QCOMPARE(argString(*r15.value(), s15[1].ref, "workload_improve"), std::string("0.0%"));
        QCOMPARE(argString(*r15.value(), s15[1].ref, "task_number"), std::string("0"));
        QCOMPARE(argString(*r15.value(), s15[1].ref, "regcmd_size"), std::string("0"));
        QCOMPARE(argString(*r15.value(), s15[1].ref, "npu_cycles"), std::string("10584"));
        QCOMPARE(argString(*r15.value(), s15[1].ref, "rw_kb"), std::to_string(543.75));
        QCOMPARE(argString(*r15.value(), s15[1].ref, "full_name"), std::string("Conv:conv1"));
        QCOMPARE(metaProperty(*r15.value(), "memory_rw_per_frame"), std::string("0 MB"));
        // The ranking still shows the CPU op that the elided rows hide (exSoftmax13, 387 us CPU time).
        QCOMPARE(metaProperty(*r15.value(), "ranking_cpu_fallback"), std::string("exSoftmax13 387 us"));
        QVERIFY(metaProperty(*r15.value(), "ranking").find("ConvRelu 36x 13166 us") == 0);
        QCOMPARE(metaProperty(*r15.value(), "frame_counter").substr(0, 3), std::string("the"));
    }

    void summaryOnly()
    {
        const ImportResult r = load(kFixtures + "toolkit2_2.3.2_rk3588_eval_perf_summary.txt");
        QVERIFY2(r.ok(), r.status().message().c_str());
        QCOMPARE(r.value()->sliceCount(), std::size_t(0));
        QCOMPARE(r.value()->spanNs(), TimeNs(17219000));
        QCOMPARE(metaProperty(*r.value(), "fps"), std::string("58.08"));
        QCOMPARE(metaProperty(*r.value(), "total_time_us"), std::string("17219"));
        QCOMPARE(metaProperty(*r.value(), "ddr_frequencies_hz"), std::string("2112000000"));
        QCOMPARE(metaProperty(*r.value(), "perf_debug_note"), std::string("<none>"));
        QCOMPARE(r.value()->tracks()[0].role, model::TrackRole::Counter);
    }

    // ---- Detection -------------------------------------------------------------------------------------
    void probeFixtures_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("rknpu2") << "rknpu2_1.6.0_rk3588_perf_detail_yolov8n_1920_singlecore.txt";
        QTest::newRow("2.3.2") << "toolkit2_2.3.2_rk3588_eval_perf_layers_yolov8n_640.txt";
        QTest::newRow("1.5.1") << "toolkit2_1.5.1_rk3588_board_test_readme_perf_excerpt.txt";
        QTest::newRow("v1") << "toolkit1_rv1126_eval_perf_issue388_excerpt.txt";
        QTest::newRow("summary") << "toolkit2_2.3.2_rk3588_eval_perf_summary.txt";
    }
    void probeFixtures()
    {
        QFETCH(QString, file);
        const model::Expected<SourceProbe> probed = probeSource(kFixtures + file.toStdString());
        QVERIFY_OK(probed);
        const SourceProbe& probe = probed.value();
        QVERIFY(RknnImporter().probe(probe) >= 50);
    }

    void probeRejects_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("content");
        QTest::newRow("kineto json.gz") << QString::fromStdString(std::string(TIMESINK_FIXTURES_DIR)
                                                                  + "/torch/hta_rank_non_gpu.json.gz")
                                        << QString();
        QTest::newRow("kineto json inline")
            << QString()
            << QStringLiteral("{\"schemaVersion\": 1, \"traceEvents\": [{\"ph\": \"X\", \"name\": "
                              "\"Time(us)\", \"ts\": 1, \"dur\": 2}]}");
        QTest::newRow("prose") << QString()
                               << QStringLiteral("The quick brown fox.\nTotal Time(us): 12 is just a sentence here.\n"
                                                 "ID and OpType are words.\n");
        QTest::newRow("csv of something else") << QString() << QStringLiteral("a,b,c\n1,2,3\n");
        QTest::newRow("binary") << QString() << QString::fromLatin1("\x01\x02Time(us)\x00\x05", 12);
    }
    void probeRejects()
    {
        QFETCH(QString, path);
        QFETCH(QString, content);
        std::unique_ptr<TempFile> tmp;
        std::string p = path.toStdString();
        if (p.empty()) {
            tmp = std::make_unique<TempFile>(content.toStdString());
            p = tmp->path;
        }
        const model::Expected<SourceProbe> probed = probeSource(p);
        QVERIFY_OK(probed);
        const SourceProbe& probe = probed.value();
        QCOMPARE(RknnImporter().probe(probe), 0);
    }

    void notAPerfTable()
    {
        // A text file that the probe would not pick is still refused with a clear error when forced.
        TempFile f("hello\nthis is a log\nwith nothing of RKNN in it\n", "notes.txt");
        const model::Expected<SourceProbe> probed = probeSource(f.path);
        QVERIFY_OK(probed);
        const SourceProbe& probe = probed.value();
        NullProgress progress;
        const ImportResult r = RknnImporter().import(probe, ImportOptions {}, progress);
        QVERIFY(!r.ok());
        QCOMPARE(r.status().kind(), model::StatusKind::NotRecognised);
        QVERIFY(r.status().message().find(f.path) != std::string::npos);
        QVERIFY(r.status().message().find("not an RKNN perf table") != std::string::npos);
    }

    void headerWithoutRows()
    {
        TempFile f(join({aligned(k2xHeader, k2xWidths), rule(), "garbage line one", "1 2 3"}));
        const ImportResult r = load(f.path);
        QVERIFY(!r.ok());
        QCOMPARE(r.status().kind(), model::StatusKind::Malformed);
        QVERIFY(r.status().message().find(f.path) != std::string::npos);
        QVERIFY(r.status().message().find("line 1") != std::string::npos);
    }

    // ---- Hand-written tables: layouts and their traps ---------------------------------------------------
    void overflowingShape()
    {
        // Layer 2's InputShape is longer than its 41-character column and pushes the rest of the row right.
        const std::string longShape = "(1,16,160,160),(1,16,160,160),(16,16,3,3),(16),...";
        QVERIFY(longShape.size() > 41);
        const std::string text = join(
            {aligned(k2xHeader, k2xWidths), rule(),
             row2x("1", "InputOperator", "CPU", "\\", "4", "", "0.0%/0.0%/0.0%", "InputOperator:images"),
             row2x("2", "ConvReluAdd", "NPU", longShape, "375", "2.82/0.00/0.00", "100.0%/0.0%/0.0%", "Conv:conv1"),
             row2x("3", "Concat", "NPU", "(1,16,160,160)", "21", "", "100.0%/0.0%/0.0%", "Concat:cat"), rule(),
             "Total Operator Elapsed Per Frame Time(us): 400"});
        const RknnPerfReport r = parse(text);
        QCOMPARE(r.frames.size(), std::size_t(1));
        const auto& layers = r.frames[0].layers;
        QCOMPARE(layers.size(), std::size_t(3));
        QCOMPARE(layers[1].inputShape, longShape);
        QCOMPARE(layers[1].outputShape, std::string("(1,16,160,160)"));
        QCOMPARE(layers[1].timeNs, TimeNs(375000));
        QCOMPARE(layers[1].macUsage, std::string("2.82/0.00/0.00"));
        QCOMPARE(layers[1].fullName, std::string("Conv:conv1"));
        QCOMPARE(layers[2].macUsage, std::string());
        QCOMPARE(layers[2].workload, std::string("100.0%/0.0%/0.0%"));
        QCOMPARE(r.warnings.size(), std::size_t(0));
    }

    void spacingLostInCopy()
    {
        // Spacing collapsed (as in the format notes); the words are placed by what each column holds.
        const std::string text = join({
            "ID   OpType           DataType Target InputShape            OutputShape     DDR Cycles     NPU Cycles     "
            "Total Cycles   Time(us)       MacUsage(%)    WorkLoad(0/1/2)-ImproveTherical        Task Number    Lut "
            "Number     RW(KB)         FullName",
            "2 ConvRelu UINT8 NPU (1,3,224,224),(32,3,3,3),(32) (1,32,112,112) 94150 10584 94150 375 2.82 "
            "0.0%/0.0%/0.0% - Up:0.0% 0 0 543.75 Conv:conv1",
            "3 exSoftmax13 FLOAT16 CPU (1,1000) (1,1000) 0 0 0 387 0.0%/0.0%/0.0% - Up:0.0% 0 2 1.95 "
            "Softmax:prob",
            "Total Operator Elapsed Time(us): 762",
        });
        const RknnPerfReport r = parse(text);
        QCOMPARE(r.frames.size(), std::size_t(1));
        QCOMPARE(r.frames[0].formatVersion, std::string("toolkit2-1.x"));
        const auto& layers = r.frames[0].layers;
        QCOMPARE(layers.size(), std::size_t(2));
        QCOMPARE(layers[0].ddrCycles.value_or(-1), std::int64_t(94150));
        QCOMPARE(layers[0].workloadImprove, std::string("0.0%"));
        QCOMPARE(layers[0].fullName, std::string("Conv:conv1"));
        QCOMPARE(layers[1].macUsage, std::string()); // blank MAC usage recognised by the workload after it
        QCOMPARE(layers[1].target, std::string("CPU"));
        QCOMPARE(layers[1].extra.size(), std::size_t(2));
        QCOMPARE(layers[1].extra[1].first, std::string("lut_number"));
        QCOMPARE(layers[1].extra[1].second, std::string("2"));
        QCOMPARE(r.warnings.size(), std::size_t(0));
    }

    void prefixedLogLines()
    {
        // A verbose runtime log: every line carries "D RKNN: [time] ", the table sits among other lines, and
        // the program glued "---> " to the first rule. The chip name is read from the log.
        const std::string p = "D RKNN: [05:07:06.566] ";
        const std::string text = join({
            "I RKNN: [05:07:06.100] RKNN Runtime Information, librknnrt version: 1.6.0 (9a7b5d24c@2023-12-13)",
            "I RKNN: [05:07:06.101] RKNN Driver Information, version: 0.9.3",
            "I RKNN: [05:07:06.102] RKNN Model Information, version: 6, target platform: rk3588",
            "rknn_run",
            "---> " + rule(),
            p + "                         Network Layer Information Table",
            p + rule(),
            p + aligned(k2xHeader, k2xWidths),
            p + rule(),
            p + row2x("1", "InputOperator", "CPU", "\\", "4", "\\", "0.0%/0.0%/0.0%", "InputOperator:images"),
            p
                + row2x("2", "ConvRelu", "NPU", "(1,3,640,640)", "100", "2.32/2.30/2.31", "33.3%/33.3%/33.3%",
                        "Conv:/model.0/conv/Conv"),
            p + row2x("3", "OutputOperator", "CPU", "(1,3,640,640)", "6", "\\", "0.0%/0.0%/0.0%", "OutputOperator:out"),
            p + rule(),
            p + "Total Operator Elapsed Per Frame Time(us): 110",
            p + "Total Memory Read/Write Per Frame Size(KB): 1200",
            p + rule(),
        });
        TempFile f(text);
        const ImportResult r = load(f.path);
        QVERIFY2(r.ok(), r.status().message().c_str());
        const model::Trace& t = *r.value();
        QCOMPARE(t.metadata().formatVersion, std::string("rknpu2-runtime"));
        QCOMPARE(t.metadata().devices[0].name, std::string("RK3588"));
        // 3 layers, and layer 2 (33.3%/33.3%/33.3%) again on each of the three "NPU core N" lanes.
        QCOMPARE(t.sliceCount(), std::size_t(6));
        QCOMPARE(t.spanNs(), TimeNs(110000));
        QCOMPARE(metaProperty(t, "runtime_version"), std::string("1.6.0"));
        QCOMPARE(t.warnings().size(), std::size_t(0));
        const auto slices = flatten(t);
        QCOMPARE(argString(t, slices[1].ref, "cores_used"), std::string("3"));
        QCOMPARE(argString(t, slices[1].ref, "workload"), std::string("33.3%/33.3%/33.3%"));
        QCOMPARE(t.categoryCount(SliceCategory::HostOp), std::uint64_t(2));
        QCOMPARE(t.categoryCount(SliceCategory::FallbackOp), std::uint64_t(0));
    }

    void markdownIndentAndToolkitLog()
    {
        // Indented by 4 (a Markdown copy) and preceded by Python toolkit lines: toolkit2-2.x.
        std::vector<std::string> lines = {"I rknn-toolkit2 version: 2.3.2", "--> Evaluate model performance"};
        for (const std::string& l :
             {aligned(k2xHeader, k2xWidths),
              row2x("1", "Conv", "NPU", "(1,3,8,8)", "10", "1.00/0.00/0.00", "100.0%/0.0%/0.0%", "Conv:c"),
              row2x("2", "Transpose", "CPU", "(1,3,8,8)", "5", "", "0.0%/0.0%/0.0%", "Transpose:t"),
              std::string("Total Operator Elapsed Per Frame Time(us): 15")})
            lines.push_back("    " + l);
        const RknnPerfReport r = parse(join(lines));
        QCOMPARE(r.frames.size(), std::size_t(1));
        QCOMPARE(r.frames[0].formatVersion, std::string("toolkit2-2.x"));
        QCOMPARE(r.frames[0].layers.size(), std::size_t(2));
        QCOMPARE(r.frames[0].layers[1].target, std::string("CPU"));
        bool found = false;
        for (const auto& [k, v] : r.properties)
            found = found || (k == "toolkit_version" && v == "2.3.2");
        QVERIFY(found);
    }

    void v1WrappedNamesAndFooter()
    {
        const std::vector<int> w = {12, 45, 20, 10, 8};
        const std::string text = join({
            std::string(72, '='),
            "                               Performance",
            std::string(72, '='),
            aligned({"Layer ID", "Name", "Operator", "Uid", "Time(us)"}, w),
            aligned({"0", "MobilenetV1/MobilenetV1/Conv2d_0/Relu6_1", "TENSOR_TRANS", "60", "361"}, w),
            aligned({"", "_RKNN_mark_perm_60_0", "", "", ""}, w),
            aligned({"2", "MobilenetV1/MobilenetV1/Conv2d_0/Relu6_1", "CONVOLUTION", "1", "920"}, w),
            aligned({"", "2024", "", "", ""}, w), // a wrapped part made of digits only
            aligned({"7", "MobilenetV1/Logits/SpatialSqueeze", "RESHAPE", "30", "19"}, w),
            std::string(72, '='),
            "Total Time(us): 1300",
            "FPS: 769.23",
            std::string(72, '='),
        });
        TempFile f(text);
        const ImportResult r = load(f.path);
        QVERIFY2(r.ok(), r.status().message().c_str());
        const model::Trace& t = *r.value();
        QCOMPARE(t.metadata().formatVersion, std::string("toolkit1"));
        QCOMPARE(t.sliceCount(), std::size_t(3));
        QCOMPARE(t.spanNs(), TimeNs(1300000));
        QCOMPARE(metaProperty(t, "fps"), std::string("769.23"));
        const auto slices = flatten(t);
        QCOMPARE(argString(t, slices[0].ref, "full_name"),
                 std::string("MobilenetV1/MobilenetV1/Conv2d_0/Relu6_1_RKNN_mark_perm_60_0"));
        QCOMPARE(argString(t, slices[1].ref, "full_name"), std::string("MobilenetV1/MobilenetV1/Conv2d_0/Relu6_12024"));
        QCOMPARE(slices[2].name, std::string("RESHAPE"));
        QCOMPARE(t.warnings().size(), std::size_t(0)); // 361 + 920 + 19 = 1300
    }

    void rankingMismatchWarns()
    {
        const std::vector<int> rw = {19, 13, 13, 13, 13, 15, 14};
        auto table = [&rw](const std::string& convRanked, const std::string& totalRanked) {
            return join({aligned(k2xHeader, k2xWidths), rule(),
                         row2x("1", "Conv", "NPU", "(1,3,8,8)", "10", "1.00/0.00/0.00", "100.0%/0.0%/0.0%", "Conv:a"),
                         row2x("2", "Conv", "NPU", "(1,3,8,8)", "20", "1.00/0.00/0.00", "100.0%/0.0%/0.0%", "Conv:b"),
                         row2x("3", "Transpose", "CPU", "(1,3,8,8)", "5", "", "0.0%/0.0%/0.0%", "Transpose:t"), rule(),
                         "Total Operator Elapsed Per Frame Time(us): 35", rule(),
                         "                                 Operator Time Consuming Ranking Table", rule(),
                         aligned({"OpType", "CallNumber", "CPUTime(us)", "GPUTime(us)", "NPUTime(us)", "TotalTime(us)",
                                  "TimeRatio(%)"},
                                 rw),
                         rule(), aligned({"Conv", "2", "0", "0", convRanked, convRanked, "85.71%"}, rw),
                         aligned({"Transpose", "1", "5", "0", "0", "5", "14.29%"}, rw), rule(),
                         aligned({"Total", "", "5", "0", convRanked, totalRanked, ""}, rw), rule()});
        };
        // Layers: Conv 10 + 20 = 30 us, Transpose 5 us on CPU, total 35 us.
        const RknnPerfReport bad = parse(table("31", "36"));
        QCOMPARE(bad.frames.size(), std::size_t(1));
        QCOMPARE(bad.frames[0].ranking.size(), std::size_t(2));
        QVERIFY(bad.frames[0].rankingTotal.has_value());
        QCOMPARE(warningCount(bad, "ranking_mismatch"), std::uint64_t(2)); // Conv and the Total row
        QCOMPARE(warningCount(bad, "total_mismatch"), std::uint64_t(0));
        TempFile f(table("31", "36"));
        const ImportResult r = load(f.path);
        QVERIFY2(r.ok(), r.status().message().c_str());
        QCOMPARE(warningCount(*r.value(), "ranking_mismatch"), std::uint64_t(2));

        // The same table with an agreeing ranking: no warning (the check can pass as well as fail).
        const RknnPerfReport ok = parse(table("30", "35"));
        QCOMPARE(warningCount(ok, "ranking_mismatch"), std::uint64_t(0));
        QCOMPARE(ok.warnings.size(), std::size_t(0));
    }

    void rankingTableAlone()
    {
        // Only the ranking part of a log was pasted: no layers, the frame is the ranking total.
        const std::vector<int> rw = {19, 13, 13, 13, 13, 15, 14};
        const std::string text = join({
            "                                 Operator Time Consuming Ranking Table",
            rule(),
            aligned(
                {"OpType", "CallNumber", "CPUTime(us)", "GPUTime(us)", "NPUTime(us)", "TotalTime(us)", "TimeRatio(%)"},
                rw),
            rule(),
            aligned({"ConvExSwish", "57", "0", "0", "12442", "12442", "95.48%"}, rw),
            aligned({"Transpose", "1", "590", "0", "0", "590", "4.52%"}, rw),
            rule(),
            aligned({"Total", "", "590", "0", "12442", "13032", ""}, rw),
            rule(),
        });
        TempFile f(text);
        const ImportResult r = load(f.path);
        QVERIFY2(r.ok(), r.status().message().c_str());
        QCOMPARE(r.value()->sliceCount(), std::size_t(0));
        QCOMPARE(r.value()->spanNs(), TimeNs(13032000));
        QCOMPARE(metaProperty(*r.value(), "ranking_cpu_fallback"), std::string("Transpose 590 us"));
    }

    void totalMismatchExtendsSpan()
    {
        // The printed total exceeds the layers (not elided): warning, and the span is still the total.
        const std::string text = join({aligned(k2xHeader, k2xWidths),
                                       row2x("1", "Conv", "NPU", "(1,3,8,8)", "10", "1.00", "100.0%", "Conv:a"),
                                       "Total Operator Elapsed Per Frame Time(us): 50"});
        TempFile f(text);
        const ImportResult r = load(f.path);
        QVERIFY2(r.ok(), r.status().message().c_str());
        QCOMPARE(r.value()->spanNs(), TimeNs(50000));
        QCOMPARE(r.value()->sliceCount(), std::size_t(1));
        QCOMPARE(warningCount(*r.value(), "total_mismatch"), std::uint64_t(1));
        QCOMPARE(r.value()->steps()[0].end, TimeNs(50000));
    }

    void csvTable()
    {
        // eval_perf.csv: no sample exists; the obvious CSV of the same columns, quoted and unquoted shapes,
        // columns in another order, and decimal times.
        const std::string text = join({
            "ID,OpType,DataType,Target,InputShape,OutputShape,Cycles(DDR/NPU/Total),Time(us),MacUsage(%),"
            "WorkLoad(0/1/2),RW(KB),FullName",
            "1,InputOperator,UINT8,CPU,\\,\"(1,3,640,640)\",0/0/0,4,,0.0%/0.0%/0.0%,0,InputOperator:images",
            "2,ConvExSwish,UINT8,NPU,\"(1,3,640,640),(16,3,3,3),(16)\",\"(1,16,320,320)\",121323/921600/921600,"
            "1861.5,2.32/0.00/0.00,100.0%/0.0%/0.0%,1202,Conv:/model/model.0/conv/Conv",
            "3,Split,INT8,NPU,(1,32,160,160),(2),(1,16,160,160),...,0/0/0,164,,100.0%/0.0%/0.0%,800,Split:/s",
            "4,Transpose,INT8,CPU,(4,1,1,8400),(1,4,1,8400),0/0/0,590,,0.0%/0.0%/0.0%,525,Transpose:/t",
        });
        TempFile f(text + "\nsaved to eval_perf.csv, done\n", "eval_perf.csv");
        const ImportResult r = load(f.path);
        QVERIFY2(r.ok(), r.status().message().c_str());
        const model::Trace& t = *r.value();
        QCOMPARE(t.metadata().formatVersion, std::string("csv"));
        QCOMPARE(t.sliceCount(), std::size_t(4));
        QCOMPARE(t.spanNs(), TimeNs(4000 + 1861500 + 164000 + 590000));
        QCOMPARE(t.categoryCount(SliceCategory::FallbackOp), std::uint64_t(1));
        QCOMPARE(t.warnings().size(), std::size_t(0));
        const auto slices = flatten(t);
        QCOMPARE(argString(t, slices[1].ref, "input_shape"), std::string("(1,3,640,640),(16,3,3,3),(16)"));
        QCOMPARE(argString(t, slices[2].ref, "input_shape"), std::string("(1,32,160,160),(2)"));
        QCOMPARE(argString(t, slices[2].ref, "output_shape"), std::string("(1,16,160,160),..."));
        QCOMPARE(argString(t, slices[3].ref, "input_shape"), std::string("(4,1,1,8400)"));
        QCOMPARE(argString(t, slices[3].ref, "output_shape"), std::string("(1,4,1,8400)"));
        QCOMPARE(slices[1].dur, TimeNs(1861500));

        // Header-driven: another column order and an unknown column.
        const RknnPerfReport r2 = parse(join(
            {"OpType,ID,Target,Time(us),Vendor Note,FullName", "Conv,1,NPU,12,hello,Conv:a", "Relu,2,NPU,3,,Relu:b"}));
        // (OpType first is a ranking-shaped header without CallNumber → not a table; ID must lead.)
        QCOMPARE(r2.frames.size(), std::size_t(0));
        const RknnPerfReport r3 = parse(join(
            {"ID,OpType,Target,Time(us),Vendor Note,FullName", "1,Conv,NPU,12,hello,Conv:a", "2,Relu,NPU,3,,Relu:b"}));
        QCOMPARE(r3.frames.size(), std::size_t(1));
        QCOMPARE(r3.frames[0].layers.size(), std::size_t(2));
        QCOMPARE(r3.frames[0].layers[0].extra.size(), std::size_t(1));
        QCOMPARE(r3.frames[0].layers[0].extra[0].first, std::string("vendor_note"));
        QCOMPARE(r3.frames[0].layers[1].extra.size(), std::size_t(0));
    }

    // ---- Bad input --------------------------------------------------------------------------------------
    void badInput_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("layers");
        QTest::addColumn<QString>("warning");
        const std::string head = aligned(k2xHeader, k2xWidths) + "\n" + rule() + "\n";
        const std::string r1
            = row2x("1", "Conv", "NPU", "(1,3,8,8)", "10", "1.00/0.00/0.00", "100.0%/0.0%/0.0%", "Conv:a");
        const std::string r2 = row2x("2", "Relu", "NPU", "(1,3,8,8)", "20", "", "100.0%/0.0%/0.0%", "Relu:b");
        const std::string footer = "Total Operator Elapsed Per Frame Time(us): 30\n";
        // Cut in the middle of row 2 (inside its Cycles cell), end of file.
        QTest::newRow("cut mid-row") << QString::fromStdString(head + r1 + "\n" + r2.substr(0, 90)) << 1
                                     << "incomplete_row";
        QTest::newRow("cut mid-row: unterminated")
            << QString::fromStdString(head + r1 + "\n" + r2.substr(0, 90)) << 1 << "table_unterminated";
        // A row with fewer columns in the middle of the table.
        QTest::newRow("fewer columns") << QString::fromStdString(
            head + r1 + "\n" + "3    Add                INT8     NPU\n" + r2 + "\n" + footer)
                                       << 2 << "incomplete_row";
        // Garbage where a row should be (an ID, then nonsense in typed columns).
        QTest::newRow("wrong types") << QString::fromStdString(
            head + r1 + "\n" + row2x("9", "Conv", "MARS", "(1)", "abc", "x", "lots", "Conv:z") + "\n" + r2 + "\n"
            + footer) << 2 << "bad_row";
        // Rows left out with "...".
        QTest::newRow("elided") << QString::fromStdString(head + r1 + "\n\n...\n\n" + footer) << 1 << "rows_elided";
        // Duplicate IDs in one table.
        QTest::newRow("duplicate id") << QString::fromStdString(head + r1 + "\n" + r1 + "\n" + r2 + "\n"
                                                                + "Total Operator Elapsed Per Frame "
                                                                  "Time(us): 40\n")
                                      << 3 << "duplicate_layer_id";
        // A log line interrupts the table, rows continue after it.
        QTest::newRow("interrupted") << QString::fromStdString(head + r1 + "\n" + "W RKNN: something else\n" + r2 + "\n"
                                                               + footer)
                                     << 2 << "table_interrupted";
    }
    void badInput()
    {
        QFETCH(QString, text);
        QFETCH(int, layers);
        QFETCH(QString, warning);
        TempFile f(text.toStdString());
        const ImportResult r = load(f.path);
        QVERIFY2(r.ok(), r.status().message().c_str());
        QCOMPARE(int(r.value()->sliceCount()), layers);
        QVERIFY2(warningCount(*r.value(), warning.toStdString()) >= 1, warning.toStdString().c_str());
    }

    void unknownExtraColumn()
    {
        // A future release adds a column in the middle: it becomes an arg; the known columns still line up.
        std::vector<std::string> header = k2xHeader;
        std::vector<int> widths = k2xWidths;
        header.insert(header.begin() + 8, "SramHit(%)");
        widths.insert(widths.begin() + 8, 12);
        const std::string text = join({
            aligned(header, widths),
            aligned({"1", "Conv", "INT8", "NPU", "(1,3,8,8)", "(1,3,8,8)", "1/2/2", "10", "87.5", "1.00/0.00/0.00",
                     "100.0%/0.0%/0.0%", "8", "Conv:a"},
                    widths),
            aligned({"2", "Add", "INT8", "NPU", "(1,3,8,8)", "(1,3,8,8)", "1/0/1", "3", "", "", "100.0%/0.0%/0.0%", "8",
                     "Add:b"},
                    widths),
            "Total Operator Elapsed Per Frame Time(us): 13",
        });
        const RknnPerfReport r = parse(text);
        QCOMPARE(r.frames.size(), std::size_t(1));
        QCOMPARE(r.frames[0].layers.size(), std::size_t(2));
        QCOMPARE(r.frames[0].layers[0].extra.size(), std::size_t(1));
        QCOMPARE(r.frames[0].layers[0].extra[0].first, std::string("sram_hit"));
        QCOMPARE(r.frames[0].layers[0].extra[0].second, std::string("87.5"));
        QCOMPARE(r.frames[0].layers[0].macUsage, std::string("1.00/0.00/0.00"));
        QCOMPARE(r.frames[0].layers[1].extra.size(), std::size_t(0));
        QCOMPARE(r.frames[0].layers[1].fullName, std::string("Add:b"));
        QCOMPARE(r.warnings.size(), std::size_t(0));
    }

    void rowBrokenAcrossLines()
    {
        const std::string full
            = row2x("1", "Conv", "NPU", "(1,3,8,8)", "10", "1.00/0.00/0.00", "100.0%/0.0%/0.0%", "Conv:a");
        const std::size_t cut = full.find("100.0%");
        const std::string text = join({aligned(k2xHeader, k2xWidths), full.substr(0, cut), full.substr(cut),
                                       "Total Operator Elapsed Per Frame Time(us): 10"});
        const RknnPerfReport r = parse(text);
        QCOMPARE(r.frames[0].layers.size(), std::size_t(1));
        QCOMPARE(r.frames[0].layers[0].fullName, std::string("Conv:a"));
        QCOMPARE(r.frames[0].layers[0].workload, std::string("100.0%/0.0%/0.0%"));
        QCOMPARE(r.warnings.size(), std::size_t(0));
    }

    void twoFramesInOneLog()
    {
        const std::string table
            = join({aligned(k2xHeader, k2xWidths),
                    row2x("1", "Conv", "NPU", "(1,3,8,8)", "10", "1.00/0.00/0.00", "100.0%/0.0%/0.0%", "Conv:a"),
                    "Total Operator Elapsed Per Frame Time(us): 10"});
        TempFile f(table + "some log line\n" + table);
        const ImportResult r = load(f.path);
        QVERIFY2(r.ok(), r.status().message().c_str());
        QCOMPARE(r.value()->sliceCount(), std::size_t(2));
        QCOMPARE(r.value()->steps().size(), std::size_t(2));
        QCOMPARE(r.value()->steps()[1].start, TimeNs(10000));
        QCOMPARE(r.value()->spanNs(), TimeNs(20000));
        QCOMPARE(metaProperty(*r.value(), "frames"), std::string("2"));
    }

    void gpuTargetAndZeroTimes()
    {
        const std::string text
            = join({aligned(k2xHeader, k2xWidths),
                    row2x("1", "Reshape", "NPU", "(1,3,8,8)", "0", "", "0.0%/0.0%/0.0%", "Reshape:a"),
                    row2x("2", "Reshape", "NPU", "(1,3,8,8)", "0", "", "0.0%/0.0%/0.0%", "Reshape:b"),
                    row2x("3", "MatMul", "GPU", "(1,3,8,8)", "7", "", "0.0%/0.0%/0.0%", "MatMul:c"),
                    row2x("4", "Reshape", "NPU", "(1,3,8,8)", "0", "", "0.0%/0.0%/0.0%", "Reshape:d"),
                    "Total Operator Elapsed Per Frame Time(us): 7"});
        TempFile f(text);
        const ImportResult r = load(f.path);
        QVERIFY2(r.ok(), r.status().message().c_str());
        QCOMPARE(r.value()->spanNs(), TimeNs(7000));
        const auto slices = flatten(*r.value());
        QCOMPARE(slices.size(), std::size_t(4));
        QCOMPARE(slices[2].device, model::DeviceKind::Gpu);
        QCOMPARE(slices[2].category, SliceCategory::Kernel);
        QCOMPARE(slices[2].dur, TimeNs(7000 - 3));
        TimeNs cursor = 0;
        for (const FlatSlice& s : slices) {
            QCOMPARE(s.ts, cursor);
            QCOMPARE(s.depth, std::uint16_t(0));
            QVERIFY(s.dur > 0);
            cursor += s.dur;
        }
    }

    // ---- Encodings, compression, cuts at every position ---------------------------------------------------
    void bomAndCrlf()
    {
        std::ifstream in(kFixtures + "toolkit2_2.3.2_rk3588_eval_perf_layers_yolov8n_640.txt", std::ios::binary);
        std::stringstream ss;
        ss << in.rdbuf();
        std::string crlf = "\xEF\xBB\xBF";
        for (char c : ss.str())
            crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
        TempFile f(crlf);
        const ImportResult r = load(f.path);
        QVERIFY2(r.ok(), r.status().message().c_str());
        QCOMPARE(r.value()->sliceCount(), std::size_t(119));
        QCOMPARE(r.value()->spanNs(), TimeNs(20663000));
        QCOMPARE(r.value()->warnings().size(), std::size_t(0));
        // A BOM right before a bare header line.
        const RknnPerfReport bare = parse("\xEF\xBB\xBF" + aligned(k2xHeader, k2xWidths) + "\n"
                                          + row2x("1", "Conv", "NPU", "(1)", "3", "", "100.0%", "Conv:a") + "\n");
        QCOMPARE(bare.frames.size(), std::size_t(1));
        QCOMPARE(bare.frames[0].layers.size(), std::size_t(1));
    }

    void gzipAndTruncatedGzip()
    {
        std::ifstream in(kFixtures + "rknpu2_1.6.0_rk3588_perf_detail_yolov8n_1920_singlecore.txt", std::ios::binary);
        std::stringstream ss;
        ss << in.rdbuf();
        const std::string text = ss.str();
        QTemporaryDir dir;
        const std::string gz = dir.path().toStdString() + "/perf.log.gz";
        gzFile out = gzopen(gz.c_str(), "wb");
        QVERIFY(out != nullptr);
        QCOMPARE(gzwrite(out, text.data(), static_cast<unsigned>(text.size())), int(text.size()));
        gzclose(out);
        const ImportResult r = load(gz);
        QVERIFY2(r.ok(), r.status().message().c_str());
        QCOMPARE(r.value()->sliceCount(), std::size_t(108));
        QCOMPARE(r.value()->spanNs(), TimeNs(128441000));

        // Cut the compressed file in half: the layers before the cut load, with warnings.
        std::ifstream gin(gz, std::ios::binary);
        std::stringstream gss;
        gss << gin.rdbuf();
        const std::string whole = gss.str();
        const std::string cutPath = dir.path().toStdString() + "/cut.log.gz";
        std::ofstream(cutPath, std::ios::binary) << whole.substr(0, whole.size() / 2);
        const ImportResult cut = load(cutPath);
        QVERIFY2(cut.ok(), cut.status().message().c_str());
        QVERIFY(cut.value()->sliceCount() > 0);
        QVERIFY(cut.value()->sliceCount() < 108);
        QCOMPARE(warningCount(*cut.value(), "truncated"), std::uint64_t(1));
        QCOMPARE(warningCount(*cut.value(), "table_unterminated"), std::uint64_t(1));
    }

    void cutAtEveryPosition_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("layers");
        QTest::newRow("2.3.2") << "toolkit2_2.3.2_rk3588_eval_perf_layers_yolov8n_640.txt" << 119;
        QTest::newRow("1.5.1") << "toolkit2_1.5.1_rk3588_board_test_readme_perf_excerpt.txt" << 2;
        QTest::newRow("v1") << "toolkit1_rv1126_eval_perf_issue388_excerpt.txt" << 5;
    }
    void cutAtEveryPosition()
    {
        // Every prefix of a real file parses without crashing, never yields more layers than the whole file,
        // and never loses a layer whose row (and continuation) is complete before the cut.
        QFETCH(QString, file);
        QFETCH(int, layers);
        std::ifstream in(kFixtures + file.toStdString(), std::ios::binary);
        std::stringstream ss;
        ss << in.rdbuf();
        const std::string text = ss.str();
        // Cut at every line end, just after it, and in the middle of every line.
        std::vector<std::size_t> cuts = {0, text.size()};
        for (std::size_t nl = text.find('\n'), start = 0; nl != std::string::npos;
             start = nl + 1, nl = text.find('\n', nl + 1)) {
            cuts.insert(cuts.end(), {(start + nl) / 2, nl, nl + 1});
        }
        std::sort(cuts.begin(), cuts.end());
        std::size_t previous = 0;
        for (const std::size_t cut : cuts) {
            const RknnPerfReport r = parse(text.substr(0, cut));
            std::size_t n = 0;
            for (const RknnFrame& f : r.frames)
                n += f.layers.size();
            QVERIFY(n <= std::size_t(layers));
            QVERIFY2(n + 1 >= previous,
                     ("layers went from " + std::to_string(previous) + " to " + std::to_string(n) + " at byte "
                      + std::to_string(cut))
                         .c_str());
            previous = std::max(previous, n);
        }
        QCOMPARE(int(previous), layers);
    }

    void corruptedBytesDoNotCrash()
    {
        std::ifstream in(kFixtures + "toolkit2_2.3.2_rk3588_eval_perf_layers_yolov8n_640.txt", std::ios::binary);
        std::stringstream ss;
        ss << in.rdbuf();
        const std::string text = ss.str();
        std::uint32_t seed = 12345;
        auto next = [&seed]() {
            seed = seed * 1664525U + 1013904223U;
            return seed >> 8;
        };
        for (int round = 0; round < 60; ++round) {
            std::string bad = text;
            for (int k = 0; k < 20; ++k)
                bad[next() % bad.size()] = static_cast<char>(next() % 256);
            const RknnPerfReport r = parse(bad);
            std::size_t n = 0;
            for (const RknnFrame& f : r.frames)
                n += f.layers.size();
            QVERIFY(n <= 119 + 5); // a corrupted digit may split nothing new; rows can only be lost or kept
        }
    }

    void v1WithoutUidAndFpsPerClock()
    {
        // rknn-toolkit v1 for RK1808: no Uid column, one FPS line per NPU clock and a note.
        const std::vector<int> w = {12, 45, 20, 8};
        const std::string text = join({
            std::string(72, '='),
            aligned({"Layer ID", "Name", "Operator", "Time(us)"}, w),
            aligned({"3", "convolution_at_input_3", "CONVOLUTION", "1000"}, w),
            aligned({"4", "pooling_at_pool1_4", "POOLING", "250"}, w),
            "Total Time(us): 1250",
            "FPS(600MHz): 600.00",
            "FPS(800MHz): 800.00",
            "Note: Time of each layer is converted according to 800MHz!",
            std::string(72, '='),
        });
        TempFile f(text);
        const ImportResult r = load(f.path);
        QVERIFY2(r.ok(), r.status().message().c_str());
        QCOMPARE(r.value()->metadata().formatVersion, std::string("toolkit1"));
        QCOMPARE(r.value()->sliceCount(), std::size_t(2));
        QCOMPARE(r.value()->spanNs(), TimeNs(1250000));
        QCOMPARE(metaProperty(*r.value(), "fps_600mhz"), std::string("600.00"));
        QCOMPARE(metaProperty(*r.value(), "fps_800mhz"), std::string("800.00"));
        QCOMPARE(metaProperty(*r.value(), "note"), std::string("Time of each layer is converted according to 800MHz!"));
        QCOMPARE(r.value()->warnings().size(), std::size_t(0));
    }

    void documentedSeparateCyclesLayout()
    {
        // The 2.x user guide's layout: DDRCycles / NPUCycles / MaxCycles / TaskNumber as one word each.
        const std::vector<int> w = {5, 12, 9, 7, 12, 12, 10, 10, 10, 11, 9, 12, 18, 8, 10};
        const std::string text = join({
            aligned({"ID", "OpType", "DataType", "Target", "InputShape", "OutputShape", "DDRCycles", "NPUCycles",
                     "MaxCycles", "TaskNumber", "Time(us)", "MacUsage(%)", "WorkLoad(0/1)", "RW(KB)", "FullName"},
                    w),
            aligned({"1", "Conv", "INT8", "NPU", "(1,3,8,8)", "(1,3,8,8)", "5", "7", "7", "2", "12", "3.10/0.00",
                     "50.0%/50.0%", "4", "Conv:a"},
                    w),
            "Total Operator Elapsed Per Frame Time(us): 12",
        });
        const RknnPerfReport r = parse(text);
        QCOMPARE(r.frames.size(), std::size_t(1));
        QCOMPARE(r.frames[0].formatVersion, std::string("rknpu2-runtime"));
        QCOMPARE(r.frames[0].layers.size(), std::size_t(1));
        const RknnLayer& l = r.frames[0].layers[0];
        QCOMPARE(l.totalCycles.value_or(-1), std::int64_t(7));
        QCOMPARE(l.workload, std::string("50.0%/50.0%"));
        QCOMPARE(l.extra.size(), std::size_t(1));
        QCOMPARE(l.extra[0].first, std::string("task_number"));
    }

    void columnLayoutSplits_data()
    {
        QTest::addColumn<QString>("header");
        QTest::addColumn<QString>("row");
        QTest::addColumn<QStringList>("cells");
        QTest::newRow("blank middle") << "ID   OpType  MacUsage(%)  Time(us) FullName"
                                      << "1    Conv                 5        Conv:a"
                                      << QStringList {"1", "Conv", "", "5", "Conv:a"};
        QTest::newRow("overflow shifts") << "ID   OpType Target Time(us) FullName"
                                         << "2    ConvReluAddLong NPU    375      Conv:x"
                                         << QStringList {"2", "ConvReluAddLong", "NPU", "375", "Conv:x"};
        QTest::newRow("two-word titles") << "Layer ID    Name   Operator Uid Time(us)"
                                         << "0           n      CONV     1   9"
                                         << QStringList {"0", "n", "CONV", "1", "9"};
    }
    void columnLayoutSplits()
    {
        QFETCH(QString, header);
        QFETCH(QString, row);
        QFETCH(QStringList, cells);
        const auto layout = RknnColumnLayout::fromHeader(header.toStdString());
        QVERIFY(layout.has_value());
        QCOMPARE(layout->size(), std::size_t(cells.size()));
        const auto got = layout->splitAligned(row.toStdString());
        for (int i = 0; i < cells.size(); ++i)
            QCOMPARE(QString::fromStdString(got[std::size_t(i)]), cells[i]);
    }

    // usText writes the µs figures in warnings and trace properties; it must read back through parseMicros.
    void usTextRoundTrips_data()
    {
        QTest::addColumn<qint64>("ns");
        QTest::addColumn<QString>("text");
        QTest::newRow("zero") << qint64(0) << "0";
        QTest::newRow("whole us") << qint64(375'000) << "375";
        QTest::newRow("trailing zeros dropped") << qint64(12'500) << "12.5";
        QTest::newRow("leading zeros kept") << qint64(1) << "0.001";
        QTest::newRow("all three digits") << qint64(39'024'071) << "39024.071";
    }
    void usTextRoundTrips()
    {
        QFETCH(qint64, ns);
        QFETCH(QString, text);
        QCOMPARE(QString::fromStdString(rknntext::usText(ns)), text);
        QCOMPARE(rknntext::parseMicros(text.toStdString()).value_or(-1), TimeNs(ns));
    }

    // The core mask a log line sets becomes the property core_mask (a core list, or "all"); the edge NPU advisor
    // counts the run's cores from it (analysis/core/rknnlayers.h). AUTO and bit masks name no core list.
    void coreMask_data()
    {
        QTest::addColumn<QString>("line");
        QTest::addColumn<QString>("mask");
        QTest::newRow("C constant") << "rknn_set_core_mask(ctx, RKNN_NPU_CORE_0_1_2)"
                                    << "0_1_2";
        QTest::newRow("Python constant, all") << "rknn.init_runtime(target='rk3588', core_mask=RKNN.NPU_CORE_ALL)"
                                              << "all";
        QTest::newRow("plain words") << "core mask: 0_1"
                                     << "0_1";
        QTest::newRow("one core") << "core_mask=2"
                                  << "2";
        QTest::newRow("auto names no core") << "core_mask: RKNN_NPU_CORE_AUTO"
                                            << "<none>";
        QTest::newRow("a bit mask is no core list") << "core_mask = 7"
                                                    << "<none>";
    }
    void coreMask()
    {
        QFETCH(QString, line);
        QFETCH(QString, mask);
        const std::string text
            = join({line.toStdString(), aligned(k2xHeader, k2xWidths),
                    row2x("1", "Conv", "NPU", "(1,3,8,8)", "10", "1.00/0.00/0.00", "100.0%/0.0%/0.0%", "Conv:c"),
                    std::string("Total Operator Elapsed Per Frame Time(us): 10")});
        const model::TracePtr t = RknnImporter::buildTrace(parse(text), "mask.txt");
        QCOMPARE(QString::fromStdString(metaProperty(*t, "core_mask")), mask);
    }

    // A layer whose cells cannot be right is kept, and counted in one bad_field warning that names the first.
    void implausibleCellsWarn()
    {
        const std::string text
            = join({aligned(k2xHeader, k2xWidths),
                    row2x("1", "Conv", "NPU", "(1,3,8,8)", "10", "1.00/0.00/0.00", "50.0%/0.0%/0.0%", "Conv:a"),
                    row2x("2", "Conv", "NPU", "(1,3,8,8)", "10", "101.00/0.00/0.00", "100.0%/0.0%/0.0%", "Conv:b"),
                    row2x("3", "Conv", "NPU", "(1,3,8,8)", "10", "1.00/0.00/0.00", "33.3%/33.3%/33.3%", "Conv:c"),
                    std::string("Total Operator Elapsed Per Frame Time(us): 30")});
        const model::TracePtr t = RknnImporter::buildTrace(parse(text), "bad.txt");
        // 3 layers, and layer 3 (33.3%/33.3%/33.3%) on the three core lanes; layers 1 and 2, whose cells cannot be
        // right, on none.
        QCOMPARE(t->sliceCount(), std::size_t(6));
        std::uint64_t count = 0;
        std::string message;
        for (const model::ImportWarning& w : t->warnings()) {
            if (w.kind == "bad_field") {
                count += w.count;
                message = w.message;
            }
        }
        QCOMPARE(count, std::uint64_t(2));
        QVERIFY2(message.find("layer 1 (Conv): WorkLoad 50.0%/0.0%/0.0% adds up to 50.0 %, not 100 %")
                     != std::string::npos,
                 message.c_str());
    }
};

QTEST_GUILESS_MAIN(TestRknnImporter)
#include "tst_rknnimporter.moc"
