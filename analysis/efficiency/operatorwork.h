// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/efficiency/tensorshapes.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace timesink::analysis::efficiency {

/// The classes efficiency is summed by (issue 51): the matrix ones run on tensor/cube units at the peak of their
/// data type, the others on vector units and are judged against the FP32 rate and the memory bandwidth.
enum class WorkClass : std::uint8_t { Gemm, Attention, Conv, Elementwise, Normalization, Reduction };
inline constexpr std::size_t kWorkClassCount = 6;
/// "gemm", "attention", "conv", "elementwise", "normalization", "reduction".
std::string_view workClassKey(WorkClass c);
[[nodiscard]] inline bool isMatrixClass(WorkClass c)
{
    return c == WorkClass::Gemm || c == WorkClass::Attention || c == WorkClass::Conv;
}

/// What one call of an operator computes and moves, from its shapes and data types alone (no timing).
/// Bytes are the compulsory traffic: every input read once and every output written once.
struct OperatorWork
{
    double flops = 0.0; // floating-point (or integer MAC) operations; a multiply-add counts 2
    double bytes = 0.0;
    WorkClass workClass = WorkClass::Elementwise;
    DataType dtype = DataType::Unknown; // the type whose peak the arithmetic runs at
    std::string shapes;                 // describeShapes() of the tensor inputs
};

/// Work, or why it cannot be told ("recorded without record_shapes=True", "causal attention with N_Q != N_KV").
struct WorkEstimate
{
    std::optional<OperatorWork> work;
    std::string_view notAssessed; // a literal: millions of calls may share it
};

/// The PyTorch operators the model knows, by their Kineto names ("aten::mm",
/// "aten::_scaled_dot_product_flash_attention", "aten::convolution", "aten::add", …); Unknown for the rest.
enum class TorchOp : std::uint8_t {
    Unknown,
    Mm,
    Addmm,
    Bmm,
    Baddbmm,
    Matmul,
    Linear,
    SdpaFlash,     // aten::_scaled_dot_product_flash_attention(q, k, v, dropout_p, is_causal, …)
    SdpaEfficient, // aten::_scaled_dot_product_efficient_attention(q, k, v, attn_bias, lse, dropout_p, is_causal, …)
    SdpaCudnn,     // aten::_scaled_dot_product_cudnn_attention(q, k, v, attn_bias, lse, dropout_p, is_causal, …)
    SdpaMath,      // aten::scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal, …)
    SdpaFlashBackward, // aten::_scaled_dot_product_flash_attention_backward(grad_out, q, k, v, out, lse, …, is_causal)
    Convolution, // aten::convolution / aten::_convolution (input, weight, bias, stride, padding, dilation, transposed,
                 // …)
    CudnnConvolution,    // aten::cudnn_convolution (input, weight, padding, stride, dilation, groups, …)
    MiopenConvolution,   // aten::miopen_convolution (input, weight, bias, padding, stride, dilation, groups, …)
    ConvolutionBackward, // aten::convolution_backward(grad_out, input, weight, bias_sizes, stride, padding, …, mask)
    Unary,
    Binary,
    LayerNorm,
    RmsNorm,
    BatchNorm,
    GroupNorm,
    Softmax,
    Reduce,
};
TorchOp torchOpOf(std::string_view name);

/// The work of one Kineto operator call from its `Input Dims`, `Input type` and `Concrete Inputs` (the last two may be
/// empty). Nothing assessed when the op is Unknown or its dims are missing.
WorkEstimate torchWork(TorchOp op, const std::vector<Dims>& dims, const std::vector<std::string>& types,
                       const std::vector<std::string>& concrete);

/// The work of one Ascend device task from its kernel_details columns (`OP Type`, `Input Shapes`, `Input Data Types`,
/// `Output Shapes`): MatMul*/BatchMatMul*, Conv2D (NCHW or NC1HWC0 with a FRACTAL_Z or NCHW weight), elementwise and
/// normalisation types. FlashAttentionScore is not assessed: the layout's head count is not in the table.
WorkEstimate ascendWork(std::string_view opType, std::string_view inputShapes, std::string_view inputTypes,
                        std::string_view outputShapes);

/// Output spatial size of a convolution along one axis: floor((in + 2·pad − dil·(k − 1) − 1) / stride) + 1.
std::int64_t convOutputSize(std::int64_t in, std::int64_t kernel, std::int64_t stride, std::int64_t pad,
                            std::int64_t dilation);

} // namespace timesink::analysis::efficiency
