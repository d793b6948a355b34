// SPDX-License-Identifier: MIT
#pragma once

#include "model/trace.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace timesink::analysis {

/// One layer of two RKNN perf tables (edge runs: single-core vs multi-core, two toolkit versions), summed over the
/// paired frames. A layer found on one side only has the other side's fields empty and its times 0.
struct CompareLayer
{
    /// How the two rows were matched (docs/compare.md "Edge runs"): the same FullName; the same node path once
    /// the path prefix one toolkit adds is dropped ("/model/model.0/conv/Conv" ↔ "/model.0/conv/Conv"); the n-th
    /// layer of an op type with the n-th of the same op type, when both sides have as many left over; or none.
    enum class Match : std::uint8_t { Name, Path, OpOrder, BaselineOnly, CandidateOnly };
    Match match = Match::Name;
    std::optional<std::int64_t> baselineId; // `ID` of the row (the first paired frame's)
    std::optional<std::int64_t> candidateId;
    std::string opType;         // the candidate's (the baseline's for a baseline-only layer)
    std::string baselineOpType; // differs from opType when a toolkit fused or renamed the op
    std::string name;           // the candidate's FullName (the baseline's for a baseline-only layer)
    std::string baselineName;   // the baseline's FullName
    std::string baselineTarget; // "NPU", "CPU", "GPU"
    std::string candidateTarget;
    /// NPU cores with a WorkLoad share, in core order ({0} = core 0 alone, {0, 1, 2} = split three ways); empty
    /// when the table prints no usable shares (toolkit2 1.x, v1, CPU layers).
    std::vector<int> baselineCores;
    std::vector<int> candidateCores;
    std::string baselineWorkload; // the WorkLoad cell as printed, "100.0%/0.0%/0.0%"
    std::string candidateWorkload;
    std::string baselineInputShape; // the InputShape cell, "(1,3,1920,1920),(16,3,3,3),(16)"
    std::string candidateInputShape;
    model::TimeNs baselineNs = 0;
    model::TimeNs candidateNs = 0;
    [[nodiscard]] model::TimeNs deltaNs() const { return candidateNs - baselineNs; }
    /// candidate / baseline; empty when the baseline time is 0.
    [[nodiscard]] std::optional<double> ratio() const;
    /// Both sides have the layer and print different input shapes: its times are not like for like.
    [[nodiscard]] bool inputShapeChanged() const;
    /// The layer ran elsewhere: another target (NPU → CPU), or another set of NPU cores (1 core → 3 cores, core 0 →
    /// core 1). False for a one-sided layer and when either side's cores are unknown.
    [[nodiscard]] bool placementChanged() const;
};
std::string_view layerMatchKey(CompareLayer::Match m); // "name", "path", "op_order", "baseline_only", "candidate_only"
/// "core 0", "cores 0+1+2", "CPU", "NPU (cores unknown)", "—" for a side that lacks the layer.
std::string layerPlacementText(std::string_view target, std::span<const int> cores);

/// One op type over the matched layers (the candidate's op type names the group).
struct CompareLayerOpType
{
    std::string opType;
    model::TimeNs baselineNs = 0;
    model::TimeNs candidateNs = 0;
    std::uint64_t baselineLayers = 0;
    std::uint64_t candidateLayers = 0;
    std::uint64_t baselineSplitLayers = 0; // NPU layers spread over two cores or more
    std::uint64_t candidateSplitLayers = 0;
    std::uint64_t placementChanged = 0; // layers of the group whose placement changed
    [[nodiscard]] model::TimeNs deltaNs() const { return candidateNs - baselineNs; }
    [[nodiscard]] std::optional<double> ratio() const;
};

/// The per-layer comparison of two RKNN runs; `present` is false unless both traces are RKNN layer tables.
struct CompareLayers
{
    bool present = false;
    /// Slower in the candidate first (delta descending), then unchanged, then faster; ties by candidate ID.
    std::vector<CompareLayer> layers;
    /// By delta descending (the op types that got slower first).
    std::vector<CompareLayerOpType> opTypes;
    std::uint64_t byName = 0; // layers matched per Match
    std::uint64_t byPath = 0;
    std::uint64_t byOpOrder = 0;
    std::uint64_t baselineOnly = 0;
    std::uint64_t candidateOnly = 0;
    std::uint64_t placementChanged = 0; // matched layers whose placement changed
    std::uint64_t shapeChanged = 0;     // matched layers whose input shapes differ
    std::uint64_t slower = 0;           // matched layers slower in the candidate
    std::uint64_t faster = 0;
    int baselineCoresUsed = 0; // the most NPU cores one layer was split over (0: unknown)
    int candidateCoresUsed = 0;
};

/// The layer comparison's placement column: "core 0 → cores 0+1+2", "core 0" when it did not change.
std::string layerPlacementChange(const CompareLayer& layer);

/// What the layer comparison of two edge runs found, in one or two sentences, for every writer and the GUI: how the
/// layers were matched, how many changed placement (core split, target), how many got slower. Empty without a layer
/// table.
std::string layerSummaryText(const CompareLayers& layers);

/// Matches the layers of two RKNN traces over the paired steps (frames): see CompareLayer::Match for the order of
/// the rules; each rule pairs only layers the earlier ones left, and a name that occurs several times on a side is
/// paired occurrence by occurrence. Times of a layer are summed over the paired frames.
CompareLayers compareRknnLayers(const model::Trace& baseline, std::span<const std::size_t> baselineSteps,
                                const model::Trace& candidate, std::span<const std::size_t> candidateSteps);

} // namespace timesink::analysis
