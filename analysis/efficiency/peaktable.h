// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/efficiency/tensorshapes.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace timesink::analysis::efficiency {

/// One device's published dense peaks (resources/efficiency/peaks.tsv, compiled in).
struct DevicePeaks
{
    std::string device;               // "NVIDIA H100 SXM"
    std::vector<std::string> matches; // substrings of a trace's device name that select this row
    // TFLOP/s (TOP/s for int8); nothing where the chip has no such unit.
    std::optional<double> fp32, tf32, bf16, fp16, fp8, int8;
    std::optional<double> bandwidthGBps;
    std::string source;
    /// The type whose matrix peak judges FP32 matrix work on a chip that publishes no FP32 matrix rate: FP16 on
    /// Ascend's cube (as msprof-analyze's operator_mfu does); nothing elsewhere.
    std::optional<DataType> fp32MatrixAs;
    /// An Ascend chip's AI-core count and clock where the peaks were computed from them (0 otherwise).
    std::int32_t aiCores = 0;
    double aiCoreClockMHz = 0.0;
    /// Substrings of names that several chips share (ROCm's "AMD Radeon Graphics", a bare "H100"), written "~…" in
    /// the table: they select this row only where the trace's SM/CU count and memory agree with the row's.
    std::vector<std::string> genericMatches;
    /// The streaming multiprocessors (NVIDIA) or compute units (AMD) of the device as the framework sees it (one
    /// GCD of an MI250), from the vendor's data sheet; 0: any (the table does not say).
    std::int32_t units = 0;
    /// The device memory the vendor states in GB (read as 10^9 or 2^30 bytes); 0: any. Checked only for a generic
    /// match.
    double memoryGB = 0.0;

    /// The peak in FLOP/s for arithmetic in `t`: fp32 → fp32 (vector units), tf32/bf16/fp16/fp8/int8 → theirs;
    /// nothing for other types or a unit the chip lacks (fp64 is not in the table: no roofline rather than a wrong
    /// one).
    [[nodiscard]] std::optional<double> peakFlops(DataType t) const;
    /// Bytes per second.
    [[nodiscard]] std::optional<double> bandwidth() const;
};

/// The table, parsed: `#` lines and the header skipped, "-" for a missing unit. Rows that do not parse are left
/// out and counted in `rejected` (a test keeps the shipped table free of them).
struct PeakTable
{
    std::vector<DevicePeaks> rows;
    std::size_t rejected = 0;
};
PeakTable parsePeakTable(std::string_view tsv);
/// The table compiled into the library from resources/efficiency/peaks.tsv.
const PeakTable& builtinPeakTable();

/// The device of a trace as resolved against the table by its name alone: the first row one of whose (not generic)
/// patterns occurs in the name (case-insensitive). Nothing when none does: an unknown chip gets no roofline, never
/// another chip's numbers.
const DevicePeaks* resolveDevice(const PeakTable& table, std::string_view deviceName);

/// What a trace says about its device (model::Device): the name, and where it says them its SM/CU count and memory.
struct DeviceFacts
{
    std::string_view name;
    std::int32_t computeUnits = 0; // 0: not said
    std::int64_t memoryBytes = 0;  // 0: not said
};

/// A device resolved against the table, and how.
struct DeviceResolution
{
    const DevicePeaks* row = nullptr;
    /// "name" (the trace states no SM/CU count, or the row names none), "name and compute units" (a name pattern
    /// selected the row and the count agrees), "compute units and memory" (a generic name that the count and the
    /// memory decide); empty when not resolved.
    std::string resolvedBy;
    /// Where the count chose another row than the name alone would have (an "H100 80GB HBM3" with 114 SMs); else
    /// empty.
    std::string note;
    /// Why no row applies; empty when `row` is set.
    std::string notResolved;
};

/// The device of a trace as resolved against the table by its name and, where the trace states it, its SM/CU count
/// and memory. Without a count: resolveDevice(table, name). With one: the first row, in table order, that the
/// name selects (a pattern, or a generic pattern whose row's memory also agrees) and whose count is the trace's
/// (or names none). A count that no row the name selects has is reported in `notResolved`, never used with
/// another chip's numbers; so is a generic name without a count.
DeviceResolution resolveDevice(const PeakTable& table, const DeviceFacts& facts);

/// Ascend peak as msprof-analyze's operator_mfu computes it: AI cores × AI-core frequency × operations per cycle,
/// 16·16·16·2 = 8192 for FP16/BF16 (the cube's 16×16×16 multiply-add per cycle) and 16·32·16·2 for INT8:
/// 24 cores at 1800 MHz → 24 · 1.8e9 · 8192 = 353.9 TFLOP/s. Nothing for another type.
std::optional<double> ascendPeakFlops(int aiCores, double frequencyMHz, DataType t);

} // namespace timesink::analysis::efficiency
