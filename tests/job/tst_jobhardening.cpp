// SPDX-License-Identifier: MIT
// Issue 49 (hardening, round 4), the report and job parts: lists read from a per-rank report are bounded and the job
// writers' output with them (3); every plain-text writer shows control characters as visible escapes (4); a job
// report is told by its structure, repeated step numbers and disagreeing world sizes are said, a job comparison shows
// each job's warnings, and an exposed range that ends before it starts refuses its report (5). The hostile reports
// are the fuzz regression inputs in tests/fuzz/rankreport/.

#include "analysis/core/textformat.h"
#include "analysis/job/job.h"
#include "app/job/jobrunner.h"
#include "report/core/schemas.h"
#include "report/job/rankreportreader.h"
#include "report/job/ranksummary.h"
#include "report/reportoutput.h"
#include "report/writers/html/jobcharts.h"
#include "tests/common/clirunner.h"
#include "tests/job/plantedjob.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

using timesink::testing::runCli;
namespace analysis = timesink::analysis;
namespace app = timesink::app;
namespace report = timesink::report;

namespace {

constexpr std::int64_t kMs = 1'000'000;

nlohmann::json corpus(const std::string& name)
{
    std::ifstream in(std::string(TIMESINK_SOURCE_DIR) + "/tests/fuzz/rankreport/" + name);
    return nlohmann::json::parse(in);
}

nlohmann::json step(std::int64_t number, std::int64_t start)
{
    return {{"step", number},
            {"start_ns", start},
            {"duration_ns", 4 * kMs},
            {"compute_ns", 2 * kMs},
            {"communication_ns", kMs},
            {"exposed_wait_ns", 0},
            {"idle_ns", 0},
            {"collectives",
             nlohmann::json::array({{{"op", "allreduce"},
                                     {"start_ns", 2 * kMs},
                                     {"end_ns", 3 * kMs},
                                     {"exposed", nlohmann::json::array({{2 * kMs, 3 * kMs}})}}})}};
}

/// A plain, true report of `rank` (the fuzz inputs' shape): two 4 ms steps with one all-reduce each.
nlohmann::json plainReport(int rank)
{
    const std::string path = "rank-" + std::to_string(rank) + ".json";
    return {{"schema", "timesink.report/1"},
            {"generator", "timesink-cli 0.1.0"},
            {"trace",
             {{"format", "kineto"},
              {"path", path},
              {"start_ns", 0},
              {"span_ns", 20 * kMs},
              {"warnings", nlohmann::json::array()},
              {"rank", rank},
              {"world_size", 2}}},
            {"platform", "pytorch_cuda"},
            {"analysed_ns", 20 * kMs},
            {"communication", {{"backend", "nccl"}, {"wait_source", "cross_rank_alignment"}}},
            {"findings", nlohmann::json::array()},
            {"steps", nlohmann::json::array({step(1, 0), step(2, 5 * kMs)})}};
}

/// `report` as rank `rank` (its trace.rank, and a path of its own).
nlohmann::json asRank(nlohmann::json report, int rank)
{
    report["trace"]["rank"] = rank;
    return report;
}

void writeJson(const QString& path, const nlohmann::json& j)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    std::ofstream(path.toStdString()) << j.dump(1);
}

analysis::RankSummary readSummary(const nlohmann::json& j, std::string& error, const std::string& source = "r.json")
{
    timesink::model::Expected<analysis::RankSummary> read = report::rankSummaryFromReportJson(j, source);
    error = read.status().message();
    return read ? std::move(read).value() : analysis::RankSummary {};
}

bool anyContains(const std::vector<std::string>& texts, const std::string& part)
{
    return std::any_of(texts.begin(), texts.end(),
                       [&](const std::string& t) { return t.find(part) != std::string::npos; });
}

std::size_t count(const std::string& text, const std::string& part)
{
    std::size_t n = 0;
    for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size()))
        ++n;
    return n;
}

/// Bytes a terminal acts on: C0 controls other than the line feed that ends a line, DEL, and the two-byte C1 controls.
bool hasTerminalControls(const QByteArray& text)
{
    for (qsizetype i = 0; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if ((c < 0x20 && c != '\n') || c == 0x7F)
            return true;
        if (c == 0xC2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80
            && static_cast<unsigned char>(text[i + 1]) <= 0x9F)
            return true;
    }
    return false;
}

/// A line of `text` that starts with `prefix` (a line the input forged).
bool hasLineStarting(const QByteArray& text, const QByteArray& prefix)
{
    for (const QByteArray& line : text.split('\n')) {
        if (line.startsWith(prefix))
            return true;
    }
    return false;
}

} // namespace

class TestJobHardening : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    // 4. The one rule: visible escapes, nothing removed, ordinary text unchanged.
    void terminalTextRule()
    {
        using analysis::terminalText;
        QCOMPARE(terminalText("Cast\x1b]0;owned\x07\nwarning: fake"),
                 std::string("Cast\\x1b]0;owned\\x07\\nwarning: fake"));
        QCOMPARE(terminalText("a\tb\rc\x7f"), std::string("a\\tb\\rc\\x7f"));
        QCOMPARE(terminalText(std::string_view("nul\0!", 5)), std::string("nul\\x00!"));
        QCOMPARE(terminalText("csi \xc2\x9b"
                              "2J nel \xc2\x85"),
                 std::string("csi \\u009b2J nel \\u0085"));
        QCOMPARE(terminalText("ls \xe2\x80\xa8 rlo \xe2\x80\xae iso \xe2\x81\xa9"),
                 std::string("ls \\u2028 rlo \\u202e iso \\u2069"));
        QCOMPARE(terminalText("bad \xff"), std::string("bad \xef\xbf\xbd"));
        const std::string plain = "at::native::gemm<float> 12.5 µs → C:\\runs\\a.json ✓";
        QCOMPARE(terminalText(plain), plain);
    }

    // 4. `job` text: a report's backend, warnings, finding titles, op names and trace path reach the terminal as
    // escapes; no line of the output is one the report wrote. The other formats escape as they did.
    void jobTextEscapesReports()
    {
        const QString dir = m_dir.filePath(QStringLiteral("controls"));
        const nlohmann::json hostile = corpus("control_chars_in_text.report.json");
        writeJson(dir + "/rank-0.report.json", hostile);
        writeJson(dir + "/rank-1.report.json", asRank(hostile, 1));
        const auto text = runCli({QStringLiteral("job"), dir});
        QCOMPARE(text.exitCode, 0);
        QVERIFY2(!hasTerminalControls(text.out), text.out.constData());
        QVERIFY2(!hasTerminalControls(text.err), text.err.constData());
        for (const char* forged : {"warning: forged", "warning: forged backend", "warning: forged op"})
            QVERIFY2(!hasLineStarting(text.out, forged), forged);
        for (const char* shown : {"collectives: nccl\\x1b[2J\\nwarning: forged backend",
                                  "Exposed \\x1b]0;owned\\x07 communication\\nwarning: forged title",
                                  "cut \\x1b[31mred\\x1b[0m\\r\\nwarning: forged import warning\\u0085\\u2028\\u202e",
                                  "allreduce\\x1b[2J\\nwarning: forged op"})
            QVERIFY2(text.out.contains(shown), shown);
        for (const char* format : {"md", "html", "json", "csv"}) {
            const auto r = runCli({QStringLiteral("job"), dir, QStringLiteral("--format"), QLatin1String(format)});
            QCOMPARE(r.exitCode, 0);
            QVERIFY2(!r.out.contains('\x1b') && !r.out.contains('\x07'), format);
            QVERIFY2(!hasTerminalControls(r.err), format);
        }
    }

    // 4. `info` quotes a malformed event: the quote is escaped, not an OSC title and a screen clear.
    void infoEscapesMalformedEvent()
    {
        const QString trace = m_dir.filePath(QStringLiteral("malformed.json"));
        QFile f(trace);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"traceEvents\": [\n"
                "{\"name\": \"ok\", \"ph\": \"X\", \"ts\": 1, \"dur\": 5, \"pid\": 1, \"tid\": 1},\n"
                "{\"name\": \"x\x1b]0;owned\x07\x1b[2J\nwarning: forged\", \"ph\": \"X\", \"ts\": 2, \"dur\": 1, "
                "\"pid\": 1, \"tid\": 1},\n"
                "{\"name\": \"ok2\", \"ph\": \"X\", \"ts\": 9, \"dur\": 5, \"pid\": 1, \"tid\": 1}\n]}\n");
        f.close();
        const auto r = runCli({QStringLiteral("info"), trace});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("\\x1b]0;owned\\x07\\x1b[2J"), r.out.constData());
        QVERIFY2(!hasTerminalControls(r.out), r.out.constData());
        QVERIFY(!hasLineStarting(r.out, "warning: forged"));
    }

    // 3. Every list read from a report is bounded where it is read.
    void reportListsBounded()
    {
        std::string error;
        // Steps: the first 65,536 are taken, the rest named in a warning.
        nlohmann::json many = plainReport(0);
        many["trace"]["span_ns"] = nullptr; // no span: the steps may lie anywhere
        many["steps"] = nlohmann::json::array();
        for (std::int64_t k = 0; k < 65'537; ++k) {
            nlohmann::json s = step(k, k * 5 * kMs);
            s.erase("collectives");
            many["steps"].push_back(std::move(s));
        }
        const analysis::RankSummary steps = readSummary(many, error);
        QVERIFY2(error.empty(), error.c_str());
        QCOMPARE(steps.steps.size(), std::size_t {65'536});
        QVERIFY(anyContains(steps.warnings, "1 step after the first 65536 left out"));

        // A collective with more exposed ranges than device activity may have: its shortest gaps close until 8,196
        // remain (the step stays: a long collective overlapped by thousands of small kernels is real), said.
        // Pieces every 100 ns, 50 ns long when even and 60 ns when odd: the gaps after the odd ones (40 ns) close
        // first, the first 804 of them; everything else stays exact.
        nlohmann::json ranges = plainReport(0);
        nlohmann::json exposed = nlohmann::json::array();
        for (std::int64_t k = 0; k < 9'000; ++k)
            exposed.push_back({2 * kMs + k * 100, 2 * kMs + k * 100 + (k % 2 == 0 ? 50 : 60)});
        ranges["steps"][1]["collectives"][0]["exposed"] = exposed;
        const analysis::RankSummary coarse = readSummary(ranges, error);
        QVERIFY2(error.empty(), error.c_str());
        QCOMPARE(coarse.steps.size(), std::size_t {2});
        const analysis::IntervalList& merged = coarse.steps[1].collectives[0].exposed;
        QCOMPARE(merged.size(), std::size_t {8'196});
        QCOMPARE(merged[0].start, 2 * kMs);
        QCOMPARE(merged[0].end, 2 * kMs + 50);
        QCOMPARE(merged[1].start, 2 * kMs + 100);
        QCOMPARE(merged[1].end, 2 * kMs + 250);
        QCOMPARE(merged[804].start, 2 * kMs + 160'700);
        QCOMPARE(merged[804].end, 2 * kMs + 160'850);
        QCOMPARE(merged[805].start, 2 * kMs + 160'900);
        QCOMPARE(merged[805].end, 2 * kMs + 160'960);
        QCOMPARE(merged.back().end, 2 * kMs + 899'960);
        QVERIFY(anyContains(coarse.warnings,
                            "step 2, collective 0 (allreduce): 9000 exposed ranges merged into 8196 "
                            "(gaps up to 40 ns closed)"));
        // More than 262,144 exposed ranges in one step (after that), or 65,536 collectives: the step is left out.
        nlohmann::json crowded = plainReport(0);
        nlohmann::json collectives = nlohmann::json::array();
        for (int c = 0; c < 33; ++c) {
            nlohmann::json pieces = nlohmann::json::array();
            for (std::int64_t k = 0; k < 8'196; ++k)
                pieces.push_back({2 * kMs + k * 100, 2 * kMs + k * 100 + 50});
            collectives.push_back(
                {{"op", "allreduce"}, {"start_ns", 2 * kMs}, {"end_ns", 3 * kMs}, {"exposed", std::move(pieces)}});
        }
        crowded["steps"][1]["collectives"] = std::move(collectives);
        const analysis::RankSummary crowdedOut = readSummary(crowded, error);
        QCOMPARE(crowdedOut.steps.size(), std::size_t {1});
        QVERIFY(
            anyContains(crowdedOut.warnings, "step 2 left out: its collectives have more than 262144 exposed ranges"));
        nlohmann::json busy = plainReport(0);
        busy["steps"][1]["collectives"] = nlohmann::json::array();
        for (int c = 0; c < 65'537; ++c)
            busy["steps"][1]["collectives"].push_back({{"op", "allreduce"},
                                                       {"start_ns", 2 * kMs},
                                                       {"end_ns", 3 * kMs},
                                                       {"exposed", nlohmann::json::array()}});
        const analysis::RankSummary busyOut = readSummary(busy, error);
        QCOMPARE(busyOut.steps.size(), std::size_t {1});
        QVERIFY(anyContains(busyOut.warnings, "step 2 left out: it has 65537 collectives (at most 65536)"));

        // Findings: the first 1,024 (they are ranked).
        nlohmann::json findings = plainReport(0);
        for (int k = 0; k < 1'100; ++k)
            findings["findings"].push_back(
                {{"kind", "communication"}, {"title", "f" + std::to_string(k)}, {"lost_ns", 1}, {"occurrences", 1}});
        const analysis::RankSummary ranked = readSummary(findings, error);
        QCOMPARE(ranked.findings.size(), std::size_t {1'024});
        QCOMPARE(ranked.findings.back().title, std::string("f1023"));
        QVERIFY(anyContains(ranked.warnings, "76 findings after the first 1024 left out"));

        // Warnings about one report: 64, then one line counting the rest.
        nlohmann::json bad = plainReport(0);
        bad["trace"]["span_ns"] = nullptr;
        bad["steps"] = nlohmann::json::array();
        for (std::int64_t k = 0; k < 500; ++k) {
            nlohmann::json s = step(k, 0);
            s["duration_ns"] = -1;
            bad["steps"].push_back(std::move(s));
        }
        const analysis::RankSummary refused = readSummary(bad, error);
        QVERIFY(refused.steps.empty());
        QCOMPARE(refused.warnings.size(), std::size_t {65});
        QCOMPARE(refused.warnings.back(), std::string("436 more problems of report r.json not listed"));

        // Texts: 4 KiB at most, cut at a character.
        nlohmann::json longText = plainReport(0);
        std::string title;
        while (title.size() < 10'000)
            title += "µ";
        longText["findings"].push_back(
            {{"kind", "communication"}, {"title", title}, {"lost_ns", 1}, {"occurrences", 1}});
        const analysis::RankSummary shortened = readSummary(longText, error);
        QCOMPARE(shortened.findings.size(), std::size_t {1});
        QVERIFY(shortened.findings.front().title.size() <= 4'096 + 3);
        QVERIFY(shortened.findings.front().title.ends_with("µ…"));
    }

    // 3. The job writers' output is bounded by what they show: 2,000 exposed pieces inside a millisecond and 500
    // ranges far past the step draw a handful of rectangles, not one each.
    void lanesBoundedByPicture()
    {
        const nlohmann::json many = corpus("exposed_ranges_many.report.json");
        std::vector<analysis::RankSummary> ranks;
        for (int r = 0; r < 2; ++r) {
            std::string error;
            ranks.push_back(readSummary(asRank(many, r), error, "rank-" + std::to_string(r)));
            QVERIFY2(error.empty(), error.c_str());
            QCOMPARE(ranks.back().steps.size(), std::size_t {2});
        }
        const analysis::JobResult job = analysis::analyzeJob(ranks);
        const std::string svg = report::jobLanesSvg(job, analysis::worstStep(job));
        const std::size_t rects = count(svg, "<rect");
        QVERIFY2(rects < 100, std::to_string(rects).c_str());
        QVERIFY2(svg.size() < 40'000, std::to_string(svg.size()).c_str());
        for (const report::ReportFormat format : {report::ReportFormat::Markdown, report::ReportFormat::Html}) {
            std::ostringstream out;
            report::writeJobReport(job, format, "test", out);
            QVERIFY2(out.str().size() < 120'000, std::to_string(out.str().size()).c_str());
        }
    }

    // 5a. A Kineto trace whose first bytes mention "timesink.job/1" is a rank; a job report is skipped.
    void jobReportByStructure()
    {
        const std::filesystem::path dir = m_dir.filePath(QStringLiteral("structure")).toStdString();
        timesink::testing::PlantedJob planted;
        planted.ranks = 2;
        const std::vector<std::filesystem::path> traces = timesink::testing::writePlantedJob(dir, planted);
        std::string text;
        {
            std::ifstream in(traces[0]);
            text.assign(std::istreambuf_iterator<char>(in), {});
        }
        QVERIFY(text.starts_with("{"));
        std::ofstream(traces[0]) << "{\"comment\": \"schema timesink.job/1\", \"meta\": {\"schema\": "
                                    "\"timesink.job/1\"},"
                                 << text.substr(1);
        QCOMPARE(report::jsonSchemaTag(traces[0]), std::string());
        // A job report next to its ranks, "schema" first as Timesink writes it.
        std::ofstream(dir / "job.json") << "{\n  \"schema\": \"timesink.job/1\",\n  \"ranks\": []\n}\n";
        QCOMPARE(report::jsonSchemaTag(dir / "job.json"), std::string(report::kJobSchema));
        std::vector<app::JobInput> inputs;
        std::vector<std::string> skipped;
        std::string error;
        QVERIFY2(app::collectJobInputs({dir}, inputs, error, &skipped), error.c_str());
        QCOMPARE(inputs.size(), std::size_t {2});
        QCOMPARE(inputs[0].path, traces[0]);
        QCOMPARE(skipped.size(), std::size_t {1});
        QVERIFY(skipped.front().find("job.json: a job report") != std::string::npos);
    }

    // 5b. Repeated step numbers within a rank: the first of each is compared, and every format says so.
    void repeatedStepNumbersSaid()
    {
        const QString dir = m_dir.filePath(QStringLiteral("repeated"));
        writeJson(dir + "/rank-0.report.json", corpus("step_numbers_repeated.report.json"));
        writeJson(dir + "/rank-1.report.json", plainReport(1));
        const char* warning = "rank 0: step numbers 1, 2 occur more than once; only the first step of each number is "
                              "compared, 2 steps are left out";
        const auto json = runCli({QStringLiteral("job"), dir, QStringLiteral("--format"), QStringLiteral("json")});
        QCOMPARE(json.exitCode, 0);
        const nlohmann::json j = nlohmann::json::parse(json.out.toStdString());
        QVERIFY2(anyContains(j["warnings"].get<std::vector<std::string>>(), warning), json.out.constData());
        QCOMPARE(j["steps"].size(), std::size_t {2});
        QCOMPARE(j["ranks"][0]["steps"][1]["duration_ns"].get<std::int64_t>(), 4 * kMs); // the first step 2
        for (const char* format : {"text", "md", "html"}) {
            const auto r = runCli({QStringLiteral("job"), dir, QStringLiteral("--format"), QLatin1String(format)});
            QVERIFY2(r.out.contains(warning), format);
        }
        const auto csv = runCli({QStringLiteral("job"), dir, QStringLiteral("--format"), QStringLiteral("csv")});
        QVERIFY2(csv.err.contains(warning), csv.err.constData());
    }

    // 5c. World sizes that disagree: out of range is unknown (said), and a tie is settled by the ranks given.
    void worldSizeDisagreement()
    {
        const QString dir = m_dir.filePath(QStringLiteral("world"));
        writeJson(dir + "/rank-0.report.json", plainReport(0));
        writeJson(dir + "/rank-1.report.json", corpus("world_size_2pow31.report.json"));
        const auto r = runCli({QStringLiteral("job"), dir, QStringLiteral("--format"), QStringLiteral("json")});
        QCOMPARE(r.exitCode, 0);
        const nlohmann::json j = nlohmann::json::parse(r.out.toStdString());
        QCOMPARE(j["world_size"].get<int>(), 2);
        QVERIFY2(anyContains(j["warnings"].get<std::vector<std::string>>(),
                             "world size 2147483648 is out of range (1 to 1048576); taken as unknown"),
                 r.out.constData());

        // Two ranks, 0 and 1, one saying 2 and one 1,000: the size that holds them, and the disagreement said.
        std::vector<analysis::RankSummary> tie(2);
        for (int k = 0; k < 2; ++k) {
            tie[k].rank = k;
            tie[k].worldSize = k == 0 ? 2 : 1000;
        }
        const analysis::JobResult job = analysis::analyzeJob(tie);
        QCOMPARE(job.worldSize, 2);
        QVERIFY(anyContains(job.warnings,
                            "the ranks disagree on the world size (1000 on rank 1; 2 on rank 0); the "
                            "job uses 2"));
        // Rank 5 of two ranks given: only 1,000 holds it.
        tie[1].rank = 5;
        QCOMPARE(analysis::analyzeJob(tie).worldSize, 1000);
    }

    // 5d. `compare JOB_A JOB_B` shows each job's warnings in every format, and says when a side has no usable steps.
    void jobCompareShowsWarnings()
    {
        const QString a = m_dir.filePath(QStringLiteral("cmp-a"));
        const QString b = m_dir.filePath(QStringLiteral("cmp-b"));
        for (int r = 0; r < 2; ++r) {
            writeJson(a + QStringLiteral("/rank-%1.report.json").arg(r), plainReport(r));
            nlohmann::json refused = plainReport(r);
            for (auto& s : refused["steps"])
                s["duration_ns"] = -5;
            writeJson(b + QStringLiteral("/rank-%1.report.json").arg(r), refused);
        }
        const QByteArray warning = "warning (candidate): rank 0: report " + b.toUtf8()
            + "/rank-0.report.json: step 1 left out: duration_ns -5 is negative";
        const auto text = runCli({QStringLiteral("compare"), a, b});
        QCOMPARE(text.exitCode, 0);
        QVERIFY2(text.out.contains(warning), text.out.constData());
        QVERIFY(text.out.contains("Nothing to compare: the candidate job has no usable steps (see the warnings)."));
        QVERIFY(!text.out.contains("0.00×"));
        const auto json = runCli({QStringLiteral("compare"), a, b, QStringLiteral("--format"), QStringLiteral("json")});
        QCOMPARE(json.exitCode, 0);
        const nlohmann::json j = nlohmann::json::parse(json.out.toStdString());
        QVERIFY(j["baseline"]["warnings"].empty());
        QCOMPARE(j["candidate"]["warnings"].size(), std::size_t {4});
        QVERIFY(j["notes"][0].get<std::string>().starts_with("the candidate job has no usable steps"));
        for (const char* format : {"md", "html"}) {
            const auto r = runCli({QStringLiteral("compare"), a, b, QStringLiteral("--format"), QLatin1String(format)});
            QCOMPARE(r.exitCode, 0);
            QVERIFY2(r.out.contains("Warning (candidate): rank 0: report "), format);
            QVERIFY2(r.out.contains("the candidate job has no usable steps"), format);
        }
        const auto csv = runCli({QStringLiteral("compare"), a, b, QStringLiteral("--format"), QStringLiteral("csv")});
        QCOMPARE(csv.exitCode, 0);
        QVERIFY2(csv.err.contains("timesink-cli compare: " + warning), csv.err.constData());
    }

    // 5e. An exposed range that ends before it starts refuses its report, naming the file and the field.
    void invertedExposedRangeRefused()
    {
        const QString dir = m_dir.filePath(QStringLiteral("inverted"));
        writeJson(dir + "/rank-0.report.json", corpus("exposed_range_inverted.report.json"));
        writeJson(dir + "/rank-1.report.json", plainReport(1));
        const auto r = runCli({QStringLiteral("job"), dir});
        QCOMPARE(r.exitCode, 2);
        const QByteArray expected = dir.toUtf8()
            + "/rank-0.report.json: not a timesink.report/1 object (step 2, collective 0 (allreduce): \"exposed\" "
              "range [2900000, 2500000] ends before it starts)";
        QVERIFY2(r.err.contains(expected), r.err.constData());
    }

private:
    QTemporaryDir m_dir;
};

QTEST_GUILESS_MAIN(TestJobHardening)
#include "tst_jobhardening.moc"
