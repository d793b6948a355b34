// SPDX-License-Identifier: MIT
// The compare writers print what analysis::compareRuns found: every number in the Markdown, HTML and CSV is
// checked against the CompareResult, and trace-derived names stay inert.
#include "model/tracebuilder.h"
#include "report/core/textformat.h"
#include "report/reportoutput.h"
#include "report/writers/html/htmlwriter.h"
#include "report/writers/markdown/markdownwriter.h"
#include "textparsers.h"

#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>

using namespace timesink;
using namespace timesink::testing;

namespace {

const std::string kHostile = "<script>x</script>|=cmd";

/// A CPU-only run: host ops under two ProfilerStep markers, op time scaled by `scale`.
model::TracePtr makeRun(const std::string& path, double scale, bool withHostile)
{
    model::TraceBuilder b;
    b.metadata().format = "kineto";
    b.metadata().sourcePath = path;
    const model::TrackId host = b.hostThread("main", 10, 10);
    for (int s = 0; s < 2; ++s) {
        const model::TimeNs t0 = s * 10'000;
        b.step(host, s + 1, t0, 10'000);
        b.slice(host, model::SliceCategory::HostOp, "aten::conv2d", t0 + 100, model::TimeNs(2000 * scale));
        b.slice(host, model::SliceCategory::HostOp, "aten::relu", t0 + 5000, 500);
        if (withHostile)
            b.slice(host, model::SliceCategory::HostOp, kHostile, t0 + 6000, 700);
    }
    return b.finalize();
}

struct Compared
{
    model::TracePtr baseline;
    model::TracePtr candidate;
    std::vector<analysis::Finding> baselineFindings;
    std::vector<analysis::Finding> candidateFindings;
    analysis::CompareResult result;
};

Compared compare()
{
    Compared c;
    c.baseline = makeRun("/runs/gpu/trace.json", 1.0, false);
    c.candidate = makeRun("/runs/npu/<b>trace</b>.json", 2.5, true);
    analysis::Finding f;
    f.kind = "cpu_fallback";
    f.title = "CPU fallback of " + kHostile;
    f.lostNs = 1400;
    f.perStep = {{0, 1, 700, 10'000}, {1, 2, 700, 10'000}};
    c.candidateFindings = {f};
    std::string error;
    if (!analysis::compareRuns(*c.baseline, c.baselineFindings, *c.candidate, c.candidateFindings, {}, c.result, error))
        qWarning("%s", error.c_str());
    return c;
}

std::string render(const Compared& c, report::ReportFormat format)
{
    std::ostringstream out;
    report::writeCompareReport({*c.baseline, c.baselineFindings}, {*c.candidate, c.candidateFindings}, c.result, format,
                               out);
    return out.str();
}

std::string signedDuration(model::TimeNs d)
{
    return d > 0 ? "+" + report::formatDuration(d) : report::formatDuration(d);
}

} // namespace

class TestCompareReport : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void markdownMatchesTheResult()
    {
        const Compared c = compare();
        QVERIFY(!c.result.operators.empty());
        QCOMPARE(c.result.steps.size(), std::size_t(2));
        const std::string md = render(c, report::ReportFormat::Markdown);
        QVERIFY(md.rfind("# Timesink comparison report\n", 0) == 0);

        const auto steps = markdownTable(md, "| baseline step | candidate step | baseline | candidate | delta |");
        QCOMPARE(steps.size(), c.result.steps.size() + 1); // + the total row
        for (std::size_t i = 0; i < c.result.steps.size(); ++i) {
            const auto& s = c.result.steps[i];
            QCOMPARE(steps[i],
                     (std::vector<std::string> {"#" + std::to_string(s.baselineNumber),
                                                "#" + std::to_string(s.candidateNumber),
                                                report::formatDuration(s.baselineNs),
                                                report::formatDuration(s.candidateNs), signedDuration(s.deltaNs())}));
        }
        QCOMPARE(steps.back()[0], std::string("total"));
        QCOMPARE(steps.back()[4], signedDuration(c.result.candidateStepsNs() - c.result.baselineStepsNs()));

        const auto ops = markdownTable(
            md, "| rank | operator | baseline | candidate | delta | ratio | baseline calls | candidate calls |");
        QCOMPARE(ops.size(), c.result.operators.size());
        for (std::size_t i = 0; i < ops.size(); ++i) {
            const auto& op = c.result.operators[i];
            QCOMPARE(ops[i].size(), std::size_t(8)); // hostile names do not split the row
            QCOMPARE(ops[i][1], report::escapeMarkdown(op.name));
            QCOMPARE(ops[i][4], signedDuration(op.deltaNs()));
            QCOMPARE(ops[i][6], std::to_string(op.baselineCalls));
            QCOMPARE(ops[i][7], std::to_string(op.candidateCalls));
        }
        const auto explanations = markdownTable(
            md, "| status | kind | finding | baseline lost | candidate lost | delta | share of step delta |");
        QCOMPARE(explanations.size(), c.result.explanations.size());
        QVERIFY(!explanations.empty());
        for (const auto& row : explanations)
            QCOMPARE(row.size(), std::size_t(7)); // the hostile title does not split the row
        QCOMPARE(explanations[0][0], std::string("only in the candidate"));
        QVERIFY(md.find("/runs/npu/\\<b\\>trace\\</b\\>.json") != std::string::npos);
    }

    // The candidate's steps are faster (8 µs vs 10 µs) but it has a CPU fallback the baseline does not: that
    // finding moved against the step change and explains none of it.
    void shareOppositeToTheStepChange()
    {
        const auto run = [](const std::string& path, model::TimeNs stepNs) {
            model::TraceBuilder b;
            b.metadata().format = "kineto";
            b.metadata().sourcePath = path;
            const model::TrackId host = b.hostThread("main", 10, 10);
            for (int s = 0; s < 2; ++s) {
                b.step(host, s + 1, s * stepNs, stepNs);
                b.slice(host, model::SliceCategory::HostOp, "aten::conv2d", s * stepNs + 100, stepNs / 2);
            }
            return b.finalize();
        };
        const auto baseline = run("/runs/a.json", 10'000);
        const auto candidate = run("/runs/b.json", 8'000);
        analysis::Finding f;
        f.kind = "cpu_fallback";
        f.title = "CPU fallback of Cast";
        f.lostNs = 1400;
        f.perStep = {{0, 1, 700, 8'000}, {1, 2, 700, 8'000}};
        const std::vector<analysis::Finding> none;
        const std::vector<analysis::Finding> fallback {f};
        analysis::CompareResult result;
        std::string error;
        QVERIFY2(analysis::compareRuns(*baseline, none, *candidate, fallback, {}, result, error), error.c_str());
        QCOMPARE(result.explanations.size(), std::size_t(1));
        QCOMPARE(result.explanations[0].shareOfStepDelta, 0.0);
        for (const auto format : {report::ReportFormat::Markdown, report::ReportFormat::Html}) {
            std::ostringstream out;
            report::writeCompareReport({*baseline, none}, {*candidate, fallback}, result, format, out);
            QVERIFY(out.str().find("opposite to the step change") != std::string::npos);
        }
    }

    void htmlIsSelfContainedAndEscaped()
    {
        const Compared c = compare();
        const std::string html = render(c, report::ReportFormat::Html);
        const std::string lower = lowerAscii(html);
        QVERIFY(lower.rfind("<!doctype html>", 0) == 0);
        QCOMPARE(countOf(lower, "<script"), std::size_t(0));
        QCOMPARE(countOf(lower, "<b>"), std::size_t(0));
        QCOMPARE(countOf(lower, "http://"), std::size_t(0));
        QCOMPARE(countOf(lower, "https://"), std::size_t(0));
        QCOMPARE(countOf(lower, "<svg "), std::size_t(3)); // steps, the waterfall, operator deltas
        QVERIFY(lower.find("aria-label=\"waterfall from the baseline step time") != std::string::npos);
        QVERIFY(html.find("&lt;script&gt;x&lt;/script&gt;|=cmd") != std::string::npos);
        QVERIFY(html.find("/runs/npu/&lt;b&gt;trace&lt;/b&gt;.json") != std::string::npos);
        for (const auto& op : c.result.operators)
            QVERIFY(html.find("<code>" + report::escapeHtml(op.name) + "</code>") != std::string::npos);
        for (const std::string& svg : svgFragments(html)) {
            QXmlStreamReader xml(QByteArray::fromStdString(svg));
            while (!xml.atEnd())
                xml.readNext();
            QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
        }
    }

    void csvListsEveryOperator()
    {
        const Compared c = compare();
        std::vector<std::vector<std::string>> rows;
        QVERIFY(parseCsv(render(c, report::ReportFormat::Csv), rows));
        QCOMPARE(rows.size(), c.result.operators.size() + 1);
        QCOMPARE(rows[0].size(), std::size_t(9));
        for (std::size_t i = 0; i < c.result.operators.size(); ++i) {
            const auto& op = c.result.operators[i];
            const auto& row = rows[i + 1];
            QCOMPARE(row[0], op.name.rfind('=', 0) == 0 ? "'" + op.name : op.name);
            QCOMPARE(row[1], std::to_string(op.baselineNs));
            QCOMPARE(row[2], std::to_string(op.candidateNs));
            QCOMPARE(row[3], std::to_string(op.deltaNs()));
            QCOMPARE(row[4].empty(), !op.ratio().has_value());
        }
    }

    void jsonIsTheCompareDocument()
    {
        const Compared c = compare();
        const auto j = nlohmann::json::parse(render(c, report::ReportFormat::Json), nullptr, false);
        QVERIFY(!j.is_discarded());
        QVERIFY(j.at("schema") == "timesink.compare/1");
        QCOMPARE(j.at("operators").size(), c.result.operators.size());
    }

    void fileIsWrittenAtomicallyAndNeverOverAnInput()
    {
        const Compared c = compare();
        QTemporaryDir dir;
        const std::filesystem::path root = dir.path().toStdString();
        const std::filesystem::path inputs[] = {root / "a.json", root / "b.json"};
        std::ofstream(inputs[1]) << "{}";
        std::string error;
        QVERIFY(!report::writeCompareReportFile({*c.baseline, c.baselineFindings}, {*c.candidate, c.candidateFindings},
                                                c.result, report::ReportFormat::Markdown, inputs[1], inputs, error));
        QVERIFY(error.find("refusing to overwrite the input") != std::string::npos);
        QVERIFY2(report::writeCompareReportFile({*c.baseline, c.baselineFindings}, {*c.candidate, c.candidateFindings},
                                                c.result, report::ReportFormat::Html, root / "cmp.html", inputs, error),
                 error.c_str());
        std::ifstream in(root / "cmp.html");
        const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        QVERIFY(text.rfind("<!DOCTYPE html>", 0) == 0);
    }
};

QTEST_APPLESS_MAIN(TestCompareReport)
#include "tst_comparereport.moc"
