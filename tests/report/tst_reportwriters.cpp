// SPDX-License-Identifier: MIT
#include "exporters/traceexport.h"
#include "report/reportoutput.h"
#include "report/writers/csv/csvwriter.h"
#include "report/writers/html/htmlwriter.h"
#include "report/writers/json/jsonwriter.h"
#include "report/writers/markdown/markdownwriter.h"
#include "reportfixture.h"
#include "textparsers.h"

#include <QTest>
#include <QXmlStreamReader>

#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

using namespace timesink;
using namespace timesink::testing;

namespace {

report::ReportModel fixtureModel()
{
    const auto a = makeAnalysedTrace();
    report::ReportOptions options;
    options.generator = "timesink test";
    return report::buildReportModel(*a.trace, a.result, options);
}

std::string render(const report::ReportModel& m, report::ReportFormat f)
{
    std::ostringstream out;
    report::writeReport(m, f, out);
    return out.str();
}

} // namespace

class TestReportWriters : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // Issue 35: more than 32 active devices are summarised per kind in the Markdown and HTML summaries (as in
    // `info`); up to 32 they are listed. Expected text written out from the 40 indices set here (0, 1, 3, …).
    void manyDevicesSummarised()
    {
        report::ReportModel m = fixtureModel();
        m.summary.devices.clear();
        for (int i = 0; i < 40; ++i)
            m.summary.devices.push_back({model::DeviceKind::Gpu, i < 2 ? i : i + 1, "NVIDIA H100"});
        const std::string md = render(m, report::ReportFormat::Markdown);
        QVERIFY2(md.find("- **Devices:** 40 GPU devices (0\u2013"
                         "1, 3\u2013"
                         "40); 40\u00d7 NVIDIA H100\n")
                     != std::string::npos,
                 md.c_str());
        const std::string html = render(m, report::ReportFormat::Html);
        QVERIFY2(html.find("40 GPU devices (0\u2013"
                           "1, 3\u2013"
                           "40); 40\u00d7 NVIDIA H100")
                     != std::string::npos,
                 html.c_str());
        QVERIFY(html.find("gpu 40") == std::string::npos);
        m.summary.devices.resize(32);
        QVERIFY(render(m, report::ReportFormat::Markdown).find("gpu 32 (NVIDIA H100)") != std::string::npos);
    }
    void jsonRoundTrip()
    {
        const std::string text = render(fixtureModel(), report::ReportFormat::Json);
        const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
        QVERIFY(!j.is_discarded());
        QVERIFY(j.at("schema") == "timesink.report/1");
        QVERIFY(j.at("trace").at("path") == "/data/run1/trace.json");
        QVERIFY(j.at("trace").at("format") == "kineto");
        QVERIFY(j.at("analysed_ns") == 2000);
        QVERIFY(j.at("total_lost_ns") == 350);
        const auto& findings = j.at("findings");
        QCOMPARE(findings.size(), std::size_t(2));
        QVERIFY(findings[0].at("rank") == 1);
        QVERIFY(findings[0].at("kind") == "dataloader_starvation");
        QVERIFY(findings[0].at("lost_ns") == 200);
        QVERIFY(findings[0].at("saving_ns") == 300);
        QVERIFY(findings[0].at("saving_method") == "retimed");
        QVERIFY(findings[0].at("per_step")[0].at("saving_ns") == 300);
        QVERIFY(j.at("saving_ns") == 320);
        QVERIFY(j.at("saving_fraction") == 0.16);
        QVERIFY(j.at("critical_path").at("cyclic_steps") == 0);
        QVERIFY(findings[0].at("platform") == "pytorch_cuda");
        QVERIFY(findings[0].at("details").at("loader") == "main process");
        QVERIFY(findings[1].at("rank") == 2);
        QVERIFY(findings[1].at("evidence").size() == 3);
        QVERIFY(findings[1].at("evidence")[0].at("track_name") == "GPU 0 / stream 8");
        QVERIFY(j.at("not_assessed")[0].at("kind") == "cpu_fallback");
        // The sections the report model adds: the same numbers as the Markdown and HTML tables.
        const auto& steps = j.at("steps");
        QCOMPARE(steps.size(), std::size_t(2));
        // device_start/end_ns: the one launched kernel of step 1 ([300, 500), its launch flow).
        const nlohmann::json step1 = {{"step", 1},
                                      {"synthetic", false},
                                      {"warmup", false},
                                      {"excluded", false},
                                      {"start_ns", 0},
                                      {"duration_ns", 1000},
                                      {"host_start_ns", 0},
                                      {"host_duration_ns", 1000},
                                      {"compute_ns", 250},
                                      {"communication_ns", 100},
                                      {"copy_ns", 100},
                                      {"dataloader_ns", 200},
                                      {"idle_ns", 350},
                                      {"device_start_ns", 300},
                                      {"device_end_ns", 500},
                                      {"device_busy_ns", 450},
                                      {"device_idle_ns", 550},
                                      {"unrecorded_ns", 0},
                                      {"communication_wait_ns", 0},
                                      {"exposed_wait_ns", 0},
                                      {"exposed_transfer_ns", 100}, // no plane tasks: exposed − wait
                                      {"exposed_idle_ns", 0},
                                      {"collectives",
                                       nlohmann::json::parse(
                                           R"([{"op": "allreduce", "start_ns": 650, "end_ns": 750,
                                                               "exposed": [[650, 750]]}])")},
                                      // the all-reduce's kernel has no launch flow: nothing to say of the host
                                      {"host_before_first_collective", nullptr},
                                      {"critical_path", nullptr}}; // a hand-built result has no paths
        QVERIFY2(steps[0] == step1, steps[0].dump().c_str());
        // Busy = step 1 [300,750) (450 ns) + step 2 [1100,1450) (350 ns) = 800 of 2000 ns; compute = kernels
        // 200 + 50 + 300; copies 100 + 100 (unions, so the copy under the kernel counts); the all-reduce
        // overlaps no kernel.
        const auto& device = j.at("device_summary");
        QVERIFY2(device.at("busy_ns") == 800, device.dump().c_str());
        QVERIFY(device.at("compute_ns") == 550);
        QVERIFY(device.at("communication_ns") == 100);
        QVERIFY(device.at("exposed_communication_ns") == 100);
        QVERIFY(device.at("comm_compute_overlap_fraction") == 0.0);
        QVERIFY(device.at("copy_ns") == 200);
        QVERIFY(device.at("idle_ns") == 1200);
        QVERIFY(device.at("headline") == "GPU busy 40 % of the step (steps 35–45 %)");
        QVERIFY(j.at("lost_by_kind")[0].at("kind") == "dataloader_starvation");
        QVERIFY(j.at("lost_by_kind")[1].at("lost_ns") == 150);
        QVERIFY(j.at("operator_scope") == "device");
        QVERIFY(j.at("top_operators")[0].at("name") == "conv_kernel");
        QVERIFY(j.at("top_operators")[0].at("total_ns") == 500);
        QVERIFY(j.at("top_operators")[0].at("count") == 2);
        QVERIFY(j.at("top_operators")[0].at("category") == "kernel");
    }

    void markdownFindingsTable()
    {
        const std::string md = render(fixtureModel(), report::ReportFormat::Markdown);
        QVERIFY(md.rfind("# Timesink bottleneck report\n", 0) == 0);
        const auto rows = markdownTable(md, "| rank | kind | finding | saving | % | lost | occurrences | steps |");
        QCOMPARE(rows.size(), std::size_t(2));
        const std::vector<std::string> first = {"1",
                                                "dataloader\\_starvation",
                                                "[Dataloader starves the device in step 1](#finding-1)",
                                                "300 ns",
                                                "15.0%",
                                                "200 ns",
                                                "1",
                                                "1"};
        QCOMPARE(rows[0], first);
        QCOMPARE(rows[1][0], std::string("2"));
        QCOMPARE(rows[1][1], std::string("copy\\_hotspot"));
        QCOMPARE(rows[1][3], std::string("40 ns"));
        QCOMPARE(rows[1][4], std::string("2.0%"));
        QCOMPARE(rows[1][5], std::string("150 ns"));
        QCOMPARE(rows[1][6], std::string("2"));
        QCOMPARE(rows[1][7], std::string("2"));
        QVERIFY(md.find("- **Fixing all of these would save:** 320 ns (16.0% of the analysed time")
                != std::string::npos);
    }

    void markdownStepsOperatorsAndSections()
    {
        const std::string md = render(fixtureModel(), report::ReportFormat::Markdown);
        const auto steps
            = markdownTable(md, "| step | duration | compute | communication | copies | dataloader | idle |");
        QCOMPARE(steps.size(), std::size_t(2));
        const std::vector<std::string> step1 = {"1", "1.00 µs", "250 ns", "100 ns", "100 ns", "200 ns", "350 ns"};
        QCOMPARE(steps[0], step1);
        const std::vector<std::string> step2 = {"2", "1.00 µs", "300 ns", "0 ns", "50 ns", "0 ns", "650 ns"};
        QCOMPARE(steps[1], step2);

        const auto ops = markdownTable(md, "| rank | operator | category | calls | total | % |");
        QCOMPARE(ops.size(), std::size_t(4));
        QCOMPARE(ops[0][1], std::string("conv\\_kernel"));
        QCOMPARE(ops[0][3], std::string("2"));
        QCOMPARE(ops[0][4], std::string("500 ns"));

        const auto kinds = markdownTable(md, "| kind | findings | lost | % |");
        QCOMPARE(kinds.size(), std::size_t(2));

        // One section per finding with its recommendation and its numbers.
        QCOMPARE(countOf(md, "<a id=\"finding-"), std::size_t(2));
        QVERIFY(md.find("### 1. Dataloader starves the device in step 1\n") != std::string::npos);
        QVERIFY(md.find("**Recommendation:** Raise num\\_workers and set pin\\_memory=True") != std::string::npos);
        QVERIFY(md.find("**Recommendation:** Use pinned memory (pin\\_memory=True) and non\\_blocking=True.")
                != std::string::npos);
        const auto details = markdownTable(md, "| detail | value |");
        QCOMPARE(details.size(), std::size_t(3));
        QCOMPARE(details[1], (std::vector<std::string> {"share", "0.2"}));
        QVERIFY(md.find("- cpu\\_fallback: no CPU fallback ops in this trace") != std::string::npos);
        QVERIFY(md.find("Generated by timesink test.") != std::string::npos);
        QVERIFY(md.find("Open it in the viewer: `timesink '/data/run1/trace.json' --finding 2`") != std::string::npos);
    }

    void htmlIsSelfContained()
    {
        const std::string html = render(fixtureModel(), report::ReportFormat::Html);
        const std::string lower = lowerAscii(html);
        QVERIFY(lower.rfind("<!doctype html>", 0) == 0);
        QCOMPARE(countOf(lower, "<script"), std::size_t(0));
        QCOMPARE(countOf(lower, "http://"), std::size_t(0));
        QCOMPARE(countOf(lower, "https://"), std::size_t(0));
        QCOMPARE(countOf(lower, "src="), std::size_t(0));
        QCOMPARE(countOf(lower, "url("), std::size_t(0));
        QCOMPARE(countOf(lower, "@import"), std::size_t(0));
        QCOMPARE(countOf(lower, "<link"), std::size_t(0));
        QCOMPARE(countOf(lower, "<style>"), std::size_t(1));
        QCOMPARE(countOf(lower, "</style>"), std::size_t(1));
        QVERIFY(lower.find("@media print") != std::string::npos);
        QVERIFY(lower.find("content-security-policy") != std::string::npos);
        QCOMPARE(countOf(lower, "<svg "), std::size_t(3)); // steps, lost by kind, top operators
        QCOMPARE(countOf(lower, "</svg>"), std::size_t(3));
        QVERIFY(lower.rfind("</html>\n") == lower.size() - 8);
        // The inline charts are well-formed XML (browsers forgive broken HTML, not broken SVG).
        for (const std::string& svg : svgFragments(html)) {
            QXmlStreamReader xml(QByteArray::fromStdString(svg));
            while (!xml.atEnd())
                xml.readNext();
            QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
        }
    }

    void htmlValues()
    {
        const std::string html = render(fixtureModel(), report::ReportFormat::Html);
        // Findings table rows in rank order with their values.
        // (moc cannot read raw string literals, hence the escapes)
        const std::regex row("<tr><td class=\"num\">(\\d+)</td><td class=\"kind\">([a-z_]+)</td>"
                             "<td class=\"name\"><a href=\"#finding-(\\d+)\">([^<]*)</a></td>"
                             "<td class=\"num\">([^<]*)</td><td class=\"num\">([^<]*)</td>");
        std::vector<std::vector<std::string>> rows;
        for (auto it = std::sregex_iterator(html.begin(), html.end(), row); it != std::sregex_iterator(); ++it)
            rows.push_back({(*it)[1], (*it)[2], (*it)[3], (*it)[4], (*it)[5], (*it)[6]});
        QCOMPARE(rows.size(), std::size_t(2));
        QCOMPARE(rows[0],
                 (std::vector<std::string> {"1", "dataloader_starvation", "1",
                                            "Dataloader starves the device in step 1", "300 ns", "15.0%"}));
        QCOMPARE(
            rows[1],
            (std::vector<std::string> {"2", "copy_hotspot", "2", "Pageable host-to-device copies", "40 ns", "2.0%"}));
        QCOMPARE(countOf(html, "<article class=\"finding\" id=\"finding-"), std::size_t(2));
        QVERIFY(html.find("<strong>Recommendation:</strong> Raise num_workers and set pin_memory=True</p>")
                != std::string::npos);
        // Per-step breakdown bars: one rect per non-zero class (5 in step 1, 3 in step 2) plus 5 legend swatches.
        QCOMPARE(countOf(html, "<title>step 1: "), std::size_t(5));
        QCOMPARE(countOf(html, "<title>step 2: "), std::size_t(3));
        QVERIFY(html.find("<title>step 1: idle 350 ns</title>") != std::string::npos);
        QVERIFY(html.find("<code>conv_kernel</code>") != std::string::npos);
        QVERIFY(html.find("<code>timesink &#39;/data/run1/trace.json&#39; --finding 1</code>") != std::string::npos);
    }

    void csvRoundTrip()
    {
        const report::ReportModel m = fixtureModel();
        const std::string csv = render(m, report::ReportFormat::Csv);
        std::vector<std::vector<std::string>> rows;
        QVERIFY(parseCsv(csv, rows));
        QCOMPARE(rows.size(), std::size_t(3));
        const std::vector<std::string> header
            = {"rank",        "kind",           "title",          "lost_ns",      "lost_ms",     "lost_percent",
               "occurrences", "steps_affected", "platform",       "first_ts_ns",  "explanation", "recommendation",
               "saving_ns",   "saving_ms",      "saving_percent", "saving_method"};
        QCOMPARE(rows[0], header);
        QCOMPARE(rows[1],
                 (std::vector<std::string> {
                     "1", "dataloader_starvation", "Dataloader starves the device in step 1", "200", "0.000200", "10.0",
                     "1", "1", "pytorch_cuda", "0", "The device waits while the host fetches the next batch.",
                     "Raise num_workers and set pin_memory=True", "300", "0.000300", "15.0", "retimed"}));
        QCOMPARE(rows[2][0], std::string("2"));
        QCOMPARE(rows[2][3], std::string("150"));
        QCOMPARE(rows[2][5], std::string("7.5"));
        QCOMPARE(rows[2][9], std::string("500"));
        // RFC 4180 line ends.
        QCOMPARE(countOf(csv, "\r\n"), std::size_t(3));
    }

    void formatsFromNamesAndPaths_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<int>("format"); // -1: none
        QTest::newRow("json") << "out/report.json" << int(report::ReportFormat::Json);
        QTest::newRow("md") << "out/report.md" << int(report::ReportFormat::Markdown);
        QTest::newRow("MARKDOWN") << "report.MARKDOWN" << int(report::ReportFormat::Markdown);
        QTest::newRow("html") << "r.html" << int(report::ReportFormat::Html);
        QTest::newRow("htm") << "r.HTM" << int(report::ReportFormat::Html);
        QTest::newRow("csv") << "findings.csv" << int(report::ReportFormat::Csv);
        QTest::newRow("none") << "report" << -1;
        QTest::newRow("pftrace") << "x.pftrace" << -1;
    }
    void formatsFromNamesAndPaths()
    {
        QFETCH(QString, path);
        QFETCH(int, format);
        const auto f = report::reportFormatFromPath(path.toStdString());
        QCOMPARE(f.has_value() ? int(*f) : -1, format);
        QVERIFY(exporters::traceFormatFromPath("a.pftrace") == exporters::TraceFormat::Perfetto);
        QVERIFY(exporters::traceFormatFromPath("a.perfetto-trace") == exporters::TraceFormat::Perfetto);
        QVERIFY(exporters::traceFormatFromPath("a.JSON") == exporters::TraceFormat::ChromeJson);
        QVERIFY(!exporters::traceFormatFromPath("a.md").has_value());
    }
};

QTEST_APPLESS_MAIN(TestReportWriters)
#include "tst_reportwriters.moc"
