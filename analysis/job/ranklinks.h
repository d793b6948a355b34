// SPDX-License-Identifier: MIT
#pragma once

#include "model/types.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace timesink::analysis {

/// What one rank sent another over one transport, summed over a profile (Ascend communication_matrix.json).
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

/// Reads the importer's "rank_links" trace property back: "src-dst transport bytes transit_ns" per pair, joined by
/// "; " ("0-1 HCCS 61210624 3883938; 0-0 LOCAL 61210656 145803" → two links). Malformed items are skipped and
/// counted in `skipped`; at most 65,536 links are kept. Sorted by (src, dst, transport), duplicates dropped.
std::vector<RankLink> parseRankLinks(std::string_view property, std::size_t* skipped = nullptr);

/// The links of several ranks as one list: sorted by (src, dst, transport), the first of equal keys kept.
void mergeRankLinks(std::vector<RankLink>& into, const std::vector<RankLink>& more);

} // namespace timesink::analysis
