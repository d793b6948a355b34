// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/core/cancel.h"
#include "analysis/efficiency/operatorwork.h"
#include "analysis/efficiency/peaktable.h"
#include "model/trace.h"

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace timesink::analysis::efficiency {

/// A share of a peak (0–1). A computed figure above 1 means the shapes, the data type or the peak are wrong (an FP32
/// matmul that ran on TF32 units, a shape that records less than the kernel did): it is never reported as is, but
/// clamped to 1 with `clamped` set and `reason` saying why.
struct BoundedFraction
{
    double value = 0.0;
    bool clamped = false;
    std::string reason;
};
/// `raw` clamped to [0, 1]; above 1 flagged with `why` (what, for this figure, could be wrong).
BoundedFraction boundFraction(double raw, std::string_view why);
/// For people: "61.9%", or "100.0% (clamped)" when the figure came out above 1 (the reason is said beside it).
std::string formatFraction(const BoundedFraction& f);

/// One operator (name, shapes, data type), summed over its calls.
struct OperatorEfficiency
{
    std::string name;   // "aten::mm", or the Ascend op type "MatMulV2", or the RKNN layer's op type
    std::string shapes; // "[8944,1024]x[1024,2816]"
    DataType dtype = DataType::Unknown;
    /// The peak it is judged at: its own type for matrix work, FP32 for the rest, TF32 for an FP32 matrix operator
    /// that ran faster than the FP32 peak (it can only have used TF32 units). Unknown without a known device.
    DataType peakType = DataType::Unknown;
    WorkClass workClass = WorkClass::Elementwise;
    std::uint64_t calls = 0;
    double flops = 0.0;                              // all calls
    double bytes = 0.0;                              // all calls
    model::TimeNs deviceNs = 0;                      // the device work its calls launched (kernels and memsets)
    double tflopsPerS = 0.0;                         // flops / deviceNs
    double tbPerS = 0.0;                             // bytes / deviceNs
    double intensity = 0.0;                          // flops per byte
    std::string bound;                               // "compute" or "memory" where the device is known; empty otherwise
    std::optional<BoundedFraction> rooflineFraction; // the roofline time over the measured time, where known
    /// What the chip counted itself, where it did: RKNN MacUsage (a share of the NPU's MACs), Ascend aic_mac_ratio
    /// (a share of the AI-core cycles on the cores it ran on; AI-core tasks only), time-weighted over the calls.
    std::optional<BoundedFraction> measured;
    /// The kernels and memsets its calls ran (Kineto: what they launched; Ascend, RKNN: the tasks or layers
    /// themselves); only filled when computeEfficiency is asked to keep them (the low_efficiency pass re-times them).
    std::vector<model::SliceRef> deviceWork;
};

/// Per step: model FLOPs of the step's operators over the step's time at the chip's peak for each one's data type
/// (Σ flops_i / peak_i / step time: the usual MFU where one type dominates, mixed precision counted fairly).
struct StepEfficiency
{
    std::int64_t number = 0;
    model::TimeNs durationNs = 0;
    double flops = 0.0;
    std::optional<BoundedFraction> mfu;
};

/// Per class: its FLOPs over its device time against the peak (the MFU of the class while it runs).
struct ClassEfficiency
{
    WorkClass workClass = WorkClass::Gemm;
    std::uint64_t calls = 0;
    double flops = 0.0;
    double bytes = 0.0;
    model::TimeNs deviceNs = 0;
    double tflopsPerS = 0.0;
    std::optional<BoundedFraction> fractionOfPeak;
};

/// Calls of known operators whose work could not be told, by reason.
struct NotAssessedOperators
{
    std::string reason;
    std::uint64_t calls = 0;
    model::TimeNs deviceNs = 0;
};

struct EfficiencyReport
{
    /// Why nothing was assessed (no device work, no shapes anywhere); empty when something was.
    std::string notAssessed;
    std::string source;     // "kineto record_shapes", "ascend kernel table", "rknn layer table"
    std::string deviceName; // as the trace names it
    std::optional<DevicePeaks> device;
    std::string deviceNotResolved; // why no peak applies; empty when `device` is set
    /// How `device` was resolved (DeviceResolution::resolvedBy; "AI cores and clock" for an Ascend chip's own
    /// facts), and where the trace's SM/CU count overruled the row its name selects, why; empty when not resolved.
    std::string deviceResolvedBy;
    std::string deviceResolutionNote;
    std::int32_t deviceComputeUnits = 0; // the SM/CU count the trace states (model::Device::computeUnits); 0: none
    std::string measuredSource;          // what OperatorEfficiency::measured is; empty when none has one
    std::vector<OperatorEfficiency> operators; // by device time, longest first (all of them)
    std::vector<StepEfficiency> steps;         // parallel to Trace::steps()
    std::vector<ClassEfficiency> classes;      // classes with calls, in WorkClass order
    std::vector<NotAssessedOperators> notAssessedOperators;
    model::TimeNs modelledDeviceNs = 0; // device time of the operators with work
    model::TimeNs deviceNs = 0;         // all kernel and memset time on the device
    /// How long computeEfficiency took: for `--phases` and the benchmarks, never in a report.
    std::chrono::nanoseconds computeWall {0};
};

/// The efficiency of every operator of the trace it can assess, against `table` (builtinPeakTable()). Reads host
/// operators' Kineto shapes and the device time they launched (flows), or Ascend kernels' own shape columns, or
/// RKNN layers' memory traffic and MacUsage. Pure function of the trace; one pass over the flows or device slices.
/// With `keepDeviceWork`, every operator also lists the device slices its calls ran (OperatorEfficiency::deviceWork).
EfficiencyReport computeEfficiency(const model::Trace& trace, const PeakTable& table,
                                   const CancelToken* cancel = nullptr, bool keepDeviceWork = false);

} // namespace timesink::analysis::efficiency
