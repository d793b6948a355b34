// SPDX-License-Identifier: MIT
#pragma once

#include "parsers/common/importer.h"
#include "parsers/rknn/rknnperfreport.h"

#include <string>

namespace timesink::parsers {

/// Rockchip RKNN performance text (every toolkit generation; see RknnPerfParser) → Trace.
///
/// Detection reads the content, never the file name: a layer-table or ranking header, a per-frame total,
/// or a `perf_debug=False` summary (`Total Time(us)` with `FPS` or the frequency lists).
///
/// Mapping (the table has no timestamps, so metadata.syntheticTimestamps is set and the properties say so):
///  * one EdgeNpu device named after the chip when the log prints it ("RK3588"), else "RKNN NPU";
///  * each layer is one slice, laid end to end in ID order from 0 within its frame, on the "NPU" track
///    (EdgeNpu, DeviceCompute; category Kernel), the "CPU" track (Cpu, HostThread) for `Target=CPU`
///    (FallbackOp, except InputOperator/OutputOperator which convert at the graph edge: HostOp), or a
///    "GPU" track (Kernel). Slice name = the RKNN op type (`ConvExSwish`, v1 `CONVOLUTION`) so op-type
///    sequences and fusions read directly off the timeline; args: layer_id, op_type, full_name,
///    source_op ("Conv" of "Conv:/model.0/conv/Conv"), node, data_type, target, input_shape, output_shape,
///    ddr_cycles, npu_cycles, total_cycles, time_us, mac_usage, workload, workload_improve, cores_used,
///    rw_kb, uid and the unknown columns by their title ("task_number"); a MacUsage cell of "\\" (1.6) or blank
///    (2.3.2: a layer without MAC work) gives no mac_usage arg;
///  * a run whose NPU layers ran on more than one core (WorkLoad shares) also gets one "NPU core N" track per core
///    (EdgeNpu, Synthetic, like Kineto's annotation lanes): each NPU layer's slice again, with the same name,
///    category and args, on every core it has a share of, from the layer's start for duration · share / largest
///    share (a layer split 33.3%/33.3%/33.3% lies on all three lanes, a single-core layer on its core's). The
///    "NPU" track stays the device's one sequence of layers, so nothing is counted twice as device time;
///  * a layer printed as 0 µs (below the table's resolution) lasts 1 ns taken from its neighbour, so it
///    stays in sequence at depth 0 instead of nesting under the next layer, and the frame still adds up
///    to its total; args.time_us keeps the printed value;
///  * one Step per frame (one table = one inference). Its length — and the trace span — is the printed
///    `Total Operator Elapsed (Per Frame) Time` / `Total Time`, else the layer sum. When the printed total
///    is longer than the layers (rows elided, summary-only output) a "Frame" counter track (1 during the
///    frame, 0 at its end) carries the span; it adds no slice, so `slices` = layers. Summary-only: no
///    slices, span = Total Time, FPS in the properties;
///  * mismatches between layers, total and ranking table are warnings; parse problems are counted.
class RknnImporter : public Importer
{
public:
    [[nodiscard]] std::string_view id() const override { return "rknn"; }
    [[nodiscard]] FormatDescription describe() const override;
    [[nodiscard]] int probe(const SourceProbe& source) const override;
    ImportResult import(const SourceProbe& source, const ImportOptions& options, ProgressSink& progress) override;

    /// Builds the trace of an already parsed report (exposed for tests of the mapping).
    static model::TracePtr buildTrace(RknnPerfReport report, const std::string& sourcePath);
};

} // namespace timesink::parsers
