// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/intervals.h"
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
    /// How much shorter this step gets when the cause is removed (analysis/core/stepgraph.h); filled by analyze().
    model::TimeNs savingNs = 0;
};

/// A laid-out layer and the part of its analysed time one finding's fix saves (0 ≤ savedNs ≤ layerNs).
struct LayerSaving
{
    model::SliceRef layer;
    model::TimeNs ts = 0;      // the layer's start (its frame is the step that holds it)
    model::TimeNs layerNs = 0; // its time inside the analysed windows
    model::TimeNs savedNs = 0;
};

/// What removing a finding's cause changes, for re-timing the step graph (analysis/core/stepgraph.h): the pass
/// that finds the cause says what would go, the step graph says how much shorter the steps get. Empty: the kind
/// has no re-timing rule and its saving is its lost time.
struct WhatIf
{
    std::vector<model::SliceRef> removedHost;   // host slices whose time goes (fetches, compile calls, BN/act ops)
    IntervalList hostRanges;                    // host time that goes on every host thread that launches work
    IntervalList syncRanges;                    // blocking calls overlapping these stop waiting and take no time
    std::vector<model::SliceRef> removedDevice; // device operations that go (their stream order stays)
    std::vector<model::SliceRef> asyncCopies;   // copies made asynchronous: off their stream's order, no host wait
    std::vector<model::SliceRef> scaledDevice;  // device operations that take `scale` of their time
    double scale = 1.0;
    /// Per operation: parallel to scaledDevice, each one's own share of its time (0–1); empty: all take `scale`.
    std::vector<double> scales;
    /// Laid-out layers (RKNN perf tables, which cannot be re-timed): per layer, its analysed time and the part of
    /// it this fix saves. Not a re-timing rule (empty() ignores it): "fix all" composes these per layer
    /// (analysis/core/rknnfixall.h), so a layer's time is saved once however many findings touch it.
    std::vector<LayerSaving> layerSavings;
    [[nodiscard]] bool empty() const
    {
        return removedHost.empty() && hostRanges.empty() && syncRanges.empty() && removedDevice.empty()
            && asyncCopies.empty() && scaledDevice.empty();
    }
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
    /// How much shorter the analysed steps get when this cause is removed: the step graph re-timed without it
    /// (analysis/core/stepgraph.h), or lostNs where it could not be re-timed (savingMethod says which).
    model::TimeNs savingNs = 0;
    double savingFraction = 0.0; // savingNs / analysed wall time
    /// "retimed" (every step with a loss re-timed), "partly_retimed" (some steps fell back to their lost time),
    /// "lost_time" (no re-timing: no rule for the kind, no launch links, laid-out timestamps or a cyclic graph).
    std::string savingMethod;
    std::string savingRule; // how the cause was removed for the estimate, for people (the GUI's Details)
    /// Why the saving and the lost time differ more than twofold, in one sentence; empty when they do not
    /// (analysis/core/savingreason.h).
    std::string savingReason;
    /// What removing the cause changes; the pass fills it, analyze() re-times with it and then clears it.
    WhatIf whatIf;
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

/// Deterministic ranking: projected saving (descending), then lost time (descending), then kind, then first
/// timestamp, then title.
bool rankBefore(const Finding& a, const Finding& b);

} // namespace timesink::analysis
