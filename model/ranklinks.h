// SPDX-License-Identifier: MIT
#pragma once

#include "model/types.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace timesink::model {

/// What one rank sent another over one transport, summed over a profile (Ascend communication_matrix.json):
/// TraceMetadata::rankLinks, by (src, dst, transport).
struct RankLink
{
    std::int32_t src = -1;
    std::int32_t dst = -1;
    std::string transport; // "HCCS", "RDMA", "SDMA", "PCIE", "SIO", "LOCAL" …
    std::int64_t bytes = 0;
    model::TimeNs transitNs = 0;
    /// bytes / ns = GB/s (10^9 bytes per second); 0 without transit time.
    [[nodiscard]] double gbPerSecond() const { return transitNs > 0 ? double(bytes) / double(transitNs) : 0.0; }
};

/// Reads the "rank_links" text the importer wrote before rank links were a typed field (a report or snapshot of
/// timesink 0.3 and older): "src-dst transport bytes transit_ns" per pair, joined by
/// "; " ("0-1 HCCS 61210624 3883938; 0-0 LOCAL 61210656 145803" → two links). Malformed items are skipped and
/// counted in `skipped`; at most 65,536 links are kept. Sorted by (src, dst, transport), duplicates dropped.
std::vector<RankLink> parseRankLinks(std::string_view property, std::size_t* skipped = nullptr);

/// A link as the importer writes it: ranks, bytes and transit not negative, a transport of 1 to 32 bytes. Readers
/// of untrusted files (reports, snapshots, exports) keep only such links.
bool isWellFormed(const RankLink& link);

/// The links of several ranks as one list: sorted by (src, dst, transport), the first of equal keys kept, at most
/// 65,536.
void mergeRankLinks(std::vector<RankLink>& into, const std::vector<RankLink>& more);

} // namespace timesink::model
