// SPDX-License-Identifier: MIT
#include "analysis/passes/slowlinkpass.h"

#include "analysis/core/collectivebandwidth.h"
#include "analysis/core/communication.h"
#include "analysis/core/context.h"
#include "analysis/core/findingaccumulator.h"
#include "analysis/core/textformat.h"

#include <algorithm>
#include <cmath>

namespace timesink::analysis {

std::string slowLinkRecommendation(bool hccl, std::string_view link)
{
    const std::string l(link);
    if (hccl)
        return "Check that HCCL uses the " + l
            + " links it should: `communication_matrix.json` lists the bandwidth per rank pair, and a pair far "
              "below the others points at a link or a placement across servers (RoCE instead of HCCS). Raise "
              "`HCCL_BUFFSIZE` (MB, default 200) when the collectives are larger than the buffer, and send fewer, "
              "larger collectives (DDP `bucket_cap_mb`, gradient accumulation with `no_sync()`).";
    return "Run with `NCCL_DEBUG=INFO` (and `NCCL_DEBUG_SUBSYS=INIT,GRAPH`) and check that NCCL found the " + l
        + " topology: rings or trees over NVLink/NVSwitch, not PCIe or sockets (`nvidia-smi topo -m`, "
          "`NCCL_P2P_DISABLE` and `NCCL_SHM_DISABLE` unset, peer access allowed in containers). Larger DDP buckets "
          "(`bucket_cap_mb`) move the same bytes in fewer, larger collectives nearer the link's peak.";
}

namespace {

/// The last `ns` of the exposed pieces, latest first: where the collective ran on beyond the link's pace.
IntervalList tailOf(const IntervalList& exposed, model::TimeNs ns)
{
    IntervalList out;
    for (auto it = exposed.rbegin(); it != exposed.rend() && ns > 0; ++it) {
        const model::TimeNs take = std::min(ns, it->length());
        out.push_back({it->end - take, it->end});
        ns -= take;
    }
    std::reverse(out.begin(), out.end());
    return out;
}

} // namespace

PassOutput SlowLinkPass::run(const AnalysisContext& context) const
{
    const model::Trace& trace = context.trace();
    PassOutput out;
    if (std::string why = context.notMeasuredReason("transfer times are not real"); !why.empty())
        return PassOutput::notAssessed(std::move(why));
    const CommunicationProfile& profile = context.communication();
    if (!profile.hasCommunication) {
        out.notAssessedReason = "no device collectives in this trace";
        return out;
    }
    const std::string device = acceleratorName(trace.metadata());
    FindingAccumulator acc(context.clock());
    std::int64_t bytes = 0;
    std::int64_t rated = 0;
    model::TimeNs atPeak = 0;
    model::TimeNs transfer = 0;
    double busBytes = 0.0; // Σ bytes × factor
    double worstShare = 1.0;
    std::string link;
    double peak = 0.0;
    std::string source;
    std::vector<model::SliceRef> scaled;
    std::vector<double> scales;
    const std::vector<model::TimeNs> transferOf = rankTransferTimes(profile);
    std::size_t index = 0;
    for (const StepCommunication& s : profile.steps) {
        for (const CollectiveOp& op : s.collectives) {
            if (context.cancel().cancelled())
                return out;
            const model::TimeNs estimate = transferOf[index++];
            const auto rate = collectiveRate(op, estimate, TransferSource::FastestOfSize, device);
            if (!rate)
                continue;
            ++rated;
            if (rate->peakGBps <= 0 || rate->busbwGBps <= 0 || rate->bytes < kMinBytes)
                continue;
            const double share = rate->busbwGBps / rate->peakGBps;
            if (share >= kSlowShare)
                continue;
            // Only the transfer is held against the link: what the collective took above it (waiting for peers,
            // idle inside it) is the communication and straggler findings' time, not the link's.
            // The measured transit of an Ascend operation can exceed its duration (several transfers at once); the
            // part of the collective held against the link is never more than the collective.
            const model::TimeNs wall = op.end - op.start;
            const model::TimeNs held = std::min(rate->transferNs, wall);
            const model::TimeNs beyond = held - static_cast<model::TimeNs>(std::llround(double(held) * share));
            const model::TimeNs lost = std::min(beyond, totalLength(op.exposed));
            if (lost <= 0)
                continue;
            for (const Interval& piece : tailOf(op.exposed, lost)) {
                acc.addLoss(piece.start, piece.end);
                acc.addEvidence(profile.primaryTrack, piece.start, piece.end);
            }
            acc.countOccurrence();
            acc.addEvent(op.slice);
            // What-if: its transfer runs at the link's pace; the rest of the collective stays.
            scaled.push_back(op.slice);
            scales.push_back(double(wall - beyond) / double(wall));
            bytes += rate->bytes;
            transfer += rate->transferNs;
            busBytes += rate->busbwGBps * double(rate->transferNs);
            atPeak += rate->atPeakNs;
            worstShare = std::min(worstShare, share);
            link = rate->link;
            peak = rate->peakGBps;
            source = std::string(transferSourceKey(rate->source));
        }
    }
    if (acc.lostNs() <= 0)
        return out;
    Finding f = acc.finish(std::string(kind()));
    const bool hccl = profile.backend == CommBackend::Hccl;
    const double busbw = transfer > 0 ? busBytes / double(transfer) : 0.0;
    f.platform = trace.metadata().platform;
    f.title = "Slow " + link + " link: " + std::to_string(acc.occurrences()) + " collective"
        + (acc.occurrences() == 1 ? "" : "s") + " at " + formatFixed(busbw, 1) + " GB/s bus bandwidth of "
        + formatFixed(peak, 0) + " GB/s peak, " + formatDuration(f.lostNs) + " of transfer beyond the link's pace";
    f.details.push_back({"link", link});
    f.details.push_back({"peak_gbps", peak});
    f.details.push_back({"busbw_gbps", busbw});
    f.details.push_back({"worst_share_of_peak", worstShare});
    f.details.push_back({"bytes", bytes});
    f.details.push_back({"transfer_ns", transfer});
    f.details.push_back({"at_peak_ns", atPeak});
    f.details.push_back({"transfer_source", source});
    f.details.push_back({"collectives_rated", rated});
    f.details.push_back({"min_bytes", kMinBytes});
    f.details.push_back({"slow_share", kSlowShare});
    f.explanation = "These collectives moved at least 1 MiB each at under a quarter of the " + link
        + " link's peak (bus bandwidth as NCCL-tests counts it: algorithm bandwidth × 2(n−1)/n for all-reduce, "
          "(n−1)/n for all-gather, reduce-scatter and all-to-all). The lost time is what they took beyond the link "
          "at its peak, inside the time no compute overlapped."
        + std::string(source == "fastest_of_size"
                          ? " On one rank a collective's duration includes waiting for its peers, which only lengthens "
                            "it: each collective's transfer is taken as the fastest of the rank's collectives of the "
                            "same kind and size, and only that is held against the link (what it took above that is "
                            "waiting, priced by the communication finding). Still a bound on the bandwidth: "
                            "`timesink-cli job` over all ranks takes the group's shortest duration as the transfer."
                          : " The bandwidth is the one the Ascend tools measured on the link (communication.json).");
    f.recommendation = slowLinkRecommendation(hccl, link);
    f.whatIf.scaledDevice = std::move(scaled);
    f.whatIf.scales = std::move(scales);
    f.savingRule = "The slow collectives' transfer runs at the link's peak: each loses its transfer time beyond the "
                   "link's pace and keeps the rest.";
    out.findings.push_back(std::move(f));
    return out;
}

} // namespace timesink::analysis
