// SPDX-License-Identifier: MIT
// Internal to the Kineto importer: the sink that builds the model from the Chrome reader's events in Kineto's
// dialect. Its jobs are in one file each: kinetoevents.cpp (dispatch, slices, args, B/E), kinetotracks.cpp (threads
// and devices → tracks, their names and order), kinetoflows.cpp (flow events, the correlation join, flow
// resolution), kinetocounters.cpp (counter and memory tracks), kinetometadata.cpp (top-level keys, the export
// description, metadata events).
#pragma once

#include "model/trace.h"
#include "model/tracebuilder.h"
#include "parsers/chromejson/chromeeventreader.h"
#include "parsers/chromejson/kinetoclassify.h"
#include "parsers/chromejson/kinetodescription.h"
#include "parsers/common/beginend.h"
#include "parsers/common/correlationjoin.h"
#include "parsers/common/flowpairing.h"
#include "parsers/common/interncache.h"

#include <array>
#include <charconv>
#include <cstdint>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace timesink::parsers::chromejson::kineto {

using model::SliceCategory;
using model::TimeNs;

// The category of the findings' evidence slices in a trace written by timesink-cli export
// (exporters/chromejsonexporter).
inline constexpr std::string_view kExportedFindingCategory = "timesink.finding";

inline bool startsWith(std::string_view s, std::string_view p)
{
    return s.substr(0, p.size()) == p;
}

inline bool contains(std::string_view s, std::string_view p)
{
    return s.find(p) != std::string_view::npos;
}

inline std::optional<std::int64_t> toInt(std::string_view t)
{
    std::int64_t v = 0;
    auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc() || p != t.data() + t.size())
        return std::nullopt;
    return v;
}

struct OpenSlice
{
    TimeNs ts = 0;
    model::SliceInput input;
    std::int64_t correlation = -1;
    bool host = true;
};

class KinetoSink final : public ChromeEventSink
{
public:
    KinetoSink(model::TraceBuilder& builder, std::optional<TimeNs> knownBase, ProgressSink& progress)
        : m_b(builder)
        , m_progress(progress)
        , m_base(knownBase.value_or(0))
        , m_baseKnown(knownBase.has_value())
        , m_intern(builder)
    {
    }

    bool needsSecondPass() const { return m_lateBase; }
    std::optional<TimeNs> lateBase() const { return m_lateBaseValue; }
    bool anyCategory() const { return m_anyCategory; }
    std::uint64_t usefulEvents() const { return m_useful; }
    /// The file is a Timesink export with a description (see ExportDescription): its metadata is the source's.
    bool described() const { return m_described.has_value(); }
    /// otherData says the file is timesink-cli's export of a legacy (bare array, category-less) Kineto trace.
    bool legacyExport() const { return m_legacyExport; }

    [[nodiscard]] bool cancelled() const override { return m_progress.cancelled() || m_lateBase; }

    void onContainer(bool wrapper) override { m_wrapper = wrapper; }

    void onTopLevel(std::string_view key, std::string_view raw) override;

    void onWarning(model::ImportWarningKind kind, std::string_view message, std::uint64_t count) override
    {
        m_b.warn(kind, message, count);
    }

    void onEvent(const ChromeEvent& e) override;

    void finish();

private:
    /// Takes the "timesink" description of an export: creates its tracks in their order, so that events find
    /// them by pid and tid, and keeps the metadata and steps for finish().
    void describe(const nlohmann::json& j);

    /// The described track of an event's thread (an overlap lane counts as its thread), or an invalid id.
    model::TrackId describedTrack(std::string_view pid, std::string_view tid);

    struct TrackKeyHash
    {
        std::size_t operator()(const std::string& s) const { return std::hash<std::string>()(s); }
    };

    /// The thread an event belongs to: its own, or for an overlap lane of an exported trace the lane's thread.
    std::string_view threadOf(std::string_view pid, std::string_view tid);

    model::TrackId trackFor(const ChromeEvent& e, Placement placement);

    /// Keeps the answer of trackFor for the next event of the same thread and placement.
    model::TrackId rememberTrack(const ChromeEvent& e, Placement placement, model::TrackId id)
    {
        m_lastPlacement = placement;
        m_lastPidStore.assign(e.pid);
        m_lastTidStore.assign(e.tid);
        m_lastPid = m_lastPidStore;
        m_lastTid = m_lastTidStore;
        m_lastTrack = id;
        return id;
    }

    // Args that repeat what the model already says are not stored (5 M unique arg sets would cost more memory
    // than all slices together): on device activities `device`, `context` and `stream` (the track says them), and
    // `correlation` / `External id` once the activity is linked to its launch by a flow (the launch keeps them);
    // on host events the writer's running `Ev Idx`, the profiler-internal `Record function id` handle, and CUPTI's
    // `cbid` (a constant per runtime function, so the name says it). Everything else is kept.
    /// `keepStream`: the event lies on a per-device track that does not say its stream (a `cuda_sync` event: a
    /// Stream Wait Event's `stream` is the stream that waits).
    static bool redundantArg(std::string_view key, bool device, bool linked, bool keepStream)
    {
        if (device) {
            if (key == "device" || key == "context" || (key == "stream" && !keepStream))
                return true;
            if (linked && (key == "correlation" || key == "External id"))
                return true;
            return false;
        }
        return key == "Ev Idx" || key == "Record function id" || key == "cbid";
    }

    static constexpr std::size_t kKeyCacheSlots = 16;
    static constexpr std::size_t kClassCacheSlots = 1024;
    struct ClassifiedSlot
    {
        model::StringId name;
        model::StringId cat;
        Classified classified;
        bool valid = false;
    };

    // classify() of an interned name and category: the same few names repeat millions of times, and classify()
    // searches long kernel names for the collective patterns. A direct-mapped cache keyed by the pool ids.
    Classified classifyCached(model::StringId name, model::StringId cat, std::string_view catText,
                              std::string_view nameText)
    {
        const std::size_t slot = (std::size_t {name.value} * 0x9e3779b1U + cat.value) % kClassCacheSlots;
        ClassifiedSlot& entry = m_classCache[slot];
        if (!entry.valid || entry.name != name || entry.cat != cat) {
            entry.classified = classify(catText, nameText);
            entry.name = name;
            entry.cat = cat;
            entry.valid = true;
        }
        return entry.classified;
    }

    model::ArgSetId convertArgs(const ChromeEvent& e, bool device = false, bool linked = false,
                                bool keepStream = false);

    /// The launch with this correlation when it was already seen (Kineto writes host events first and
    /// correlations grow, so the join's launches stay sorted and need no index of their own), else nullptr.
    const model::SliceRef* hostLaunch(std::int64_t correlation) const { return m_corr.launchSoFar(correlation); }

    bool buildInput(const ChromeEvent& e, model::SliceInput& in, Classified& c, std::int64_t& correlation);

    /// A slice of a described export: its category, flags and source category as the args say them, its track
    /// from the description. False when the slice lacks "timesink.category" (then it is read like Kineto's).
    bool describedInput(const ChromeEvent& e, model::SliceInput& in, Classified& c);

    void commit(model::TrackId track, const model::SliceInput& in, std::int64_t correlation, bool host);

    void addComplete(const ChromeEvent& e);

    void begin(const ChromeEvent& e);

    void end(const ChromeEvent& e);

    void instant(const ChromeEvent& e);

    model::TrackId counterTrack(std::string_view pid, const std::string& name, std::int64_t device);

    void counter(const ChromeEvent& e);

    void flowEvent(const ChromeEvent& e);

    static bool isLaunchFlowCategory(std::string_view cat)
    {
        return cat == "ac2g" || cat == "async_gpu" || cat == "async_cpu_to_gpu";
    }

    /// The dense number of a flow event's (interned pid, interned tid), for the pairing's compact records.
    std::uint32_t flowEndpoint(model::StringId pid, model::StringId tid);

    /// A launch flow's id as the correlation it names, or -1 (the id read as one signed 64-bit number).
    std::int64_t flowCorrelation(const FlowId& id) const
    {
        const std::optional<std::int64_t> v
            = id.isText() ? toInt(m_flowTexts.text(static_cast<std::uint32_t>(id.lo))) : id.numericValue();
        return v.value_or(-1);
    }

    void metadataEvent(const ChromeEvent& e);

    void linkCorrelations();

    void resolveFlows();

    void nameTracks();

    struct TrackMeta
    {
        std::string pid;
        std::string tid;
        Placement placement = Placement::Host;
        bool counter = false;
        bool described = false; // created from an export's description: pid and tid are the exported ones
    };

    model::TraceBuilder& m_b;
    ProgressSink& m_progress;
    TimeNs m_base = 0;
    bool m_baseKnown = false;
    bool m_lateBase = false;
    std::optional<TimeNs> m_lateBaseValue;
    bool m_wrapper = false;
    bool m_anyCategory = false;
    std::uint64_t m_eventsSeen = 0;
    std::uint64_t m_useful = 0;
    std::uint64_t m_stepsSeen = 0;
    TimeNs m_maxTs = 0;

    std::unordered_map<std::string, model::TrackId, TrackKeyHash> m_tracks;
    std::vector<TrackMeta> m_trackMeta;   // indexed by TrackId
    std::vector<int> m_deviceIndices;     // in order of first appearance
    std::unordered_set<int> m_deviceSeen; // the same, for the membership test (a trace may have 100,000s)
    Placement m_lastPlacement = Placement::Host;
    std::string m_lastPidStore;
    std::string m_lastTidStore;
    std::string_view m_lastPid;
    std::string_view m_lastTid;
    model::TrackId m_lastTrack;

    std::vector<model::Arg> m_argScratch;
    // Names and string values through the shared cache; arg keys come in the same order event after event and
    // categories repeat, so each of those is compared with the one before at its position.
    InternCache m_intern;
    std::array<InternedLast, kKeyCacheSlots> m_argKeyCache;
    InternedLast m_catCache;
    std::array<ClassifiedSlot, kClassCacheSlots> m_classCache {};
    BeginEndMatcher<OpenSlice> m_open; // by track
    // Runtime calls (launches) ↔ device activities by args.correlation.
    CorrelationJoin m_corr;
    std::int64_t m_prevCorrelation = -1; // args.correlation of the event just before, for ac2g flows
    // Flow events in Kineto's dialect: the first `s` of an id starts the flow (the others are warned about),
    // `t` is ignored. Endpoints number the (interned pid, interned tid) pairs the events name.
    FlowPairing m_flows {FlowDialect {FlowDialect::Start::First, false}};
    FlowTextIds m_flowTexts;
    static constexpr std::uint32_t kNoEndpoint = std::numeric_limits<std::uint32_t>::max();
    std::vector<std::uint64_t> m_endpoints;
    std::unordered_map<std::uint64_t, std::uint32_t> m_endpointIndex;
    std::uint32_t m_lastEndpoint = kNoEndpoint;

    std::unordered_map<std::string, std::string> m_processNames;
    std::unordered_map<std::string, std::string> m_processLabels;
    std::unordered_map<std::string, std::string> m_threadNames;
    std::unordered_map<std::string, std::string> m_laneOf; // "pid\x1ftid" of an overlap lane → its thread's tid
    std::string m_laneKey;
    std::unordered_map<std::string, std::int64_t> m_processSort;
    std::unordered_map<std::string, std::int64_t> m_threadSort;

    std::optional<ExportDescription> m_described;
    bool m_legacyExport = false;
    std::unordered_map<std::string, model::TrackId> m_describedTracks; // "pid\x1ftid" (exported) → track
    std::string m_describedKey;
    std::map<std::pair<std::uint32_t, TimeNs>, std::vector<std::size_t>> m_stepMarkers; // (track, ts) → steps
};

} // namespace timesink::parsers::chromejson::kineto
