// SPDX-License-Identifier: MIT
#include "parsers/snapshot/snapshotvalidation.h"

#include "model/snapshotaccess.h"
#include "model/workers.h"
#include "parsers/snapshot/snapshotcolumns.h"

#include <atomic>
#include <optional>
#include <vector>

namespace timesink::parsers::snapshot {

namespace {

using model::SnapshotAccess;

/// What validateTrace() finds wrong outside the arg store, or nothing.
std::string inconsistencyBesideArgs(const pb::Header& h, const model::Trace& trace)
{
    const std::uint64_t strings = trace.strings().size();
    auto str = [&](std::uint32_t id) { return id < strings; };
    const std::uint64_t argSets = trace.argStore().setCount();

    const auto& tracks = trace.tracks();
    for (std::size_t ti = 0; ti < tracks.size(); ++ti) {
        const model::Track& t = tracks[ti];
        // The descriptors are the header's: restoreFromHeader() sets them on the track once this check passed
        // (the device summary indexes an array by device kind).
        const pb::Track& p = h.tracks(static_cast<int>(ti));
        if (!str(p.name()) || !str(p.process_name()) || !str(p.thread_name()) || !str(p.process_key())
            || !str(p.thread_key()) || p.device_kind() > static_cast<unsigned>(model::DeviceKind::EdgeNpu)
            || p.role() > static_cast<unsigned>(model::TrackRole::Synthetic))
            return std::string("track " + std::to_string(ti));
        const std::size_t n = t.size();
        const std::size_t depths = t.depthCount();
        for (std::size_t i = 0; i < n; ++i) {
            const auto k = static_cast<std::uint32_t>(i);
            const model::SliceIndex parent = t.parent(k);
            const model::ArgSetId args = t.args(k);
            if (!str(t.sliceName(k).value) || !str(t.rawCategory(k).value)
                || static_cast<int>(t.category(k)) >= model::kSliceCategoryCount || t.depth(k) >= depths
                || (parent.isValid() && parent.value >= n) || (args.isValid() && args.value >= argSets))
                return std::string("slices of track " + std::to_string(ti));
        }
        // The depth index itself is checked with the trace rules (model::trackStructureIssue), after this.
        for (std::size_t d = 0; d < depths; ++d) {
            for (const auto& level : t.summaries(d)) {
                for (const model::SummaryBucket& b : level) {
                    if (static_cast<int>(b.dominant) >= model::kSliceCategoryCount)
                        return std::string("summaries of track " + std::to_string(ti));
                }
            }
        }
    }
    auto validRef = [&](const model::SliceRef& r) {
        return r.track.value < tracks.size() && r.index.value < tracks[r.track.value].size();
    };
    const auto& flows = trace.flows();
    for (const model::Flow& f : flows) {
        if (!validRef(f.from) || !validRef(f.to) || static_cast<unsigned>(f.kind) > 2)
            return std::string("flows");
    }
    for (const std::uint32_t i : SnapshotAccess::flowsByTarget(trace)) {
        if (i >= flows.size())
            return std::string("flow index");
    }
    for (const pb::Step& s : h.steps()) {
        const model::SliceRef marker {model::TrackId(s.marker_track()), model::SliceIndex(s.marker_index())};
        if (!str(s.name()) || (marker != model::SliceRef {} && !validRef(marker)))
            return std::string("steps");
    }
    for (const pb::Device& d : h.devices()) {
        if (d.kind() > 3)
            return std::string("devices");
    }
    return {};
}

} // namespace

std::string validateTrace(const pb::Header& h, const model::Trace& trace, unsigned threads)
{
    // The arg sets (every value of every set decodes: the largest check) in chunks that a second thread starts
    // on at once and this one joins once the rest is checked: with the sets on the second thread alone, this
    // one waited for it through a third of the check. A thread that cannot start leaves them all to this one.
    const std::uint64_t strings = trace.strings().size();
    const model::ArgStore& store = trace.argStore();
    if (auto layout = store.layoutInconsistency(strings))
        return corruptSnapshot(*layout);
    constexpr std::size_t kSetsPerChunk = std::size_t(1) << 16;
    const std::size_t chunks = (store.setCount() + kSetsPerChunk - 1) / kSetsPerChunk;
    std::vector<std::optional<std::string>> chunkIssues(chunks);
    std::atomic<std::size_t> nextChunk {0};
    std::atomic<bool> failed {false};
    auto checkChunks = [&] {
        // Chunks are taken in order, so the first one with an issue is always checked whole: the message does
        // not depend on which thread got there first.
        for (std::size_t c = nextChunk++; c < chunks && !failed; c = nextChunk++) {
            chunkIssues[c] = store.setsInconsistency(strings, c * kSetsPerChunk, (c + 1) * kSetsPerChunk);
            if (chunkIssues[c])
                failed = true;
        }
    };
    model::WorkerGroup helper([&failed] { failed = true; });
    if (threads != 1 && chunks > 1)
        (void)helper.tryStart(checkChunks); // without a thread, this one checks every chunk
    std::string issue;
    helper.runHere([&] {
        issue = inconsistencyBesideArgs(h, trace);
        checkChunks();
    });
    helper.join(); // rethrows what either thread threw, once both are done
    for (const std::optional<std::string>& argIssue : chunkIssues) {
        if (argIssue)
            return corruptSnapshot(*argIssue);
    }
    if (!issue.empty())
        return corruptSnapshot(issue);
    return {};
}

} // namespace timesink::parsers::snapshot
