// SPDX-License-Identifier: MIT
#include "parsers/ascend/ascendcommunication.h"

#include "model/checkedmath.h"
#include "parsers/common/regularfile.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

namespace timesink::parsers {

namespace {

// A finite, non-negative number, or false (a field of another type or out of range is unusable).
bool number(const nlohmann::json& obj, const char* key, double& out)
{
    const auto it = obj.find(key);
    if (it == obj.end() || !it->is_number())
        return false;
    const double v = it->get<double>();
    if (!std::isfinite(v) || v < 0)
        return false;
    out = v;
    return true;
}

/// The transport of "Communication Bandwidth Info" that moved the most bytes, into `row`.
void readMainLink(const nlohmann::json& op, CommunicationOpRow& row)
{
    const auto bw = op.find("Communication Bandwidth Info");
    if (bw == op.end() || !bw->is_object())
        return;
    for (const char* type : {"HCCS", "RDMA", "PCIE", "SIO"}) {
        const auto link = bw->find(type);
        double size = 0;
        double time = 0;
        if (link == bw->end() || !link->is_object() || !number(*link, "Transit Size(MB)", size)
            || !number(*link, "Transit Time(ms)", time) || size <= 0 || time <= 0)
            continue;
        if (size > row.linkSizeMb) {
            row.linkType = type;
            row.linkSizeMb = size;
            row.linkTimeMs = time;
        }
    }
}

} // namespace

CommunicationOpTable readCommunicationJson(const std::filesystem::path& path)
{
    CommunicationOpTable out;
    std::string text;
    // A few KB per operation: 64 MiB is tens of thousands of operations, and a DOM of it stays bounded.
    if (!readSmallRegularFile(path, 64ULL << 20, "communication.json", text, out.error))
        return out;
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
        out.error = path.string() + " is not a JSON object; communication wait comes from the Notify_Wait tasks";
        return out;
    }
    for (const auto& [step, groups] : j.items()) {
        if (!groups.is_object())
            continue;
        for (const char* group : {"collective", "p2p"}) {
            const auto g = groups.find(group);
            if (g == groups.end() || !g->is_object())
                continue;
            for (const auto& [key, op] : g->items()) {
                if (key == "Total Op Info")
                    continue;
                const auto info = op.is_object() ? op.find("Communication Time Info") : op.end();
                CommunicationOpRow row;
                double startUs = 0;
                if (info == op.end() || !info->is_object() || !number(*info, "Start Timestamp(us)", startUs)
                    || !number(*info, "Wait Time(ms)", row.waitMs) || startUs * 1000.0 >= double(model::kMaxTimeNs)) {
                    ++out.skipped;
                    continue;
                }
                row.name = key.substr(0, key.find('@'));
                row.start = static_cast<model::TimeNs>(std::llround(startUs * 1000.0));
                number(*info, "Elapse Time(ms)", row.elapseMs);
                number(*info, "Transit Time(ms)", row.transitMs);
                number(*info, "Synchronization Time(ms)", row.synchronizationMs);
                number(*info, "Idle Time(ms)", row.idleMs);
                readMainLink(op, row);
                out.rows.push_back(std::move(row));
            }
        }
    }
    std::stable_sort(out.rows.begin(), out.rows.end(),
                     [](const CommunicationOpRow& a, const CommunicationOpRow& b) { return a.start < b.start; });
    return out;
}

namespace {

// "0-1" → (0, 1); false for anything else.
bool rankPair(std::string_view key, std::int32_t& src, std::int32_t& dst)
{
    const std::size_t dash = key.find('-');
    if (dash == std::string_view::npos || dash == 0 || dash + 1 >= key.size() || key.size() > 16)
        return false;
    auto parse = [](std::string_view t, std::int32_t& out) {
        std::int64_t v = 0;
        for (const char c : t) {
            if (c < '0' || c > '9')
                return false;
            v = v * 10 + (c - '0');
        }
        if (v > 1'000'000)
            return false;
        out = static_cast<std::int32_t>(v);
        return true;
    };
    return parse(key.substr(0, dash), src) && parse(key.substr(dash + 1), dst);
}

bool isTotalOp(std::string_view key)
{
    const std::string_view name = key.substr(0, key.find('@'));
    return name.size() >= 6 && name.substr(name.size() - 6) == "-total";
}

} // namespace

RankLinkTable readCommunicationMatrixJson(const std::filesystem::path& path)
{
    RankLinkTable out;
    std::string text;
    if (!readSmallRegularFile(path, 64ULL << 20, "communication_matrix.json", text, out.error))
        return out;
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
        out.error = path.string() + " is not a JSON object; the job has no rank-pair link figures";
        return out;
    }
    std::map<std::tuple<std::int32_t, std::int32_t, std::string>, std::pair<double, double>> sums; // MB, ms
    for (const auto& [step, groups] : j.items()) {
        if (!groups.is_object())
            continue;
        for (const char* kind : {"collective", "p2p"}) {
            const auto g = groups.find(kind);
            if (g == groups.end() || !g->is_object())
                continue;
            // Groups (the "@hash" part) with a "-total" operation count only that one.
            std::set<std::string> totalled;
            for (const auto& [key, op] : g->items()) {
                if (isTotalOp(key) && op.is_object())
                    totalled.insert(key.substr(key.find('@') == std::string::npos ? key.size() : key.find('@')));
            }
            for (const auto& [key, op] : g->items()) {
                if (key == "Total Op Info" || !op.is_object())
                    continue;
                const std::string group = key.substr(key.find('@') == std::string::npos ? key.size() : key.find('@'));
                if (totalled.contains(group) && !isTotalOp(key))
                    continue;
                for (const auto& [pair, link] : op.items()) {
                    std::int32_t src = -1;
                    std::int32_t dst = -1;
                    double mb = 0;
                    double ms = 0;
                    const auto type = link.is_object() ? link.find("Transport Type") : link.end();
                    if (!rankPair(pair, src, dst) || type == link.end() || !type->is_string() || type->empty()
                        || !number(link, "Transit Size(MB)", mb) || !number(link, "Transit Time(ms)", ms) || mb > 1e12
                        || ms > 1e12) {
                        ++out.skipped;
                        continue;
                    }
                    auto& s = sums[{src, dst, type->get<std::string>()}];
                    s.first += mb;
                    s.second += ms;
                }
            }
        }
    }
    for (const auto& [k, v] : sums) {
        model::RankLink r;
        r.src = std::get<0>(k);
        r.dst = std::get<1>(k);
        r.transport = std::get<2>(k);
        r.bytes = std::llround(v.first * 1e6);
        r.transitNs = std::llround(v.second * 1e6);
        out.rows.push_back(std::move(r));
    }
    return out;
}

CommunicationOpJoin::CommunicationOpJoin(model::TraceBuilder& b, const CommunicationOpTable& table)
    : m_table(table)
    , m_used(table.rows.size(), false)
    , m_wait(b.intern("Wait Time(ms)"))
    , m_transit(b.intern("Transit Time(ms)"))
    , m_sync(b.intern("Synchronization Time(ms)"))
    , m_idle(b.intern("Idle Time(ms)"))
    , m_linkType(b.intern("Link Type"))
    , m_linkSize(b.intern("Link Transit Size(MB)"))
    , m_linkTime(b.intern("Link Transit Time(ms)"))
    , m_builder(b)
{
}

bool CommunicationOpJoin::append(std::string_view name, model::TimeNs start, std::vector<model::Arg>& args)
{
    // The JSON start is a double of epoch µs (≈0.25 µs apart at today's dates); the timeline's is exact to the ns.
    constexpr model::TimeNs kTolerance = 1000;
    const auto& rows = m_table.rows;
    auto it = std::lower_bound(rows.begin(), rows.end(), model::saturatingSub(start, kTolerance),
                               [](const CommunicationOpRow& r, model::TimeNs t) { return r.start < t; });
    std::size_t best = rows.size();
    model::TimeNs bestDistance = kTolerance + 1;
    for (; it != rows.end() && it->start <= model::saturatingAdd(start, kTolerance); ++it) {
        const std::size_t i = static_cast<std::size_t>(it - rows.begin());
        const model::TimeNs distance = it->start > start ? it->start - start : start - it->start;
        if (!m_used[i] && it->name == name && distance < bestDistance) {
            best = i;
            bestDistance = distance;
        }
    }
    if (best == rows.size())
        return false;
    m_used[best] = true;
    ++m_matched;
    const CommunicationOpRow& r = rows[best];
    args.push_back(model::Arg {m_wait, model::ArgValue::fromDouble(r.waitMs)});
    args.push_back(model::Arg {m_transit, model::ArgValue::fromDouble(r.transitMs)});
    args.push_back(model::Arg {m_sync, model::ArgValue::fromDouble(r.synchronizationMs)});
    args.push_back(model::Arg {m_idle, model::ArgValue::fromDouble(r.idleMs)});
    if (!r.linkType.empty()) {
        args.push_back(model::Arg {m_linkType, model::ArgValue::fromString(m_builder.intern(r.linkType))});
        args.push_back(model::Arg {m_linkSize, model::ArgValue::fromDouble(r.linkSizeMb)});
        args.push_back(model::Arg {m_linkTime, model::ArgValue::fromDouble(r.linkTimeMs)});
    }
    return true;
}

} // namespace timesink::parsers
