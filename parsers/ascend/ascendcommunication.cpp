// SPDX-License-Identifier: MIT
#include "parsers/ascend/ascendcommunication.h"

#include "model/checkedmath.h"
#include "parsers/common/regularfile.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

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
