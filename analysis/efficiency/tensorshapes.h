// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace timesink::analysis::efficiency {

/// A tensor's dimensions; empty for a scalar or an argument that is not a tensor.
using Dims = std::vector<std::int64_t>;

/// Kineto's `Input Dims` (record_shapes=True), a JSON list of lists, one per argument:
///   "[[8944, 1024], [1024, 2816], [], []]" → {{8944, 1024}, {1024, 2816}, {}, {}}
/// Nested lists (a TensorList argument) keep only their first tensor. Nothing when the text is not such a list.
std::optional<std::vector<Dims>> parseKinetoDims(std::string_view text);

/// Kineto's `Input type` or `Concrete Inputs`: a JSON list of strings, "[\"c10::BFloat16\", \"Scalar\", \"\"]".
std::optional<std::vector<std::string>> parseKinetoStrings(std::string_view text);

/// Ascend `Input Shapes` / `Output Shapes` (kernel_details.csv, op_summary, the DB): tensors separated by `;`,
/// dimensions by `,`, an empty tensor for a scalar, optional surrounding quotes:
///   "\"32,9216;4096,9216;4096\"" → {{32, 9216}, {4096, 9216}, {4096}}
/// Nothing for "N/A" or text that is not numbers.
std::optional<std::vector<Dims>> parseAscendShapes(std::string_view text);

/// Ascend `Input Data Types`: "DT_BF16;DT_BF16;INT64" → {"DT_BF16", "DT_BF16", "INT64"}.
std::vector<std::string> splitAscendList(std::string_view text);

/// Product of the dimensions (1 for a scalar); 0 when one is negative or the product overflows 2^62.
std::int64_t elementCount(const Dims& d);

/// "[8944,1024]x[1024,2816]" for people and JSON: the tensor arguments only.
std::string describeShapes(const std::vector<Dims>& shapes);

/// What a number of elements of a type costs and which peak its arithmetic runs at.
/// Tf32 is never recorded: it is the peak an FP32 matrix operator is judged at when it ran faster than FP32 allows.
enum class DataType : std::uint8_t { Unknown, Fp64, Fp32, Tf32, Bf16, Fp16, Fp8, Int8, Int16, Int32, Int64, Bool };

/// Every spelling of the formats: Kineto ("float", "c10::BFloat16", "c10::Half", "c10::Float8_e4m3fn", "long int"),
/// Ascend ("FLOAT", "FLOAT16", "DT_BF16", "INT8"), RKNN ("INT8", "FLOAT16"). Unknown for anything else ("Scalar").
DataType parseDataType(std::string_view text);
/// Bytes per element; 0 for Unknown.
int bytesPerElement(DataType t);
/// "fp32", "bf16", "fp16", "fp8", "int8", … ("unknown").
std::string_view dataTypeKey(DataType t);

} // namespace timesink::analysis::efficiency
