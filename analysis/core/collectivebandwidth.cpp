// SPDX-License-Identifier: MIT
#include "analysis/core/collectivebandwidth.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace timesink::analysis {

std::string_view transferSourceKey(TransferSource s)
{
    switch (s) {
    case TransferSource::ShortestInGroup:
        return "shortest_in_group";
    case TransferSource::CommunicationJson:
        return "communication_json";
    case TransferSource::FastestOfSize:
        break;
    }
    return "fastest_of_size";
}

std::optional<CollectiveRate> collectiveRate(const CollectiveOp& op, model::TimeNs transferNs, TransferSource source,
                                             std::string_view deviceName)
{
    if (op.bytes <= 0)
        return std::nullopt;
    CollectiveRate r;
    r.bytes = op.bytes;
    const bool measured = !op.linkTransport.empty() && op.linkTransitNs > 0;
    r.transferNs = measured ? op.linkTransitNs : transferNs;
    r.source = measured ? TransferSource::CommunicationJson : source;
    if (r.transferNs <= 0)
        return std::nullopt;
    r.algbwGBps = double(r.bytes) / double(r.transferNs);
    const double factor = measured ? 1.0 : busBandwidthFactor(op.opKind, op.groupSize);
    r.busbwGBps = r.algbwGBps * factor;
    const std::optional<LinkPeak> peak
        = measured ? ascendLinkPeak(op.linkTransport, deviceName) : gpuLinkPeak(deviceName);
    if (measured)
        r.link = op.linkTransport;
    if (peak) {
        r.link = peak->link;
        r.peakGBps = peak->gbps;
        if (factor > 0)
            r.atPeakNs = static_cast<model::TimeNs>(std::llround(double(r.bytes) * factor / peak->gbps));
    }
    return r;
}

void addToSummary(std::vector<BandwidthSummary>& summaries, std::string_view opKind, const CollectiveRate& rate,
                  std::uint64_t collectives)
{
    auto it = std::find_if(summaries.begin(), summaries.end(),
                           [&](const BandwidthSummary& s) { return s.opKind == opKind; });
    if (it == summaries.end()) {
        summaries.push_back({std::string(opKind), 0, 0, 0, 0.0, 0.0, rate.source, rate.link, rate.peakGBps});
        it = summaries.end() - 1;
    }
    BandwidthSummary& s = *it;
    // busbw sums bytes × factor; keep that sum in busbw × transfer form so one kind's rates stay exact averages.
    const double busBytesBefore = s.busbwGBps * double(s.transferNs);
    const double busBytes = rate.busbwGBps * double(rate.transferNs);
    s.collectives += collectives;
    s.bytes += rate.bytes;
    s.transferNs += rate.transferNs;
    s.algbwGBps = s.transferNs > 0 ? double(s.bytes) / double(s.transferNs) : 0.0;
    s.busbwGBps = s.transferNs > 0 ? (busBytesBefore + busBytes) / double(s.transferNs) : 0.0;
    if (s.link.empty())
        s.link = rate.link;
    if (s.peakGBps <= 0)
        s.peakGBps = rate.peakGBps;
}

std::vector<model::TimeNs> rankTransferTimes(const CommunicationProfile& profile)
{
    using Key = std::tuple<std::string_view, std::int64_t, std::int32_t>;
    std::map<Key, model::TimeNs> fastest;
    std::vector<model::TimeNs> out;
    for (const StepCommunication& s : profile.steps) {
        for (const CollectiveOp& op : s.collectives) {
            out.push_back(op.end - op.start);
            if (op.bytes <= 0 || op.end <= op.start)
                continue;
            const auto [it, fresh] = fastest.try_emplace(Key(op.opKind, op.bytes, op.groupSize), op.end - op.start);
            if (!fresh)
                it->second = std::min(it->second, op.end - op.start);
        }
    }
    std::size_t i = 0;
    for (const StepCommunication& s : profile.steps) {
        for (const CollectiveOp& op : s.collectives) {
            if (op.bytes > 0 && op.end > op.start)
                out[i] = fastest.at(Key(op.opKind, op.bytes, op.groupSize));
            ++i;
        }
    }
    return out;
}

std::vector<BandwidthSummary> summarizeBandwidth(const CommunicationProfile& profile, std::string_view deviceName)
{
    std::vector<BandwidthSummary> out;
    const std::vector<model::TimeNs> transfer = rankTransferTimes(profile);
    std::size_t i = 0;
    for (const StepCommunication& s : profile.steps) {
        for (const CollectiveOp& op : s.collectives) {
            if (const auto r = collectiveRate(op, transfer[i++], TransferSource::FastestOfSize, deviceName))
                addToSummary(out, op.opKind, *r);
        }
    }
    return out;
}

} // namespace timesink::analysis
