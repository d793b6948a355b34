// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/bandwidth.h"
#include "analysis/core/communication.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace timesink::analysis {

/// Where a collective's transfer time comes from.
enum class TransferSource : std::uint8_t {
    /// One rank: the fastest duration among the rank's collectives of the same kind, bytes and group size. Waiting
    /// for peers only lengthens a collective, so the fastest of its repeats is the closest a rank alone can come to
    /// the transfer; still a bound (bandwidth ≥ this).
    FastestOfSize,
    ShortestInGroup,   // a job: the shortest duration among the group's members (the last arriver does not wait)
    CommunicationJson, // Ascend: the main link's Transit Time as communication.json measured it
};
/// "fastest_of_size", "shortest_in_group", "communication_json".
std::string_view transferSourceKey(TransferSource s);

/// The bandwidth of one collective.
/// * algbw = bytes / transfer (GB/s = bytes per ns);
/// * busbw = algbw × busBandwidthFactor(op, group size) (NCCL-tests), or, when the Ascend tools measured the main
///   link, bytes / its transit time: the tools' per-link "Bandwidth(GB/s)" (no factor: it is already per link);
///   0 when the group size is unknown;
/// * atPeakNs: the time the transfer would take with the link at its peak, bytes × factor / peak (0 no peak).
/// Example: allreduce of 64 MB over 2 ranks in 1 ms on A100 (NVLink3, 300 GB/s) → algbw 64, busbw 64,
/// at peak 0.213 ms.
struct CollectiveRate
{
    std::int64_t bytes = 0;
    model::TimeNs transferNs = 0;
    double algbwGBps = 0.0;
    double busbwGBps = 0.0;
    model::TimeNs atPeakNs = 0;
    TransferSource source = TransferSource::FastestOfSize;
    std::string link; // the link the rate is held against ("NVLink3", "HCCS"); "" unknown
    double peakGBps = 0.0;
};

/// The rate of `op` with `transferNs` as its transfer (ignored when the Ascend tools measured the link); nothing
/// when its bytes are unknown or the transfer is not positive. `deviceName`: the rank's accelerator.
std::optional<CollectiveRate> collectiveRate(const CollectiveOp& op, model::TimeNs transferNs, TransferSource source,
                                             std::string_view deviceName);

/// One kind of collective summed over a trace (or a job): bytes and transfer time of the collectives whose bytes
/// are known; algbw = Σbytes / Σtransfer, busbw = Σ(bytes × factor) / Σtransfer over those with a factor.
struct BandwidthSummary
{
    std::string opKind;
    std::uint64_t collectives = 0; // with known bytes
    std::int64_t bytes = 0;
    model::TimeNs transferNs = 0;
    double algbwGBps = 0.0;
    double busbwGBps = 0.0;
    TransferSource source = TransferSource::FastestOfSize;
    std::string link;
    double peakGBps = 0.0;
};

/// Adds `rate` of `collectives` collectives of `opKind` (its bytes and transfer their sums, its busbw their
/// Σ(bytes × factor) / Σtransfer) to `summaries` (one entry per kind, in order of first appearance).
void addToSummary(std::vector<BandwidthSummary>& summaries, std::string_view opKind, const CollectiveRate& rate,
                  std::uint64_t collectives = 1);

/// The transfer time a rank alone can give each of its collectives, in the order of `profile.steps[].collectives`
/// (flattened): the fastest duration among its collectives of the same kind, bytes and group size
/// (TransferSource::FastestOfSize). Collectives of unknown bytes keep their own duration. The Ascend tools' measured
/// transit, where present, replaces it in collectiveRate().
/// Example: three 26.6 MB all-reduces of 2.16, 2.42 and 2.64 ms → 2.16 ms each; the rest is waiting for peers (or
/// contention), not the link's pace.
std::vector<model::TimeNs> rankTransferTimes(const CommunicationProfile& profile);

/// Per kind, the bandwidth of a rank's collectives (transfer = rankTransferTimes(), or the measured link transit).
std::vector<BandwidthSummary> summarizeBandwidth(const CommunicationProfile& profile, std::string_view deviceName);

} // namespace timesink::analysis
