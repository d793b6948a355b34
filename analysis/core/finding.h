// SPDX-License-Identifier: MIT
#pragma once

#include "model/trace.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace timesink::analysis {

/// Where on the timeline a finding shows itself: a time range on a track.
struct EvidenceRange
{
    model::TrackId track;
    model::TimeNs start = 0;
    model::TimeNs end = 0;
};

/// Lost time within one step.
struct StepLoss
{
    std::size_t stepIndex = 0;   // index into Trace::steps()
    std::int64_t stepNumber = 0; // N of ProfilerStep#N (0 for the synthetic step)
    model::TimeNs lostNs = 0;
    model::TimeNs stepNs = 0;
};

/// One number (or fact) behind a finding, e.g. {"copies", 412}, {"direction", "htod"}.
struct Detail
{
    std::string key;
    std::variant<std::int64_t, double, std::string> value;
};

/// The platform a recommendation is written for: the trace's (TraceMetadata::platform), set by its importer.
using model::Platform;
using model::platformKey;

/// A ranked problem: what, how much time it costs, where, and what to do.
struct Finding
{
    std::string kind;         // stable: "dataloader_starvation", "pipeline_bubble", "copy_hotspot", "cpu_fallback", …
    std::string title;        // one line for people: "AI_CPU fallback of Cast: 412 ms lost over 5 steps"
    model::TimeNs lostNs = 0; // time a user would get back by fixing it
    double lostFraction = 0.0; // lostNs / analysed wall time
    std::uint64_t occurrences = 0;
    std::vector<StepLoss> perStep;
    std::vector<EvidenceRange> evidence;
    std::vector<model::SliceRef> events; // slices the GUI highlights
    std::vector<Detail> details;
    std::string explanation;    // why this costs time, in plain words
    std::string recommendation; // concrete, platform-specific
    Platform platform = Platform::Generic;
    model::TimeNs firstTs = 0; // earliest evidence; the last ranking key
    /// Evidence ranges left out because the list reached its cap (kMaxEvidence); the lost time still counts them.
    std::uint64_t evidenceOmitted = 0;
};

/// Human label: "PyTorch on CUDA", "torch_npu on CANN", …
std::string_view platformLabel(Platform p);

/// Label for a finding kind, for people: "pipeline_bubble" → "Pipeline bubble" (cleaned as cleanText does,
/// underscores become spaces, the first letter is capitalised; the reports and the GUI share it). A few kinds
/// have their own: "low_mac_usage" → "Low MAC usage", "core_imbalance" → "NPU core imbalance",
/// "memory_bound" → "Memory-bound layers"; "data_movement" → "Data movement" by the rule.
std::string kindLabel(std::string_view kind);

/// The value of a detail as text (integers as digits, doubles with up to 6 significant digits).
std::string detailText(const Detail& d);

/// Deterministic ranking: lost time (descending), then kind, then first timestamp.
bool rankBefore(const Finding& a, const Finding& b);

} // namespace timesink::analysis
