// SPDX-License-Identifier: MIT
// The efficiency model (analysis/efficiency/): shapes and data types as the profilers write them, FLOPs and bytes
// against TraceLens's perf model on its own H100 and MI300X traces (tests/data/reference/tracelens/),
// convolutions and the RKNN MacUsage against tests/analysis/efficiency_reference.py, the Ascend peak against
// msprof-analyze's operator_mfu formula, the peak table, and no efficiency above 100 % on any fixture.
#include "analysis/efficiency/efficiency.h"
#include "analysis/efficiency/operatorwork.h"
#include "analysis/efficiency/peaktable.h"
#include "analysis/efficiency/tensorshapes.h"
#include "tests/common/fixtures.h"

#include <QTest>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

using namespace timesink;
using namespace timesink::analysis::efficiency;

namespace {

/// RFC 4180 rows (quoted fields with doubled quotes and newlines): enough for TraceLens's CSVs.
std::vector<std::vector<std::string>> readCsv(const std::filesystem::path& path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    std::vector<std::vector<std::string>> rows(1);
    std::string cell;
    bool quoted = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted) {
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
                cell += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                cell += c;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            rows.back().push_back(cell);
            cell.clear();
        } else if (c == '\n') {
            rows.back().push_back(cell);
            cell.clear();
            rows.emplace_back();
        } else if (c != '\r') {
            cell += c;
        }
    }
    if (!cell.empty() || !rows.back().empty())
        rows.back().push_back(cell);
    if (rows.back().empty())
        rows.pop_back();
    return rows;
}

std::size_t column(const std::vector<std::string>& header, const std::string& name)
{
    const auto it = std::find(header.begin(), header.end(), name);
    return it == header.end() ? header.size() : static_cast<std::size_t>(it - header.begin());
}

/// Python's repr of a list of strings, "['c10::BFloat16', 'Scalar']", as Kineto's JSON.
std::string pythonListToJson(std::string s)
{
    std::replace(s.begin(), s.end(), '\'', '"');
    return s;
}

double relativeDifference(double ours, double theirs)
{
    return theirs == 0 ? std::abs(ours) : std::abs(ours - theirs) / std::abs(theirs);
}

const OperatorEfficiency* findOperator(const EfficiencyReport& r, std::string_view name, std::string_view shapes)
{
    for (const OperatorEfficiency& o : r.operators) {
        if (o.name == name && o.shapes == shapes)
            return &o;
    }
    return nullptr;
}

EfficiencyReport efficiencyOf(const model::Trace& trace)
{
    return computeEfficiency(trace, builtinPeakTable());
}

void checkBounded(const std::optional<BoundedFraction>& f, const std::string& what)
{
    if (!f)
        return;
    QVERIFY2(f->value >= 0.0 && f->value <= 1.0, what.c_str());
    QVERIFY2(!f->clamped || !f->reason.empty(), (what + ": clamped without a reason").c_str());
}

} // namespace

class TestEfficiency : public QObject
{
    Q_OBJECT

private slots:
    void kinetoDims()
    {
        const auto d = parseKinetoDims("[[8944, 1024], [1024, 2816], [], [[2, 3], [4]]]");
        QVERIFY(d.has_value());
        QCOMPARE(d->size(), std::size_t(4));
        QCOMPARE((*d)[0], (Dims {8944, 1024}));
        QVERIFY((*d)[2].empty());
        QCOMPARE((*d)[3], (Dims {2, 3}));
        QVERIFY(!parseKinetoDims("").has_value());
        QVERIFY(!parseKinetoDims("[[1, x]]").has_value());
        const auto types = parseKinetoStrings("[\"c10::BFloat16\", \"Scalar\", \"\"]");
        QVERIFY(types.has_value());
        QCOMPARE(types->size(), std::size_t(3));
        QCOMPARE((*types)[0], std::string("c10::BFloat16"));
    }

    void ascendShapes()
    {
        const auto s = parseAscendShapes("\"32,9216;4096,9216;4096\"");
        QVERIFY(s.has_value());
        QCOMPARE(s->size(), std::size_t(3));
        QCOMPARE((*s)[1], (Dims {4096, 9216}));
        QVERIFY(!parseAscendShapes("N/A").has_value());
        const auto empty = parseAscendShapes("\"1;\"");
        QVERIFY(empty.has_value());
        QCOMPARE(empty->size(), std::size_t(2));
        QVERIFY((*empty)[1].empty());
    }

    void dataTypes_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("bytes");
        QTest::newRow("kineto bf16") << "c10::BFloat16" << 2;
        QTest::newRow("kineto half") << "c10::Half" << 2;
        QTest::newRow("kineto float") << "float" << 4;
        QTest::newRow("kineto fp8") << "c10::Float8_e4m3fn" << 1;
        QTest::newRow("ascend bf16") << "DT_BF16" << 2;
        QTest::newRow("ascend float") << "FLOAT" << 4;
        QTest::newRow("ascend float16") << "FLOAT16" << 2;
        QTest::newRow("ascend int64") << "INT64" << 8;
        QTest::newRow("scalar") << "Scalar" << 0;
    }
    void dataTypes()
    {
        QFETCH(QString, text);
        QFETCH(int, bytes);
        QCOMPARE(bytesPerElement(parseDataType(text.toStdString())), bytes);
    }

    // TraceLens's GEMM model on its addmm row: 2·M·N·K + M·N for the bias; (M·K + K·N + M·N)·2 + bias bytes.
    void gemmModel()
    {
        const WorkEstimate e = torchWork(TorchOp::Addmm, {{1024}, {8944, 1024}, {1024, 1024}, {}, {}},
                                         {"c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "Scalar", "Scalar"}, {});
        QVERIFY(e.work.has_value());
        QCOMPARE(e.work->flops, 18766086144.0);
        QCOMPARE(e.work->bytes, 36.939453125 * 1024 * 1024);
        QCOMPARE(e.work->dtype, DataType::Bf16);
        const WorkEstimate none = torchWork(TorchOp::Mm, {{8944}}, {}, {});
        QVERIFY(!none.work.has_value());
        QVERIFY(!none.notAssessed.empty());
    }

    void convolutionModel()
    {
        QCOMPARE(convOutputSize(224, 16, 16, 0, 1), std::int64_t(14));
        QCOMPARE(convOutputSize(224, 11, 4, 2, 1), std::int64_t(55));
        QCOMPARE(convOutputSize(56, 3, 1, 1, 1), std::int64_t(56));
        // Grouped (depthwise) 3×3, stride 2: weight [C, 1, 3, 3].
        const WorkEstimate dw
            = torchWork(TorchOp::Convolution, {{8, 32, 56, 56}, {32, 1, 3, 3}, {}, {}, {}, {}}, {"float", "float"},
                        {"", "", "", "[2, 2]", "[1, 1]", "[1, 1]", "False", "[0, 0]", "32"});
        QVERIFY(dw.work.has_value());
        QCOMPARE(dw.work->flops, 2.0 * 8 * 32 * 28 * 28 * 9);
        // Backward without the input gradient (the first layer): the weight gradient alone.
        const WorkEstimate bwd = torchWork(
            TorchOp::ConvolutionBackward, {{8, 64, 112, 112}, {8, 3, 224, 224}, {64, 3, 7, 7}},
            {"float", "float", "float"},
            {"", "", "", "[0]", "[2, 2]", "[3, 3]", "[1, 1]", "False", "[0, 0]", "1", "[False, True, False]"});
        QVERIFY(bwd.work.has_value());
        QCOMPARE(bwd.work->flops, 2.0 * 8 * 64 * 112 * 112 * 3 * 49);
    }

    // TraceLens's GEMM.csv and SDPA_fwd.csv of its Qwen traces: every row's FLOPs and bytes per call within 1 %,
    // and as many calls.
    void tracelensReference_data()
    {
        QTest::addColumn<QString>("fixture");
        QTest::addColumn<QString>("csv");
        for (const char* gpu : {"h100", "mi300"}) {
            for (const char* table : {"GEMM", "SDPA_fwd"}) {
                QTest::newRow((std::string(gpu) + " " + table).c_str())
                    << QString::fromLatin1("torch/tracelens_%1_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz")
                           .arg(QLatin1String(gpu))
                    << QString::fromLatin1("reference/tracelens/%1_Qwen_Qwen1.5-0.5B-Chat__1016005_%2.csv")
                           .arg(QLatin1String(gpu), QLatin1String(table));
            }
        }
        for (const char* gpu : {"h100", "mi300"}) {
            QTest::newRow((std::string(gpu) + " CONV_fwd").c_str())
                << QString::fromLatin1("torch/tracelens_%1_Falconsai_nsfw_image_detection__1016002.json.gz")
                       .arg(QLatin1String(gpu))
                << QString::fromLatin1("reference/tracelens/%1_Falconsai_nsfw_image_detection__1016002_CONV_fwd.csv")
                       .arg(QLatin1String(gpu));
        }
    }
    void tracelensReference()
    {
        QFETCH(QString, fixture);
        QFETCH(QString, csv);
        LOAD_FIXTURE(trace, fixture.toStdString());
        const EfficiencyReport r = efficiencyOf(*trace);
        const auto rows = readCsv(testing::kFixturesDir / csv.toStdString());
        QVERIFY(rows.size() > 1);
        const auto& h = rows[0];
        const std::size_t cName = column(h, "name");
        const std::size_t cDims = column(h, "Input Dims_first");
        const std::size_t cFlops = column(h, "GFLOPS_first");
        const std::size_t cBytes = column(h, "Data Moved (MB)_first");
        const std::size_t cCount = column(h, "name_count");
        QVERIFY(cDims < h.size() && cFlops < h.size() && cBytes < h.size());
        double worstFlops = 0.0;
        double worstBytes = 0.0;
        for (std::size_t i = 1; i < rows.size(); ++i) {
            const auto& row = rows[i];
            const auto dims = parseKinetoDims(pythonListToJson(row[cDims]));
            QVERIFY(dims.has_value());
            std::string name = row[cName];
            std::string shapes = describeShapes(*dims);
            if (name == "aten::convolution") {
                // The kernels run under cudnn_convolution / miopen_convolution, the innermost op of the model: the
                // same input and filter (TraceLens leaves the bias out, ours adds it where miopen takes it).
                const std::vector<Dims> xw(dims->begin(), dims->begin() + 2);
                const std::vector<Dims> xwb(dims->begin(), dims->begin() + 3);
                const OperatorEfficiency* cudnn = findOperator(r, "aten::cudnn_convolution", describeShapes(xw));
                name = cudnn ? "aten::cudnn_convolution" : "aten::miopen_convolution";
                shapes = cudnn ? describeShapes(xw) : describeShapes(xwb);
            }
            const OperatorEfficiency* o = findOperator(r, name, shapes);
            QVERIFY2(o, (name + " " + shapes + " not found").c_str());
            const double calls = static_cast<double>(o->calls);
            if (cCount < h.size())
                QCOMPARE(o->calls, std::stoull(row[cCount]));
            worstFlops = std::max(worstFlops, relativeDifference(o->flops / calls, std::stod(row[cFlops]) * 1e9));
            worstBytes = std::max(worstBytes, relativeDifference(o->bytes / calls, std::stod(row[cBytes]) * 1048576.0));
        }
        qInfo("%s: %zu rows, max relative difference: FLOPs %.2e, bytes %.2e", qPrintable(csv), rows.size() - 1,
              worstFlops, worstBytes);
        QVERIFY(worstFlops <= 0.01);
        QVERIFY(worstBytes <= 0.01);
    }

    // The devices of the TraceLens traces resolve by name; "AMD Radeon Graphics" alone does not.
    void deviceResolution()
    {
        const PeakTable& table = builtinPeakTable();
        QCOMPARE(table.rejected, std::size_t(0));
        QVERIFY(table.rows.size() >= 20);
        for (const DevicePeaks& row : table.rows)
            QVERIFY2(!row.source.empty(), row.device.c_str());
        QCOMPARE(resolveDevice(table, "NVIDIA H100 80GB HBM3")->device, std::string("NVIDIA H100 SXM"));
        QCOMPARE(resolveDevice(table, "NVIDIA H100 PCIe")->device, std::string("NVIDIA H100 PCIe"));
        QCOMPARE(resolveDevice(table, "AMD Instinct MI300X VF")->device, std::string("AMD Instinct MI300X"));
        QCOMPARE(resolveDevice(table, "NVIDIA A100-PG509-200")->device, std::string("NVIDIA A100 SXM4 40GB"));
        QCOMPARE(resolveDevice(table, "Tesla V100-SXM2-32GB")->device, std::string("NVIDIA V100 SXM2"));
        QCOMPARE(resolveDevice(table, "NVIDIA B200")->device, std::string("NVIDIA B200"));
        QCOMPARE(resolveDevice(table, "AMD Instinct MI250X")->device, std::string("AMD Instinct MI250X (one GCD)"));
        QCOMPARE(resolveDevice(table, "AMD Instinct MI250")->device, std::string("AMD Instinct MI250 (one GCD)"));
        QVERIFY(!resolveDevice(table, "AMD Radeon Graphics")); // a generic name: only with its CU count
        QVERIFY(!resolveDevice(table, "NVIDIA H100"));
        QVERIFY(!resolveDevice(table, "Ascend910B")); // the variant decides the AI-core count
        QVERIFY(!resolveDevice(table, "Ascend NPU"));
        QCOMPARE(*resolveDevice(table, "NVIDIA H100 80GB HBM3")->peakFlops(DataType::Bf16), 989.4e12);
    }

    // The SM/CU counts of the NVIDIA and AMD rows, as their data sheets give them (per GCD for the MI250s).
    void deviceUnits()
    {
        const PeakTable& table = builtinPeakTable();
        const std::pair<const char*, int> expected[] = {
            {"NVIDIA V100 SXM2", 80},
            {"NVIDIA V100 PCIe", 80},
            {"NVIDIA A100 SXM4 80GB", 108},
            {"NVIDIA A100 PCIe 80GB", 108},
            {"NVIDIA A100 PCIe 40GB", 108},
            {"NVIDIA A100 SXM4 40GB", 108},
            {"NVIDIA H100 PCIe", 114},
            {"NVIDIA H100 NVL", 132},
            {"NVIDIA H100 SXM", 132},
            {"NVIDIA H200 SXM", 132},
            {"NVIDIA B200", 148},
            {"AMD Instinct MI250X (one GCD)", 110},
            {"AMD Instinct MI250 (one GCD)", 104},
            {"AMD Instinct MI325X", 304},
            {"AMD Instinct MI300X", 304},
        };
        for (const auto& [device, units] : expected) {
            const auto row = std::find_if(table.rows.begin(), table.rows.end(),
                                          [name = device](const DevicePeaks& p) { return p.device == name; });
            QVERIFY2(row != table.rows.end(), device);
            QCOMPARE(row->units, units);
            QVERIFY2(row->source.find(std::to_string(units) + (device[0] == 'N' ? " SMs" : " CUs"))
                         != std::string::npos,
                     device); // the source says where the count comes from
        }
    }

    // What Kineto's deviceProperties say decides where the name does not: numSms and totalGlobalMem.
    void deviceResolutionByComputeUnits()
    {
        const PeakTable& table = builtinPeakTable();
        constexpr std::int64_t kMi250Memory = 68702699520; // the fixture's totalGlobalMem (64 GiB less 16 MiB)
        constexpr std::int64_t kH100Memory = 85018279936;  // the TraceLens H100 fixtures'

        // ROCm's generic name, one MI250 GCD: 104 CUs and 64 GB.
        DeviceResolution mi250 = resolveDevice(table, DeviceFacts {"AMD Radeon Graphics", 104, kMi250Memory});
        QVERIFY2(mi250.row, mi250.notResolved.c_str());
        QCOMPARE(mi250.row->device, std::string("AMD Instinct MI250 (one GCD)"));
        QCOMPARE(mi250.resolvedBy, std::string("compute units and memory"));
        QCOMPARE(*mi250.row->peakFlops(DataType::Fp16), 181.05e12); // 362.1 / 2
        QCOMPARE(*mi250.row->peakFlops(DataType::Fp32), 45.25e12);  // 90.5 / 2
        QCOMPARE(*mi250.row->bandwidth(), 1638.4e9);                // 3.2768 TB/s / 2
        // 110 CUs are an MI250X GCD; 104 CUs without the memory, or with another, are not told.
        QCOMPARE(resolveDevice(table, DeviceFacts {"AMD Radeon Graphics", 110, kMi250Memory}).row->device,
                 std::string("AMD Instinct MI250X (one GCD)"));
        const DeviceResolution noMemory = resolveDevice(table, DeviceFacts {"AMD Radeon Graphics", 104, 0});
        QVERIFY(!noMemory.row);
        QVERIFY2(noMemory.notResolved.find("no roofline") != std::string::npos, noMemory.notResolved.c_str());
        QVERIFY(!resolveDevice(table, DeviceFacts {"AMD Radeon Graphics", 104, 16LL << 30}).row); // an APU's 16 GB
        // The generic name without a count says so.
        const DeviceResolution bare = resolveDevice(table, DeviceFacts {"AMD Radeon Graphics", 0, kMi250Memory});
        QVERIFY(!bare.row);
        QVERIFY2(bare.notResolved.find("no SM/CU count") != std::string::npos, bare.notResolved.c_str());

        // An H100: the count decides between the SXM (132 SMs) and the PCIe (114) rows.
        DeviceResolution sxm = resolveDevice(table, DeviceFacts {"NVIDIA H100 80GB HBM3", 132, kH100Memory});
        QCOMPARE(sxm.row->device, std::string("NVIDIA H100 SXM"));
        QCOMPARE(sxm.resolvedBy, std::string("name and compute units"));
        QVERIFY(sxm.note.empty());
        DeviceResolution pcie = resolveDevice(table, DeviceFacts {"NVIDIA H100 80GB HBM3", 114, kH100Memory});
        QVERIFY2(pcie.row, pcie.notResolved.c_str());
        QCOMPARE(pcie.row->device, std::string("NVIDIA H100 PCIe"));
        QCOMPARE(pcie.resolvedBy, std::string("compute units and memory"));
        QVERIFY2(pcie.note.find("NVIDIA H100 SXM") != std::string::npos, pcie.note.c_str());
        QCOMPARE(resolveDevice(table, DeviceFacts {"NVIDIA H100 PCIe", 114, kH100Memory}).resolvedBy,
                 std::string("name and compute units"));
        QCOMPARE(resolveDevice(table, DeviceFacts {"NVIDIA H100", 132, kH100Memory}).row->device,
                 std::string("NVIDIA H100 SXM"));
        QCOMPARE(resolveDevice(table, DeviceFacts {"NVIDIA H100 NVL", 132, 0}).row->device,
                 std::string("NVIDIA H100 NVL"));

        // A count that no H100 has (a MIG slice's 16 SMs) is reported, never used with a whole chip's peaks.
        const DeviceResolution mig = resolveDevice(table, DeviceFacts {"NVIDIA H100 80GB HBM3", 16, kH100Memory});
        QVERIFY(!mig.row);
        QVERIFY(mig.resolvedBy.empty());
        QVERIFY2(mig.notResolved.find("16 SMs/CUs") != std::string::npos
                     && mig.notResolved.find("NVIDIA H100 SXM has 132") != std::string::npos
                     && mig.notResolved.find("NVIDIA H100 PCIe has 114") != std::string::npos,
                 mig.notResolved.c_str());
        QVERIFY(!resolveDevice(table, DeviceFacts {"NVIDIA A100-SXM4-80GB", 98, 0}).row);

        // No count (an older Kineto, another importer): the name alone, as before.
        DeviceResolution byName = resolveDevice(table, DeviceFacts {"NVIDIA H100 80GB HBM3", 0, 0});
        QCOMPARE(byName.row->device, std::string("NVIDIA H100 SXM"));
        QCOMPARE(byName.resolvedBy, std::string("name"));
        QCOMPARE(resolveDevice(table, DeviceFacts {"RK3588", 0, 0}).row->device, std::string("Rockchip RK3588 NPU"));
        // A row without a count takes any: the name decides.
        QCOMPARE(resolveDevice(table, DeviceFacts {"RK3588", 3, 0}).resolvedBy, std::string("name"));

        // An unknown name: no roofline, whatever its count.
        const DeviceResolution unknown = resolveDevice(table, DeviceFacts {"Imaginary GPU 9000", 132, kH100Memory});
        QVERIFY(!unknown.row);
        QVERIFY2(unknown.notResolved.find("no row of the peak table matches") != std::string::npos,
                 unknown.notResolved.c_str());
    }

    // The MI250 fixture ("AMD Radeon Graphics", 104 CUs, 64 GB) is measured against one MI250 GCD's peaks, with no
    // figure above 100 %.
    void mi250Fixture()
    {
        LOAD_FIXTURE(mi250, std::string("torch/hta_mi250_minitoy_train_ROCm6_2_kineto.json.gz"));
        const EfficiencyReport r = efficiencyOf(*mi250);
        QVERIFY2(r.device.has_value(), r.deviceNotResolved.c_str());
        QCOMPARE(r.device->device, std::string("AMD Instinct MI250 (one GCD)"));
        QCOMPARE(r.deviceName, std::string("AMD Radeon Graphics"));
        QCOMPARE(r.deviceResolvedBy, std::string("compute units and memory"));
        QCOMPARE(r.deviceComputeUnits, 104);
        QVERIFY(r.deviceNotResolved.empty());
        for (const OperatorEfficiency& o : r.operators) {
            if (o.rooflineFraction)
                QVERIFY2(!o.rooflineFraction->clamped, o.name.c_str());
        }
    }

    // The table refuses a generic pattern without the count and memory that must decide it.
    void peakTableColumns()
    {
        const std::string header
            = "device\tmatch\tunits\tmemory_gb\tfp32\ttf32\tbf16\tfp16\tfp8\tint8\tbandwidth_gbps\tsource\n";
        const PeakTable t = parsePeakTable(header
                                           + "A\tA1|~Gen\t10\t16\t1\t-\t-\t-\t-\t-\t100\ts\n" // fine
                                             "B\t~Gen\t-\t16\t1\t-\t-\t-\t-\t-\t100\ts\n"     // generic, no count
                                             "C\t~Gen\t12\t-\t1\t-\t-\t-\t-\t-\t100\ts\n"     // generic, no memory
                                             "D\tD1\t0\t-\t1\t-\t-\t-\t-\t-\t100\ts\n"        // a count of 0
                                             "E\tE1\t1.5\t-\t1\t-\t-\t-\t-\t-\t100\ts\n"      // not whole
                                             "F\tF1\t-\t-\t1\t-\t-\t-\t-\t-\t100\n");         // 11 columns
        QCOMPARE(t.rows.size(), std::size_t(1));
        QCOMPARE(t.rejected, std::size_t(5));
        QCOMPARE(t.rows[0].units, 10);
        QCOMPARE(t.rows[0].memoryGB, 16.0);
        QCOMPARE(t.rows[0].matches, std::vector<std::string> {"a1"});
        QCOMPARE(t.rows[0].genericMatches, std::vector<std::string> {"gen"});
        QVERIFY(!resolveDevice(t, "Gen"));
        QCOMPARE(resolveDevice(t, DeviceFacts {"Gen", 10, 16LL << 30}).row, &t.rows[0]);
    }

    // msprof-analyze's operator_mfu (chip_peak_flops.py): AI cores × frequency (MHz) × 10^6 × 16·16·16·2 for FP16,
    // × 16·32·16·2 for INT8; MFU = FLOPs / task time / peak. Its formula by hand: 24 · 1800e6 · 8192 =
    // 353,894,400,000,000; a MatMulV2 of the Ascend fixture, "32,9216;4096,9216;4096" → "32,4096", is 2·32·4096·9216
    // + 32·4096 = 2,416,050,176 FLOPs; over 100 µs that is 24.16 TFLOP/s = 6.83 % of the FP16 peak.
    void ascendPeak()
    {
        QCOMPARE(*ascendPeakFlops(24, 1800.0, DataType::Fp16), 353894400000000.0);
        QCOMPARE(*ascendPeakFlops(24, 1800.0, DataType::Bf16), 353894400000000.0);
        QCOMPARE(*ascendPeakFlops(24, 1800.0, DataType::Int8), 707788800000000.0);
        QVERIFY(!ascendPeakFlops(24, 1800.0, DataType::Fp32).has_value());
        QVERIFY(!ascendPeakFlops(0, 1800.0, DataType::Fp16).has_value());
        const WorkEstimate mm
            = ascendWork("MatMulV2", "\"32,9216;4096,9216;4096\"", "FLOAT16;FLOAT16;FLOAT16", "\"32,4096\"");
        QVERIFY(mm.work.has_value());
        QCOMPARE(mm.work->flops, 2416050176.0);
        const double mfu = mm.work->flops / 100e-6 / *ascendPeakFlops(24, 1800.0, DataType::Fp16);
        QVERIFY(std::abs(mfu - 0.068270) < 1e-5);
        // The table's 910B2 row is that formula's figure.
        QCOMPARE(*resolveDevice(builtinPeakTable(), "Ascend910B2")->peakFlops(DataType::Fp16), 353.9e12);
        // Inconsistent shapes (the 2025 msprof-analyze table: K 81920 against 8192) are not assessed.
        const WorkEstimate bad = ascendWork("MatMulV3", "\"81920,1536;8192,4096\"", "DT_BF16;DT_BF16", "\"1536,4096\"");
        QVERIFY(!bad.work.has_value());
    }

    // Conv2D FLOPs of the Ascend ResNet-style fixture, from tests/analysis/efficiency_reference.py:
    // "ascend Conv2D rows=5 flops=49467969536".
    void ascendConvolutions()
    {
        LOAD_FIXTURE(trace, std::string("torch_npu/msinsight_text_level1_rank0_ascend_pt"));
        const EfficiencyReport r = efficiencyOf(*trace);
        QCOMPARE(r.source, std::string("ascend kernel table"));
        double flops = 0.0;
        std::uint64_t calls = 0;
        for (const OperatorEfficiency& o : r.operators) {
            if (o.name == "Conv2D") {
                flops += o.flops;
                calls += o.calls;
            }
        }
        QCOMPARE(calls, std::uint64_t(5));
        QCOMPARE(flops, 49467969536.0);
        // The text export names no chip; its PMU counters give 24 AI cores at 1800 MHz (tst_ascendefficiency).
        QVERIFY(r.device.has_value());
        QCOMPARE(r.device->aiCores, 24);
    }

    // RKNN: a convolution's 2·MACs over its time against 3 cores × 1024 INT8 MACs × 1 GHz is the table's own
    // MacUsage (efficiency_reference.py: 57 and 48 layers of ≥ 100 µs and ≥ 1 %, within 0.18 % and 0.04 %).
    void rknnMacUsage_data()
    {
        QTest::addColumn<QString>("fixture");
        QTest::newRow("rknpu2 2.0 multicore")
            << "rknn/rknpu2_2.0.0b0_rk3588_perf_detail_yolov8n_1920x1088_multicore.txt";
        QTest::newRow("toolkit2 2.3.2") << "rknn/toolkit2_2.3.2_rk3588_eval_perf_layers_yolov8n_640.txt";
    }
    void rknnMacUsage()
    {
        QFETCH(QString, fixture);
        LOAD_FIXTURE(trace, fixture.toStdString());
        const EfficiencyReport r = efficiencyOf(*trace);
        QCOMPARE(r.source, std::string("rknn layer table"));
        const double peak = *resolveDevice(builtinPeakTable(), "RK3588")->peakFlops(DataType::Int8);
        double worst = 0.0;
        int compared = 0;
        for (const OperatorEfficiency& o : r.operators) {
            if (!o.measured || o.flops <= 0 || o.deviceNs < 100000 * static_cast<model::TimeNs>(o.calls)
                || o.measured->value < 0.01)
                continue;
            const double ours = o.flops / (static_cast<double>(o.deviceNs) * 1e-9) / peak;
            worst = std::max(worst, relativeDifference(ours, o.measured->value));
            ++compared;
        }
        qInfo("%s: %d conv operators, max relative difference to MacUsage %.4f", qPrintable(fixture), compared, worst);
        QVERIFY(compared >= 20);
        QVERIFY(worst <= 0.01);
    }

    // A figure above 100 % is clamped, flagged and explained, never reported as is.
    void clamping()
    {
        const BoundedFraction over = boundFraction(1.7, "why");
        QCOMPARE(over.value, 1.0);
        QVERIFY(over.clamped);
        QCOMPARE(over.reason, std::string("why"));
        const BoundedFraction fine = boundFraction(0.4, "why");
        QCOMPARE(fine.value, 0.4);
        QVERIFY(!fine.clamped);
        QCOMPARE(boundFraction(std::nan(""), "why").value, 0.0);
    }

    // Every fixture: no efficiency above 100 %; nothing clamped above a compute peak, steps and classes included.
    void everyFixture()
    {
        std::vector<std::string> fixtures;
        for (const char* dir : {"torch", "rknn", "torch/hta_job_2ranks"}) {
            for (const auto& e : std::filesystem::directory_iterator(testing::kFixturesDir / dir)) {
                if (e.is_regular_file())
                    fixtures.push_back(std::string(dir) + "/" + e.path().filename().string());
            }
        }
        for (const char* bundle :
             {"torch_npu/msinsight_text_level0_rank0_ascend_pt", "torch_npu/msinsight_text_level1_rank0_ascend_pt",
              "torch_npu/msinsight_text_level1_rank1_ascend_pt", "torch_npu/mstt_advisor_ut_2023",
              "msprof/msinsight_db_level1_rank0_ascend_pt", "msprof/msinsight_db_level1_rank1_ascend_pt"})
            fixtures.emplace_back(bundle);
        std::sort(fixtures.begin(), fixtures.end());
        int withRoofline = 0;
        for (const std::string& f : fixtures) {
            if (f.ends_with(".csv") || f.find("_summary.txt") != std::string::npos
                || f.find("toolkit1_") != std::string::npos)
                continue;
            parsers::ProgressSink progress;
            const parsers::ImportResult loaded
                = parsers::loadTrace(testing::kFixturesDir / f, parsers::ImportOptions {}, progress);
            if (!loaded.ok())
                continue; // fixtures of other purposes (the board-test excerpt) are the importers' tests' business
            const EfficiencyReport r = efficiencyOf(*loaded.value());
            for (const OperatorEfficiency& o : r.operators) {
                checkBounded(o.rooflineFraction, f + " " + o.name + " " + o.shapes);
                checkBounded(o.measured, f + " " + o.name);
                // Above the compute peak is a bug of the model or the table; above the memory roofline happens when
                // the operands sat in L2 (the A100 trace's in-place gradient adds), and is flagged so.
                if (o.rooflineFraction && o.rooflineFraction->clamped) {
                    QVERIFY2(o.bound == "memory", (f + " " + o.name + " " + o.shapes).c_str());
                    QVERIFY(o.rooflineFraction->reason.find("cache") != std::string::npos);
                    qInfo("%s: %s %s clamped (%s)", f.c_str(), o.name.c_str(), o.shapes.c_str(),
                          o.rooflineFraction->reason.c_str());
                }
                withRoofline += o.rooflineFraction ? 1 : 0;
            }
            for (const StepEfficiency& s : r.steps) {
                checkBounded(s.mfu, f + " step");
                QVERIFY2(!s.mfu || !s.mfu->clamped, (f + " step").c_str());
            }
            for (const ClassEfficiency& c : r.classes) {
                checkBounded(c.fractionOfPeak, f + " class");
                QVERIFY2(!c.fractionOfPeak || !c.fractionOfPeak->clamped,
                         (f + " class " + std::string(workClassKey(c.workClass))).c_str());
            }
            QVERIFY(r.modelledDeviceNs <= r.deviceNs);
        }
        QVERIFY(withRoofline > 20);
    }

    // Without record_shapes the operators are not assessed, and the report says why.
    void withoutShapes()
    {
        LOAD_FIXTURE(trace, std::string("torch/hta_a100_alexnet_benchmark_result_2869224_1695835535_trace.json.gz"));
        const EfficiencyReport r = efficiencyOf(*trace);
        QVERIFY(r.operators.empty());
        QVERIFY(r.notAssessed.find("record_shapes") != std::string::npos);
        QVERIFY(r.device.has_value());
    }
};

QTEST_APPLESS_MAIN(TestEfficiency)
#include "tst_efficiency.moc"
