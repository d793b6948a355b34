// SPDX-License-Identifier: MIT
// KinetoSink (kinetosink.h): dispatch of each event by phase, slices (X, B/E, instants), their args and classification,
// and finishing.
#include "model/argnames.h"
#include "model/checkedmath.h"
#include "model/tracebuilder.h"
#include "parsers/chromejson/kinetosink.h"

#include <algorithm>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace timesink::parsers::chromejson::kineto {

using model::SliceCategory;
using model::TimeNs;

void KinetoSink::onEvent(const ChromeEvent& e)
{
    ++m_eventsSeen;
    if (e.cat == kExportedFindingCategory) {
        // The findings of an earlier analysis, written by timesink-cli export: results, not trace events.
        // Analysing them again would count their spans as host work, so they are left out.
        m_b.warn(model::ImportWarningKind::ExportedFindingsSkipped,
                 "the \"Timesink findings\" track of an exported trace was left out (findings are recomputed)");
        return;
    }
    if (!e.cat.empty())
        m_anyCategory = true;
    switch (e.ph) {
    case 'X':
        addComplete(e);
        break;
    case 'B':
        begin(e);
        break;
    case 'E':
        end(e);
        break;
    case 'i':
    case 'I':
        instant(e);
        break;
    case 's':
    case 'f':
    case 't':
        flowEvent(e);
        m_prevCorrelation = -1;
        return;
    case 'M':
        metadataEvent(e);
        break;
    case 'C':
        counter(e);
        break;
    default:
        m_b.warn(model::ImportWarningKind::UnsupportedEvent,
                 "events of phase '" + std::string(1, e.ph ? e.ph : '?') + "' are not supported and were skipped");
        break;
    }
    m_prevCorrelation = -1;
    if (const ChromeArg* a = e.arg("correlation"); a && a->kind == ChromeArg::Kind::Int && e.ph == 'X' && !m_described)
        m_prevCorrelation = a->i;
}

void KinetoSink::finish()
{
    // B without E: close at the end of the trace so the time is not lost, and flag it.
    m_open.drainOpen([this](std::uint64_t track, OpenSlice& o) {
        o.input.dur = std::max<TimeNs>(0, model::saturatingSub(m_maxTs, o.ts));
        o.input.flags |= model::SliceFlags::kUnmatched;
        commit(model::TrackId(static_cast<std::uint32_t>(track)), o.input, o.correlation, o.host);
        m_b.warn(model::ImportWarningKind::UnmatchedBegin,
                 "a 'B' event has no matching 'E'; it was closed at the end of the trace");
    });
    linkCorrelations();
    resolveFlows();
    nameTracks();
    if (m_described) {
        for (const DescribedStep& s : m_described->steps)
            m_b.addStep(s.number, m_b.intern(s.name), s.start, s.end, s.marker);
        m_b.metadata() = std::move(m_described->meta);
        return;
    }
    if (m_b.metadata().devices.empty()) {
        for (int index : m_deviceIndices) {
            model::Device d;
            d.kind = model::DeviceKind::Gpu;
            d.index = index;
            d.name = "GPU " + std::to_string(index);
            m_b.metadata().devices.push_back(std::move(d));
        }
    }
}

model::ArgSetId KinetoSink::convertArgs(const ChromeEvent& e, bool device, bool linked, bool keepStream)
{
    if (e.args.empty())
        return {};
    m_argScratch.clear();
    std::size_t slot = 0;
    bool carriesEventId = false;
    for (const ChromeArg& a : e.args) {
        // A described export holds exactly the slice's own args, plus its class (see buildInput).
        if (m_described ? startsWith(a.key, kDescribedArgPrefix) : redundantArg(a.key, device, linked, keepStream))
            continue;
        carriesEventId = carriesEventId || a.key == "External id" || a.key == "correlation" || a.key == "Python id";
        model::Arg out;
        out.key = m_argKeyCache[std::min<std::size_t>(slot++, kKeyCacheSlots - 1)](m_b, a.key);
        switch (a.kind) {
        case ChromeArg::Kind::Int:
            out.value = model::ArgValue::fromInt(a.i);
            break;
        case ChromeArg::Kind::Double:
            out.value = model::ArgValue::fromDouble(a.d);
            break;
        case ChromeArg::Kind::Bool:
            out.value = model::ArgValue::fromBool(a.i != 0);
            break;
        case ChromeArg::Kind::String:
        case ChromeArg::Kind::Json:
            out.value = model::ArgValue::fromString(m_intern(a.text));
            break;
        case ChromeArg::Kind::Null:
            continue;
        }
        m_argScratch.push_back(out);
    }
    // A set with a per-event id never repeats; looking it up in the dedupe index would only cost a cache miss.
    return carriesEventId ? m_b.addUniqueArgs(m_argScratch) : m_b.addArgs(m_argScratch);
}

bool KinetoSink::buildInput(const ChromeEvent& e, model::SliceInput& in, Classified& c, std::int64_t& correlation)
{
    if (m_described && describedInput(e, in, c)) {
        correlation = -1; // launches come as s/f pairs of their own
        return true;
    }
    in.name = m_intern(e.name);
    in.rawCategory = m_catCache(m_b, e.cat);
    c = classifyCached(in.name, in.rawCategory, e.cat, e.name);
    in.category = c.category;
    correlation = -1;
    if (const ChromeArg* a = e.arg("correlation"); a && a->kind == ChromeArg::Kind::Int)
        correlation = a->i;
    const bool device = c.placement != Placement::Host;
    in.args = convertArgs(e, device, device && correlation >= 0 && hostLaunch(correlation) != nullptr,
                          c.placement == Placement::DeviceSync);
    if (c.category == SliceCategory::Memcpy) {
        const ChromeArg* kind = e.arg("kind");
        const MemcpyKind k
            = memcpyKind(e.name, kind && kind->kind == ChromeArg::Kind::String ? kind->text : std::string_view());
        in.setMemcpy(k.direction, k.memory);
    }
    return true;
}

/// A slice of a described export: its category, flags and source category as the args say them, its track
/// from the description. False when the slice lacks "timesink.category" (then it is read like Kineto's).
bool KinetoSink::describedInput(const ChromeEvent& e, model::SliceInput& in, Classified& c)
{
    const ChromeArg* category = e.arg("timesink.category");
    const auto known
        = category && category->kind == ChromeArg::Kind::String ? categoryFromKey(category->text) : std::nullopt;
    if (!known)
        return false;
    c = Classified {*known, Placement::Host};
    in.name = m_intern(e.name);
    in.category = *known;
    in.rawCategory = {};
    if (const ChromeArg* raw = e.arg("timesink.cat"); raw && raw->kind == ChromeArg::Kind::String)
        in.rawCategory = m_catCache(m_b, raw->text);
    in.flags = 0;
    if (const ChromeArg* flags = e.arg("timesink.flags");
        flags && flags->kind == ChromeArg::Kind::Int && flags->i > 0 && flags->i <= 0xff)
        in.flags = static_cast<std::uint8_t>(flags->i & ~model::SliceFlags::kPartialOverlap); // finalize sets it
    in.args = convertArgs(e);
    return true;
}

void KinetoSink::commit(model::TrackId track, const model::SliceInput& in, std::int64_t correlation, bool host)
{
    const model::SliceRef ref = m_b.addSlice(track, in);
    if (!ref.isValid())
        return; // outside the representable time range: counted by the builder
    ++m_useful;
    m_maxTs = std::max(m_maxTs, in.ts + in.dur);
    if (correlation >= 0) {
        if (host && in.category == SliceCategory::RuntimeApi) {
            m_corr.addLaunch(correlation, ref);
        } else if (!host) {
            if (const model::SliceRef* launch = hostLaunch(correlation)) {
                m_b.addFlow(*launch, ref, model::FlowKind::Launch);
                m_corr.link(correlation);
            } else {
                m_corr.addActivity(correlation, ref);
            }
        }
    }
    if (m_described) {
        // Steps come from the description; its markers are found by track and start.
        if (const auto it = m_stepMarkers.find({track.value, in.ts}); it != m_stepMarkers.end()) {
            for (std::size_t s : it->second) {
                DescribedStep& step = m_described->steps[s];
                if (!step.marker.isValid() && m_b.str(in.name) == step.name) {
                    step.marker = ref;
                    break;
                }
            }
        }
        return;
    }
    if (host && in.category == SliceCategory::Step) {
        const std::string_view name = m_b.str(in.name);
        std::int64_t number = static_cast<std::int64_t>(m_stepsSeen);
        if (auto n = toInt(name.substr(std::string_view("ProfilerStep#").size())))
            number = *n;
        ++m_stepsSeen;
        m_b.addStep(number, in.name, in.ts, in.ts + in.dur, ref);
    }
}

void KinetoSink::addComplete(const ChromeEvent& e)
{
    if (!e.hasTs) {
        m_b.warn(model::ImportWarningKind::MissingTs, "an 'X' event without a usable ts was skipped");
        return;
    }
    model::SliceInput in;
    Classified c;
    std::int64_t correlation = -1;
    buildInput(e, in, c, correlation);
    in.ts = model::saturatingAdd(e.ts, m_base);
    if (!e.hasDur)
        m_b.warn(model::ImportWarningKind::MissingDur, "an 'X' event without a usable dur was kept with zero duration");
    in.dur = e.hasDur ? e.dur : 0;
    if (in.dur < 0) {
        m_b.warn(model::ImportWarningKind::NegativeDur,
                 "an event with a negative duration was kept with zero duration");
        in.dur = 0;
    }
    const model::TrackId track = trackFor(e, c.placement);
    commit(track, in, correlation, c.placement == Placement::Host);
}

void KinetoSink::begin(const ChromeEvent& e)
{
    if (!e.hasTs) {
        m_b.warn(model::ImportWarningKind::MissingTs, "a 'B' event without a usable ts was skipped");
        return;
    }
    OpenSlice o;
    Classified c;
    buildInput(e, o.input, c, o.correlation);
    o.ts = model::saturatingAdd(e.ts, m_base);
    o.input.ts = o.ts;
    o.host = c.placement == Placement::Host;
    m_open.begin(trackFor(e, c.placement).value, o);
}

void KinetoSink::end(const ChromeEvent& e)
{
    // An E closes the innermost open B of its thread (host or device placement alike).
    const Classified c = classify(e.cat, e.name);
    const model::TrackId track = trackFor(e, c.placement);
    std::optional<OpenSlice> open = e.hasTs ? m_open.end(track.value) : std::nullopt;
    if (!open) {
        m_b.warn(model::ImportWarningKind::UnmatchedEnd, "an 'E' event has no open 'B' on its thread and was skipped");
        return;
    }
    OpenSlice& o = *open;
    o.input.dur = std::max<TimeNs>(0, model::saturatingSub(model::saturatingAdd(e.ts, m_base), o.ts));
    if (o.input.args == model::ArgSetId() && !e.args.empty())
        o.input.args = convertArgs(e);
    commit(track, o.input, o.correlation, o.host);
}

void KinetoSink::instant(const ChromeEvent& e)
{
    if (!e.hasTs) {
        m_b.warn(model::ImportWarningKind::MissingTs, "an instant event without a usable ts was skipped");
        return;
    }
    if (e.name == "[memory]") {
        // Allocator samples become a per-device "allocated" counter rather than thousands of markers.
        const ChromeArg* total = e.arg("Total Allocated");
        const ChromeArg* dev = e.arg("Device Id");
        if (total && (total->kind == ChromeArg::Kind::Int || total->kind == ChromeArg::Kind::Double)) {
            const std::int64_t device = dev && dev->kind == ChromeArg::Kind::Int ? dev->i : -1;
            const std::string name = model::allocatedMemoryCounterName(device);
            const model::TrackId t = counterTrack(e.pid, name, device);
            m_b.addCounterSample(t, model::saturatingAdd(e.ts, m_base),
                                 total->kind == ChromeArg::Kind::Int ? double(total->i) : total->d);
            ++m_useful;
            return;
        }
    }
    model::SliceInput in;
    Classified c;
    std::int64_t correlation = -1;
    buildInput(e, in, c, correlation);
    in.category = c.category == SliceCategory::Step ? SliceCategory::Other : c.category;
    in.ts = model::saturatingAdd(e.ts, m_base);
    in.dur = 0;
    const model::TrackId track = trackFor(e, c.placement);
    m_b.addSlice(track, in);
    ++m_useful;
}

} // namespace timesink::parsers::chromejson::kineto
