// SPDX-License-Identifier: MIT
#include "analysis/job/job.h"

#include "analysis/core/communication.h"
#include "analysis/core/textformat.h"
#include "analysis/passes/communicationpass.h"
#include "analysis/passes/slowlinkpass.h"
#include "model/checkedmath.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <tuple>

namespace timesink::analysis {

using model::TimeNs;

namespace {

Platform platformFromKey(std::string_view key)
{
    for (Platform p :
         {Platform::PyTorchCuda, Platform::PyTorchRocm, Platform::TorchNpuCann, Platform::Rknn, Platform::Cpu}) {
        if (platformKey(p) == key)
            return p;
    }
    return Platform::Generic;
}

// Median of a non-empty list; the lower middle for an even count, so the result is one of the values.
TimeNs lowerMedian(std::vector<TimeNs> v)
{
    const std::size_t mid = (v.size() - 1) / 2;
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
    return v[mid];
}

std::string rankList(const std::vector<std::int64_t>& steps)
{
    std::string out;
    const std::size_t shown = std::min<std::size_t>(steps.size(), 8);
    for (std::size_t i = 0; i < shown; ++i)
        out += (i ? ", " : "") + std::to_string(steps[i]);
    if (shown < steps.size())
        out += ", … " + std::to_string(steps.size() - shown) + " more";
    return out;
}

/// "0–3, 5, 7–9": a sorted list of numbers with runs folded, at most 12 items.
std::string foldedList(const std::vector<std::int64_t>& sorted)
{
    std::string out;
    std::size_t items = 0;
    for (std::size_t i = 0; i < sorted.size();) {
        std::size_t j = i;
        while (j + 1 < sorted.size() && sorted[j] < std::numeric_limits<std::int64_t>::max()
               && sorted[j + 1] == sorted[j] + 1)
            ++j;
        if (items == 12) {
            out += ", …";
            break;
        }
        out += (items ? ", " : "") + std::to_string(sorted[i]);
        if (j > i)
            out += (j == i + 1 ? ", " : "–") + std::to_string(sorted[j]);
        ++items;
        i = j + 1;
    }
    return out;
}

/// "nccl on ranks 0–2, gloo on rank 3" for a value that should be one across the job; empty when it is.
std::string disagreement(const std::map<std::string, std::vector<std::int64_t>>& ranksByValue)
{
    if (ranksByValue.size() < 2)
        return {};
    std::string out;
    for (const auto& [value, ranks] : ranksByValue) {
        out += out.empty() ? "" : "; ";
        out += (value.empty() ? std::string("unknown") : value) + (ranks.size() == 1 ? " on rank " : " on ranks ")
            + foldedList(ranks);
    }
    return out;
}

/// The job's world size and what the ranks say that does not fit together: world sizes, step numbers, backend and
/// Timesink version that differ between ranks, and ranks missing from 0..world size − 1 (or beyond it). Ranks
/// come from other machines and other runs; a job merged from mismatched ones must say so.
void checkRanksAgree(const std::vector<RankSummary>& ranks, bool ranksFromInputs, JobResult& job)
{
    std::map<std::string, std::vector<std::int64_t>> worldSizes;
    std::map<std::string, std::vector<std::int64_t>> backends;
    std::map<std::string, std::vector<std::int64_t>> generators;
    std::map<std::string, std::vector<std::int64_t>> stepSets;
    std::map<std::int32_t, std::size_t> worldCount;
    for (const RankSummary& r : ranks) {
        if (r.worldSize > 0) {
            worldSizes[std::to_string(r.worldSize)].push_back(r.rank);
            ++worldCount[r.worldSize];
        }
        if (!r.backend.empty() && r.backend != "unknown")
            backends[r.backend].push_back(r.rank);
        if (!r.generator.empty())
            generators[r.generator].push_back(r.rank);
        std::vector<std::int64_t> numbers;
        for (const RankStep& s : r.steps)
            numbers.push_back(s.number);
        std::sort(numbers.begin(), numbers.end());
        numbers.erase(std::unique(numbers.begin(), numbers.end()), numbers.end());
        stepSets[numbers.empty() ? std::string("none") : "steps " + foldedList(numbers)].push_back(r.rank);
    }
    // The world size most ranks report: one rank's stray value does not make the job. On a tie, the smallest size
    // that holds every rank given (more than the largest rank, at least as many as the ranks), else the largest
    // tied size: 2 against 1,073,741,824 from two ranks 0 and 1 is 2, never the larger or a mean of them.
    {
        std::size_t most = 0;
        for (const auto& [size, count] : worldCount)
            most = std::max(most, count);
        std::int64_t largestRank = -1;
        for (const RankSummary& r : ranks)
            largestRank = std::max<std::int64_t>(largestRank, r.rank);
        const auto holdsAll
            = [&](std::int32_t size) { return size > largestRank && static_cast<std::size_t>(size) >= ranks.size(); };
        for (const auto& [size, count] : worldCount) { // ascending: the first that holds all is the smallest
            if (count == most && holdsAll(size)) {
                job.worldSize = size;
                break;
            }
        }
        if (job.worldSize < 0) {
            for (const auto& [size, count] : worldCount) {
                if (count == most)
                    job.worldSize = size; // ascending: the largest tied size remains
            }
        }
    }
    if (std::string d = disagreement(worldSizes); !d.empty())
        job.warnings.push_back("the ranks disagree on the world size (" + d + "); the job uses "
                               + std::to_string(job.worldSize));
    if (std::string d = disagreement(stepSets); !d.empty())
        job.warnings.push_back("the ranks profiled different steps (" + d
                               + "); a step is compared across the ranks that have it");
    if (std::string d = disagreement(backends); !d.empty())
        job.warnings.push_back("the ranks disagree on the communication backend (" + d + ")");
    if (std::string d = disagreement(generators); !d.empty())
        job.warnings.push_back("the rank reports were written by different Timesink versions (" + d
                               + "); their numbers may not be comparable");
    if (ranksFromInputs && job.worldSize > 0) {
        std::vector<std::int64_t> missing;
        std::vector<std::int64_t> beyond;
        std::set<std::int32_t> present;
        for (const RankSummary& r : ranks) {
            present.insert(r.rank);
            if (r.rank >= job.worldSize)
                beyond.push_back(r.rank);
        }
        for (std::int32_t k = 0; k < job.worldSize && missing.size() <= 4096; ++k) {
            if (present.count(k) == 0) {
                missing.push_back(k);
                if (job.missingRanks.size() < 4096)
                    job.missingRanks.push_back(k);
            }
        }
        if (!missing.empty())
            job.warnings.push_back(std::string(missing.size() == 1 ? "rank " : "ranks ") + foldedList(missing)
                                   + (missing.size() == 1 ? " is" : " are") + " missing (world size "
                                   + std::to_string(job.worldSize) + ", " + std::to_string(ranks.size())
                                   + " ranks given)");
        if (!beyond.empty())
            job.warnings.push_back(std::string(beyond.size() == 1 ? "rank " : "ranks ") + foldedList(beyond)
                                   + " lie outside the world size " + std::to_string(job.worldSize));
    }
}

struct StepRef
{
    std::size_t rank; // index into JobResult::ranks
    const RankStep* step;
};

/// m[key] without inserting: the value, or a value-initialised one when the key is absent.
template <typename Map> typename Map::mapped_type valueAt(const Map& m, const typename Map::key_type& key)
{
    const auto it = m.find(key);
    return it == m.end() ? typename Map::mapped_type {} : it->second;
}

/// Numbers the ranks as the inputs say, unless some say nothing or two say the same (then by input position), and
/// sorts them by rank; true when the inputs' own numbers were kept.
bool numberRanks(std::vector<RankSummary>& ranks, JobResult& job)
{
    std::set<std::int32_t> seen;
    bool usable = true;
    for (const RankSummary& r : ranks)
        usable = usable && r.rank >= 0 && seen.insert(r.rank).second;
    if (!usable) {
        job.warnings.push_back("the inputs do not name distinct ranks; ranks are numbered in input order");
        for (std::size_t i = 0; i < ranks.size(); ++i)
            ranks[i].rank = static_cast<std::int32_t>(i);
    }
    std::stable_sort(ranks.begin(), ranks.end(),
                     [](const RankSummary& a, const RankSummary& b) { return a.rank < b.rank; });
    return usable;
}

/// What every job finding is measured against: the job's platform and backend, its rank-time, and per step number
/// its place in JobResult::steps and its rank-time.
struct JobBasis
{
    Platform platform = Platform::Generic;
    std::string backend;
    TimeNs rankTimeNs = 0;
    std::map<std::int64_t, std::size_t> stepIndex;
    // A job finding's loss in a step sums over ranks, so its step time is the step's rank-time (every rank's
    // duration of it), the same base as lostFraction's job.rankTimeNs: a share of it never passes 100 %.
    std::map<std::int64_t, TimeNs> rankTimeOfStep;

    /// A loss as a share of the job's rank-time.
    [[nodiscard]] double share(TimeNs ns) const { return rankTimeNs > 0 ? double(ns) / double(rankTimeNs) : 0.0; }
};

/// Adds every rank's analysed time to the job's rank-time and its warnings to the job's; returns the job's platform
/// and backend, those of the first ranks that name one.
JobBasis addRankTotals(const std::vector<RankSummary>& ranks, JobResult& job)
{
    for (const RankSummary& r : ranks) {
        job.rankTimeNs = model::saturatingAdd(job.rankTimeNs, r.analysedNs);
        for (const std::string& w : r.warnings)
            job.warnings.push_back("rank " + std::to_string(r.rank) + ": " + w);
    }
    JobBasis basis;
    for (const RankSummary& r : ranks) {
        if (basis.backend.empty() && r.backend != "unknown" && !r.backend.empty())
            basis.backend = r.backend;
        if (basis.platform == Platform::Generic)
            basis.platform = platformFromKey(r.platform);
    }
    if (basis.backend.empty())
        basis.backend = "unknown";
    return basis;
}

/// Copies each rank into JobResult::ranks and indexes its steps by number (step number → the ranks that have it);
/// of a repeated number only the first step is indexed, and the job says so.
std::map<std::int64_t, std::vector<StepRef>> addRanksIndexSteps(const std::vector<RankSummary>& ranks, JobResult& job)
{
    std::map<std::int64_t, std::vector<StepRef>> byNumber;
    job.ranks.reserve(ranks.size());
    for (std::size_t i = 0; i < ranks.size(); ++i) {
        const RankSummary& r = ranks[i];
        JobRank jr;
        jr.rank = r.rank;
        jr.source = r.source;
        jr.tracePath = r.tracePath;
        jr.traceStartNs = r.traceStartNs;
        jr.format = r.format;
        jr.backend = r.backend;
        jr.device = r.device;
        jr.waitFromTasks = r.waitFromTasks;
        jr.waitFromCommunicationJson = r.waitFromCommunicationJson;
        jr.analysedNs = r.analysedNs;
        jr.findings = r.findings;
        job.ranks.push_back(std::move(jr));
        model::mergeRankLinks(job.links, r.links);
        // A repeated step number (re-used ProfilerStep ids, or reports merged by hand): the first one is compared
        // across the ranks, and the job says so, since the rank's other steps of that number are in no table.
        std::map<std::int64_t, std::size_t> seen;
        std::vector<std::int64_t> repeated;
        std::size_t leftOut = 0;
        for (const RankStep& s : r.steps) {
            if (++seen[s.number] > 1) {
                ++leftOut;
                if (seen[s.number] == 2)
                    repeated.push_back(s.number);
                continue;
            }
            byNumber[s.number].push_back({i, &s});
        }
        if (leftOut > 0) {
            std::sort(repeated.begin(), repeated.end());
            job.warnings.push_back("rank " + std::to_string(r.rank) + ": step number"
                                   + (repeated.size() == 1 ? " " : "s ") + foldedList(repeated)
                                   + (repeated.size() == 1 ? " occurs" : " occur") + " more than once; only the "
                                   + "first step of each number is compared, " + std::to_string(leftOut)
                                   + (leftOut == 1 ? " step is" : " steps are") + " left out");
        }
    }
    return byNumber;
}

/// One collective matched across the ranks of its group: (position in the step's refs, index into its collectives).
struct MatchedSet
{
    std::vector<std::pair<std::size_t, std::size_t>> members;
};

/// The collectives of one step matched within their process groups, ordered by where the first member ran them.
struct MatchedCollectives
{
    std::vector<MatchedSet> sets;
    std::size_t pointToPointUnmatched = 0; // sends and recvs left unmatched (peer unknown, counterpart missing)
};

/// What matching found wrong across the whole job, as warnings: each message once, with how often it happened.
using MatchIssues = std::map<std::string, std::size_t>;

std::string groupLabel(const std::string& key)
{
    return key.empty() ? std::string("the default group") : "process group \"" + key + "\"";
}

/// Matches one group's collectives among its participants (positions into refs, ≥ 2): by sequence number when
/// every one of them gives one, else by position as long as the operations agree.
void matchGroup(const std::vector<StepRef>& refs, const std::string& key, const std::vector<std::size_t>& parts,
                const std::vector<std::vector<std::size_t>>& perRank, MatchedCollectives& m, MatchIssues& issues)
{
    const auto coll
        = [&](std::size_t p, std::size_t i) -> const RankCollective& { return refs[p].step->collectives[i]; };
    bool bySeq = true;
    for (const std::size_t p : parts) {
        for (const std::size_t i : perRank[p])
            bySeq = bySeq && coll(p, i).seq >= 0;
    }
    if (bySeq) {
        // seq → per participant its collective; a number missing on a member, or seen twice, matches nothing.
        std::map<std::int64_t, std::vector<std::size_t>> bySeqNo;
        bool repeated = false;
        for (std::size_t q = 0; q < parts.size(); ++q) {
            for (const std::size_t i : perRank[parts[q]]) {
                auto& slot = bySeqNo[coll(parts[q], i).seq];
                slot.resize(parts.size(), SIZE_MAX);
                repeated = repeated || slot[q] != SIZE_MAX;
                slot[q] = i;
            }
        }
        if (repeated) {
            ++issues["a sequence number of " + groupLabel(key) + " repeats on a rank within a step"];
            return;
        }
        std::size_t unmatched = 0;
        for (const auto& [seq, slot] : bySeqNo) {
            const bool everywhere = std::none_of(slot.begin(), slot.end(), [](std::size_t i) { return i == SIZE_MAX; });
            bool same = everywhere;
            for (std::size_t q = 1; same && q < parts.size(); ++q)
                same = coll(parts[q], slot[q]).opKind == coll(parts[0], slot[0]).opKind;
            if (!same) {
                ++unmatched;
                continue;
            }
            MatchedSet set;
            for (std::size_t q = 0; q < parts.size(); ++q)
                set.members.emplace_back(parts[q], slot[q]);
            m.sets.push_back(std::move(set));
        }
        if (unmatched > 0)
            issues["collectives of " + groupLabel(key)
                   + " whose sequence number is not on every member (or whose operation differs) were left "
                     "unmatched"]
                += unmatched;
        return;
    }
    std::size_t matched = perRank[parts[0]].size();
    std::size_t mismatched = 0;
    for (std::size_t q = 1; q < parts.size(); ++q) {
        const auto& a = perRank[parts[0]];
        const auto& b = perRank[parts[q]];
        std::size_t k = 0;
        while (k < matched && k < b.size() && coll(parts[q], b[k]).opKind == coll(parts[0], a[k]).opKind)
            ++k;
        if (k != matched || b.size() != a.size())
            ++mismatched;
        matched = k;
    }
    if (mismatched > 0)
        issues[std::string(key.empty() ? "" : "in " + groupLabel(key) + ", ")
               + "rank-steps ran different collectives than the group's first rank; only the common prefix was "
                 "aligned"]
            += mismatched;
    for (std::size_t k = 0; k < matched; ++k) {
        MatchedSet set;
        for (const std::size_t p : parts)
            set.members.emplace_back(p, perRank[p][k]);
        m.sets.push_back(std::move(set));
    }
}

/// Matches one step's genuine sends and recvs pairwise: the k-th send from rank A to rank B in process group g with
/// the k-th recv on B from A in g (ordered by sequence number when every one of them gives one, else by start). A
/// matched pair is a MatchedSet of two, so its transfer, waiting and last arriver follow the collectives' rules. One
/// whose peer is unknown, whose peer has no such step, or whose counterparts differ in number or in sequence numbers
/// is warned and left unmatched: a wrong pair would invent waiting.
void matchPointToPoint(const std::vector<StepRef>& refs, const JobResult& job, MatchedCollectives& m,
                       MatchIssues& issues)
{
    struct Direction
    {
        std::vector<std::pair<std::size_t, std::size_t>> sends; // (position in refs, collective index), by start
        std::vector<std::pair<std::size_t, std::size_t>> recvs;
    };
    // (group, sender, receiver) → its sends and recvs.
    std::map<std::tuple<std::string, std::int32_t, std::int32_t>, Direction> directions;
    std::map<std::int32_t, std::size_t> positionOf;
    for (std::size_t p = 0; p < refs.size(); ++p)
        positionOf[job.ranks[refs[p].rank].rank] = p;
    std::size_t unknownPeer = 0;
    for (std::size_t p = 0; p < refs.size(); ++p) {
        const std::int32_t self = job.ranks[refs[p].rank].rank;
        const auto& cs = refs[p].step->collectives;
        for (std::size_t i = 0; i < cs.size(); ++i) {
            const RankCollective& c = cs[i];
            if (!isPointToPoint(c.opKind))
                continue;
            const bool send = c.opKind == "send";
            if ((!send && c.opKind != "recv") || c.peer < 0 || c.peer == self) {
                ++unknownPeer;
                continue;
            }
            Direction& d = directions[{c.group, send ? self : c.peer, send ? c.peer : self}];
            (send ? d.sends : d.recvs).emplace_back(p, i);
        }
    }
    if (unknownPeer > 0) {
        issues["sends and recvs whose peer rank is not known (a batched send/recv, a trace without the Rank and "
               "Process Group Ranks args, a report written before \"peer\") were left unmatched"]
            += unknownPeer;
        m.pointToPointUnmatched += unknownPeer;
    }
    const auto coll = [&](const std::pair<std::size_t, std::size_t>& at) -> const RankCollective& {
        return refs[at.first].step->collectives[at.second];
    };
    for (auto& [key, d] : directions) {
        const auto& [group, sender, receiver] = key;
        const std::size_t count = d.sends.size() + d.recvs.size();
        if (positionOf.count(sender) == 0 || positionOf.count(receiver) == 0) {
            issues["sends and recvs whose peer rank has no such step (or is not in the job) were left unmatched"]
                += count;
            m.pointToPointUnmatched += count;
            continue;
        }
        if (d.sends.size() != d.recvs.size()) {
            issues["in " + groupLabel(group)
                   + ", the sends of a step from one rank to another and the recvs of that step on the other differ "
                     "in number; they were left unmatched"]
                += 1;
            m.pointToPointUnmatched += count;
            continue;
        }
        const auto hasSeq = [&](const auto& list) {
            return std::all_of(list.begin(), list.end(), [&](const auto& at) { return coll(at).seq >= 0; });
        };
        if (hasSeq(d.sends) && hasSeq(d.recvs)) {
            // PyTorch numbers a send/recv with its group's collective counter, so several may share a number: the
            // start orders those.
            const auto bySeq = [&](const auto& a, const auto& b) { return coll(a).seq < coll(b).seq; };
            std::stable_sort(d.sends.begin(), d.sends.end(), bySeq);
            std::stable_sort(d.recvs.begin(), d.recvs.end(), bySeq);
            bool lineUp = true;
            for (std::size_t k = 0; lineUp && k < d.sends.size(); ++k)
                lineUp = coll(d.sends[k]).seq == coll(d.recvs[k]).seq;
            if (!lineUp) {
                issues["in " + groupLabel(group)
                       + ", the sequence numbers of a step's sends from one rank to another and of the recvs on the "
                         "other do not line up; they were left unmatched"]
                    += 1;
                m.pointToPointUnmatched += count;
                continue;
            }
        }
        for (std::size_t k = 0; k < d.sends.size(); ++k) {
            MatchedSet set;
            set.members = {d.sends[k], d.recvs[k]};
            std::sort(set.members.begin(), set.members.end());
            m.sets.push_back(std::move(set));
        }
    }
}

/// Matches one step's collectives across its ranks, group by group; point-to-point operations pairwise
/// (matchPointToPoint).
MatchedCollectives matchCollectives(const std::vector<StepRef>& refs, const JobResult& job, MatchIssues& issues)
{
    MatchedCollectives m;
    struct Group
    {
        std::vector<std::vector<std::size_t>> perRank;   // per position in refs, its collectives of the group
        std::set<std::vector<std::int32_t>> memberLists; // the members lists the ranks gave
    };
    std::map<std::string, Group> groups;
    for (std::size_t p = 0; p < refs.size(); ++p) {
        const auto& cs = refs[p].step->collectives;
        for (std::size_t i = 0; i < cs.size(); ++i) {
            if (isPointToPoint(cs[i].opKind))
                continue;
            Group& g = groups[cs[i].group];
            g.perRank.resize(refs.size());
            g.perRank[p].push_back(i);
            if (!cs[i].groupRanks.empty())
                g.memberLists.insert(cs[i].groupRanks);
        }
    }
    if (refs.size() < 2)
        return m;
    for (auto& [key, g] : groups) {
        if (g.memberLists.size() > 1) {
            ++issues["the ranks disagree on the members of " + groupLabel(key)
                     + "; its collectives were left unmatched"];
            continue;
        }
        std::vector<std::size_t> parts;
        if (!g.memberLists.empty()) {
            std::vector<std::int32_t> members = *g.memberLists.begin();
            std::sort(members.begin(), members.end());
            std::vector<std::int64_t> absent;
            bool outsider = false;
            for (std::size_t p = 0; p < refs.size(); ++p) {
                const bool listed = std::binary_search(members.begin(), members.end(), job.ranks[refs[p].rank].rank);
                const bool has = !g.perRank[p].empty();
                if (listed && has)
                    parts.push_back(p);
                else if (listed)
                    absent.push_back(job.ranks[refs[p].rank].rank);
                else if (has)
                    outsider = true;
            }
            if (outsider) {
                ++issues["ranks outside the members of " + groupLabel(key)
                         + " ran its collectives; they were left unmatched"];
                continue;
            }
            if (!absent.empty()) {
                ++issues["collectives of " + groupLabel(key)
                         + " were seen on only some of its members (missing on rank " + foldedList(absent)
                         + "); they were left unmatched"];
                continue;
            }
        } else {
            // Members unknown: the default group is every rank of the step; a named group, the ranks that ran it.
            for (std::size_t p = 0; p < refs.size(); ++p) {
                if (key.empty() || !g.perRank[p].empty())
                    parts.push_back(p);
            }
        }
        if (parts.size() >= 2)
            matchGroup(refs, key, parts, g.perRank, m, issues);
    }
    matchPointToPoint(refs, job, m, issues);
    const auto startOf = [&](const MatchedSet& s) {
        return refs[s.members.front().first].step->collectives[s.members.front().second].start;
    };
    std::stable_sort(m.sets.begin(), m.sets.end(), [&](const MatchedSet& a, const MatchedSet& b) {
        return std::pair(a.members.front().first, startOf(a)) < std::pair(b.members.front().first, startOf(b));
    });
    return m;
}

/// Each rank's clock offset from the first rank's in one step: the median, over the collectives it shares with ranks
/// already placed (the first rank first), of the difference of their ends, each on the common clock; a rank sharing
/// none is placed by its step start. Each round is linear in the matched members; a round places every rank one
/// collective away from a placed one.
std::vector<TimeNs> clockOffsets(const std::vector<StepRef>& refs, const MatchedCollectives& m)
{
    std::vector<TimeNs> offset(refs.size(), 0);
    std::vector<bool> placed(refs.size(), false);
    if (refs.empty())
        return offset;
    placed[0] = true;
    const auto absEnd
        = [&](std::size_t p, std::size_t i) { return refs[p].step->startNs + refs[p].step->collectives[i].end; };
    std::vector<std::vector<TimeNs>> candidates(refs.size());
    for (bool progress = true; progress;) {
        progress = false;
        for (const MatchedSet& set : m.sets) {
            // The set's anchor: its placed member of the lowest position.
            const std::pair<std::size_t, std::size_t>* anchor = nullptr;
            for (const auto& mem : set.members) {
                if (placed[mem.first] && (!anchor || mem.first < anchor->first))
                    anchor = &mem;
            }
            if (!anchor)
                continue;
            const TimeNs anchorEnd = absEnd(anchor->first, anchor->second) - offset[anchor->first];
            for (const auto& [p, i] : set.members) {
                if (!placed[p])
                    candidates[p].push_back(absEnd(p, i) - anchorEnd);
            }
        }
        for (std::size_t p = 1; p < refs.size(); ++p) {
            if (placed[p] || candidates[p].empty())
                continue;
            offset[p] = lowerMedian(std::move(candidates[p]));
            candidates[p].clear();
            placed[p] = true;
            progress = true;
        }
    }
    for (std::size_t p = 1; p < refs.size(); ++p) {
        if (!placed[p])
            offset[p] = refs[p].step->startNs - refs[0].step->startNs;
    }
    return offset;
}

/// Per rank of one step: the exposed time it waited in matched collectives for the last rank to arrive, the waiting
/// it caused as the last one, how often it came last, and its collectives as the lanes draw them.
struct ArrivalWaits
{
    std::vector<TimeNs> alignedWait;
    std::vector<TimeNs> caused;
    std::vector<std::uint32_t> lastCount;
    std::vector<std::vector<JobCollective>> laneCollectives;
    std::vector<std::pair<std::string, CollectiveRate>> rates; // one per matched collective with known bytes
    /// Of the matched collectives far below their link's peak (SlowLinkPass's thresholds on the group's transfer):
    /// the rank-time each member spent beyond the link's pace, where exposed, and their rates.
    TimeNs slowLost = 0;
    std::vector<CollectiveRate> slowRates;
};

/// The job's slow collectives: slow_link judged on the group's transfer, not on one rank's duration.
struct JobSlowLinks
{
    std::map<std::int64_t, TimeNs> perStep; // lost rank-time by step number
    TimeNs lost = 0;
    std::uint64_t collectives = 0;
    std::int64_t bytes = 0;
    TimeNs transferNs = 0;
    double busBytes = 0.0; // Σ bytes × factor
    std::string link;
    double peakGBps = 0.0;
    double worstShare = 1.0;
};

/// The share of its link's peak a matched collective reached when it is slow (SlowLinkPass::kMinBytes and
/// kSlowShare), else nothing.
std::optional<double> slowShare(const CollectiveRate& r)
{
    if (r.peakGBps <= 0 || r.busbwGBps <= 0 || r.bytes < SlowLinkPass::kMinBytes)
        return std::nullopt;
    const double share = r.busbwGBps / r.peakGBps;
    if (share >= SlowLinkPass::kSlowShare)
        return std::nullopt;
    return share;
}

/// The rate of a matched collective: `shortest` as its transfer, the members' largest bytes and group size, the link of
/// `device` (the last arriver's). A trace that names no group size (2023-era Kineto) still has one when the job holds
/// every rank of the world and all of them ran it in the default group: `worldSize`.
std::optional<CollectiveRate> matchedRate(const std::vector<const RankCollective*>& members, std::size_t last,
                                          TimeNs shortest, const std::string& device, std::int32_t worldSize)
{
    CollectiveOp op;
    op.opKind = members[last]->opKind;
    bool defaultGroup = true;
    for (const RankCollective* c : members) {
        op.bytes = std::max(op.bytes, c->bytes);
        op.groupSize = std::max(op.groupSize, c->groupSize);
        defaultGroup = defaultGroup && c->group.empty() && c->groupRanks.empty();
    }
    if (op.groupSize < 0 && defaultGroup && worldSize > 1 && members.size() == std::size_t(worldSize))
        op.groupSize = worldSize;
    op.linkTransport = members[last]->linkTransport;
    op.linkTransitNs = members[last]->linkTransitNs;
    return collectiveRate(op, shortest, TransferSource::ShortestInGroup, device);
}

/// For each matched collective: its transfer is the shortest duration among its members, the member with it
/// arrived last (on ties, the one arriving latest on the aligned clocks), and every other member waited its duration
/// above that from its start, charged where exposed to the last one, each nanosecond once.
ArrivalWaits attributeArrivalWaits(const std::vector<StepRef>& refs, const MatchedCollectives& m,
                                   const std::vector<TimeNs>& offset, const JobResult& job)
{
    ArrivalWaits w;
    w.alignedWait.assign(refs.size(), 0);
    w.caused.assign(refs.size(), 0);
    w.lastCount.assign(refs.size(), 0);
    std::vector<IntervalList> claimed(refs.size());
    // What the lanes draw: each rank's collectives with their arrival wait and who came last.
    w.laneCollectives.resize(refs.size());
    for (std::size_t p = 0; p < refs.size(); ++p) {
        for (const RankCollective& c : refs[p].step->collectives)
            w.laneCollectives[p].push_back({c.opKind, c.start, c.end, c.start, c.exposed, -1, false});
    }
    for (std::size_t k = 0; k < m.sets.size(); ++k) {
        const auto& members = m.sets[k].members;
        const auto coll = [&](std::size_t q) -> const RankCollective& {
            return refs[members[q].first].step->collectives[members[q].second];
        };
        std::size_t last = 0;
        for (std::size_t q = 1; q < members.size(); ++q) {
            const TimeNs d = coll(q).end - coll(q).start;
            const TimeNs bestD = coll(last).end - coll(last).start;
            const auto arrival = [&](std::size_t x) {
                return refs[members[x].first].step->startNs + coll(x).start - offset[members[x].first];
            };
            if (d < bestD || (d == bestD && arrival(q) > arrival(last)))
                last = q;
        }
        const TimeNs shortest = std::max<TimeNs>(0, coll(last).end - coll(last).start);
        const std::size_t lastRank = members[last].first;
        std::vector<const RankCollective*> memberOps;
        for (std::size_t q = 0; q < members.size(); ++q)
            memberOps.push_back(&coll(q));
        const auto rate = matchedRate(memberOps, last, shortest, job.ranks[refs[lastRank].rank].device, job.worldSize);
        if (rate)
            w.rates.emplace_back(coll(last).opKind, *rate);
        if (const std::optional<double> share = rate ? slowShare(*rate) : std::nullopt) {
            // Each member moved the data in the collective's last `shortest` (after its wait); the part of it beyond
            // the link's pace is lost where no compute hid it.
            const TimeNs beyond = shortest - static_cast<TimeNs>(std::llround(double(shortest) * *share));
            for (std::size_t q = 0; q < members.size(); ++q) {
                const RankCollective& c = coll(q);
                const TimeNs from = c.end - std::min(shortest, c.end - c.start);
                w.slowLost += std::min(beyond, overlapLength(c.exposed, from, c.end));
            }
            w.slowRates.push_back(*rate);
        }
        ++w.lastCount[lastRank];
        for (std::size_t q = 0; q < members.size(); ++q) {
            const auto [p, i] = members[q];
            JobCollective& lc = w.laneCollectives[p][i];
            lc.matchIndex = static_cast<int>(k);
            lc.last = q == last;
            const RankCollective& c = coll(q);
            const TimeNs lag = c.end - c.start - shortest;
            if (q == last || lag <= 0)
                continue;
            lc.arrivalWaitEnd = c.start + lag;
            const IntervalList waiting {{c.start, c.start + lag}};
            const IntervalList exposedWait = subtract(intersect(waiting, c.exposed), claimed[p]);
            const TimeNs ns = totalLength(exposedWait);
            if (ns <= 0)
                continue;
            claimed[p] = uniteSorted(claimed[p], exposedWait);
            w.alignedWait[p] += ns;
            w.caused[lastRank] += ns;
        }
    }
    return w;
}

/// One step across the ranks that have it: aligns their clocks on the matched collectives, attributes the arrival
/// waits, puts each rank's view of the step into `rankSteps` and returns the job's (slowest, fastest, spread).
JobStep alignStep(std::int64_t number, const std::vector<StepRef>& refs, const JobResult& job,
                  std::vector<std::map<std::int64_t, JobRankStep>>& rankSteps, MatchIssues& issues,
                  std::vector<BandwidthSummary>& bandwidth, JobSlowLinks& slow)
{
    JobStep js;
    js.number = number;
    js.ranks = refs.size();
    const MatchedCollectives matched = matchCollectives(refs, job, issues);
    js.alignedCollectives = matched.sets.size();
    js.unmatchedPointToPoint = matched.pointToPointUnmatched;
    const std::vector<TimeNs> offset = clockOffsets(refs, matched);
    ArrivalWaits waits = attributeArrivalWaits(refs, matched, offset, job);
    for (const auto& [kind, rate] : waits.rates)
        addToSummary(bandwidth, kind, rate);
    if (waits.slowLost > 0) {
        slow.perStep[number] += waits.slowLost;
        slow.lost += waits.slowLost;
        for (const CollectiveRate& r : waits.slowRates) {
            ++slow.collectives;
            slow.bytes += r.bytes;
            slow.transferNs += r.transferNs;
            slow.busBytes += r.busbwGBps * double(r.transferNs);
            slow.link = r.link;
            slow.peakGBps = r.peakGBps;
            slow.worstShare = std::min(slow.worstShare, r.busbwGBps / r.peakGBps);
        }
    }
    TimeNs earliest = std::numeric_limits<TimeNs>::max();
    for (std::size_t p = 0; p < refs.size(); ++p)
        earliest = std::min(earliest, model::saturatingSub(refs[p].step->startNs, offset[p]));
    TimeNs sum = 0;
    std::uint32_t mostLasts = 0;
    for (std::size_t p = 0; p < refs.size(); ++p) {
        const RankStep& s = *refs[p].step;
        const JobRank& jr = job.ranks[refs[p].rank];
        JobRankStep out;
        out.number = number;
        out.startNs = s.startNs;
        out.collectives = std::move(waits.laneCollectives[p]);
        out.durationNs = s.durationNs;
        out.computeNs = s.computeNs;
        out.communicationNs = s.communicationNs;
        out.communicationWaitNs = jr.waitFromTasks ? s.communicationWaitNs : waits.alignedWait[p];
        out.communicationIdleNs = jr.waitFromTasks && s.communicationTransferNs >= 0 ? s.communicationIdleNs : 0;
        out.communicationTransferNs
            = std::max<TimeNs>(0, s.communicationNs - out.communicationWaitNs - out.communicationIdleNs);
        out.idleNs = s.idleNs;
        out.hasActivity = s.hasActivity;
        out.activity = s.activity;
        out.hostBeforeFirst = s.hostBeforeFirst;
        out.hostBeforeFirstNs = s.hostBeforeFirstNs;
        out.offsetNs = offset[p];
        out.causedWaitNs = waits.caused[p];
        out.lastArrivals = refs.size() > 1 ? waits.lastCount[p] : 0;
        out.startLateNs = model::saturatingSub(model::saturatingSub(s.startNs, offset[p]), earliest);
        if (out.lastArrivals > mostLasts) {
            mostLasts = out.lastArrivals;
            js.lateRank = jr.rank;
            js.lateStartNs = out.startLateNs;
        }
        js.communicationWaitNs += out.communicationWaitNs;
        sum += s.durationNs;
        if (js.slowestRank < 0 || s.durationNs > js.slowestNs) {
            js.slowestRank = jr.rank;
            js.slowestNs = s.durationNs;
        }
        if (js.fastestRank < 0 || s.durationNs < js.fastestNs) {
            js.fastestRank = jr.rank;
            js.fastestNs = s.durationNs;
        }
        rankSteps[refs[p].rank][number] = out;
    }
    js.spreadNs = js.slowestNs - js.fastestNs;
    js.meanNs = refs.empty() ? 0 : sum / static_cast<TimeNs>(refs.size());
    return js;
}

/// Aligns every step (JobResult::steps, in step order) and gives each rank its steps, in step order.
void alignSteps(const std::map<std::int64_t, std::vector<StepRef>>& byNumber, JobResult& job, JobSlowLinks& slow)
{
    // Per rank and step: the job's view of the step.
    std::vector<std::map<std::int64_t, JobRankStep>> rankSteps(job.ranks.size());
    MatchIssues issues;
    for (const auto& [number, refs] : byNumber) {
        std::vector<BandwidthSummary> bandwidth;
        job.steps.push_back(alignStep(number, refs, job, rankSteps, issues, bandwidth, slow));
        for (const BandwidthSummary& b : bandwidth) {
            // Merge one step's kinds into the job's (sums of bytes, transfer and bytes × factor).
            CollectiveRate sum;
            sum.bytes = b.bytes;
            sum.transferNs = b.transferNs;
            sum.busbwGBps = b.busbwGBps;
            sum.source = b.source;
            sum.link = b.link;
            sum.peakGBps = b.peakGBps;
            addToSummary(job.bandwidth, b.opKind, sum, b.collectives);
        }
    }
    for (const auto& [message, count] : issues) {
        // "3 rank-steps ran …" reads as before for the default group; the others say how often.
        if (message.rfind("rank-steps", 0) == 0)
            job.warnings.push_back(std::to_string(count) + " " + message);
        else
            job.warnings.push_back(message + " (" + std::to_string(count) + (count == 1 ? " time)" : " times)"));
    }
    for (std::size_t i = 0; i < job.ranks.size(); ++i) {
        for (auto& [number, s] : rankSteps[i])
            job.ranks[i].steps.push_back(s);
    }
}

/// Fills the basis' step maps from the aligned steps.
void indexAlignedSteps(const JobResult& job, JobBasis& basis)
{
    basis.rankTimeNs = job.rankTimeNs;
    for (std::size_t i = 0; i < job.steps.size(); ++i)
        basis.stepIndex[job.steps[i].number] = i;
    for (const JobRank& r : job.ranks) {
        for (const JobRankStep& s : r.steps)
            basis.rankTimeOfStep[s.number] += s.durationNs;
    }
}

/// A straggler finding for each rank whose lateness in the collectives cost the others at least the options' share
/// of the job; returns the waiting they own in all, and per step number in `stragglerPerStep`.
TimeNs addStragglerFindings(JobResult& job, const JobOptions& options, const JobBasis& basis,
                            std::map<std::int64_t, TimeNs>& stragglerPerStep)
{
    const TimeNs stragglerMin = std::max<TimeNs>(
        {options.minLostNs, static_cast<TimeNs>(options.stragglerMinShare * double(job.rankTimeNs)), 1});
    TimeNs stragglerTotal = 0;
    for (const JobRank& r : job.ranks) {
        TimeNs caused = 0;
        std::uint64_t lasts = 0;
        for (const JobRankStep& s : r.steps) {
            caused += s.causedWaitNs;
            lasts += s.lastArrivals;
        }
        if (caused < stragglerMin)
            continue;
        Finding f;
        f.kind = "straggler";
        f.lostNs = caused;
        f.lostFraction = basis.share(caused);
        f.occurrences = lasts;
        f.platform = basis.platform;
        std::vector<std::int64_t> steps;
        TimeNs extraCompute = 0;
        TimeNs lagSum = 0;
        TimeNs lateSum = 0;
        TimeNs idleBeforeFirst = 0; // device idle before its first collective, in those steps
        TimeNs beforeFirst = 0;
        std::map<std::string, TimeNs> hostByName; // what its host completed before its first collective's launch
        TimeNs hostWindow = 0;
        for (const JobRankStep& s : r.steps) {
            if (s.causedWaitNs <= 0)
                continue;
            steps.push_back(s.number);
            stragglerPerStep[s.number] += s.causedWaitNs;
            f.perStep.push_back({valueAt(basis.stepIndex, s.number), s.number, s.causedWaitNs,
                                 valueAt(basis.rankTimeOfStep, s.number)});
            // What the straggler did longer than its peers in this step: device compute, or something else.
            std::vector<TimeNs> others;
            for (const JobRank& o : job.ranks) {
                if (o.rank == r.rank)
                    continue;
                for (const JobRankStep& os : o.steps) {
                    if (os.number == s.number)
                        others.push_back(os.computeNs);
                }
            }
            if (!others.empty()) {
                extraCompute += std::max<TimeNs>(0, s.computeNs - lowerMedian(others));
                lagSum += s.causedWaitNs / static_cast<TimeNs>(others.size());
            }
            lateSum += s.startLateNs;
            hostWindow += s.hostBeforeFirstNs;
            for (const HostActivity& a : s.hostBeforeFirst)
                hostByName[a.name] += a.ns;
            if (s.hasActivity && !s.collectives.empty()) {
                const TimeNs first = std::clamp<TimeNs>(s.collectives.front().start, 0, s.durationNs);
                beforeFirst += first;
                idleBeforeFirst += totalLength(clip(s.activity.idle, 0, first));
            }
        }
        const TimeNs meanLate = steps.empty() ? 0 : lateSum / TimeNs(steps.size());
        const TimeNs meanLag = steps.empty() ? 0 : lagSum / TimeNs(steps.size());
        // It enters the step late, and that lateness is at least half of what the others wait for it.
        const bool lateStart = meanLate > 0 && meanLate * 2 >= meanLag;
        const bool compute = !lateStart && extraCompute * 2 >= lagSum;
        f.title = lateStart
            ? "Rank " + std::to_string(r.rank) + " starts " + formatDuration(meanLate)
                + " late and the others wait for it: " + formatDuration(caused) + " in " + std::to_string(steps.size())
                + (steps.size() == 1 ? " step" : " steps")
            : "Rank " + std::to_string(r.rank) + " is a straggler: the other ranks wait " + formatDuration(caused)
                + " for it in " + std::to_string(steps.size()) + (steps.size() == 1 ? " step" : " steps");
        f.details.push_back({"rank", std::int64_t(r.rank)});
        f.details.push_back({"steps", rankList(steps)});
        f.details.push_back({"caused_wait_ns", caused});
        f.details.push_back({"last_arrivals", static_cast<std::int64_t>(lasts)});
        f.details.push_back({"mean_lag_ns", steps.empty() ? TimeNs(0) : lagSum / TimeNs(steps.size())});
        f.details.push_back({"extra_compute_ns", extraCompute});
        f.details.push_back({"start_late_ns", meanLate});
        f.details.push_back({"cause", std::string(lateStart ? "late_start" : compute ? "compute" : "host")});
        f.explanation = "In a synchronous job every rank waits in each collective until the last rank arrives. Rank "
            + std::to_string(r.rank)
            + " reached the collectives last, so the other ranks spun in them; that waiting is the time this "
              "rank costs the job.";
        if (lateStart) {
            f.explanation += " It starts its steps " + formatDuration(meanLate)
                + " after the earliest rank (mean, on the common clock) while every rank leaves the step's collectives "
                  "together: its steps look shorter, not slower.";
            if (idleBeforeFirst > 0)
                f.explanation += " Before its first collective its device sat idle " + formatDuration(idleBeforeFirst)
                    + " of " + formatDuration(beforeFirst) + ": the host issued the work late.";
            if (!hostByName.empty()) {
                std::vector<std::pair<std::string, TimeNs>> top(hostByName.begin(), hostByName.end());
                std::stable_sort(top.begin(), top.end(),
                                 [](const auto& a, const auto& b) { return a.second > b.second; });
                top.resize(std::min(top.size(), kHostActivityKept));
                std::string list;
                std::string detail;
                for (const auto& [name, ns] : top) {
                    list += (list.empty() ? "" : ", ") + name + " " + formatDuration(ns);
                    detail += (detail.empty() ? "" : "; ") + name + "=" + std::to_string(ns);
                }
                f.explanation += " From its step start to the launch of its first collective ("
                    + formatDuration(hostWindow) + (steps.size() == 1 ? "" : " over those steps") + ") its host ran "
                    + list + ".";
                f.details.push_back({"host_before_first_collective", detail});
                f.details.push_back({"host_before_first_collective_ns", hostWindow});
            }
        }
        if (lateStart)
            f.recommendation = "Rank " + std::to_string(r.rank)
                + " enters each step late while the others already wait in the first collective: look at what its "
                  "host does between steps (data loading, logging or checkpointing on this rank, Python garbage "
                  "collection, a slower or busier host CPU) and give every rank the same work there.";
        else if (compute)
            f.recommendation = "Rank " + std::to_string(r.rank)
                + " runs more device compute than its peers before the collectives: give every rank the same work "
                  "(equal batch and sequence lengths, e.g. length-bucketed sampling; balanced model shards) and "
                  "check the device itself (clocks, temperature, errors: nvidia-smi / npu-smi).";
        else
            f.recommendation = "Rank " + std::to_string(r.rank)
                + " is not computing longer than its peers, so its host is late: look for work only this rank does "
                  "(logging, checkpointing, evaluation on rank 0), slow data loading, Python garbage collection "
                  "pauses, or CPU contention (bind each rank's process to its NUMA node).";
        stragglerTotal += caused;
        job.findings.push_back(std::move(f));
    }
    return stragglerTotal;
}

/// The job's communication finding: exposed collective time of all ranks, less the waiting the stragglers own.
void addCommunicationFinding(JobResult& job, const JobOptions& options, const JobBasis& basis, TimeNs stragglerTotal,
                             const std::map<std::int64_t, TimeNs>& stragglerPerStep)
{
    TimeNs exposed = 0;
    TimeNs wait = 0;
    TimeNs idle = 0;
    std::size_t commRanks = 0;
    bool anyTasks = false;
    bool anyJson = false;
    bool anyAligned = false;
    std::map<std::int64_t, TimeNs> commPerStep;
    for (const JobRank& r : job.ranks) {
        TimeNs own = 0;
        for (const JobRankStep& s : r.steps) {
            own += s.communicationNs;
            wait += s.communicationWaitNs;
            idle += s.communicationIdleNs;
            commPerStep[s.number] += s.communicationNs;
        }
        exposed += own;
        commRanks += own > 0 ? 1 : 0;
        anyTasks = anyTasks || r.waitFromTasks;
        anyJson = anyJson || r.waitFromCommunicationJson;
    }
    bool anyUnmatchedPointToPoint = false;
    for (const JobStep& s : job.steps) {
        anyAligned = anyAligned || s.alignedCollectives > 0;
        anyUnmatchedPointToPoint = anyUnmatchedPointToPoint || s.unmatchedPointToPoint > 0;
    }
    const TimeNs commLost = std::max<TimeNs>(0, exposed - stragglerTotal);
    if (commLost <= 0 || commLost < options.minLostNs)
        return;
    Finding f;
    f.kind = "communication";
    f.lostNs = commLost;
    f.lostFraction = basis.share(commLost);
    f.platform = basis.platform;
    for (const auto& [number, ns] : commPerStep) {
        const TimeNs lost = ns - valueAt(stragglerPerStep, number);
        if (lost > 0)
            f.perStep.push_back(
                {valueAt(basis.stepIndex, number), number, lost, valueAt(basis.rankTimeOfStep, number)});
    }
    f.occurrences = commRanks;
    const TimeNs transfer = std::max<TimeNs>(0, exposed - wait - idle);
    const TimeNs ownWait = std::max<TimeNs>(0, wait - stragglerTotal);
    f.title = "Exposed communication on " + std::to_string(commRanks) + " of " + std::to_string(job.ranks.size())
        + " ranks: " + formatDuration(exposed)
        + (idle > 0 ? " (" + formatDuration(transfer) + " moving data, " + formatDuration(wait) + " waiting, "
                   + formatDuration(idle) + " idle inside the collectives)"
               : anyTasks || anyAligned
               ? " (" + formatDuration(wait) + " waiting, " + formatDuration(transfer) + " transfer)"
               : " (waiting not measurable)");
    f.details.push_back({"backend", basis.backend});
    f.details.push_back({"ranks", static_cast<std::int64_t>(commRanks)});
    f.details.push_back({"exposed_ns", exposed});
    f.details.push_back({"wait_ns", wait});
    f.details.push_back({"transfer_ns", transfer});
    f.details.push_back({"idle_ns", idle});
    f.details.push_back({"straggler_wait_ns", stragglerTotal});
    f.details.push_back({"wait_source",
                         std::string(anyJson        ? "communication_json"
                                         : anyTasks ? "wait_tasks"
                                                    : (anyAligned ? "cross_rank_alignment" : "unknown"))});
    f.explanation = "Collective time on the devices that no compute overlaps, summed over the ranks: "
        + formatDuration(exposed) + " in collectives.";
    if (stragglerTotal > 0) {
        std::string owners;
        for (const Finding& s : job.findings) {
            if (s.kind == "straggler")
                owners += (owners.empty() ? "rank " : ", rank ") + detailText(s.details.front());
        }
        f.explanation += " Lost counts " + formatDuration(commLost) + " of it: the other "
            + formatDuration(stragglerTotal) + " is the ranks waiting for the straggler (" + owners
            + "), which is that straggler finding's lost time; counted once, it is not lost here as well.";
    } else {
        f.explanation += " No straggler owns any of the waiting, so all of it is lost here.";
    }
    f.recommendation = communicationRecommendation(basis.backend == "hccl", anyTasks || anyAligned, ownWait, transfer,
                                                   idle, true, anyUnmatchedPointToPoint);
    job.findings.push_back(std::move(f));
}

/// slow_link over the job: the matched collectives far below their link's peak with the group's shortest duration as
/// the transfer (the ranks' own slow_link judge their durations, waiting included, and are left out).
void addSlowLinkFinding(JobResult& job, const JobOptions& options, const JobBasis& basis, const JobSlowLinks& slow)
{
    if (slow.lost <= 0 || slow.lost < options.minLostNs)
        return;
    Finding f;
    f.kind = "slow_link";
    f.lostNs = slow.lost;
    f.lostFraction = basis.share(slow.lost);
    f.platform = basis.platform;
    f.occurrences = slow.collectives;
    for (const auto& [number, ns] : slow.perStep)
        f.perStep.push_back({valueAt(basis.stepIndex, number), number, ns, valueAt(basis.rankTimeOfStep, number)});
    const double busbw = slow.transferNs > 0 ? slow.busBytes / double(slow.transferNs) : 0.0;
    f.title = "Slow " + slow.link + " link: " + std::to_string(slow.collectives) + " collective"
        + (slow.collectives == 1 ? "" : "s") + " at " + formatFixed(busbw, 1) + " GB/s bus bandwidth of "
        + formatFixed(slow.peakGBps, 0) + " GB/s peak, " + formatDuration(slow.lost) + " of rank-time";
    f.details.push_back({"link", slow.link});
    f.details.push_back({"peak_gbps", slow.peakGBps});
    f.details.push_back({"busbw_gbps", busbw});
    f.details.push_back({"worst_share_of_peak", slow.worstShare});
    f.details.push_back({"bytes", slow.bytes});
    f.details.push_back({"transfer_ns", slow.transferNs});
    f.details.push_back({"transfer_source", std::string("shortest_in_group")});
    f.explanation = "Collectives matched across their group moved at least 1 MiB at under a quarter of the " + slow.link
        + " link's peak, their transfer the shortest duration among the members (the last arriver did not wait). "
          "Lost: on every member, the part of that transfer beyond the link's pace where no compute hid it.";
    f.recommendation = slowLinkRecommendation(basis.backend == "hccl", slow.link);
    job.findings.push_back(std::move(f));
}

/// Every other kind: one job finding per kind, the ranks' own findings of that kind summed.
void addSummedKindFindings(JobResult& job, const JobOptions& options, const JobBasis& basis)
{
    struct KindAcc
    {
        TimeNs lost = 0;
        std::size_t findings = 0;
        std::set<std::int32_t> ranks;
        std::int32_t worstRank = -1;
        TimeNs worstLost = 0;
        TimeNs biggest = -1;
        std::string biggestTitle; // the largest single finding of the kind, on any rank
    };
    std::map<std::string, KindAcc> kinds;
    for (const JobRank& r : job.ranks) {
        std::map<std::string, TimeNs> perKind;
        for (const RankFinding& rf : r.findings) {
            // The job's own: communication (exposed, less the stragglers' part) and slow_link (on the transfer).
            if (rf.kind == "communication" || rf.kind == "slow_link")
                continue;
            KindAcc& k = kinds[rf.kind];
            k.lost += rf.lostNs;
            ++k.findings;
            k.ranks.insert(r.rank);
            perKind[rf.kind] += rf.lostNs;
            if (perKind[rf.kind] > k.worstLost) {
                k.worstLost = perKind[rf.kind];
                k.worstRank = r.rank;
            }
            if (rf.lostNs > k.biggest) {
                k.biggest = rf.lostNs;
                k.biggestTitle = "rank " + std::to_string(r.rank) + ", " + rf.title;
            }
        }
    }
    for (const auto& [kind, k] : kinds) {
        if (k.lost <= 0 || k.lost < options.minLostNs)
            continue;
        Finding f;
        f.kind = kind;
        f.lostNs = k.lost;
        f.lostFraction = basis.share(k.lost);
        f.occurrences = k.findings;
        f.platform = basis.platform;
        f.title = kindLabel(kind) + " on " + std::to_string(k.ranks.size()) + " of " + std::to_string(job.ranks.size())
            + " ranks: " + formatDuration(k.lost) + " (worst: rank " + std::to_string(k.worstRank) + ", "
            + formatDuration(k.worstLost) + ")";
        f.details.push_back({"ranks", static_cast<std::int64_t>(k.ranks.size())});
        f.details.push_back({"findings", static_cast<std::int64_t>(k.findings)});
        f.details.push_back({"worst_rank", std::int64_t(k.worstRank)});
        f.details.push_back({"worst_lost_ns", k.worstLost});
        f.explanation = "The ranks' own findings of this kind, summed. The largest: " + k.biggestTitle + ".";
        f.recommendation = "Open the report of rank " + std::to_string(k.worstRank)
            + " (`timesink-cli analyze` on its trace) for the evidence and the recommendation.";
        job.findings.push_back(std::move(f));
    }
}

/// The job's lost time, in all and per kind (largest first), from its ranked findings.
void tallyLossByKind(JobResult& job, const JobBasis& basis)
{
    std::map<std::string, JobKindLoss> byKind;
    for (const Finding& f : job.findings) {
        JobKindLoss& k = byKind[f.kind];
        k.kind = f.kind;
        k.lostNs += f.lostNs;
        ++k.findings;
        job.lostNs += f.lostNs;
    }
    for (auto& [kind, k] : byKind) {
        k.fraction = basis.share(k.lostNs);
        job.lostByKind.push_back(k);
    }
    std::stable_sort(job.lostByKind.begin(), job.lostByKind.end(),
                     [](const JobKindLoss& a, const JobKindLoss& b) { return a.lostNs > b.lostNs; });
}

} // namespace

JobResult analyzeJob(std::vector<RankSummary> ranks, const JobOptions& options)
{
    JobResult job;
    const bool ranksFromInputs = numberRanks(ranks, job);
    checkRanksAgree(ranks, ranksFromInputs, job);
    JobBasis basis = addRankTotals(ranks, job);
    JobSlowLinks slow;
    alignSteps(addRanksIndexSteps(ranks, job), job, slow);
    indexAlignedSteps(job, basis);
    std::map<std::int64_t, TimeNs> stragglerPerStep;
    const TimeNs stragglerTotal = addStragglerFindings(job, options, basis, stragglerPerStep);
    addCommunicationFinding(job, options, basis, stragglerTotal, stragglerPerStep);
    addSlowLinkFinding(job, options, basis, slow);
    addSummedKindFindings(job, options, basis);
    std::sort(job.findings.begin(), job.findings.end(), rankBefore);
    tallyLossByKind(job, basis);
    return job;
}

StepLanes stepLanes(const JobResult& job, std::int64_t step, LaneAlign align, std::size_t collective)
{
    StepLanes out;
    out.step = step;
    struct Found
    {
        std::size_t rankIndex;
        const JobRankStep* step;
    };
    std::vector<Found> found;
    for (std::size_t i = 0; i < job.ranks.size(); ++i) {
        const auto& steps = job.ranks[i].steps;
        const auto it = std::lower_bound(steps.begin(), steps.end(), step,
                                         [](const JobRankStep& s, std::int64_t n) { return s.number < n; });
        if (it != steps.end() && it->number == step)
            found.push_back({i, &*it});
    }
    if (found.empty())
        return out;
    for (const JobStep& s : job.steps) {
        if (s.number == step)
            out.matchedCollectives = s.alignedCollectives;
    }
    // Where the collective `collective` ends on a rank (relative to its step start); −1 when it has none.
    const auto matchedEnd = [](const JobRankStep& s, std::size_t k) -> TimeNs {
        for (const JobCollective& c : s.collectives) {
            if (c.matchIndex == static_cast<int>(k))
                return c.end;
        }
        return -1;
    };
    if (align == LaneAlign::Collective && collective >= out.matchedCollectives)
        align = LaneAlign::CommonClock;
    const JobRankStep& ref = *found.front().step;
    const TimeNs refEnd = align == LaneAlign::Collective ? matchedEnd(ref, collective) : 0;
    out.lastArrivals.assign(out.matchedCollectives, {std::numeric_limits<TimeNs>::min(), 0});
    bool first = true;
    for (const Found& f : found) {
        const JobRankStep& s = *f.step;
        // The shift from the rank's step-relative times to the axis.
        TimeNs shift = 0;
        if (align == LaneAlign::CommonClock)
            shift = model::saturatingSub(model::saturatingSub(s.startNs, s.offsetNs), ref.startNs - ref.offsetNs);
        else if (align == LaneAlign::Collective) {
            const TimeNs end = matchedEnd(s, collective);
            shift = end >= 0 && refEnd >= 0 ? refEnd - end : 0;
        }
        RankLane lane;
        lane.rankIndex = f.rankIndex;
        lane.stepStart = shift;
        lane.stepEnd = model::saturatingAdd(shift, s.durationNs);
        lane.waitNs = s.communicationWaitNs;
        lane.collectiveIdleNs = s.communicationIdleNs;
        lane.hasActivity = s.hasActivity;
        lane.resolutionNs = s.activity.resolutionNs;
        // The rank's own split, where it measured one: the waiting the job counts for it is that one too.
        lane.measuredSplit = job.ranks[f.rankIndex].waitFromTasks && s.hasActivity && s.activity.communicationSplit;
        out.lanesWithoutActivity += s.hasActivity ? 0 : 1;
        const auto add = [&](const IntervalList& parts, LaneKind kind) {
            for (const Interval& i : parts)
                lane.segments.push_back({kind, i.start + shift, i.end + shift});
        };
        std::uint32_t lasts = 0;
        IntervalList collectiveSpans;
        IntervalList exposed;
        collectiveSpans.reserve(s.collectives.size());
        for (const JobCollective& c : s.collectives) {
            collectiveSpans.push_back({c.start, c.end});
            exposed.insert(exposed.end(), c.exposed.begin(), c.exposed.end());
            if (!lane.measuredSplit) {
                const IntervalList whole = c.end > c.start ? IntervalList {{c.start, c.end}} : IntervalList {};
                const IntervalList waiting = c.arrivalWaitEnd > c.start
                    ? intersect(IntervalList {{c.start, c.arrivalWaitEnd}}, c.exposed)
                    : IntervalList {};
                add(waiting, LaneKind::Wait);
                add(subtract(c.exposed, waiting), LaneKind::Transfer);
                add(subtract(whole, c.exposed), LaneKind::Overlapped);
            }
            if (c.matchIndex >= 0 && static_cast<std::size_t>(c.matchIndex) < out.lastArrivals.size()) {
                auto& edge = out.lastArrivals[static_cast<std::size_t>(c.matchIndex)];
                if (c.start + shift > edge.first)
                    edge = {c.start + shift, f.rankIndex};
                lasts += c.last ? 1 : 0;
            }
        }
        IntervalList claimed = unite(std::move(collectiveSpans));
        if (lane.measuredSplit) {
            // One cut of the whole step (collectives may overlap one another): each nanosecond drawn once, so the
            // Wait and CollectiveIdle segments add up to the rank's own figures.
            exposed = unite(std::move(exposed));
            const IntervalList waiting = clip(s.activity.communicationWait, 0, s.durationNs);
            const IntervalList idle = subtract(clip(s.activity.communicationIdle, 0, s.durationNs), waiting);
            const IntervalList split = uniteSorted(waiting, idle);
            add(waiting, LaneKind::Wait);
            add(idle, LaneKind::CollectiveIdle);
            add(subtract(exposed, split), LaneKind::Transfer);
            add(subtract(subtract(claimed, exposed), split), LaneKind::Overlapped);
            // A collective reaching in from the step before has its wait here but no span of this step.
            claimed = uniteSorted(claimed, split);
        }
        if (s.hasActivity) {
            // Outside the collectives, by priority: a piece the activity's resolution widened never hides another.
            const std::pair<const IntervalList*, LaneKind> parts[] = {{&s.activity.compute, LaneKind::Compute},
                                                                      {&s.activity.copy, LaneKind::Copy},
                                                                      {&s.activity.idle, LaneKind::Idle}};
            for (const auto& [list, kind] : parts) {
                const IntervalList shown = subtract(clip(*list, 0, s.durationNs), claimed);
                for (const Interval& i : shown)
                    lane.segments.push_back({kind, i.start + shift, i.end + shift});
                claimed = uniteSorted(claimed, shown);
            }
        }
        std::sort(lane.segments.begin(), lane.segments.end(),
                  [](const LaneSegment& a, const LaneSegment& b) { return a.start < b.start; });
        lane.straggler = lasts > 0 && std::size_t {s.lastArrivals} * 2 > out.matchedCollectives && s.causedWaitNs > 0;
        out.axisStart = first ? lane.stepStart : std::min(out.axisStart, lane.stepStart);
        out.axisEnd = first ? lane.stepEnd : std::max(out.axisEnd, lane.stepEnd);
        first = false;
        out.lanes.push_back(std::move(lane));
    }
    return out;
}

std::int64_t worstStep(const JobResult& job)
{
    std::int64_t worst = -1;
    TimeNs longest = -1;
    for (const JobStep& s : job.steps) {
        if (s.slowestNs > longest) {
            longest = s.slowestNs;
            worst = s.number;
        }
    }
    return worst;
}

TimeNs jobMeasureValue(const JobRankStep& step, JobMeasure measure)
{
    switch (measure) {
    case JobMeasure::StepTime:
        return step.durationNs;
    case JobMeasure::CommunicationWait:
        return step.communicationWaitNs;
    case JobMeasure::CausedWait:
        return step.causedWaitNs;
    case JobMeasure::Compute:
        return step.computeNs;
    case JobMeasure::Communication:
        return step.communicationNs;
    }
    return 0;
}

std::optional<JobMeasure> mostVaryingMeasure(const JobResult& job)
{
    std::optional<JobMeasure> best;
    double bestSpread = 0.01; // below 1 % every rank reads the same colour
    for (const JobMeasure m : kJobMeasures) {
        // Per step number, the smallest and largest value over the ranks that have the step.
        std::map<std::int64_t, std::pair<TimeNs, TimeNs>> range;
        for (const JobRank& r : job.ranks) {
            for (const JobRankStep& s : r.steps) {
                const TimeNs v = jobMeasureValue(s, m);
                auto [it, inserted] = range.try_emplace(s.number, v, v);
                if (!inserted)
                    it->second = {std::min(it->second.first, v), std::max(it->second.second, v)};
            }
        }
        for (const auto& [number, minMax] : range) {
            if (minMax.second <= 0)
                continue;
            const double spread = double(minMax.second - minMax.first) / double(minMax.second);
            if (spread > bestSpread) {
                bestSpread = spread;
                best = m;
            }
        }
    }
    return best;
}

std::string jobMeasureLabel(JobMeasure measure)
{
    switch (measure) {
    case JobMeasure::StepTime:
        return "Step time";
    case JobMeasure::CommunicationWait:
        return "Communication wait";
    case JobMeasure::CausedWait:
        return "Wait caused on other ranks";
    case JobMeasure::Compute:
        return "Device compute";
    case JobMeasure::Communication:
        return "Exposed communication";
    }
    return {};
}

std::uint32_t jobHeatColor(double t)
{
    if (!(t >= 0.0)) // NaN too
        t = 0.0;
    t = std::min(t, 1.0);
    // Three stops (ColorBrewer YlOrRd's light, middle and dark ends), linear between them.
    constexpr int stops[3][3] = {{255, 244, 178}, {253, 141, 60}, {160, 0, 38}};
    const int seg = t < 0.5 ? 0 : 1;
    const double u = (t - 0.5 * seg) * 2.0;
    std::uint32_t rgb = 0;
    for (int c = 0; c < 3; ++c) {
        const double v = stops[seg][c] + (stops[seg + 1][c] - stops[seg][c]) * u;
        rgb = (rgb << 8) | static_cast<std::uint32_t>(std::clamp<long>(std::lround(v), 0, 255));
    }
    return rgb;
}

} // namespace timesink::analysis
