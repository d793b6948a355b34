// SPDX-License-Identifier: MIT
#pragma once

#include "model/argstore.h"
#include "model/ranklinks.h"
#include "model/stringpool.h"
#include "model/track.h"
#include "model/types.h"

#include <array>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace timesink::model {

class SnapshotAccess;

/// A link from a host launch to the device work it caused, or from forward to backward.
struct Flow
{
    SliceRef from;
    SliceRef to;
    FlowKind kind = FlowKind::Launch;

    /// A flow that links two different slices: what the exporters write and `info` counts. A flow end that found
    /// no slice (a Kineto "f" with no matching "s", or none open at its time) links nothing.
    [[nodiscard]] bool isLinked() const { return from.isValid() && to.isValid() && from != to; }
};

/// One training/inference step. Traces without markers get one synthetic step over the whole span.
struct Step
{
    std::int64_t number = 0;
    StringId name;
    TimeNs start = 0;
    TimeNs end = 0;
    SliceRef marker; // the ProfilerStep#N slice, when there is one
    bool synthetic = false;
    [[nodiscard]] TimeNs duration() const { return end - start; }
};

struct Device
{
    Device() = default;
    /// What every importer knows; the compute facts below only some say.
    Device(DeviceKind k, std::int32_t i, std::string n)
        : kind(k)
        , index(i)
        , name(std::move(n))
    {
    }

    DeviceKind kind = DeviceKind::Gpu;
    std::int32_t index = 0;
    std::string name; // "NVIDIA A100-SXM4-80GB", "Ascend910B", "RK3588"
    /// What the trace itself says about the device's compute units, where it says it (0 = not said): an Ascend
    /// chip's AI-core count and AI-core clock (a PROF folder's info.json: ai_core_num, aic_frequency; the msprof
    /// database's AICORE_FREQ), and where each came from, for people ("info.json.0", "AICORE_FREQ").
    std::int32_t aiCores = 0;
    double aiCoreClockMHz = 0.0;
    std::string computeSource;
    /// What a Kineto trace's deviceProperties say (0 = not said): the streaming multiprocessors (NVIDIA) or compute
    /// units (AMD) of the device as the framework sees it (numSms), and its memory in bytes (totalGlobalMem). The
    /// efficiency analysis tells chips that share a name apart by them (peaks.tsv's units and memory_gb).
    std::int32_t computeUnits = 0;
    std::int64_t memoryBytes = 0;
};

struct ImportWarning
{
    std::string kind; // stable key, e.g. "truncated", "bad_ts", "unmatched_end"
    std::uint64_t count = 0;
    std::string message; // the first occurrence, for people
};

struct TraceMetadata
{
    std::string format;        // "kineto", "kineto-legacy", "torch_npu", "msprof", "msprof-db", "rknn"
    std::string formatVersion; // schemaVersion, CANN version, toolkit version …
    std::string sourcePath;
    std::vector<Device> devices;
    std::int32_t rank = -1;
    std::int32_t worldSize = -1;
    std::string profilerLevel;
    /// Timestamps were laid out by the importer (e.g. RKNN tables have none), not measured.
    bool syntheticTimestamps = false;
    /// Set by importers that know it; Generic until then, and inferred from the devices at finalize.
    Platform platform = Platform::Generic;
    /// Further facts worth showing (key, value), in insertion order.
    std::vector<std::pair<std::string, std::string>> properties;
    /// What this rank sent each peer per transport (Ascend communication_matrix.json), by (src, dst, transport);
    /// empty when the trace does not say.
    std::vector<RankLink> rankLinks;
};

/// The frozen, immutable result of an import. Shared across threads as `std::shared_ptr<const Trace>`.
class Trace
{
public:
    [[nodiscard]] const StringPool& strings() const { return m_strings; }
    [[nodiscard]] std::string_view str(StringId id) const { return m_strings.view(id); }
    [[nodiscard]] const ArgStore& argStore() const { return m_args; }
    [[nodiscard]] ArgSet args(ArgSetId id) const { return m_args.get(id); }
    /// Value of arg `key` of a slice, or none (the key is looked up in the string pool).
    [[nodiscard]] std::optional<ArgValue> arg(SliceRef slice, std::string_view key) const;

    [[nodiscard]] std::span<const Track> tracks() const { return m_tracks; }
    [[nodiscard]] const Track& track(TrackId id) const { return m_tracks[id.value]; }

    [[nodiscard]] std::span<const Flow> flows() const { return m_flows; }
    /// Flows whose source is `slice` (flows are sorted by source).
    [[nodiscard]] std::span<const Flow> flowsFrom(SliceRef slice) const;
    /// Indices into flows() of the flows that end at `slice`.
    [[nodiscard]] std::vector<std::uint32_t> flowsTo(SliceRef slice) const;
    /// The same as a view into flowIndicesByTarget() (no allocation: for lookups per device operation).
    [[nodiscard]] std::span<const std::uint32_t> flowIndicesTo(SliceRef slice) const;
    /// Indices into flows() of every flow, sorted by target (track, then slice index); flows with the same target
    /// in flows() order. The flows into one track are one run of it.
    [[nodiscard]] std::span<const std::uint32_t> flowIndicesByTarget() const { return m_flowsByTarget; }

    [[nodiscard]] std::span<const Step> steps() const { return m_steps; }
    [[nodiscard]] const TraceMetadata& metadata() const { return m_metadata; }
    [[nodiscard]] std::span<const ImportWarning> warnings() const { return m_warnings; }

    [[nodiscard]] TimeNs startNs() const { return m_start; }
    [[nodiscard]] TimeNs endNs() const { return m_end; }
    [[nodiscard]] TimeNs spanNs() const { return m_end - m_start; }
    [[nodiscard]] std::size_t sliceCount() const { return m_sliceCount; }
    [[nodiscard]] std::uint64_t categoryCount(SliceCategory c) const
    {
        return m_categoryCounts[static_cast<std::size_t>(c)];
    }
    /// Number of flows that link two slices (Flow::isLinked()).
    [[nodiscard]] std::size_t linkedFlowCount() const;
    /// Memory held by the model (columns, indexes, strings, args), for benchmarks.
    [[nodiscard]] std::size_t bytesUsed() const;

private:
    friend class TraceBuilder;
    friend class SnapshotAccess;
    StringPool m_strings;
    ArgStore m_args;
    std::vector<Track> m_tracks;
    ColumnVector<Flow> m_flows;
    ColumnVector<std::uint32_t> m_flowsByTarget; // indices into m_flows sorted by `to`
    std::vector<Step> m_steps;
    TraceMetadata m_metadata;
    std::vector<ImportWarning> m_warnings;
    std::array<std::uint64_t, kSliceCategoryCount> m_categoryCounts {};
    std::size_t m_sliceCount = 0;
    TimeNs m_start = 0;
    TimeNs m_end = 0;
};

using TracePtr = std::shared_ptr<const Trace>;

/// The platform a trace's content shows, for traces whose importer did not set one (TraceBuilder::finalize uses
/// it then): an edge NPU or NPU device (track or device entry) → Rknn / TorchNpuCann; a device named AMD, Radeon
/// or Instinct, or HIP runtime calls → PyTorchRocm; other device work → PyTorchCuda; no device work → Cpu (Generic
/// when the trace does not even say its format).
/// Example: a Kineto trace with the device "AMD Instinct MI250X" → Platform::PyTorchRocm.
Platform inferPlatform(const Trace& trace);

} // namespace timesink::model
