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
/// The Python call stack of a framework op, frames separated by ";" (Kineto with with_stack=True).
inline constexpr std::string_view kCallStack = "Call stack";
/// The id that joins a runtime launch to the device work it started (Kineto, torch_npu).
inline constexpr std::string_view kCorrelation = "correlation";
} // namespace argnames

/// The counter track of a device's allocated memory, from the allocator's samples: "GPU 0 memory allocated" (the
/// host's: deviceIndex < 0, "CPU memory allocated").
inline std::string allocatedMemoryCounterName(long long deviceIndex)
{
    return deviceIndex < 0 ? std::string("CPU memory allocated")
                           : "GPU " + std::to_string(deviceIndex) + " memory allocated";
}

} // namespace timesink::model
