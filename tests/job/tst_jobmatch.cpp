// SPDX-License-Identifier: MIT
// Issue 50: how a job matches collectives across ranks (process groups, sequence numbers, all-to-all made of
// send/recv kernels) and what it calls waiting and transfer (the shortest duration of a matched collective is its
// transfer, the rest of each rank's duration is waiting for the last arriver), on hand-built rank summaries and on
// the planted job's all-to-all and tensor-parallel sub-groups.
#include "analysis/job/job.h"
#include "app/job/jobrunner.h"
#include "report/job/jobfacts.h"
#include "tests/analysis/findinglookup.h"
#include "tests/job/plantedjob.h"

#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

namespace analysis = timesink::analysis;
namespace app = timesink::app;

namespace {

constexpr std::int64_t kMs = 1'000'000;

struct Coll
{
    const char* op;
    std::int64_t start;
    std::int64_t end;
    std::string group = {};
    std::vector<std::int32_t> ranks = {};
    std::int64_t seq = -1;
    std::int32_t peer = -1;
};

/// A rank with one step (number 1) of `duration` starting at `clock` on its own clock; each collective fully exposed.
analysis::RankSummary rank(std::int32_t r, std::int64_t clock, std::int64_t duration, const std::vector<Coll>& cs)
{
    analysis::RankSummary s;
    s.rank = r;
    s.worldSize = -1;
    s.backend = "nccl";
    s.platform = "pytorch_cuda";
    s.analysedNs = duration;
    analysis::RankStep st;
    st.number = 1;
    st.startNs = clock;
    st.durationNs = duration;
    for (const Coll& c : cs) {
        analysis::RankCollective rc;
        rc.opKind = c.op;
        rc.start = c.start;
        rc.end = c.end;
        rc.exposed = {{c.start, c.end}};
        rc.group = c.group;
        rc.groupRanks = c.ranks;
        rc.seq = c.seq;
        rc.peer = c.peer;
        st.communicationNs += c.end - c.start;
        st.collectives.push_back(rc);
    }
    s.steps.push_back(st);
    return s;
}

const analysis::JobRankStep& stepOf(const analysis::JobResult& job, std::int32_t r)
{
    for (const analysis::JobRank& jr : job.ranks) {
        if (jr.rank == r)
            return jr.steps.at(0);
    }
    throw std::runtime_error("no rank " + std::to_string(r));
}

bool anyContains(const std::vector<std::string>& lines, const std::string& what)
{
    return std::any_of(lines.begin(), lines.end(),
                       [&](const std::string& l) { return l.find(what) != std::string::npos; });
}

const analysis::Finding* findStraggler(const analysis::JobResult& job, std::int64_t r)
{
    for (const analysis::Finding& f : job.findings) {
        if (f.kind != "straggler")
            continue;
        for (const analysis::Detail& d : f.details) {
            if (d.key == "rank" && std::get<std::int64_t>(d.value) == r)
                return &f;
        }
    }
    return nullptr;
}

using timesink::testing::detail;

} // namespace

class TestJobMatch : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;
private Q_SLOTS:
    void transferIsTheShortestDuration()
    {
        // Three ranks, one all-reduce of 10, 4 and 7 ms. The ends disagree by up to 1 ms (what clock alignment
        // by the ends would have turned into waiting): the transfer is 4 ms, ranks 0 and 2 wait 6 and 3 ms for
        // rank 1, whatever their clocks.
        for (const std::int64_t skew : {std::int64_t(0), std::int64_t(5'000) * kMs}) {
            const analysis::JobResult job = analysis::analyzeJob({
                rank(0, 0, 20 * kMs, {{"allreduce", 10 * kMs, 20 * kMs}}),
                rank(1, skew, 20 * kMs, {{"allreduce", 15 * kMs, 19 * kMs}}),
                rank(2, 2 * skew + 3, 20 * kMs, {{"allreduce", 13 * kMs, 20 * kMs}}),
            });
            QCOMPARE(stepOf(job, 0).communicationWaitNs, 6 * kMs);
            QCOMPARE(stepOf(job, 2).communicationWaitNs, 3 * kMs);
            QCOMPARE(stepOf(job, 1).communicationWaitNs, std::int64_t(0));
            QCOMPARE(stepOf(job, 1).causedWaitNs, 9 * kMs);
            QCOMPARE(stepOf(job, 0).communicationTransferNs, 4 * kMs);
            QCOMPARE(stepOf(job, 1).communicationTransferNs, 4 * kMs);
            QCOMPARE(stepOf(job, 1).lastArrivals, std::uint32_t(1));
            QCOMPARE(job.steps.at(0).lateRank, 1);
            const analysis::Finding* s = findStraggler(job, 1);
            QVERIFY(s);
            QCOMPARE(s->lostNs, 9 * kMs);
            // The job's split: 21 ms exposed, 9 ms waiting, 12 ms transfer (3 × 4 ms).
            const auto comm = std::find_if(job.findings.begin(), job.findings.end(),
                                           [](const analysis::Finding& f) { return f.kind == "communication"; });
            QVERIFY(comm != job.findings.end());
            QCOMPARE(detail<std::int64_t>(*comm, "wait_ns"), 9 * kMs);
            QCOMPARE(detail<std::int64_t>(*comm, "transfer_ns"), 12 * kMs);
            QVERIFY(comm->title.find("(9.00 ms waiting, 12.0 ms transfer)") != std::string::npos);
        }
    }

    void subGroupsNeverWaitForOutsiders()
    {
        // Four ranks: a tensor-parallel all-reduce in groups {0,1} and {2,3}, then a world all-reduce. Rank 3 is
        // 5 ms late in its group, rank 0 2 ms late in its own; rank 1 waits for rank 0 only, rank 2 for rank 3.
        const std::vector<std::int32_t> world {0, 1, 2, 3};
        const auto tp = [](std::int32_t r) { return r < 2 ? std::string("tp0") : std::string("tp1"); };
        const auto tpRanks = [](std::int32_t r) {
            return r < 2 ? std::vector<std::int32_t> {0, 1} : std::vector<std::int32_t> {2, 3};
        };
        std::vector<analysis::RankSummary> ranks;
        for (std::int32_t r = 0; r < 4; ++r) {
            const std::int64_t late = r == 3 ? 5 * kMs : r == 0 ? 2 * kMs : 0;
            ranks.push_back(rank(r, r * 1000 * kMs, 30 * kMs,
                                 {{"allreduce", 5 * kMs + late, 12 * kMs, tp(r), tpRanks(r)},
                                  {"allreduce", 20 * kMs, 30 * kMs, "0", world}}));
        }
        const analysis::JobResult job = analysis::analyzeJob(ranks);
        QCOMPARE(job.steps.at(0).alignedCollectives, std::size_t(3)); // tp0, tp1 and the world one
        QCOMPARE(stepOf(job, 1).communicationWaitNs, 2 * kMs);
        QCOMPARE(stepOf(job, 2).communicationWaitNs, 5 * kMs);
        QCOMPARE(stepOf(job, 0).causedWaitNs, 2 * kMs);
        QCOMPARE(stepOf(job, 3).causedWaitNs, 5 * kMs);
        QVERIFY(job.warnings.empty());
    }

    void sequenceNumbersMatchAcrossOrder()
    {
        // Two ranks ran two all-reduces of one group in a different order on the device: matched by number.
        const analysis::JobResult job = analysis::analyzeJob({
            rank(0, 0, 30 * kMs,
                 {{"allreduce", 0, 10 * kMs, "0", {}, 7}, {"allreduce", 10 * kMs, 30 * kMs, "0", {}, 8}}),
            rank(1, 0, 30 * kMs,
                 {{"allreduce", 0, 16 * kMs, "0", {}, 8}, {"allreduce", 20 * kMs, 30 * kMs, "0", {}, 7}}),
        });
        QCOMPARE(job.steps.at(0).alignedCollectives, std::size_t(2));
        QCOMPARE(stepOf(job, 0).communicationWaitNs, 4 * kMs);         // seq 8: 20 against 16
        QCOMPARE(stepOf(job, 1).communicationWaitNs, std::int64_t(0)); // seq 7: 10 against 10
        QVERIFY(job.warnings.empty());
    }

    void badGroupsAreWarnedAndLeftUnmatched()
    {
        // Group {0,1,2} seen on ranks 0 and 1 only: unmatched, warned; rank 2 has the step.
        {
            const std::vector<std::int32_t> g {0, 1, 2};
            const analysis::JobResult job = analysis::analyzeJob({
                rank(0, 0, 20 * kMs, {{"allreduce", 0, 10 * kMs, "g", g}}),
                rank(1, 0, 20 * kMs, {{"allreduce", 5 * kMs, 10 * kMs, "g", g}}),
                rank(2, 0, 20 * kMs, {}),
            });
            QCOMPARE(job.steps.at(0).alignedCollectives, std::size_t(0));
            QCOMPARE(stepOf(job, 0).communicationWaitNs, std::int64_t(0));
            QVERIFY(anyContains(job.warnings, "seen on only some of its members (missing on rank 2)"));
        }
        // The ranks disagree on the members of a group.
        {
            const analysis::JobResult job = analysis::analyzeJob({
                rank(0, 0, 20 * kMs, {{"allreduce", 0, 10 * kMs, "g", {0, 1}}}),
                rank(1, 0, 20 * kMs, {{"allreduce", 5 * kMs, 10 * kMs, "g", {0, 1, 2}}}),
            });
            QCOMPARE(job.steps.at(0).alignedCollectives, std::size_t(0));
            QVERIFY(anyContains(job.warnings, "disagree on the members of process group \"g\""));
        }
        // A rank outside the listed members runs the group's collectives.
        {
            const analysis::JobResult job = analysis::analyzeJob({
                rank(0, 0, 20 * kMs, {{"allreduce", 0, 10 * kMs, "g", {0, 1}}}),
                rank(1, 0, 20 * kMs, {{"allreduce", 5 * kMs, 10 * kMs, "g", {0, 1}}}),
                rank(2, 0, 20 * kMs, {{"allreduce", 5 * kMs, 10 * kMs, "g"}}),
            });
            QCOMPARE(job.steps.at(0).alignedCollectives, std::size_t(0));
            QVERIFY(anyContains(job.warnings, "ranks outside the members of process group \"g\""));
        }
        // Sequence numbers that do not line up: the common ones match, the others are warned.
        {
            const analysis::JobResult job = analysis::analyzeJob({
                rank(0, 0, 20 * kMs,
                     {{"allreduce", 0, 10 * kMs, "0", {}, 1}, {"allreduce", 10 * kMs, 20 * kMs, "0", {}, 2}}),
                rank(1, 0, 20 * kMs,
                     {{"allreduce", 4 * kMs, 10 * kMs, "0", {}, 1}, {"allreduce", 10 * kMs, 20 * kMs, "0", {}, 3}}),
            });
            QCOMPARE(job.steps.at(0).alignedCollectives, std::size_t(1));
            QCOMPARE(stepOf(job, 0).communicationWaitNs, 4 * kMs);
            QVERIFY(anyContains(job.warnings, "sequence number is not on every member"));
        }
        // A repeated sequence number, an empty group, a collective with no duration: no crash, nothing matched.
        {
            const analysis::JobResult job = analysis::analyzeJob({
                rank(0, 0, 20 * kMs,
                     {{"allreduce", 0, 10 * kMs, "0", {}, 1}, {"allreduce", 10 * kMs, 20 * kMs, "0", {}, 1}}),
                rank(1, 0, 20 * kMs, {{"allreduce", 4 * kMs, 4 * kMs, "0", {}, 1}}),
            });
            QCOMPARE(job.steps.at(0).alignedCollectives, std::size_t(0));
            QVERIFY(anyContains(job.warnings, "repeats on a rank"));
        }
    }

    void plantedAllToAllAndSubGroups()
    {
        // plantedjob.h's DLRM-style front: an all-to-all of SendRecv kernels (rank 1 arrives 6 ms late), a
        // tensor-parallel all-reduce in {0,1} and {2,3} (rank 3 arrives 5 ms late), then the all-reduce rank 2
        // reaches 20 ms late (18 ms of the wait exposed). Per step: ranks 0, 2, 3 wait 6 ms in the all-to-all,
        // rank 2 waits 5 ms in its group (ranks 0 and 1 nothing there), ranks 0, 1, 3 wait 18 ms in the all-reduce.
        // Over 3 steps: rank 2 causes 162 ms, rank 1 54 ms, rank 3 15 ms. Clocks 3 s apart or together: the same.
        for (const std::int64_t offset : {std::int64_t(3'000'000'000), std::int64_t(0), std::int64_t(-7'500'000'000)}) {
            timesink::testing::PlantedJob p;
            p.stepNs = 80 * kMs;
            p.allToAllNs = 2 * kMs;
            p.tpSize = 2;
            p.rankOffsetNs = offset;
            const std::string dir = m_dir.filePath(QStringLiteral("dlrm%1").arg(offset)).toStdString();
            const std::vector<std::filesystem::path> paths = timesink::testing::writePlantedJob(dir, p);
            std::vector<app::JobInput> inputs;
            std::string error;
            QVERIFY2(app::collectJobInputs(paths, inputs, error), error.c_str());
            const app::JobRun run = app::runJob(inputs, {});
            const analysis::JobResult& job = run.result;
            QCOMPARE(job.ranks.size(), std::size_t(4));
            for (const analysis::JobStep& s : job.steps)
                QCOMPARE(s.alignedCollectives, std::size_t(4)); // the all-to-all, tp0, tp1, the all-reduce
            const std::int64_t wait[] = {24 * kMs, 18 * kMs, 11 * kMs, 24 * kMs};
            const std::int64_t caused[] = {0, 18 * kMs, 54 * kMs, 5 * kMs};
            for (std::int32_t r = 0; r < 4; ++r) {
                for (const analysis::JobRankStep& s : job.ranks[std::size_t(r)].steps) {
                    QCOMPARE(s.communicationWaitNs, wait[r]);
                    QCOMPARE(s.causedWaitNs, caused[r]);
                    // The all-to-all is one collective on every rank, not point-to-point.
                    QCOMPARE(s.collectives.front().opKind, std::string("alltoall"));
                    QCOMPARE(s.collectives.front().matchIndex >= 0, true);
                }
            }
            QVERIFY(findStraggler(job, 2) && findStraggler(job, 2)->lostNs == 162 * kMs);
            QVERIFY(findStraggler(job, 1) && findStraggler(job, 1)->lostNs == 54 * kMs);
            QVERIFY(findStraggler(job, 3) && findStraggler(job, 3)->lostNs == 15 * kMs);
            QVERIFY(!findStraggler(job, 0));
            QVERIFY2(job.warnings.empty(), job.warnings.empty() ? "" : job.warnings.front().c_str());
        }
    }

    void plantedTensorParallelBandwidth()
    {
        // The planted tensor-parallel all-reduce of 16 Mi floats (64 MiB) in {0,1} and {2,3} on A100-SXM4 (NVLink3,
        // 300 GB/s): in {0,1} both members last tpLateNs + tpNs = 6 ms (nobody is late there), in {2,3} rank 3 arrives
        // 5 ms late and lasts tpNs = 1 ms, so the transfers are 6 and 1 ms. Over 3 steps: 6 all-reduces of
        // 67108864 bytes in 3 × 7 ms = 21 ms: algbw = busbw (2 ranks: 2(n−1)/n = 1) = 402653184 / 21e6 =
        // 19.174 GB/s. The all-to-all and the default all-reduce say no size: not counted.
        timesink::testing::PlantedJob p;
        p.stepNs = 80 * kMs;
        p.allToAllNs = 2 * kMs;
        p.tpSize = 2;
        p.tpNelems = 16 << 20;
        const std::vector<std::filesystem::path> paths
            = timesink::testing::writePlantedJob(m_dir.filePath(QStringLiteral("tpbw")).toStdString(), p);
        std::vector<app::JobInput> inputs;
        std::string error;
        QVERIFY2(app::collectJobInputs(paths, inputs, error), error.c_str());
        const analysis::JobResult job = app::runJob(inputs, {}).result;
        QCOMPARE(job.bandwidth.size(), std::size_t(1));
        const analysis::BandwidthSummary& b = job.bandwidth.front();
        QCOMPARE(b.opKind, std::string("allreduce"));
        QCOMPARE(b.collectives, std::uint64_t(6));
        QCOMPARE(b.bytes, std::int64_t(6) * 67'108'864);
        QCOMPARE(b.transferNs, 21 * kMs);
        QVERIFY(std::abs(b.algbwGBps - 402'653'184.0 / 21e6) < 1e-9);
        QVERIFY(std::abs(b.busbwGBps - 402'653'184.0 / 21e6) < 1e-9);
        QCOMPARE(b.link, std::string("NVLink3"));
        QCOMPARE(b.peakGBps, 300.0);
        QCOMPARE(b.source, analysis::TransferSource::ShortestInGroup);
        // slow_link on the group's transfer: {0,1} moved 64 MiB in 6 ms (3.7 % of the peak), {2,3} in 1 ms
        // (22.4 %); at the peak it takes 67108864 / 300 = 223696 ns, so each member lost, exposed, 6000000 − 223696
        // = 5776304 ns in {0,1} and 1000000 − 223696 = 776304 ns in {2,3} (rank 2 after its 5 ms wait): per step
        // 2 × 5776304 + 2 × 776304 = 13105216 ns, 39315648 over 3 steps. The ranks' own slow_link (their
        // durations, waiting included) are not summed beside it.
        const auto slow = std::find_if(job.findings.begin(), job.findings.end(),
                                       [](const analysis::Finding& f) { return f.kind == "slow_link"; });
        QVERIFY(slow != job.findings.end());
        QCOMPARE(slow->lostNs, std::int64_t(39'315'648));
        QCOMPARE(slow->occurrences, std::uint64_t(6));
        QCOMPARE(slow->perStep.size(), std::size_t(3));
        QCOMPARE(slow->perStep.front().lostNs, std::int64_t(13'105'216));
        QCOMPARE(detail<std::string>(*slow, "link"), std::string("NVLink3"));
        QCOMPARE(std::count_if(job.findings.begin(), job.findings.end(),
                               [](const analysis::Finding& f) { return f.kind == "slow_link"; }),
                 std::ptrdiff_t(1));
    }

    void lateStarterIsTheCause()
    {
        // Every rank computes 30 ms, but rank 1 starts its steps 10 ms late and ends them with the others: its step
        // is 44 ms, theirs 54 ms. Its all-reduce runs [40, 54) ms of their clock, theirs [30, 54) with the tail
        // kernel over [30, 32): each of ranks 0, 2, 3 waits 10 ms, 8 ms of it exposed → 24 ms a step, 72 ms in all.
        timesink::testing::PlantedJob p;
        p.straggler = -1;
        p.lateStartRank = 1;
        p.lateStartNs = 10 * kMs;
        const std::vector<std::filesystem::path> paths
            = timesink::testing::writePlantedJob(m_dir.filePath(QStringLiteral("late")).toStdString(), p);
        std::vector<app::JobInput> inputs;
        std::string error;
        QVERIFY2(app::collectJobInputs(paths, inputs, error), error.c_str());
        const analysis::JobResult job = app::runJob(inputs, {}).result;
        for (const analysis::JobStep& s : job.steps) {
            QCOMPARE(s.lateRank, 1);
            QCOMPARE(s.lateStartNs, 10 * kMs);
            QCOMPARE(s.slowestNs - s.fastestNs, 10 * kMs); // the late starter has the shortest step, not the longest
            QVERIFY(s.fastestRank == 1);
        }
        const analysis::Finding* f = findStraggler(job, 1);
        QVERIFY(f);
        QCOMPARE(f->lostNs, 72 * kMs);
        QCOMPARE(detail<std::string>(*f, "cause"), std::string("late_start"));
        QCOMPARE(detail<std::int64_t>(*f, "start_late_ns"), 10 * kMs);
        QVERIFY2(f->title.find("Rank 1 starts 10.0 ms late and the others wait for it") != std::string::npos,
                 f->title.c_str());
        QVERIFY(f->explanation.find("It starts its steps 10.0 ms after the earliest rank") != std::string::npos);
        // The job's step tables and the window's headline say it in words.
        QCOMPARE(timesink::report::jobfacts::lateStartSentence(job),
                 std::string("In step 1, rank 1 starts 10.0 ms late and the others wait for it (the latest start)."));
    }

    void manyRanksWithGroups()
    {
        // 256 ranks, 20 steps: a world all-to-all (every rank listed), a tensor-parallel all-reduce in groups of 8,
        // a world all-reduce. Rank 77 is 3 ms late to the all-to-all, rank 130 2 ms late in its group (128–135).
        std::vector<std::int32_t> world(256);
        for (std::int32_t r = 0; r < 256; ++r)
            world[std::size_t(r)] = r;
        std::vector<analysis::RankSummary> ranks;
        for (std::int32_t r = 0; r < 256; ++r) {
            std::vector<std::int32_t> tp;
            for (std::int32_t q = r / 8 * 8; q < r / 8 * 8 + 8; ++q)
                tp.push_back(q);
            const std::int64_t a2aLate = r == 77 ? 3 * kMs : 0;
            const std::int64_t tpLate = r == 130 ? 2 * kMs : 0;
            analysis::RankSummary s
                = rank(r, r * 1'000 * kMs, 30 * kMs,
                       {{"alltoall", 2 * kMs + a2aLate, 10 * kMs, "0", world},
                        {"allreduce", 12 * kMs + tpLate, 16 * kMs, "tp" + std::to_string(r / 8), tp},
                        {"allreduce", 20 * kMs, 30 * kMs, "0", world}});
            for (std::int64_t k = 2; k <= 20; ++k) {
                analysis::RankStep st = s.steps.front();
                st.number = k;
                st.startNs += (k - 1) * 30 * kMs;
                s.steps.push_back(st);
            }
            s.analysedNs = 20 * 30 * kMs;
            ranks.push_back(std::move(s));
        }
        // Its speed is bench_job's to measure (1,024 reports, target <= 2 s), not a timed assertion here.
        const analysis::JobResult job = analysis::analyzeJob(std::move(ranks));
        QCOMPARE(job.steps.front().alignedCollectives, std::size_t(1 + 32 + 1));
        QCOMPARE(stepOf(job, 77).causedWaitNs, 255 * 3 * kMs);
        QCOMPARE(stepOf(job, 130).causedWaitNs, 7 * 2 * kMs);
        QCOMPARE(stepOf(job, 131).communicationWaitNs, 3 * kMs + 2 * kMs); // the all-to-all and its group
        QCOMPARE(stepOf(job, 8).communicationWaitNs, 3 * kMs);             // the all-to-all only
        QVERIFY(findStraggler(job, 77));
        QVERIFY(job.warnings.empty());
    }

    void pointToPointMatchedPairwise()
    {
        // Rank 0 sends to rank 1 [0, 10) ms, rank 1 posts the recv at 2 ms and it ends at 10: the pair's transfer is
        // the shorter 8 ms, the send waited 2 ms for rank 1 (the last arriver). Clocks seconds apart: the same.
        for (const std::int64_t skew : {std::int64_t(0), std::int64_t(4'000) * kMs}) {
            const analysis::JobResult job = analysis::analyzeJob({
                rank(0, 0, 20 * kMs, {{"send", 0, 10 * kMs, "pp", {0, 1}, -1, 1}}),
                rank(1, skew, 20 * kMs, {{"recv", 2 * kMs, 10 * kMs, "pp", {0, 1}, -1, 0}}),
            });
            QCOMPARE(job.steps.at(0).alignedCollectives, std::size_t(1));
            QCOMPARE(job.steps.at(0).unmatchedPointToPoint, std::size_t(0));
            QCOMPARE(stepOf(job, 0).communicationWaitNs, 2 * kMs);
            QCOMPARE(stepOf(job, 1).communicationWaitNs, std::int64_t(0));
            QCOMPARE(stepOf(job, 1).causedWaitNs, 2 * kMs);
            QVERIFY(stepOf(job, 1).collectives.front().last);
            QCOMPARE(stepOf(job, 0).collectives.front().arrivalWaitEnd, 2 * kMs);
            QVERIFY2(job.warnings.empty(), job.warnings.empty() ? "" : job.warnings.front().c_str());
        }
    }

    void pointToPointWithoutCounterpartIsWarned_data()
    {
        QTest::addColumn<std::vector<Coll>>("rank0");
        QTest::addColumn<std::vector<Coll>>("rank1");
        QTest::addColumn<QString>("warning");
        QTest::newRow("peer unknown") << std::vector<Coll> {{"send", 0, 10 * kMs, "pp", {0, 1}, -1, -1}}
                                      << std::vector<Coll> {{"recv", 2 * kMs, 10 * kMs, "pp", {0, 1}, -1, 0}}
                                      << QStringLiteral("whose peer rank is not known");
        QTest::newRow("batched sendrecv") << std::vector<Coll> {{"sendrecv", 0, 10 * kMs, "pp", {0, 1}, -1, 1}}
                                          << std::vector<Coll> {{"sendrecv", 2 * kMs, 10 * kMs, "pp", {0, 1}, -1, 0}}
                                          << QStringLiteral("whose peer rank is not known");
        QTest::newRow("counts differ") << std::vector<Coll> {{"send", 0, 4 * kMs, "pp", {0, 1}, -1, 1},
                                                             {"send", 5 * kMs, 10 * kMs, "pp", {0, 1}, -1, 1}}
                                       << std::vector<Coll> {{"recv", 2 * kMs, 10 * kMs, "pp", {0, 1}, -1, 0}}
                                       << QStringLiteral("differ in number");
        QTest::newRow("peer without the step") << std::vector<Coll> {{"send", 0, 10 * kMs, "pp", {0, 1, 2}, -1, 2}}
                                               << std::vector<Coll> {} << QStringLiteral("peer rank has no such step");
        QTest::newRow("sequence numbers differ")
            << std::vector<Coll> {{"send", 0, 10 * kMs, "pp", {0, 1}, 4, 1}}
            << std::vector<Coll> {{"recv", 2 * kMs, 10 * kMs, "pp", {0, 1}, 5, 0}} << QStringLiteral("do not line up");
        QTest::newRow("other group") << std::vector<Coll> {{"send", 0, 10 * kMs, "pp0", {0, 1}, -1, 1}}
                                     << std::vector<Coll> {{"recv", 2 * kMs, 10 * kMs, "pp1", {0, 1}, -1, 0}}
                                     << QStringLiteral("differ in number");
    }

    void pointToPointWithoutCounterpartIsWarned()
    {
        // Never a wrong pair: what cannot be paired is warned and stays unmatched, with no waiting invented.
        QFETCH(std::vector<Coll>, rank0);
        QFETCH(std::vector<Coll>, rank1);
        QFETCH(QString, warning);
        const analysis::JobResult job
            = analysis::analyzeJob({rank(0, 0, 20 * kMs, rank0), rank(1, 7'000 * kMs, 20 * kMs, rank1)});
        QCOMPARE(job.steps.at(0).alignedCollectives, std::size_t(0));
        QVERIFY(job.steps.at(0).unmatchedPointToPoint > 0);
        QCOMPARE(stepOf(job, 0).communicationWaitNs, std::int64_t(0));
        QCOMPARE(stepOf(job, 1).communicationWaitNs, std::int64_t(0));
        QVERIFY2(anyContains(job.warnings, warning.toStdString()), qPrintable(warning));
        const auto comm = std::find_if(job.findings.begin(), job.findings.end(),
                                       [](const analysis::Finding& f) { return f.kind == "communication"; });
        QVERIFY(comm != job.findings.end());
        QVERIFY2(comm->recommendation.find("whose peer or counterpart on the peer rank could not be found")
                     != std::string::npos,
                 comm->recommendation.c_str());
    }

    void plantedPipeline()
    {
        // plantedjob.h's pipeline over 4 ranks: each stage computes F = 5 ms, stage 1 D = 8 ms more, the activations
        // take x = 1 ms. Stages 2 and 3 receive D late: their recvs last x + D = 9 ms against the sends' 1 ms, so
        // each waits 8 ms a step, stage 2 for stage 1 and stage 3 for stage 2 (its sender, D late itself); stage 1's
        // recv and stage 0's send both last 1 ms, nobody waits there. The all-reduce after it ends together and
        // lasts as long on every rank (no straggler planted there). Over 3 steps: ranks 1 and 2 each cause 24 ms.
        // Clocks 3 s apart, together or 7.5 s behind: the same.
        for (const std::int64_t offset : {std::int64_t(3'000'000'000), std::int64_t(0), std::int64_t(-7'500'000'000)}) {
            timesink::testing::PlantedJob p;
            p.straggler = -1;
            p.stepNs = 80 * kMs;
            p.pipelineComputeNs = 5 * kMs;
            p.rankOffsetNs = offset;
            const std::int64_t d = p.pipelineSlowNs;
            QCOMPARE(d, 8 * kMs);
            QCOMPARE(p.pipelineTransferNs, 1 * kMs);
            const std::string dir = m_dir.filePath(QStringLiteral("pipe%1").arg(offset)).toStdString();
            const std::vector<std::filesystem::path> paths = timesink::testing::writePlantedJob(dir, p);
            std::vector<app::JobInput> inputs;
            std::string error;
            QVERIFY2(app::collectJobInputs(paths, inputs, error), error.c_str());
            const analysis::JobResult job = app::runJob(inputs, {}).result;
            QCOMPARE(job.ranks.size(), std::size_t(4));
            for (const analysis::JobStep& s : job.steps) {
                QCOMPARE(s.alignedCollectives, std::size_t(3 + 1)); // three send/recv pairs, the all-reduce
                QCOMPARE(s.unmatchedPointToPoint, std::size_t(0));
            }
            const std::int64_t wait[] = {0, 0, d, d};
            const std::int64_t caused[] = {0, d, d, 0};
            for (std::int32_t r = 0; r < 4; ++r) {
                for (const analysis::JobRankStep& s : job.ranks[std::size_t(r)].steps) {
                    QCOMPARE(s.communicationWaitNs, wait[r]);
                    QCOMPARE(s.causedWaitNs, caused[r]);
                    // Its sends and recvs: each matched with its counterpart; the sender is the last arriver.
                    for (const analysis::JobCollective& c : s.collectives) {
                        if (c.opKind == "send" || c.opKind == "recv")
                            QVERIFY(c.matchIndex >= 0);
                        if (c.opKind == "recv" && r >= 2)
                            QCOMPARE(c.arrivalWaitEnd - c.start, d);
                    }
                }
            }
            QVERIFY(findStraggler(job, 1) && findStraggler(job, 1)->lostNs == 3 * d);
            QVERIFY(findStraggler(job, 2) && findStraggler(job, 2)->lostNs == 3 * d);
            QVERIFY(!findStraggler(job, 0) && !findStraggler(job, 3));
            QVERIFY2(job.warnings.empty(), job.warnings.empty() ? "" : job.warnings.front().c_str());
        }
    }

    void plantedPipelineMissingRecv()
    {
        // The pipeline with stage 2's recv of step 2 missing from its trace: that step's send 1 → 2 is warned and
        // left unmatched (stage 2 waits nothing there, stage 1 causes nothing); stage 3 still waits 8 ms for stage 2.
        timesink::testing::PlantedJob p;
        p.straggler = -1;
        p.stepNs = 80 * kMs;
        p.pipelineComputeNs = 5 * kMs;
        p.pipelineDropRecvRank = 2;
        p.pipelineDropRecvStep = 2;
        const std::vector<std::filesystem::path> paths
            = timesink::testing::writePlantedJob(m_dir.filePath(QStringLiteral("pipemissing")).toStdString(), p);
        std::vector<app::JobInput> inputs;
        std::string error;
        QVERIFY2(app::collectJobInputs(paths, inputs, error), error.c_str());
        const analysis::JobResult job = app::runJob(inputs, {}).result;
        QCOMPARE(job.steps.size(), std::size_t(3));
        for (const analysis::JobStep& s : job.steps) {
            QCOMPARE(s.alignedCollectives, std::size_t(s.number == 2 ? 3 : 4));
            QCOMPARE(s.unmatchedPointToPoint, std::size_t(s.number == 2 ? 1 : 0));
        }
        for (const analysis::JobRankStep& s : job.ranks[2].steps)
            QCOMPARE(s.communicationWaitNs, s.number == 2 ? std::int64_t(0) : 8 * kMs);
        for (const analysis::JobRankStep& s : job.ranks[1].steps)
            QCOMPARE(s.causedWaitNs, s.number == 2 ? std::int64_t(0) : 8 * kMs);
        for (const analysis::JobRankStep& s : job.ranks[3].steps)
            QCOMPARE(s.communicationWaitNs, 8 * kMs);
        QVERIFY(anyContains(job.warnings,
                            "in process group \"pp\", the sends of a step from one rank to another and "
                            "the recvs of that step on the other differ in number"));
    }
};

QTEST_GUILESS_MAIN(TestJobMatch)
#include "tst_jobmatch.moc"
