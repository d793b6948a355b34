// SPDX-License-Identifier: MIT
// Op names, paths and other trace strings are attacker-controlled input: a trace can be crafted. Every writer
// must keep them inert in its format.
#include "report/core/textformat.h"
#include "report/reportoutput.h"
#include "report/writers/csv/csvwriter.h"
#include "report/writers/html/htmlwriter.h"
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

const std::string kHostileOp = "<script>alert(1)</script>|a\"b'c</style><img src=x onerror=alert(2)>\x01\x1b[31m";
const std::string kHostileTitle
    = "=HYPERLINK(\"http://evil.example\",\"x\")|pipe\nnewline `code` *em* [link](http://x)";
const std::string kHostileRecommendation = "-2+3\r\n@SUM(A1)\"quoted\"\n<b>bold</b>";

report::ReportModel hostileModel()
{
    auto a = makeAnalysedTrace(0, kHostileOp, kHostileTitle, kHostileRecommendation);
    a.result.findings[1].kind = "+kind|with<pipe>";
    a.result.findings[0].details.push_back({"</td><script>", std::string("\xff\xfe invalid UTF-8")});
    return report::buildReportModel(*a.trace, a.result);
}

std::string render(const report::ReportModel& m, report::ReportFormat f)
{
    std::ostringstream out;
    report::writeReport(m, f, out);
    return out.str();
}

} // namespace

class TestReportEscaping : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void escapeFunctions_data()
    {
        QTest::addColumn<QByteArray>("input");
        QTest::addColumn<QByteArray>("html");
        QTest::addColumn<QByteArray>("markdown");
        QTest::newRow("script") << QByteArray("<script>") << QByteArray("&lt;script&gt;") << QByteArray("\\<script\\>");
        QTest::newRow("quotes") << QByteArray("a\"b'c") << QByteArray("a&quot;b&#39;c") << QByteArray("a\"b'c");
        QTest::newRow("amp") << QByteArray("&amp;") << QByteArray("&amp;amp;") << QByteArray("\\&amp;");
        QTest::newRow("pipe") << QByteArray("a|b") << QByteArray("a|b") << QByteArray("a\\|b");
        QTest::newRow("control") << QByteArray("a\x01\x7f"
                                               "b\tc\nd")
                                 << QByteArray("ab c d") << QByteArray("ab c d");
        QTest::newRow("invalid utf8") << QByteArray("x\xffy") << QByteArray("x\xEF\xBF\xBDy")
                                      << QByteArray("x\xEF\xBF\xBDy");
        QTest::newRow("utf8 kept") << QByteArray("µs → 算子") << QByteArray("µs → 算子") << QByteArray("µs → 算子");
        QTest::newRow("C1 control") << QByteArray("a\xC2\x85"
                                                  "b")
                                    << QByteArray("ab") << QByteArray("ab");
        QTest::newRow("overlong") << QByteArray("\xC0\xBC") << QByteArray("\xEF\xBF\xBD\xEF\xBF\xBD")
                                  << QByteArray("\xEF\xBF\xBD\xEF\xBF\xBD");
        QTest::newRow("markdown syntax") << QByteArray("*_`[]#~$!\\") << QByteArray("*_`[]#~$!\\")
                                         << QByteArray("\\*\\_\\`\\[\\]\\#\\~\\$\\!\\\\");
    }
    void escapeFunctions()
    {
        QFETCH(QByteArray, input);
        QFETCH(QByteArray, html);
        QFETCH(QByteArray, markdown);
        const std::string in(input.constData(), std::size_t(input.size()));
        QCOMPARE(QByteArray::fromStdString(report::escapeHtml(in)), html);
        QCOMPARE(QByteArray::fromStdString(report::escapeMarkdown(in)), markdown);
    }

    void viewerCommandQuotesForTheShell()
    {
        QCOMPARE(report::viewerCommand("/runs/a b.json", 2), std::string("timesink '/runs/a b.json' --finding 2"));
        QCOMPARE(report::viewerCommand("/runs/it's $(rm -rf ~).json", 1),
                 std::string("timesink '/runs/it'\\''s $(rm -rf ~).json' --finding 1"));
    }

    void csvText_data()
    {
        QTest::addColumn<QByteArray>("input");
        QTest::addColumn<QByteArray>("field");
        QTest::newRow("plain") << QByteArray("abc") << QByteArray("\"abc\"");
        QTest::newRow("quote") << QByteArray("a\"b") << QByteArray("\"a\"\"b\"");
        QTest::newRow("comma") << QByteArray("a,b") << QByteArray("\"a,b\"");
        QTest::newRow("newline") << QByteArray("a\nb") << QByteArray("\"a\r\nb\"");
        QTest::newRow("formula =") << QByteArray("=1+1") << QByteArray("\"'=1+1\"");
        QTest::newRow("formula +") << QByteArray("+1") << QByteArray("\"'+1\"");
        QTest::newRow("formula -") << QByteArray("-1") << QByteArray("\"'-1\"");
        QTest::newRow("formula @") << QByteArray("@SUM(A1)") << QByteArray("\"'@SUM(A1)\"");
        QTest::newRow("tab then =") << QByteArray("\t=1") << QByteArray("\" =1\"");
        QTest::newRow("inner = is fine") << QByteArray("a=1") << QByteArray("\"a=1\"");
    }
    void csvText()
    {
        QFETCH(QByteArray, input);
        QFETCH(QByteArray, field);
        QCOMPARE(QByteArray::fromStdString(report::csvText(input.toStdString())), field);
    }

    void htmlKeepsHostileNamesInert()
    {
        const std::string html = render(hostileModel(), report::ReportFormat::Html);
        const std::string lower = lowerAscii(html);
        QCOMPARE(countOf(lower, "<script"), std::size_t(0));
        QCOMPARE(countOf(lower, "<img"), std::size_t(0));
        QCOMPARE(countOf(lower, "</style>"), std::size_t(1)); // ours, closing the inline stylesheet
        QCOMPARE(countOf(lower, "<b>"), std::size_t(0));
        QCOMPARE(countOf(lower, "</td><script>"), std::size_t(0));
        QCOMPARE(countOf(html, "\x01"), std::size_t(0));
        QCOMPARE(countOf(html, "\x1b"), std::size_t(0));
        QCOMPARE(countOf(html, "\xff"), std::size_t(0));
        // The names are there, escaped: in the operator table, the chart label/tooltip, and the finding.
        const std::string escapedOp = "&lt;script&gt;alert(1)&lt;/script&gt;|a&quot;b&#39;c&lt;/style&gt;&lt;img src=x "
                                      "onerror=alert(2)&gt;[31m";
        QVERIFY(html.find("<code>" + escapedOp + "</code>") != std::string::npos);
        QVERIFY(html.find("&lt;/td&gt;&lt;script&gt;") != std::string::npos);
        QVERIFY(html.find("=HYPERLINK(&quot;http://evil.example&quot;,&quot;x&quot;)|pipe newline")
                != std::string::npos);
        QVERIFY(html.find("&lt;b&gt;bold&lt;/b&gt;") != std::string::npos);
        QVERIFY(html.find("+kind|with&lt;pipe&gt;") != std::string::npos);
        // No attribute can be broken out of: every quote inside content is a reference.
        QCOMPARE(countOf(html, "onerror=alert(2)>"), std::size_t(0));
        // The inline charts are well-formed XML (browsers forgive broken HTML, not broken SVG).
        QCOMPARE(svgFragments(html).size(), std::size_t(3));
        for (const std::string& svg : svgFragments(html)) {
            QXmlStreamReader xml(QByteArray::fromStdString(svg));
            while (!xml.atEnd())
                xml.readNext();
            QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
        }
    }

    void markdownKeepsTablesIntact()
    {
        const std::string md = render(hostileModel(), report::ReportFormat::Markdown);
        const auto findings = markdownTable(md, "| rank | kind | finding | saving | % | lost | occurrences | steps |");
        QCOMPARE(findings.size(), std::size_t(2));
        for (const auto& row : findings)
            QCOMPARE(row.size(), std::size_t(8));
        QCOMPARE(findings[0][2],
                 std::string("[=HYPERLINK(\"http://evil.example\",\"x\")\\|pipe newline \\`code\\` "
                             "\\*em\\* \\[link\\](http://x)](#finding-1)"));
        QCOMPARE(findings[1][1], std::string("+kind\\|with\\<pipe\\>"));
        const auto ops = markdownTable(md, "| rank | operator | category | calls | total | % |");
        QVERIFY(!ops.empty());
        for (const auto& row : ops)
            QCOMPARE(row.size(), std::size_t(6));
        QCOMPARE(ops[0][1],
                 std::string("\\<script\\>alert(1)\\</script\\>\\|a\"b'c\\</style\\>\\<img src=x "
                             "onerror=alert(2)\\>\\[31m"));
        const auto details = markdownTable(md, "| detail | value |");
        for (const auto& row : details)
            QCOMPARE(row.size(), std::size_t(2));
        // Nothing unescaped that a renderer would turn into HTML or a link.
        const std::regex ourAnchor("<a id=\"finding-[0-9]+\"></a>");
        for (const std::string& line : lines(md)) {
            if (std::regex_match(line, ourAnchor))
                continue;
            for (std::size_t pos = line.find('<'); pos != std::string::npos; pos = line.find('<', pos + 1))
                QVERIFY2(pos > 0 && line[pos - 1] == '\\', line.c_str());
        }
        QCOMPARE(countOf(md, "\n\\-2+3"), std::size_t(0)); // recommendation is never at a line start
        QCOMPARE(countOf(md, "\x01"), std::size_t(0));
    }

    void jsonCarriesHostileTextVerbatim()
    {
        const std::string text = render(hostileModel(), report::ReportFormat::Json);
        const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
        QVERIFY(!j.is_discarded());
        // JSON needs no neutralising: the exact strings come back (invalid UTF-8 replaced by U+FFFD).
        QVERIFY(j.at("findings")[0].at("title") == kHostileTitle);
        QVERIFY(j.at("findings")[0].at("recommendation") == kHostileRecommendation);
        QVERIFY(j.at("top_operators")[0].at("name") == kHostileOp);
        QVERIFY(j.at("findings")[0].at("details").at("</td><script>") == "\xEF\xBF\xBD\xEF\xBF\xBD invalid UTF-8");
    }

    void csvRoundTripsHostileText()
    {
        const std::string csv = render(hostileModel(), report::ReportFormat::Csv);
        std::vector<std::vector<std::string>> rows;
        QVERIFY(parseCsv(csv, rows));
        QCOMPARE(rows.size(), std::size_t(3));
        for (const auto& row : rows)
            QCOMPARE(row.size(), std::size_t(16)); // 12 columns, then the saving's 4
        // Title: leading "=" neutralised, quotes and the newline preserved (as CRLF inside the quoted field).
        QCOMPARE(rows[1][2],
                 std::string("'=HYPERLINK(\"http://evil.example\",\"x\")|pipe\r\nnewline `code` *em* "
                             "[link](http://x)"));
        // Recommendation: "-" neutralised; CR dropped, LF kept as CRLF.
        QCOMPARE(rows[1][11], std::string("'-2+3\r\n@SUM(A1)\"quoted\"\r\n<b>bold</b>"));
        QCOMPARE(rows[2][1], std::string("'+kind|with<pipe>"));
        // Numeric columns stay numbers (not neutralised).
        QCOMPARE(rows[1][3], std::string("200"));
    }
};

QTEST_APPLESS_MAIN(TestReportEscaping)
#include "tst_reportescaping.moc"
