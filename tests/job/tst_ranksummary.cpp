// SPDX-License-Identifier: MIT
// Issue 48: a rank's summary is built from the typed report of an analysed trace (report/job/ranksummary), not by
// writing the report as JSON text and reading it back. The JSON round trip stays the reference: on real traces
// and on a model past every limit of job/ranklimits.h, the typed summary equals what the reader makes of the JSON
// that `analyze --format json` writes, field by field, warnings included.

#include "analysis/core/pass.h"
#include "model/utf8.h"
#include "report/analysis/reportmodel.h"
#include "report/job/ranklimits.h"
#include "report/job/rankreportreader.h"
#include "report/job/ranksummary.h"
#include "report/writers/json/jsonwriter.h"
#include "tests/common/fixtures.h"
#include "tests/common/status.h"

#include <QTest>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace analysis = timesink::analysis;
namespace model = timesink::model;
namespace report = timesink::report;

namespace {

/// The summary through the JSON text the analyze command writes, read back by the report reader.
analysis::RankSummary throughJson(const report::ReportModel& m, std::string& error)
{
    const nlohmann::json j = nlohmann::json::parse(
        report::reportJson(m).dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
    model::Expected<analysis::RankSummary> read = report::rankSummaryFromReportJson(j, m.trace.metadata.sourcePath);
    error = read.status().message();
    return read ? std::move(read).value() : analysis::RankSummary {};
}

std::string intervals(const analysis::IntervalList& l)
{
    std::ostringstream s;
    for (const analysis::Interval& i : l)
        s << '[' << i.start << ',' << i.end << ')';
    return s.str();
}

/// Every field of a rank summary as text, one line each, so a difference names the field.
std::string describe(const analysis::RankSummary& r)
{
    std::ostringstream s;
    s << "rank " << r.rank << " world " << r.worldSize << "\nsource " << r.source << "\ntracePath " << r.tracePath
      << "\ntraceStart " << r.traceStartNs << "\nformat " << r.format << "\nplatform " << r.platform << "\nbackend "
      << r.backend << "\ngenerator " << r.generator << "\nwait " << r.waitFromTasks << r.waitFromCommunicationJson
      << "\nanalysed " << r.analysedNs << '\n';
    for (const analysis::RankStep& st : r.steps) {
        s << "step " << st.number << ' ' << st.startNs << ' ' << st.durationNs << ' ' << st.computeNs << ' '
          << st.communicationNs << ' ' << st.communicationWaitNs << ' ' << st.communicationTransferNs << ' '
          << st.communicationIdleNs << ' ' << st.idleNs << " activity " << st.hasActivity << ' '
          << st.activity.resolutionNs << ' ' << intervals(st.activity.compute) << ' ' << intervals(st.activity.copy)
          << ' ' << intervals(st.activity.idle) << '\n';
        for (const analysis::RankCollective& c : st.collectives)
            s << "  collective " << c.opKind << ' ' << c.start << ' ' << c.end << ' ' << intervals(c.exposed) << '\n';
    }
    for (const analysis::RankFinding& f : r.findings) {
        s << "finding " << f.kind << " | " << f.title << " | " << f.lostNs << ' ' << f.occurrences << ' ';
        s.precision(17);
        s << f.lostFraction << '\n';
    }
    for (const std::string& w : r.warnings)
        s << "warning " << w << '\n';
    return s.str();
}

/// The first line where the two descriptions differ, or "" when they are equal.
std::string firstDifference(const std::string& a, const std::string& b)
{
    std::istringstream sa(a);
    std::istringstream sb(b);
    std::string la;
    std::string lb;
    for (int line = 1;; ++line) {
        const bool ha = static_cast<bool>(std::getline(sa, la));
        const bool hb = static_cast<bool>(std::getline(sb, lb));
        if (!ha && !hb)
            return {};
        if (!ha || !hb || la != lb)
            return "line " + std::to_string(line) + ":\n  typed: " + (ha ? la : "(end)").substr(0, 300)
                + "\n  json:  " + (hb ? lb : "(end)").substr(0, 300);
    }
}

bool anyContains(const std::vector<std::string>& texts, const std::string& part)
{
    return std::any_of(texts.begin(), texts.end(),
                       [&](const std::string& t) { return t.find(part) != std::string::npos; });
}

} // namespace

class TestRankSummary : public QObject
{
    Q_OBJECT

private slots:
    // Real ranks of every importer family with collectives, device activity and findings: the typed summary is the
    // JSON round trip's, and it is not empty (so the comparison compares something).
    void typedEqualsJsonOnRealTraces_data()
    {
        QTest::addColumn<QString>("fixture");
        for (const char* f :
             {"torch/hta_job_2ranks/rank-0.json.gz", "torch/hta_job_2ranks/rank-1.json.gz",
              "torch/hta_a100_nccl_data.json.gz", "torch/tracelens_h100_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz",
              "torch/torch_cpu_legacy_resnet18_train_2steps.json", "torch_npu/msinsight_text_level1_rank0_ascend_pt",
              "torch_npu/msinsight_text_level1_rank1_ascend_pt", "msprof/msinsight_db_level1_rank1_ascend_pt",
              "rknn/rknpu2_2.0.0b0_rk3588_perf_detail_yolov8n_1920x1088_multicore.txt"})
            QTest::newRow(f) << QString::fromUtf8(f);
    }
    void typedEqualsJsonOnRealTraces()
    {
        QFETCH(QString, fixture);
        LOAD_FIXTURE(trace, fixture.toStdString());
        analysis::CancelToken cancel;
        const analysis::AnalysisResult result = analysis::analyze(*trace, {}, cancel);
        const report::ReportModel m = report::buildReportModel(*trace, result);
        const model::Expected<analysis::RankSummary> fromModel = report::rankSummaryFromModel(m);
        QVERIFY_OK(fromModel);
        const analysis::RankSummary& typed = fromModel.value();
        std::string jsonError;
        const analysis::RankSummary json = throughJson(m, jsonError);
        QVERIFY2(jsonError.empty(), jsonError.c_str());
        QVERIFY(!typed.steps.empty());
        QVERIFY(typed.analysedNs > 0);
        QCOMPARE(typed.traceStartNs, m.trace.startNs);
        const std::string diff = firstDifference(describe(typed), describe(json));
        QVERIFY2(diff.empty(), diff.c_str());
    }

    // A model past every limit a report has: both paths leave out, coarsen, cut and warn alike, and the limits did
    // apply (the warnings name what was left out).
    void typedEqualsJsonPastTheLimits()
    {
        constexpr model::TimeNs kMs = 1'000'000;
        report::ReportModel m;
        m.generator = "timesink test";
        m.trace.metadata.sourcePath = "hostile-rank";
        m.trace.metadata.format = "kineto";
        m.trace.metadata.rank = 3;
        m.trace.metadata.worldSize = 8;
        m.trace.startNs = 0;
        m.trace.spanNs = 1'000 * kMs;
        m.summary.analysedNs = 300 * kMs;
        for (int i = 0; i < 70; ++i)
            m.trace.warnings.push_back({"read_error", 1, "read error " + std::to_string(i)});
        m.trace.warnings.push_back({"unlinked_flows", 3, "not serious"});
        // Step 1: a collective with 9,000 exposed pieces (coarsened) and activity outside the step (left out).
        // Step 2: compute longer than the step (the step is left out). Step 3: fine, with its activity.
        for (int i = 1; i <= 3; ++i) {
            report::StepBreakdown s;
            s.number = i;
            s.startNs = i * 100 * kMs;
            s.durationNs = 100 * kMs;
            s.computeNs = i == 2 ? 200 * kMs : 40 * kMs;
            s.communicationNs = 30 * kMs;
            s.idleNs = 30 * kMs;
            m.steps.push_back(s);
            analysis::StepCommunication c;
            c.waitNs = 5 * kMs;
            c.transferNs = 7 * kMs;
            analysis::CollectiveOp op {"allreduce", s.startNs + 10 * kMs, s.startNs + 40 * kMs, {}, {}, {}, -1};
            const int pieces = i == 1 ? 9'000 : 3;
            for (int p = 0; p < pieces; ++p)
                op.exposed.push_back({op.start + p * 3'000 + (p % 7), op.start + p * 3'000 + 1'000});
            c.collectives.push_back(op);
            m.communication.steps.push_back(c);
            analysis::StepActivity a;
            a.resolutionNs = 1;
            a.compute = {{0, 40 * kMs}};
            a.idle = {{40 * kMs, i == 1 ? 150 * kMs : 100 * kMs}};
            m.stepActivity.push_back(a);
        }
        m.communication.backend = analysis::CommBackend::Nccl;
        // 1,030 findings: past kMaxReportFindings, one kind that is not an id, one impossible loss, one title of
        // 5,000 bytes with a byte that is not UTF-8.
        for (int i = 0; i < 1'030; ++i) {
            analysis::Finding f;
            f.kind = i == 1 ? "Not An Id" : "pipeline_bubble";
            f.title
                = i == 2 ? std::string(2'500, 'a') + "\xff" + std::string(2'499, 'b') : "bubble " + std::to_string(i);
            f.lostNs = i == 3 ? -5 : (1'030 - i) * 1'000;
            f.lostFraction = static_cast<double>(f.lostNs) / static_cast<double>(m.summary.analysedNs);
            f.occurrences = static_cast<std::uint64_t>(i);
            m.findings.push_back(f);
        }

        const model::Expected<analysis::RankSummary> fromModel = report::rankSummaryFromModel(m);
        QVERIFY_OK(fromModel);
        const analysis::RankSummary& typed = fromModel.value();
        std::string jsonError;
        const analysis::RankSummary json = throughJson(m, jsonError);
        QVERIFY2(jsonError.empty(), jsonError.c_str());
        const std::string diff = firstDifference(describe(typed), describe(json));
        QVERIFY2(diff.empty(), diff.c_str());

        // The limits applied.
        QCOMPARE(typed.steps.size(), std::size_t(2)); // step 2 left out
        QCOMPARE(typed.steps[0].number, std::int64_t(1));
        QVERIFY(!typed.steps[0].hasActivity);
        QVERIFY(typed.steps[1].hasActivity);
        QCOMPARE(typed.steps[0].collectives.at(0).exposed.size(), report::kMaxExposedRanges);
        QCOMPARE(typed.findings.size(), report::kMaxReportFindings - 2);
        QCOMPARE(typed.backend, std::string("nccl"));
        const std::string& longTitle = typed.findings[1].title;
        QVERIFY(longTitle.size() <= report::kMaxReportTextBytes + 3);
        QVERIFY(model::isValidUtf8(longTitle));
        QVERIFY(longTitle.find("\xEF\xBF\xBD") != std::string::npos); // U+FFFD where the stray byte was
        const auto& w = typed.warnings;
        QVERIFY2(anyContains(w, "more serious import warnings of report hostile-rank not listed"), w.front().c_str());
        QVERIFY(!anyContains(w, "not serious"));
        QVERIFY(anyContains(w, "step 1, collective 0 (allreduce): 9000 exposed ranges merged into"));
        QVERIFY(anyContains(w, "step 1: device_activity left out: a range of \"idle\""));
        QVERIFY(anyContains(w, "step 2 left out: compute_ns"));
        QVERIFY(anyContains(w, "6 findings after the first 1024 left out"));
        QVERIFY(anyContains(w, "its kind is not an id"));
        QVERIFY(anyContains(w, "lost_ns -5 is impossible"));
    }

    // Numbers that cannot be a time refuse the model on both paths, with the same message.
    void impossibleAnalysedTimeRefused()
    {
        report::ReportModel m;
        m.trace.metadata.sourcePath = "broken-rank";
        m.trace.spanNs = 1'000;
        m.summary.analysedNs = 2'000; // longer than the trace
        const model::Expected<analysis::RankSummary> refused = report::rankSummaryFromModel(m);
        QVERIFY(!refused);
        QCOMPARE(refused.status().kind(), model::StatusKind::Malformed);
        const std::string& typedError = refused.status().message();
        std::string jsonError;
        (void)throughJson(m, jsonError);
        QCOMPARE(typedError, jsonError);
        QVERIFY2(typedError.find("broken-rank") != std::string::npos, typedError.c_str());
        QVERIFY2(typedError.find("analysed_ns") != std::string::npos, typedError.c_str());
    }
};

QTEST_GUILESS_MAIN(TestRankSummary)
#include "tst_ranksummary.moc"
