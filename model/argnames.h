// SPDX-License-Identifier: MIT
#pragma once

#include <string>
#include <string_view>

namespace timesink::model {

/// Names of the args and counters that importers write and analysis reads: each spelled once, here. They are the
/// profilers' own names (Kineto's, which torch_npu and msprof importers write too), so that a trace keeps them
/// through export and snapshots; a pass that reads one names it from here rather than from the source format.
namespace argnames {
/// A framework op's input shapes, "[[32, 3, 224, 224], [], …]" (Kineto; the Ascend database writes it too).
inline constexpr std::string_view kInputDims = "Input Dims";
/// A framework op's input element types, ["float", …] (Kineto).
inline constexpr std::string_view kInputType = "Input type";
/// A framework op's constant arguments as text, ["", "", "[1, 1]", "True"] (Kineto with record_shapes=True).
inline constexpr std::string_view kConcreteInputs = "Concrete Inputs";
/// An Ascend kernel's input and output shapes, "32,9216;4096,9216" and "32,4096" (kernel_details.csv, the database).
inline constexpr std::string_view kInputShapes = "Input Shapes";
inline constexpr std::string_view kOutputShapes = "Output Shapes";
/// An Ascend kernel's operator type, "MatMulV2" (kernel_details.csv, the database).
inline constexpr std::string_view kOpType = "OP Type";
/// An Ascend kernel's input data types, "FLOAT16;INT64" (kernel_details.csv, the msprof database).
inline constexpr std::string_view kInputDataTypes = "Input Data Types";
/// An Ascend AI-core task's PMU counters (kernel_details.csv / op_summary at Level1+ with aic_metrics; the database's
/// TASK_PMU_INFO), under kernel_details.csv's column names and units: the AI-core time per core in µs, the cycles
/// of all its cores, the share of that time the cube did multiply-adds (aic_mac_ratio; older
/// ArithmeticUtilization tables split it by type) and the share MTE2 moved data in, and the cube's busy share of
/// the whole chip over the task's duration (cube_utilization(%), text exports only).
inline constexpr std::string_view kAicoreTime = "aicore_time(us)";
inline constexpr std::string_view kAicTotalCycles = "aic_total_cycles";
inline constexpr std::string_view kAicMacRatio = "aic_mac_ratio";
inline constexpr std::string_view kAicMte2Ratio = "aic_mte2_ratio";
inline constexpr std::string_view kAicMacFp16Ratio = "aic_mac_fp16_ratio";
inline constexpr std::string_view kAicMacInt8Ratio = "aic_mac_int8_ratio";
inline constexpr std::string_view kCubeUtilization = "cube_utilization(%)";
/// An Ascend kernel's block count (the AI cores it ran on), kernel_details.csv's "Block Dim".
inline constexpr std::string_view kBlockDim = "Block Dim";
/// The Python call stack of a framework op, frames separated by ";" (Kineto with with_stack=True).
inline constexpr std::string_view kCallStack = "Call stack";
/// The id that joins a runtime launch to the device work it started (Kineto, torch_npu).
inline constexpr std::string_view kCorrelation = "correlation";
/// A Kineto `cuda_sync` event's stream: for a Stream Wait Event, the stream that waits.
inline constexpr std::string_view kStream = "stream";
/// A Stream Wait Event's stream whose recorded event it waits for.
inline constexpr std::string_view kWaitOnStream = "wait_on_stream";
/// The correlation id of the event-record call (cudaEventRecord) whose event a Stream Wait Event waits for.
inline constexpr std::string_view kWaitOnEventRecordCorrelation = "wait_on_cuda_event_record_corr_id";
} // namespace argnames

/// The counter track of a device's allocated memory, from the allocator's samples: "GPU 0 memory allocated" (the
/// host's: deviceIndex < 0, "CPU memory allocated").
inline std::string allocatedMemoryCounterName(long long deviceIndex)
{
    return deviceIndex < 0 ? std::string("CPU memory allocated")
                           : "GPU " + std::to_string(deviceIndex) + " memory allocated";
}

} // namespace timesink::model
